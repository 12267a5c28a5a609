// SPDX-License-Identifier: BSD-3-Clause
//! [`SymmetricBuffer`]: a typed array on the symmetric heap.

use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::os::raw::c_void;
use std::ptr::NonNull;

use crate::error::{Error, Result};
use crate::runtime::NvshmemRuntime;
use crate::sys;

/// Plain data, the element types of a [`SymmetricBuffer`]: values that any bytes a peer writes make
/// valid, with nothing that points into one process.
///
/// Implemented for the integer and float types, [`sys::Half`], [`sys::Bfloat16`] and arrays of plain
/// data. Implement it for your own `#[repr(C)]` structs of plain data (padding is allowed), so that
/// every PE lays them out the same way:
///
/// ```ignore
/// #[repr(C)]
/// #[derive(Clone, Copy)]
/// struct Particle { position: [f32; 3], id: u32 }
/// unsafe impl nvshmem::PlainData for Particle {}
/// ```
///
/// # Safety
/// Every bit pattern of every field is a valid value (no `bool`, `char`, enums, references, pointers,
/// `NonZero*`), and the layout is fixed (`#[repr(C)]` or `#[repr(transparent)]`).
pub unsafe trait PlainData: Copy + 'static {}

macro_rules! plain_data {
    ($($t:ty)*) => { $(unsafe impl PlainData for $t {})* };
}
plain_data!(i8 i16 i32 i64 u8 u16 u32 u64 isize usize f32 f64 sys::Half sys::Bfloat16);
unsafe impl<T: PlainData, const N: usize> PlainData for [T; N] {}

/// `len` elements of `T` on the symmetric heap: the same offset on every PE, so PE p's copy is
/// reachable by RMA with this buffer's address and p.
///
/// Allocation ([`SymmetricBuffer::new`]) and drop (`nvshmem_free`) are collective: every PE creates
/// and drops its buffers in the same order with the same lengths. The buffer keeps the runtime alive.
/// It is `Send` and `Sync` for `T: PlainData` (the RMA calls are thread safe); the memory itself is
/// reached only through RMA calls and raw pointers, since it may live in GPU memory and peers write
/// it at any time.
pub struct SymmetricBuffer<T: PlainData> {
    ptr: NonNull<T>,
    len: usize,
    runtime: NvshmemRuntime,
    _marker: PhantomData<T>,
}

// SAFETY: the buffer only hands out raw pointers and does RMA through the thread-safe C calls.
unsafe impl<T: PlainData> Send for SymmetricBuffer<T> {}
unsafe impl<T: PlainData> Sync for SymmetricBuffer<T> {}

