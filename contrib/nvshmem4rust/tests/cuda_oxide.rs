// SPDX-License-Identifier: BSD-3-Clause
//! `register_module` with CUDA-Oxide's module type (feature `cuda-oxide`, built when CMake was given
//! NVSHMEM_CUDA_OXIDE_ROOT: a CUDA-Oxide checkout, or tests/cuda_oxide_standin), as 2 PEs under
//! nvshmrun. CPU backend: the registration fails with the library's error and keeps nothing alive;
//! GPU heap: the guard holds the module and the runtime until finalize or drop.

use std::sync::Arc;

use cuda_core::CudaContext;
use nvshmem::{InitMethod, NvshmemRuntime};

/// The device this PE's runtime uses on one node: its PE number modulo the visible devices (several
/// PEs may share one); 0 without a CUDA driver (the stand-in's empty context).
fn device_of(me: i32) -> usize {
    use std::os::raw::c_int;
    // SAFETY: the driver's C functions, typed as their declarations.
    unsafe {
        let cuda = match libloading::os::unix::Library::open(Some("libcuda.so.1"), libloading::os::unix::RTLD_NOW) {
            Ok(lib) => lib,
            Err(_) => return 0,
        };
        let init = cuda.get::<unsafe extern "C" fn(u32) -> c_int>(b"cuInit\0").unwrap();
        let count = cuda
            .get::<unsafe extern "C" fn(*mut c_int) -> c_int>(b"cuDeviceGetCount\0")
            .unwrap();
        let mut n: c_int = 0;
        if init(0) != 0 || count(&mut n) != 0 || n == 0 {
            return 0;
        }
        (me % n) as usize
    }
}

#[test]
fn register_cuda_oxide_module() {
    let rt = NvshmemRuntime::init(InitMethod::BootstrapEnv, None).unwrap();
    let me = rt.my_pe();
    let ctx = match CudaContext::new(device_of(me)) {
        Ok(ctx) => ctx,
        Err(e) => return eprintln!("register_cuda_oxide_module: no CUDA context ({:?}); skipped", e),
    };
    let cubin = std::env::var("NVSHM_RUST_TEST_CUBIN").unwrap_or_default();
    let module = ctx
        .load_module_from_file(&cubin)
        .expect("the test cubin (NVSHM_RUST_TEST_CUBIN)");
    let result = unsafe { rt.register_module(&module) };
    if !rt.heap_on_device() {
        let err = result.unwrap_err();
        assert_eq!(err.status, nvshmem::sys::NVSHMEMX_ERROR_NOT_SUPPORTED, "{}", err);
        assert!(err.message.contains(&format!("PE {}", me)), "{}", err);
        assert_eq!(Arc::strong_count(&module), 1, "a failed registration keeps no clone");
        rt.barrier_all();
        return;
    }
    let registration = result.unwrap();
    assert_eq!(Arc::strong_count(&module), 2, "the guard holds the module");
    drop(rt);
    assert!(NvshmemRuntime::is_live(), "the guard holds the runtime");
    registration.runtime().barrier_all();
    registration.finalize().unwrap();
    assert_eq!(Arc::strong_count(&module), 1);
    assert!(!NvshmemRuntime::is_live(), "finalize released the last owner");
}
