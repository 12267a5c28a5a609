// SPDX-License-Identifier: BSD-3-Clause
// Compiling kernels that use NVSHMEM with NVRTC (run-time compilation). NVRTC has no C library or
// CUDA runtime headers; the NVSHMEM headers include a few of them for their host declarations. This
// header supplies minimal in-memory stand-ins (fixed-width integer types with this platform's LP64
// definitions, size_t, the CUDA handle types) and the options NVRTC needs:
//
//   const nvshmem::rtc::Headers h = nvshmem::rtc::headers();
//   nvrtcCreateProgram(&prog, source, "kernel.cu", h.count(), h.sources.data(), h.names.data());
//   std::vector<std::string> opts = nvshmem::rtc::options({"/path/to/nvshmem/include", <generated dir>});
//   opts.push_back("-arch=sm_90");   // then nvrtcCompileProgram, nvrtcGetCUBIN, cuModuleLoadData,
//                                     // Runtime::register_module (nvshmem/runtime.hpp)
//
// Put the CUDA toolkit's include directory last (cuda_fp16.h, cuda_bf16.h come from there; the
// in-memory headers take precedence over its cuda.h, which needs the C library).
// The kernel source includes <nvshmem.h> (C device API) and/or <nvshmem/device.hpp> (generic C++
// device API, which needs no standard header). Host code only; no NVRTC link needed for this header.
#pragma once

#include <string>
#include <vector>

namespace nvshmem {
namespace rtc {

static_assert(sizeof(long) == 8 && sizeof(void *) == 8, "nvshmem::rtc: the stand-in headers assume LP64");

/// In-memory headers for nvrtcCreateProgram: names[i] is the include name of sources[i]. The strings
/// are static; the vectors are owned by the caller. Thread safe.
struct Headers {
  std::vector<const char *> names;
  std::vector<const char *> sources;
  int count() const { return static_cast<int>(names.size()); }
};

/// The stand-in headers (stdint.h, stddef.h, cstdint, cstddef, the empty C library headers, cuda.h,
/// cuda_runtime_api.h, type_traits) for nvrtcCreateProgram. Local, thread safe, no runtime needed;
/// throws std::bad_alloc only.
inline Headers headers() {
  static const char *const stdint_h =
      "#pragma once\n"
      "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long int64_t;\n"
      "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n"
      "typedef unsigned long uint64_t; typedef long intptr_t; typedef unsigned long uintptr_t;\n"
      "#define INT32_MAX 2147483647\n#define INT64_MAX 9223372036854775807L\n"
      "#define UINT32_MAX 4294967295u\n#define UINT64_MAX 18446744073709551615ul\n#define SIZE_MAX UINT64_MAX\n";
  static const char *const stddef_h =
      "#pragma once\ntypedef unsigned long size_t; typedef long ptrdiff_t;\n"
      "#ifndef NULL\n#define NULL 0\n#endif\n";
  static const char *const empty = "#pragma once\n";
  // The few <type_traits> names the device headers use.
  static const char *const type_traits =
      "#pragma once\nnamespace std {\n"
      "template <class T, T v> struct integral_constant { static constexpr T value = v; };\n"
      "typedef integral_constant<bool, true> true_type; typedef integral_constant<bool, false> false_type;\n"
      "template <bool B, class A, class C> struct conditional { typedef A type; };\n"
      "template <class A, class C> struct conditional<false, A, C> { typedef C type; };\n"
      "template <class A, class C> struct is_same : false_type {};\n"
      "template <class A> struct is_same<A, A> : true_type {};\n"
      "template <bool B, class T = void> struct enable_if {};\n"
      "template <class T> struct enable_if<true, T> { typedef T type; };\n"
      "}\n";
  static const char *const cuda_h =
      "#pragma once\ntypedef struct CUmod_st *CUmodule;\ntypedef struct CUlib_st *CUlibrary;\n";
  static const char *const cuda_runtime_api_h = "#pragma once\ntypedef struct CUstream_st *cudaStream_t;\n";
  Headers h;
  const char *const names[] = {"stdint.h",   "stddef.h", "cstdint",  "cstddef", "cstdio",
                               "cstring",    "stdio.h",  "string.h", "cuda.h",  "cuda_runtime_api.h",
                               "type_traits"};
  const char *const sources[] = {stdint_h, stddef_h, stdint_h, stddef_h,           empty,      empty,
                                 empty,    empty,    cuda_h,   cuda_runtime_api_h, type_traits};
  for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    h.names.push_back(names[i]);
    h.sources.push_back(sources[i]);
  }
  return h;
}

/// Options for nvrtcCompileProgram: C++17, unannotated functions as device functions (the host API's
/// declarations are then inert declarations, never called by device code), and -I for each of
/// `include_dirs` (NVSHMEM's include directory, and the directory holding the generated
/// nvshmem_version.h when it is not the same). Add -arch yourself. Local, thread safe; throws
/// std::bad_alloc only.
inline std::vector<std::string> options(const std::vector<std::string> &include_dirs) {
  std::vector<std::string> opts = {"-std=c++17", "-default-device"};
  for (const std::string &dir : include_dirs) opts.push_back("-I" + dir);
  return opts;
}

}  // namespace rtc
}  // namespace nvshmem
