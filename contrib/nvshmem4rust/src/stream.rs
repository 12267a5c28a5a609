// SPDX-License-Identifier: BSD-3-Clause
//! [`Stream`], the CUDA stream the `_on_stream` wrappers enqueue on, and where an address lives
//! (CUDA's answer, for the check that stream-ordered calls have the heap in GPU memory).

use std::os::raw::{c_int, c_uint, c_void};
use std::sync::Mutex;

use libloading::os::unix::{Library, RTLD_NOW};

use crate::sys;

/// A CUDA stream handle (`cudaStream_t`, the same as the driver's `CUstream`) for the safe
/// `_on_stream` wrappers. Copyable and non-owning: the creator destroys the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream(sys::cudaStream_t);

// SAFETY: a CUDA stream handle may be used from any thread (from_raw's contract covers its validity).
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

impl Stream {
    /// The legacy default stream (the null handle), valid in every context.
    pub const DEFAULT: Stream = Stream(std::ptr::null_mut());

    /// Wraps `stream`.
    ///
    /// # Safety
    /// `stream` is null or a stream of the runtime's CUDA context (the device the runtime was
    /// initialised on), and stays valid until every call enqueued on it through this handle has run.
    pub unsafe fn from_raw(stream: sys::cudaStream_t) -> Stream {
        Stream(stream)
    }

    /// The raw handle.
    pub fn as_raw(&self) -> sys::cudaStream_t {
        self.0
    }
}

/// `cuPointerGetAttribute` of the CUDA driver.
type PointerGetAttribute = unsafe extern "C" fn(*mut c_void, c_int, u64) -> c_int;
const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: c_int = 2;
const CU_MEMORYTYPE_DEVICE: c_uint = 2;

/// The driver's `cuPointerGetAttribute`, when the process has loaded the driver (looked up once).
static POINTER_GET_ATTRIBUTE: Mutex<Option<Option<PointerGetAttribute>>> = Mutex::new(None);

fn pointer_get_attribute() -> Option<PointerGetAttribute> {
    let mut cached = POINTER_GET_ATTRIBUTE.lock().unwrap_or_else(|e| e.into_inner());
    *cached.get_or_insert_with(|| {
        // The driver is looked for among the loaded libraries only: a runtime without it has no GPU
        // heap. SAFETY: opening an already loaded library runs no initialisers; the symbol is typed as
        // its C declaration; the library stays loaded (it was loaded before, and is leaked here).
        unsafe {
            let lib = Library::open(Some("libcuda.so.1"), RTLD_NOW | libc::RTLD_NOLOAD).ok()?;
            let f = lib
                .get::<PointerGetAttribute>(b"cuPointerGetAttribute\0")
                .ok()
                .map(|f| *f);
            std::mem::forget(lib);
            f
        }
    })
}

/// True when `ptr` is GPU memory (CUDA's `CU_MEMORYTYPE_DEVICE`); false for host memory, addresses
/// CUDA does not know, and processes that have not loaded the CUDA driver.
pub(crate) fn is_device_memory(ptr: *const c_void) -> bool {
    let query = match pointer_get_attribute() {
        Some(f) => f,
        None => return false,
    };
    let mut kind: c_uint = 0;
    // SAFETY: a query into a local of the attribute's type (unsigned int); any address (a CUdeviceptr)
    // is accepted.
    let rc = unsafe {
        query(
            &mut kind as *mut c_uint as *mut c_void,
            CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            ptr as u64,
        )
    };
    rc == 0 && kind == CU_MEMORYTYPE_DEVICE
}
