#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Consumer tests of the installed library (docs/install.md), run by CTest (tests/package/CMakeLists.txt):
#   NVSHM_TEST_CUDA_ARCH=<arch> package_test.sh STEP BUILD_DIR SOURCE_DIR WORK_DIR   (the environment from CTest)
# STEP:
#   install    cmake --install into WORK_DIR/prefix; check the layout; run bin/nvshmem-info -a
#   cmake      build tests/package/consumer (copied out of the source tree) with find_package(NVSHMEM 3.8
#              REQUIRED), as C++ and as CUDA with -rdc=true + nvshmem::nvshmem_device; run both as 2 PEs
#              on the CPU backend; check the ConfigVersion rules against the NVSHMEM interface level
#              (same MAJOR, not older)
#   pkgconfig  the same program built with g++ $(pkg-config --cflags --libs nvshmem)
#   plain      the same program built with a plain nvcc line: -I, -L, -l
#   deb        cpack a .deb and a .tar.gz; check they hold the same files as the install; unpack the
#              .deb (dpkg-deb -x) and repeat the find_package and pkg-config builds against it. With
#              NVSHMEM_PACKAGE_TEST_DPKG=1 as root, also dpkg -i it, build against /usr/local/nvshmem,
#              and dpkg -r it again.
#   contrib    build every contrib/*/CMakeLists.txt (copied out of the source tree) against the install,
#              and run its tests; all but contrib/nvshmem4rust, which the rust step builds (contrib/nvshmem4py
#              is left out where Debian's pybind11, DLPack, numpy or pytest are missing)
#   rust       contrib/nvshmem4rust with its own configure lines: the host-only build writes exactly the
#              two host binding files; the full build generates the bindings and the crate's package
#              from the installed headers, builds the crate, its tests and a separate consumer project
#              with cargo --offline (Debian's crates) and runs them as 2 PEs under the installed
#              nvshmrun; skipped (77) without cargo and rustc
set -euo pipefail
step=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
work=$4
prefix=$work/prefix
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix
export NVSHMEM_HEAP_KIND=SYSMEM NVSHMEM_SYMMETRIC_SIZE=16m NVSHMEM_BOOTSTRAP_TIMEOUT=60
CUDA_BIN=$(dirname "$(grep -E '^CMAKE_CUDA_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2)")
# The library's architectures, for the consumers that link its device library.
CUDA_ARCHS=$(grep -E '^CMAKE_CUDA_ARCHITECTURES:' "$build/CMakeCache.txt" | cut -d= -f2)
export PATH=$CUDA_BIN:$PATH

say() { echo "== package_test $step: $*"; }
fail() {
  echo "package_test $step: FAILED: $*" >&2
  exit 1
}
need_file() { [[ -e $1 ]] || fail "missing $1"; }

# release_version MAJOR|MINOR|PATCH: our release, from the installed nvshmem_version.h.
release_version() { sed -nE "s/^#define NVSHM_RELEASE_$1 ([0-9]+)/\\1/p" "$prefix/include/nvshmem_version.h"; }
# interface_version MAJOR|MINOR|PATCH: the NVSHMEM interface level, from the same header.
interface_version() { sed -nE "s/^#define NVSHMEM_VENDOR_$1_VERSION ([0-9]+)/\\1/p" "$prefix/include/nvshmem_version.h"; }

# run_app ROOT APP: 2 PEs under ROOT/bin/nvshmrun; the program prints "consumer OK".
run_app() {
  local out
  out=$("$1/bin/nvshmrun" -n 2 --timeout 60 "$2" 2>&1) || fail "$2 under nvshmrun: $out"
  echo "$out"
  grep -q "consumer OK: 2 PEs" <<<"$out" || fail "$2 did not print 'consumer OK'"
}

# build_cmake ROOT NAME [cmake args]: the find_package build against the tree at ROOT.
build_cmake() {
  local root=$1 name=$2
  shift 2
  rm -rf "${work:?}/${name:?}" "$work/$name-src"
  cp -r "$src/tests/package/consumer" "$work/$name-src"
  cmake -S "$work/$name-src" -B "$work/$name" -G Ninja -DCMAKE_PREFIX_PATH="$root" "$@" >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; return 1; }
  cmake --build "$work/$name" >>"$work/$name.log" 2>&1 || { cat "$work/$name.log"; fail "building $name"; }
}

# build_pkgconfig ROOT OUT: g++ with the flags nvshmem.pc gives.
build_pkgconfig() {
  local flags
  flags=$(PKG_CONFIG_PATH=$1/lib/pkgconfig pkg-config --cflags --libs nvshmem) || fail "pkg-config nvshmem"
  say "pkg-config: $flags"
  # shellcheck disable=SC2086
  g++ -std=c++17 "$src/tests/package/consumer/app.cpp" $flags -Wl,-rpath,"$1/lib" -o "$2" || fail "g++ with pkg-config flags"
}

