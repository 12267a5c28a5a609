// SPDX-License-Identifier: BSD-3-Clause
//! CUDA module registrations: [`NvshmemRuntime::register_module`] for a loaded module handle that
//! keeps its module alive ([`LoadedModule`]: CUDA-Oxide's `Arc<cuda_core::CudaModule>` with the
//! feature `cuda-oxide`), [`NvshmemRuntime::register_cumodule`] for a raw driver-API `CUmodule`, and
//! the guard both return ([`ModuleRegistration`]).

use std::fmt;

use crate::error::{Error, Result};
use crate::runtime::NvshmemRuntime;
use crate::sys;

/// A loaded CUDA module that [`NvshmemRuntime::register_module`] accepts; the registration keeps a
/// clone, so the module stays loaded until it is finalized.
///
/// # Safety
/// [`LoadedModule::cu_module`] is a loaded module for as long as this value (or a clone) lives, and
/// [`LoadedModule::bind_context`] makes that module's CUDA context current on the calling thread.
pub unsafe trait LoadedModule: Send + Sync + 'static {
    /// The raw driver-API handle (non-owning).
    fn cu_module(&self) -> sys::CUmodule;
    /// Makes the module's context current on this thread, for the registration's driver calls.
    fn bind_context(&self) -> Result<()>;
}

#[cfg(feature = "cuda-oxide")]
// SAFETY: the Arc keeps the module loaded (cuda-core unloads it with the last Arc); the context is
// the module's own.
unsafe impl LoadedModule for std::sync::Arc<cuda_core::CudaModule> {
    fn cu_module(&self) -> sys::CUmodule {
        // SAFETY: the handle is used only while this Arc (held by the registration) lives, with the
        // module's context bound first (bind_context), as cuda-core's contract asks.
        unsafe { self.as_ref().cu_module() as sys::CUmodule }
    }

    fn bind_context(&self) -> Result<()> {
        self.context().bind_to_thread().map_err(|e| {
            Error::new(
                sys::NVSHMEMX_ERROR_INTERNAL,
                "cuda_core::CudaContext::bind_to_thread",
                format!("cannot make the module's context current: {:?}", e),
            )
        })
    }
}

/// A raw `CUmodule` ([`NvshmemRuntime::register_cumodule`]): the caller keeps it loaded and its
/// context current.
struct RawModule(sys::CUmodule);

// SAFETY: a CUDA module handle may be used from any thread; register_cumodule's contract covers it.
unsafe impl Send for RawModule {}
unsafe impl Sync for RawModule {}

// SAFETY: register_cumodule's contract: loaded until the registration ends, context current.
unsafe impl LoadedModule for RawModule {
    fn cu_module(&self) -> sys::CUmodule {
        self.0
    }

    fn bind_context(&self) -> Result<()> {
        Ok(())
    }
}

impl NvshmemRuntime {
    /// Gives the kernels of `module` access to the device state (`nvshmemx_cumodule_init`), returning
    /// a guard that holds the runtime and a clone of `module` until [`ModuleRegistration::finalize`]
    /// or its drop unregisters the module (`nvshmemx_cumodule_finalize`). Every PE that loaded the
    /// module registers it, after init and before launching kernels that use NVSHMEM. Binds the
    /// module's context first. Errors: the context cannot be bound; the library's status, with this
    /// PE (`NVSHMEMX_ERROR_NOT_SUPPORTED` when the heap is in host memory, `NVSHMEMX_ERROR_INVALID_VALUE`
    /// for a module not compiled with `nvshmem.h`).
    ///
    /// # Safety
    /// Kernels of the module that call NVSHMEM run only while the guard lives (synchronise them
    /// before finalizing it).
    pub unsafe fn register_module<M: LoadedModule + Clone>(&self, module: &M) -> Result<ModuleRegistration> {
        self.register(Box::new(module.clone()))
    }

    /// [`NvshmemRuntime::register_module`] for a raw driver-API module (cubin, PTX, NVRTC).
    ///
    /// # Safety
    /// `module` is loaded until the guard is finalized or dropped, its context is current on the
    /// threads that register, finalize or drop, and its NVSHMEM kernels run only while the guard lives.
    pub unsafe fn register_cumodule(&self, module: sys::CUmodule) -> Result<ModuleRegistration> {
        self.register(Box::new(RawModule(module)))
    }

    fn register(&self, module: Box<dyn LoadedModule>) -> Result<ModuleRegistration> {
        module.bind_context()?;
        // SAFETY: a loaded module with its context current (LoadedModule's contract).
        let rc = unsafe { sys::nvshmemx_cumodule_init(module.cu_module()) };
        Error::check(
            rc,
            "nvshmemx_cumodule_init",
            format!(
                "PE {}: could not register module {:p}",
                self.my_pe(),
                module.cu_module()
            ),
        )?;
        Ok(ModuleRegistration {
            module,
            runtime: self.clone(),
            done: false,
        })
    }
}

/// A module's registration: holds the module (dropped first) and the runtime until it is
/// finalized, by [`ModuleRegistration::finalize`] (which reports errors) or by its drop (which
/// prints them). Neither copyable nor clonable.
pub struct ModuleRegistration {
    module: Box<dyn LoadedModule>,
    runtime: NvshmemRuntime,
    done: bool,
}

impl ModuleRegistration {
    /// Unregisters now (`nvshmemx_cumodule_finalize`, the module's context bound first), then
    /// releases the module and the runtime. Errors with the failing step; the registration counts as
    /// finalized all the same.
    pub fn finalize(mut self) -> Result<()> {
        self.done = true;
        self.unregister()
    }

    /// The registered module's raw handle.
    pub fn module(&self) -> sys::CUmodule {
        self.module.cu_module()
    }

    /// The runtime this registration keeps alive.
    pub fn runtime(&self) -> &NvshmemRuntime {
        &self.runtime
    }

    fn unregister(&self) -> Result<()> {
        self.module.bind_context()?;
        // SAFETY: the module is loaded (held) with its context current.
        let rc = unsafe { sys::nvshmemx_cumodule_finalize(self.module.cu_module()) };
        Error::check(
            rc,
            "nvshmemx_cumodule_finalize",
            format!(
                "PE {}: could not unregister module {:p}",
                self.runtime.my_pe(),
                self.module.cu_module()
            ),
        )
    }
}

impl fmt::Debug for ModuleRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModuleRegistration")
            .field("module", &self.module())
            .finish()
    }
}

impl Drop for ModuleRegistration {
    /// Unregisters unless [`ModuleRegistration::finalize`] ran, printing a failure to stderr; then
    /// releases the module and the runtime (which may finalize it: collective).
    fn drop(&mut self) {
        if !self.done {
            if let Err(e) = self.unregister() {
                eprintln!("ModuleRegistration dropped: {}", e);
            }
        }
    }
}
