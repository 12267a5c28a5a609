// SPDX-License-Identifier: BSD-3-Clause
//! A stand-in for CUDA-Oxide's `cuda-core` with the module type shape the `nvshmem` crate uses
//! (README.md of the stand-in checkout): contexts, modules loaded from files, the raw module handle.

use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::sync::Arc;

use libloading::os::unix::{Library, Symbol, RTLD_GLOBAL, RTLD_NOW};

/// The driver's handle types, as CUDA-Oxide's bindings spell them.
#[allow(non_camel_case_types)]
pub mod cuda_bindings {
    /// The driver's opaque module.
    pub enum CUmod_st {}
    /// A driver-API module handle.
    pub type CUmodule = *mut CUmod_st;
    /// A driver-API context handle.
    pub type CUcontext = *mut std::os::raw::c_void;
}

/// A failed driver call: its name and result code.
#[derive(Debug)]
pub struct DriverError(pub String);

fn driver_call(name: &str, rc: c_int) -> Result<(), DriverError> {
    if rc == 0 {
        Ok(())
    } else {
        Err(DriverError(format!("{} returned {}", name, rc)))
    }
}

/// A device's primary context (empty without a CUDA driver).
pub struct CudaContext {
    ctx: cuda_bindings::CUcontext,
    driver: Option<Library>,
}

// SAFETY: a context handle may be made current on any thread.
unsafe impl Send for CudaContext {}
unsafe impl Sync for CudaContext {}

impl CudaContext {
    /// The primary context of device `ordinal`; without a CUDA driver, an empty context.
    pub fn new(ordinal: usize) -> Result<Arc<CudaContext>, DriverError> {
        // SAFETY: the driver's C functions, typed as their declarations.
        unsafe {
            let driver = match Library::open(Some("libcuda.so.1"), RTLD_NOW | RTLD_GLOBAL) {
                Ok(lib) => lib,
                Err(_) => {
                    return Ok(Arc::new(CudaContext {
                        ctx: std::ptr::null_mut(),
                        driver: None,
                    }))
                }
            };
            let init: Symbol<unsafe extern "C" fn(c_uint) -> c_int> = sym(&driver, b"cuInit\0")?;
            let retain: Symbol<unsafe extern "C" fn(*mut *mut c_void, c_int) -> c_int> =
                sym(&driver, b"cuDevicePrimaryCtxRetain\0")?;
            driver_call("cuInit", init(0))?;
            let mut ctx = std::ptr::null_mut();
            driver_call("cuDevicePrimaryCtxRetain", retain(&mut ctx, ordinal as c_int))?;
            Ok(Arc::new(CudaContext {
                ctx,
                driver: Some(driver),
            }))
        }
    }

    /// Makes this context current on the calling thread (nothing without a driver).
    pub fn bind_to_thread(&self) -> Result<(), DriverError> {
        match &self.driver {
            // SAFETY: cuCtxSetCurrent(CUcontext).
            Some(driver) => unsafe {
                let set: Symbol<unsafe extern "C" fn(*mut c_void) -> c_int> = sym(driver, b"cuCtxSetCurrent\0")?;
                driver_call("cuCtxSetCurrent", set(self.ctx))
            },
            None => Ok(()),
        }
    }

    /// Loads a cubin or PTX file into this context (a null handle without a driver).
    pub fn load_module_from_file(self: &Arc<Self>, filename: &str) -> Result<Arc<CudaModule>, DriverError> {
        let mut module: cuda_bindings::CUmodule = std::ptr::null_mut();
        if let Some(driver) = &self.driver {
            self.bind_to_thread()?;
            let path = std::ffi::CString::new(filename).map_err(|_| DriverError("NUL in the path".to_string()))?;
            // SAFETY: cuModuleLoad(CUmodule *, const char *).
            unsafe {
                let load: Symbol<unsafe extern "C" fn(*mut cuda_bindings::CUmodule, *const c_char) -> c_int> =
                    sym(driver, b"cuModuleLoad\0")?;
                driver_call("cuModuleLoad", load(&mut module, path.as_ptr()))?;
            }
        }
        Ok(Arc::new(CudaModule {
            cu_module: module,
            ctx: self.clone(),
        }))
    }
}

/// A loaded module; unloaded when the last `Arc` drops.
pub struct CudaModule {
    cu_module: cuda_bindings::CUmodule,
    ctx: Arc<CudaContext>,
}

// SAFETY: a module handle may be used from any thread with its context bound.
unsafe impl Send for CudaModule {}
unsafe impl Sync for CudaModule {}

impl CudaModule {
    /// The context the module was loaded into.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The raw handle, non-owning.
    ///
    /// # Safety
    /// Valid while this module lives; the caller binds its context before driver calls.
    pub unsafe fn cu_module(&self) -> cuda_bindings::CUmodule {
        self.cu_module
    }
}

impl Drop for CudaModule {
    fn drop(&mut self) {
        if let (Some(driver), false) = (&self.ctx.driver, self.cu_module.is_null()) {
            // SAFETY: cuModuleUnload(CUmodule) of a module this value loaded. Errors are ignored at drop.
            unsafe {
                if self.ctx.bind_to_thread().is_ok() {
                    if let Ok(unload) =
                        sym::<unsafe extern "C" fn(cuda_bindings::CUmodule) -> c_int>(driver, b"cuModuleUnload\0")
                    {
                        unload(self.cu_module);
                    }
                }
            }
        }
    }
}

/// A driver symbol, typed by the caller.
unsafe fn sym<T>(driver: &Library, name: &[u8]) -> Result<Symbol<T>, DriverError> {
    driver
        .get(name)
        .map_err(|e| DriverError(format!("{}: {}", String::from_utf8_lossy(name), e)))
}