# A tool this step needs is missing (a machine other than CI): skip (CTest's skip code).
need_tool() {
  command -v "$1" >/dev/null || { echo "package_test $step: $1 not found; skipped" >&2; exit 77; }
}
case $step in
  pkgconfig) need_tool pkg-config ;;
  deb) need_tool pkg-config; need_tool dpkg-deb; need_tool cpack ;;
  rust)
    need_tool cargo; need_tool rustc
    # The crate's dependencies, offline: Debian's packaged crates (tools/setup.sh --all).
    for crate in libc libloading; do
      compgen -G "/usr/share/cargo/registry/$crate-*" >/dev/null ||
        { echo "package_test rust: Debian's librust-$crate-dev is not installed; skipped" >&2; exit 77; }
    done
    ;;
esac

# build_contrib NAME [cmake args]: contrib/NAME copied out of the source tree, configured against the
# install, built, and its CTest tests run with the installed bin/ first on PATH.
build_contrib() {
  local name=$1
  shift
  rm -rf "${work:?}/contrib/${name:?}" "$work/contrib/$name-build"
  mkdir -p "$work/contrib"
  cp -r "$src/contrib/$name" "$work/contrib/$name"
  say "building contrib/$name against $prefix"
  cmake -S "$work/contrib/$name" -B "$work/contrib/$name-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" "$@" ||
    fail "configuring contrib/$name"
  cmake --build "$work/contrib/$name-build" || fail "building contrib/$name"
  PATH=$prefix/bin:$PATH ctest --test-dir "$work/contrib/$name-build" --output-on-failure || fail "tests of contrib/$name"
}