impl<T: PlainData> SymmetricBuffer<T> {
    /// Collectively allocates `len` elements (uninitialised; `nvshmem_align` with `T`'s alignment, at
    /// least a pointer's). `len` 0 allocates nothing. Errors, the same on every PE (no collective call
    /// is made): `NVSHMEMX_ERROR_INVALID_VALUE` for a zero-sized `T` or when `len * size_of::<T>()`
    /// overflows. `NVSHMEMX_ERROR_OUT_OF_MEMORY` when the library returns null (the heap is full, or PEs
    /// asked for different sizes: the library prints both); `NVSHMEMX_ERROR_INTERNAL` when the address
    /// is not aligned for `T` (the buffer is freed again, collectively).
    pub fn new(runtime: &NvshmemRuntime, len: usize) -> Result<SymmetricBuffer<T>> {
        let call = "SymmetricBuffer::new";
        let me = runtime.my_pe();
        if size_of::<T>() == 0 {
            return Err(Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                call,
                format!(
                    "PE {}: {} is zero-sized: nothing to store",
                    me,
                    std::any::type_name::<T>()
                ),
            ));
        }
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(|| {
            Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                call,
                format!("PE {}: {} elements of {} bytes overflow usize", me, len, size_of::<T>()),
            )
        })?;
        let ptr = if bytes == 0 {
            NonNull::dangling()
        } else {
            let align = align_of::<T>().max(size_of::<*const c_void>());
            // SAFETY: the runtime is live; collective, as documented.
            let raw = unsafe { sys::nvshmem_align(align, bytes) } as *mut T;
            NonNull::new(raw).ok_or_else(|| {
                Error::new(
                    sys::NVSHMEMX_ERROR_OUT_OF_MEMORY,
                    "nvshmem_align",
                    format!(
                        "PE {}: no {} bytes on the symmetric heap (see the library's message)",
                        me, bytes
                    ),
                )
            })?
        };
        let buffer = SymmetricBuffer {
            ptr,
            len,
            runtime: runtime.clone(),
            _marker: PhantomData,
        };
        if ptr.as_ptr() as usize % align_of::<T>() != 0 {
            return Err(Error::new(
                sys::NVSHMEMX_ERROR_INTERNAL,
                call,
                format!(
                    "PE {}: nvshmem_align returned {:p}, not aligned to the {} bytes of {}",
                    me,
                    ptr.as_ptr(),
                    align_of::<T>(),
                    std::any::type_name::<T>()
                ),
            )); // `buffer` is dropped: freed collectively
        }
        Ok(buffer)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a buffer of 0 elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// This PE's copy (a symmetric address: valid for RMA with any PE; host-readable only when the
    /// heap is in host memory).
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// This PE's copy, writable (see [`SymmetricBuffer::as_ptr`]).
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// PE `pe`'s copy as an address usable with loads and stores from this process (`nvshmem_ptr`),
    /// or None when `pe` is not reachable that way. For a GPU heap it is a device address.
    pub fn peer_ptr(&self, pe: i32) -> Option<*mut T> {
        // SAFETY: a symmetric address of the live runtime.
        let p = unsafe { sys::nvshmem_ptr(self.ptr.as_ptr() as *const c_void, pe) };
        (!p.is_null()).then_some(p as *mut T)
    }

    /// The runtime this buffer keeps alive.
    pub fn runtime(&self) -> &NvshmemRuntime {
        &self.runtime
    }

    fn check_range(&self, offset: usize, count: usize, pe: i32, call: &'static str) -> Result<()> {
        self.runtime.check_pe(pe, call)?;
        match offset.checked_add(count) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                call,
                format!(
                    "PE {}: elements {}..{}+{} outside a buffer of {}",
                    self.runtime.my_pe(),
                    offset,
                    offset,
                    count,
                    self.len
                ),
            )),
        }
    }

    /// Copies `src` into PE `pe`'s copy from element `offset` (`nvshmem_putmem`, blocking: `src` may
    /// be reused and the data is delivered when it returns; visible to `pe` after a barrier or quiet
    /// and a signal). Errors: `NVSHMEMX_ERROR_INVALID_VALUE` for a PE or range outside the buffer.
    pub fn put(&self, offset: usize, src: &[T], pe: i32) -> Result<()> {
        self.check_range(offset, src.len(), pe, "SymmetricBuffer::put")?;
        // SAFETY: in range; `src` is readable host memory of the same size.
        unsafe {
            sys::nvshmem_putmem(
                self.ptr.as_ptr().add(offset) as *mut c_void,
                src.as_ptr() as *const c_void,
                std::mem::size_of_val(src),
                pe,
            )
        };
        Ok(())
    }

    /// Copies PE `pe`'s elements `offset..offset + dst.len()` into `dst` (`nvshmem_getmem`,
    /// blocking). Errors: `NVSHMEMX_ERROR_INVALID_VALUE` for a PE or range outside the buffer.
    pub fn get(&self, offset: usize, dst: &mut [T], pe: i32) -> Result<()> {
        self.check_range(offset, dst.len(), pe, "SymmetricBuffer::get")?;
        // SAFETY: in range; `dst` is writable host memory of the same size.
        unsafe {
            sys::nvshmem_getmem(
                dst.as_mut_ptr() as *mut c_void,
                self.ptr.as_ptr().add(offset) as *const c_void,
                std::mem::size_of_val(dst),
                pe,
            )
        };
        Ok(())
    }
}

impl<T: PlainData> std::fmt::Debug for SymmetricBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymmetricBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: PlainData> Drop for SymmetricBuffer<T> {
    /// Frees the buffer (`nvshmem_free`, collective: every PE drops its copy at the same point), then
    /// releases the runtime, which finalizes if this was its last owner.
    fn drop(&mut self) {
        if self.bytes() != 0 {
            // SAFETY: allocated by nvshmem_align in new(); the runtime is still live (self.runtime).
            unsafe { sys::nvshmem_free(self.ptr.as_ptr() as *mut c_void) };
        }
    }
}
