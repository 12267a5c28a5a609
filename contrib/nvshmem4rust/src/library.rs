// SPDX-License-Identifier: BSD-3-Clause
//! The host library `libnvshmem_host.so`: linked at build time, re-opened with global visibility at
//! run time.
//!
//! The crate links the library (its build script takes the folder from `NVSHMEM_HOST_LIB_DIR`); the
//! dynamic loader finds it at run time through `LD_LIBRARY_PATH`, an rpath or the loader's cache. The
//! first [`open`] (which [`crate::NvshmemRuntime::init`] and [`crate::UniqueId::generate`] call)
//! re-opens that same library with `dlopen(RTLD_NOW | RTLD_GLOBAL)`, so that libraries loaded later
//! (MPI or PMIx plugins the runtime opens, other code built against `nvshmem_host.h`) bind to this copy
//! of the runtime even when this crate lives in a module that was itself opened with `RTLD_LOCAL`:
//! - `NVSHMEM_HOST_LIB_PATH` (run time), when set, names the file to re-open. It must be the copy the
//!   loader already linked: another copy would be a second runtime, and [`open`] refuses it.
//! - Otherwise the file the loader linked (`dladdr`).
//!
//! [`open`] also registers the version of the headers the bindings were generated from, as every C
//! unit that includes `nvshmem_host.h` does, so that init refuses an incompatible library
//! (docs/versioning.md).

use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::sync::Mutex;

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};

use crate::error::{Error, Result};
use crate::sys;

/// Whether [`open`] has succeeded in this process.
static OPENED: Mutex<bool> = Mutex::new(false);

fn open_error(message: String) -> Error {
    Error::new(sys::NVSHMEMX_ERROR_INTERNAL, "nvshmem::library::open", message)
}

/// The file the dynamic loader linked `libnvshmem_host.so` from.
pub fn linked_path() -> Result<String> {
    // SAFETY: dladdr on the address of a linked function, with a zeroed out-parameter.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let found = unsafe { libc::dladdr(sys::nvshmem_init as *const c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return Err(open_error(
            "dladdr does not know which file defines nvshmem_init".to_string(),
        ));
    }
    // SAFETY: dladdr's file name is a NUL-terminated string owned by the loader.
    Ok(unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned())
}

/// Re-opens the linked library with global visibility (once per process) and registers the headers'
/// version. Thread safe. Errors with `NVSHMEMX_ERROR_INTERNAL` when `NVSHMEM_HOST_LIB_PATH` does not
/// open, or names another copy of the library than the linked one (the message names both files).
pub fn open() -> Result<()> {
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    if *opened {
        return Ok(());
    }
    let linked = linked_path()?;
    let path = std::env::var("NVSHMEM_HOST_LIB_PATH").unwrap_or_else(|_| linked.clone());
    // SAFETY: the library is already loaded (linked); opening it again runs no new initialisers.
    let lib = unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_GLOBAL) }
        .map_err(|e| open_error(format!("cannot open {} (NVSHMEM_HOST_LIB_PATH): {}", path, e)))?;
    // SAFETY: symbol look-ups, typed as their C declarations; compared by address only.
    let same = unsafe { lib.get::<unsafe extern "C" fn()>(b"nvshmem_init\0") }
        .map(|f| *f as *const () == sys::nvshmem_init as *const ())
        .unwrap_or(false);
    if !same {
        return Err(open_error(format!(
            "NVSHMEM_HOST_LIB_PATH={} is another copy of the library than the one this program is linked with ({}): \
             point LD_LIBRARY_PATH at the folder of the one to use",
            path, linked
        )));
    }
    // SAFETY: nvshm_register_header_version(int, int, int) of nvshmem_detail/version_registration.h.
    if let Ok(register) =
        unsafe { lib.get::<unsafe extern "C" fn(c_int, c_int, c_int)>(b"nvshm_register_header_version\0") }
    {
        unsafe {
            register(
                sys::NVSHM_RELEASE_MAJOR,
                sys::NVSHM_RELEASE_MINOR,
                sys::NVSHM_RELEASE_PATCH,
            )
        };
    }
    // The library stays loaded (and globally visible) for the life of the process.
    std::mem::forget(lib);
    *opened = true;
    Ok(())
}
