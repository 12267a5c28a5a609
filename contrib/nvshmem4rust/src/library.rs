// SPDX-License-Identifier: BSD-3-Clause
//! Opening `libnvshmem_host.so` at run time.
//!
//! The crate does not link the library: the first call that needs it ([`open`], which
//! [`crate::NvshmemRuntime::init`] and every [`crate::sys`] function call) opens it with
//! `dlopen(RTLD_NOW | RTLD_GLOBAL)` and resolves every host function once. `RTLD_GLOBAL` puts its
//! symbols in the process's global scope, as a linked library's would be, so that libraries loaded
//! later (MPI or PMIx plugins the runtime opens, other code built against `nvshmem_host.h`) bind to
//! this same copy of the runtime. Where it comes from, in order:
//! 1. `NVSHMEM_HOST_LIB_PATH` (run time): that exact file; no fallback when it fails;
//! 2. `libnvshmem_host.so`, then `libnvshmem_host.so.MAJOR` (our release's MAJOR, `NVSHM_RELEASE_MAJOR`),
//!    by name: `LD_LIBRARY_PATH`, the loader's cache and default folders;
//! 3. `NVSHMEM_HOST_LIB_DIR` (build time, when it was set): `<dir>/libnvshmem_host.so`, like an rpath.
//!
//! Once open, the library stays loaded for the life of the process. The crate registers the version
//! of the headers its bindings were generated from, as every C unit that includes `nvshmem_host.h`
//! does, so that init refuses an incompatible library (docs/versioning.md).

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::sys::{self, HostApi};

#[link(name = "dl")]
extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
const RTLD_NOW: c_int = 0x2;
const RTLD_GLOBAL: c_int = 0x100;

/// The resolved functions, set once (leaked: the library is never closed).
static API: AtomicPtr<HostApi> = AtomicPtr::new(ptr::null_mut());
/// Serialises the first open.
static OPENING: Mutex<()> = Mutex::new(());

/// The folder of `libnvshmem_host.so` given at build time (`NVSHMEM_HOST_LIB_DIR`), if any.
pub const BUILD_LIB_DIR: Option<&str> = option_env!("NVSHMEM_HOST_LIB_DIR");

fn try_open(name: &str) -> std::result::Result<*mut c_void, String> {
    let c_name = CString::new(name).map_err(|_| format!("{}: the path contains a NUL byte", name))?;
    // SAFETY: dlopen/dlerror with a valid C string; dlerror's string is copied at once.
    unsafe {
        let handle = dlopen(c_name.as_ptr(), RTLD_NOW | RTLD_GLOBAL);
        if handle.is_null() {
            let err = dlerror();
            let why = if err.is_null() {
                "unknown error".to_string()
            } else {
                CStr::from_ptr(err).to_string_lossy().into_owned()
            };
            Err(why)
        } else {
            Ok(handle)
        }
    }
}

/// The candidates of the search order above, first to last.
fn candidates() -> Vec<String> {
    if let Ok(path) = std::env::var("NVSHMEM_HOST_LIB_PATH") {
        return vec![path];
    }
    let mut names = vec![
        "libnvshmem_host.so".to_string(),
        format!("libnvshmem_host.so.{}", sys::NVSHM_RELEASE_MAJOR),
    ];
    if let Some(dir) = BUILD_LIB_DIR {
        names.push(format!("{}/libnvshmem_host.so", dir));
    }
    names
}

/// Opens the library (once per process) and resolves the host API. Thread safe. Errors with
/// `NVSHMEMX_ERROR_INTERNAL`, naming every candidate and why it failed, when none opens.
pub fn open() -> Result<()> {
    loaded().map(|_| ())
}

fn loaded() -> Result<&'static HostApi> {
    let api = API.load(Ordering::Acquire);
    if !api.is_null() {
        // SAFETY: set once below from a leaked Box, never freed.
        return Ok(unsafe { &*api });
    }
    let _guard = OPENING.lock().unwrap_or_else(|e| e.into_inner());
    let api = API.load(Ordering::Acquire);
    if !api.is_null() {
        return Ok(unsafe { &*api });
    }
    let mut failures = Vec::new();
    let mut handle = ptr::null_mut();
    for name in candidates() {
        match try_open(&name) {
            Ok(h) => {
                handle = h;
                break;
            }
            Err(why) => failures.push(why),
        }
    }
    if handle.is_null() {
        return Err(Error::new(
            sys::NVSHMEMX_ERROR_INTERNAL,
            "nvshmem::library::open",
            format!(
                "cannot open libnvshmem_host.so (set NVSHMEM_HOST_LIB_PATH or LD_LIBRARY_PATH): {}",
                failures.join("; ")
            ),
        ));
    }
    let lookup = |name: &[u8]| -> *mut c_void {
        // SAFETY: `name` is a NUL-terminated literal of the generated code; `handle` is open.
        unsafe { dlsym(handle, name.as_ptr() as *const c_char) }
    };
    // SAFETY: every address is the library's definition of the C declaration it is typed as.
    let api: &'static HostApi = Box::leak(Box::new(unsafe { HostApi::resolve(lookup) }));
    let register = lookup(b"nvshm_register_header_version\0");
    if !register.is_null() {
        // SAFETY: nvshm_register_header_version(int, int, int) of nvshmem_detail/version_registration.h.
        unsafe {
            let register: unsafe extern "C" fn(c_int, c_int, c_int) = std::mem::transmute(register);
            register(
                sys::NVSHM_RELEASE_MAJOR,
                sys::NVSHM_RELEASE_MINOR,
                sys::NVSHM_RELEASE_PATCH,
            );
        }
    }
    API.store(api as *const HostApi as *mut HostApi, Ordering::Release);
    Ok(api)
}

/// The resolved functions for the generated [`crate::sys`] wrappers; panics (with [`open`]'s message)
/// when the library cannot be opened.
pub(crate) fn host_api() -> &'static HostApi {
    loaded().unwrap_or_else(|e| panic!("{}", e))
}

/// Called by a [`crate::sys`] function whose symbol the opened library does not export.
pub(crate) fn missing_symbol(name: &str) -> ! {
    panic!(
        "nvshmem: the opened libnvshmem_host.so does not export {} (a library older than the headers?)",
        name
    )
}