case $step in
  install)
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
    for f in include/nvshmem.h include/nvshmemx.h include/nvshmem_host.h include/nvshmem_version.h \
      include/nvshmem_detail/types.h include/nvshmem_detail/version_registration.h lib/libnvshmem_device.a \
      include/non_abi/nvshmemx_error.h include/non_abi/nvshmem_version.h include/host/nvshmemx_api.h \
      include/device_host/nvshmem_common.cuh include/device/tile/nvshmemx_tile_api.hpp \
      lib/cmake/nvshmem/NVSHMEMConfig.cmake lib/cmake/nvshmem/NVSHMEMConfigVersion.cmake \
      lib/cmake/nvshmem/NVSHMEMTargets.cmake lib/pkgconfig/nvshmem.pc bin/nvshmrun bin/nvshmem-info \
      share/doc/nvshmem/LICENSE; do
      need_file "$prefix/$f"
    done
    # libnvshmem_host.so -> .so.MAJOR -> .so.MAJOR.MINOR.PATCH, of our release (not NVIDIA's SONAME)
    major=$(release_version MAJOR) minor=$(release_version MINOR) patch=$(release_version PATCH)
    api=$(interface_version MAJOR).$(interface_version MINOR).$(interface_version PATCH)
    [[ $(readlink "$prefix/lib/libnvshmem_host.so") == libnvshmem_host.so.$major ]] || fail "libnvshmem_host.so link"
    [[ $(readlink "$prefix/lib/libnvshmem_host.so.$major") == libnvshmem_host.so.$major.$minor.$patch ]] ||
      fail "libnvshmem_host.so.$major link"
    need_file "$prefix/lib/libnvshmem_host.so.$major.$minor.$patch"
    # Only the allowlisted headers: nothing of src/ (internal headers) is installed; the folders of
    # NVIDIA's installed layout hold thin headers of ours (docs/compatibility.md).
    allowed='^\./(nvshmem\.h|nvshmemx\.h|nvshmem_host\.h|nvshmem_version\.h|nvshmem_detail/.*|nvshmem/.*'
    allowed+='|(host|device|device_host|bootstrap_device_host|non_abi)/.*)$'
    extra=$(cd "$prefix/include" && { find . -type f | grep -Ev "$allowed" || true; })
    [[ -z $extra ]] || fail "headers outside the allowlist installed: $extra"
    # Perftests and examples keep their source folders under $NVSHMEM_PERFTEST_INSTALL / $NVSHMEM_EXAMPLES_INSTALL.
    cache() { sed -nE "s/^$1:[A-Z]+=(.*)/\\1/p" "$build/CMakeCache.txt"; }
    under_prefix() { if [[ $1 == /* ]]; then echo "$1"; else echo "$prefix/$1"; fi; }
    if [[ $(cache NVSHMEM_BUILD_PERFTESTS) == ON ]]; then
      dir=$(under_prefix "$(cache NVSHMEM_PERFTEST_INSTALL)")
      need_file "$dir/device/pt-to-pt/shmem_put_bw"
      need_file "$dir/host/pt-to-pt/bw"
    fi
    if [[ $(cache NVSHMEM_BUILD_EXAMPLES) == ON ]]; then
      dir=$(under_prefix "$(cache NVSHMEM_EXAMPLES_INSTALL)")
      need_file "$dir/heat1d"
      need_file "$dir/cpp_ring"
      "$prefix/bin/nvshmrun" -n 2 --timeout 60 "$dir/heat1d" >/dev/null || fail "installed heat1d (RPATH?)"
      "$prefix/bin/nvshmrun" -n 2 --timeout 60 "$dir/cpp_halo" 256 50 >/dev/null || fail "installed cpp_halo (RPATH?)"
    fi
    out=$("$prefix/bin/nvshmem-info" -a) || fail "nvshmem-info -a"
    echo "$out"
    grep -q "NVSHMEM_SYMMETRIC_SIZE" <<<"$out" || fail "nvshmem-info -a has no environment table"
    grep -q "library release *$major.$minor.$patch" <<<"$out" || fail "nvshmem-info -a shows the wrong release"
    grep -q "library NVSHMEM API level *$api" <<<"$out" || fail "nvshmem-info -a shows the wrong API level"
    grep -q "^Version: $api$" "$prefix/lib/pkgconfig/nvshmem.pc" || fail "nvshmem.pc: Version is not $api"
    grep -q "^release=$major.$minor.$patch$" "$prefix/lib/pkgconfig/nvshmem.pc" || fail "nvshmem.pc: no release"
    say "layout OK in $prefix (release $major.$minor.$patch, NVSHMEM API level $api)"
    ;;
  cmake)
    # Also as CUDA with -rdc=true and nvshmem::nvshmem_device (app_rdc), as NVIDIA's users build.
    build_cmake "$prefix" cmake-app -DNVSHMEM_CONSUMER_RDC=ON -DCMAKE_CUDA_COMPILER="$CUDA_BIN/nvcc" \
      -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS"
    run_app "$prefix" "$work/cmake-app/app"
    run_app "$prefix" "$work/cmake-app/app_rdc"
    grep -q "NVSHMEM $(interface_version MAJOR)\.$(interface_version MINOR)\.[0-9]* (release $(release_version MAJOR)\.$(release_version MINOR)\.[0-9]*) found for 3.8" \
      "$work/cmake-app.log" || fail "NVSHMEM_VERSION / NVSHMEM_RELEASE_VERSION of find_package(NVSHMEM 3.8)"
    # The package version is the interface level (3.x): older MINORs of that MAJOR are accepted (code in the
    # field asks for 3.2), a newer MINOR or another MAJOR is refused.
    major=$(interface_version MAJOR) minor=$(interface_version MINOR)
    for want in "$major.$minor" "$major.2" "$major.0"; do
      build_cmake "$prefix" cmake-accept -DNVSHMEM_WANT_VERSION="$want" || fail "find_package(NVSHMEM $want) refused"
    done
    for want in "$major.$((minor + 1))" "$((major + 1)).0"; do
      if build_cmake "$prefix" cmake-refuse -DNVSHMEM_WANT_VERSION="$want" >/dev/null 2>&1; then
        fail "find_package(NVSHMEM $want) accepted a $major.$minor install"
      fi
    done
    say "find_package(NVSHMEM 3.8) build OK; ConfigVersion accepts $major.$minor, $major.2, $major.0, refuses $major.$((minor + 1)) and $((major + 1)).0"
    ;;
  pkgconfig)
    # The CUDA include folder in Cflags is the toolkit CMake found (the nvcc the tests use), not a fixed path.
    cuda_inc=$(realpath "$(dirname "$(command -v nvcc)")/../include")
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags nvshmem | tr ' ' '\n' | sed -n 's/^-I//p' |
      xargs -r realpath | grep -qxF "$cuda_inc" || fail "nvshmem.pc: no -I$cuda_inc (the toolkit's include folder)"
    build_pkgconfig "$prefix" "$work/pkgconfig-app"
    run_app "$prefix" "$work/pkgconfig-app"
    ;;
  plain)
    nvcc -std=c++17 -I"$prefix/include" "$src/tests/package/consumer/app.cpp" -L"$prefix/lib" -lnvshmem_host \
      -Xlinker -rpath -Xlinker "$prefix/lib" -o "$work/plain-app" || fail "plain nvcc line"
    run_app "$prefix" "$work/plain-app"
    ;;
  deb)
    rm -rf "$work/pkg" "$work/deb-root" "$work/tgz-root"
    (cd "$build" && cpack -G "DEB;TGZ" -B "$work/pkg" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
    deb=$(ls "$work"/pkg/*.deb)
    tgz=$(ls "$work"/pkg/*.tar.gz)
    dpkg-deb -I "$deb"
    mkdir -p "$work/deb-root" "$work/tgz-root"
    dpkg-deb -x "$deb" "$work/deb-root"
    tar -xzf "$tgz" -C "$work/tgz-root"
    root=$work/deb-root/usr/local/nvshmem
    need_file "$root/lib/cmake/nvshmem/NVSHMEMConfig.cmake"
    # The .deb, the .tar.gz and `cmake --install` hold the same files.
    list() { (cd "$1" && find . \( -type f -o -type l \) | sort); }
    diff <(list "$root") <(list "$prefix") || fail "the .deb and the installed tree differ"
    diff <(list "$work"/tgz-root/*) <(list "$prefix") || fail "the .tar.gz and the installed tree differ"
    build_cmake "$root" deb-cmake-app
    run_app "$root" "$work/deb-cmake-app/app"
    build_pkgconfig "$root" "$work/deb-pkgconfig-app"
    run_app "$root" "$work/deb-pkgconfig-app"
    if [[ ${NVSHMEM_PACKAGE_TEST_DPKG:-0} == 1 && $(id -u) == 0 ]]; then
      dpkg -i "$deb"
      build_cmake /usr/local/nvshmem dpkg-cmake-app
      run_app /usr/local/nvshmem "$work/dpkg-cmake-app/app"
      dpkg -r nvshmem
    fi
    say ".deb and .tar.gz OK: $(basename "$deb"), $(basename "$tgz")"
    ;;
  contrib)
    n=0
    for dir in "$src"/contrib/*/; do
      name=$(basename "$dir")
      [[ -f $dir/CMakeLists.txt && $name != nvshmem4rust ]] || continue
      # nvshmem4py needs Debian's pybind11, DLPack, numpy and pytest (tools/setup.sh --all).
      if [[ $name == nvshmem4py ]] && ! { [[ -f /usr/include/dlpack/dlpack.h && -d /usr/lib/cmake/pybind11 ]] &&
        /usr/bin/python3 -c 'import numpy, pytest' 2>/dev/null; }; then
        say "contrib/nvshmem4py skipped: pybind11-dev, libdlpack-dev, python3-numpy or python3-pytest missing"
        continue
      fi
      build_contrib "$name"
      n=$((n + 1))
    done
    say "$n contrib project(s) built against the installed tree"
    ;;
  rust)
    # Host-only: build_bindings_rust writes exactly the two host files.
    host_only=$work/contrib/nvshmem4rust-host
    rm -rf "$host_only"
    cmake -S "$src/contrib/nvshmem4rust" -B "$host_only" -G Ninja -DNVSHMEM_SOURCE_DIR="$src" -DNVSHMEM_HOME="$prefix" \
      -DNVSHMEM_CUDA_HOME="$(dirname "$CUDA_BIN")" -DNVSHMEM_BUILD_RUST_HOST_ONLY=ON >"$work/rust-host-only.log" ||
      { cat "$work/rust-host-only.log"; fail "configuring the host-only Rust build"; }
    cmake --build "$host_only" --target build_bindings_rust >>"$work/rust-host-only.log" ||
      { cat "$work/rust-host-only.log"; fail "build_bindings_rust (host-only)"; }
    generated=$(cd "$host_only/generated" && printf '%s ' *)
    [[ $generated == "nvshmem_host.rs nvshmem_host_api.rs " ]] ||
      fail "host-only output is not exactly nvshmem_host.rs and nvshmem_host_api.rs: $generated"
    # The full build: bindings, the crate's package, its tests and the consumer project, as 2 PEs.
    build_contrib nvshmem4rust -DNVSHMEM_SOURCE_DIR="$src" -DNVSHMEM_HOME="$prefix" \
      -DNVSHMEM_CUDA_HOME="$(dirname "$CUDA_BIN")" -DNVSHMEM_RUST_TEST_ARCH="sm_${NVSHM_TEST_CUDA_ARCH:?set by CTest}"
    for f in nvshmem_host.rs nvshmem_host_api.rs nvshmem_device_cuda_oxide.rs nvshmem_host_runtime/Cargo.toml; do
      need_file "$work/contrib/nvshmem4rust-build/generated/$f"
    done
    say "the nvshmem crate built with $(cargo --version) and tested as 2 PEs"
    ;;
  *)
    fail "unknown step $step"
    ;;
esac
