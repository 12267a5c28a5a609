// SPDX-License-Identifier: BSD-3-Clause
//! Links `libnvshmem_host.so` from `NVSHMEM_HOST_LIB_DIR` (the folder that holds it), or from the
//! linker's default folders when the variable is not set. At run time the dynamic loader finds the
//! library (`LD_LIBRARY_PATH`, an rpath, the loader's cache); `NVSHMEM_HOST_LIB_PATH` names the copy the
//! crate re-opens with global visibility (src/library.rs).

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=NVSHMEM_HOST_LIB_DIR");
    match env::var("NVSHMEM_HOST_LIB_DIR") {
        Ok(dir) => {
            let lib = Path::new(&dir).join("libnvshmem_host.so");
            if !lib.exists() {
                panic!("NVSHMEM_HOST_LIB_DIR={}: there is no {}", dir, lib.display());
            }
            println!("cargo:rerun-if-changed={}", lib.display());
            println!("cargo:rustc-link-search=native={}", dir);
        }
        Err(_) => println!(
            "cargo:warning=NVSHMEM_HOST_LIB_DIR is not set: linking libnvshmem_host.so from the linker's default folders"
        ),
    }
    println!("cargo:rustc-link-lib=dylib=nvshmem_host");
}
