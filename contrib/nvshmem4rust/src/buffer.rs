// SPDX-License-Identifier: BSD-3-Clause
//! [`SymmetricBuffer`]: a typed array on the symmetric heap.

use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::os::raw::c_void;
use std::ptr::NonNull;

use crate::error::{Error, Result};
use crate::runtime::NvshmemRuntime;
use crate::sys;

/// Element types of a [`SymmetricBuffer`]: plain data that any bit pattern written by a peer makes a
/// valid value of, with no pointers into one process.
///
/// # Safety
/// Implement it only for `Copy` types without padding whose every bit pattern is valid.
pub unsafe trait Element: Copy + 'static {}

macro_rules! elements {
    ($($t:ty)*) => { $(unsafe impl Element for $t {})* };
}
elements!(i8 i16 i32 i64 u8 u16 u32 u64 isize usize f32 f64 sys::Half sys::Bfloat16);
unsafe impl<T: Element, const N: usize> Element for [T; N] {}

/// `len` elements of `T` on the symmetric heap: the same offset on every PE, so PE p's copy is
/// reachable by RMA with this buffer's address and p.
///
/// Allocation ([`SymmetricBuffer::new`]) and drop (`nvshmem_free`) are collective: every PE creates
/// and drops its buffers in the same order with the same lengths. The buffer keeps the runtime alive.
/// It is `Send` and `Sync` for `T: Element` (the RMA calls are thread safe); the memory itself is
/// reached only through RMA calls and raw pointers, since it may live in GPU memory and peers write
/// it at any time.
pub struct SymmetricBuffer<T: Element> {
    ptr: NonNull<T>,
    len: usize,
    runtime: NvshmemRuntime,
    _marker: PhantomData<T>,
}

// SAFETY: the buffer only hands out raw pointers and does RMA through the thread-safe C calls.
unsafe impl<T: Element> Send for SymmetricBuffer<T> {}
unsafe impl<T: Element> Sync for SymmetricBuffer<T> {}

impl<T: Element> SymmetricBuffer<T> {
    /// Collectively allocates `len` elements (uninitialised; `nvshmem_align` with `T`'s alignment, at
    /// least a pointer's). `len` 0 allocates nothing. Errors: `NVSHMEMX_ERROR_INVALID_VALUE` when
    /// `len * size_of::<T>()` overflows (no collective call is made: every PE sees the same);
    /// `NVSHMEMX_ERROR_OUT_OF_MEMORY` when the library returns null (the heap is full, or PEs asked for
    /// different sizes: the library prints both).
    pub fn new(runtime: &NvshmemRuntime, len: usize) -> Result<SymmetricBuffer<T>> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(|| {
            Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                "SymmetricBuffer::new",
                format!("{} elements of {} bytes overflow usize", len, size_of::<T>()),
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
                    format!("no {} bytes on the symmetric heap (see the library's message)", bytes),
                )
            })?
        };
        Ok(SymmetricBuffer {
            ptr,
            len,
            runtime: runtime.clone(),
            _marker: PhantomData,
        })
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
                    "elements {}..{}+{} outside a buffer of {}",
                    offset, offset, count, self.len
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

impl<T: Element> std::fmt::Debug for SymmetricBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymmetricBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: Element> Drop for SymmetricBuffer<T> {
    /// Frees the buffer (`nvshmem_free`, collective: every PE drops its copy at the same point), then
    /// releases the runtime, which finalizes if this was its last owner.
    fn drop(&mut self) {
        if self.bytes() != 0 {
            // SAFETY: allocated by nvshmem_align in new(); the runtime is still live (self.runtime).
            unsafe { sys::nvshmem_free(self.ptr.as_ptr() as *mut c_void) };
        }
    }
}
