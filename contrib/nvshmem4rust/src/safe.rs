// SPDX-License-Identifier: BSD-3-Clause
//! The safe host API: the checks behind every safe wrapper, and the untyped stream-ordered
//! synchronisation calls.
//!
//! The typed wrappers (`int_put`, `int_iput`, `float_get_on_stream`, `int_sum_reduce_on_stream`, `int_sum_reduce`,
//! `int64_atomic_fetch_add`, ...) are generated into `nvshmem_host_api.rs`, one per typed C function,
//! each a call of one function here with the C function it wraps. They take [`SymmetricBuffer`]s (and host slices where the C call
//! reads or writes host memory) and a [`Stream`], check what would make the C call stop the process
//! (a target PE outside the job, a count beyond a buffer, an invalid team or root, the heap in host
//! memory for a stream-ordered call) and return those as [`Error`]s naming the call, the PE and the
//! cause. Counts are elements, from element 0 of each buffer (the strided `iput`/`iget`: strides in
//! elements, at least 1, the last strided element of each side inside it). The raw C functions stay
//! available as `nvshmem::raw_<name>` and under their exact names in [`crate::sys`].

use std::os::raw::c_int;

use crate::buffer::{PlainData, SymmetricBuffer};
use crate::error::{Error, Result};
use crate::runtime::NvshmemRuntime;
use crate::stream::Stream;
use crate::sys::{self, cudaStream_t, nvshmem_team_t};

/// `Ok` when `buffer` holds at least `needed` elements (`None`: the count overflowed).
fn check_len<T: PlainData>(
    rt: &NvshmemRuntime,
    call: &'static str,
    what: &str,
    buffer: &SymmetricBuffer<T>,
    needed: Option<usize>,
) -> Result<()> {
    check_extent(rt, call, what, buffer.len(), needed)
}

/// `Ok` when `what` (a buffer or a host slice of `held` elements) holds at least `needed` elements
/// (`None`: the count overflowed).
fn check_extent(rt: &NvshmemRuntime, call: &'static str, what: &str, held: usize, needed: Option<usize>) -> Result<()> {
    match needed {
        Some(n) if n <= held => Ok(()),
        _ => Err(Error::new(
            sys::NVSHMEMX_ERROR_INVALID_VALUE,
            call,
            format!(
                "PE {}: {} holds {} elements, the call needs {}",
                rt.my_pe(),
                what,
                held,
                needed.map_or_else(|| "more than usize::MAX".to_string(), |n| n.to_string())
            ),
        )),
    }
}

/// `Ok` when `slice_len` (a host slice) and the buffer agree: the slice's length is the count.
fn check_host<T: PlainData>(
    rt: &NvshmemRuntime,
    call: &'static str,
    buffer: &SymmetricBuffer<T>,
    slice_len: usize,
    pe: i32,
) -> Result<()> {
    rt.check_pe(pe, call)?;
    check_len(rt, call, "the symmetric buffer", buffer, Some(slice_len))
}

/// The number of PEs of `team`, or `NVSHMEMX_ERROR_INVALID_VALUE` when `team` is not a valid team
/// this PE belongs to.
fn team_size(rt: &NvshmemRuntime, call: &'static str, team: nvshmem_team_t) -> Result<usize> {
    // SAFETY: the runtime is live (rt); both calls accept any team handle.
    let (n, me) = unsafe { (sys::nvshmem_team_n_pes(team), sys::nvshmem_team_my_pe(team)) };
    if n <= 0 || me < 0 {
        return Err(Error::new(
            sys::NVSHMEMX_ERROR_INVALID_VALUE,
            call,
            format!(
                "PE {}: team {} is not a valid team this PE belongs to",
                rt.my_pe(),
                team
            ),
        ));
    }
    Ok(n as usize)
}

/// The status of a collective's C call as a `Result`.
fn check_status(rt: &NvshmemRuntime, call: &'static str, status: c_int) -> Result<()> {
    Error::check(status, call, format!("PE {}: the call returned {}", rt.my_pe(), status))
}

/// Blocking put of `source` (host memory) into `pe`'s `dest`, elements 0..source.len().
pub(crate) fn put<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*mut T, *const T, usize, c_int),
    dest: &SymmetricBuffer<T>,
    source: &[T],
    pe: i32,
) -> Result<()> {
    check_host(dest.runtime(), call, dest, source.len(), pe)?;
    // SAFETY: checked: `pe` is in the job and `dest` holds source.len() elements.
    unsafe { f(dest.as_mut_ptr(), source.as_ptr(), source.len(), pe) };
    Ok(())
}

/// Blocking get of `pe`'s `source`, elements 0..dest.len(), into `dest` (host memory).
pub(crate) fn get<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*mut T, *const T, usize, c_int),
    dest: &mut [T],
    source: &SymmetricBuffer<T>,
    pe: i32,
) -> Result<()> {
    check_host(source.runtime(), call, source, dest.len(), pe)?;
    // SAFETY: checked: `pe` is in the job and `source` holds dest.len() elements.
    unsafe { f(dest.as_mut_ptr(), source.as_ptr(), dest.len(), pe) };
    Ok(())
}

/// One side of a strided transfer: its name (`dest`, `source`), its stride's name (`dst`, `sst`), the
/// stride in elements and how many elements the side holds.
type StridedSide<'a> = (&'a str, &'a str, isize, usize);

/// The checks of a strided transfer of `nelems` elements (the C call stops the process on each): `pe`
/// in the job, both strides at least 1, and element `(nelems - 1) * stride` of each side inside it.
fn check_strided(
    rt: &NvshmemRuntime,
    call: &'static str,
    sides: [StridedSide; 2],
    nelems: usize,
    pe: i32,
) -> Result<()> {
    rt.check_pe(pe, call)?;
    for (_, stride_name, stride, _) in sides {
        if stride < 1 {
            return Err(Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                call,
                format!("PE {}: {} stride {} is not at least 1", rt.my_pe(), stride_name, stride),
            ));
        }
    }
    for (what, _, stride, held) in sides {
        let needed = match nelems {
            0 => Some(0),
            n => (n - 1)
                .checked_mul(stride as usize)
                .and_then(|last| last.checked_add(1)),
        };
        check_extent(rt, call, what, held, needed)?;
    }
    Ok(())
}

/// Blocking strided put: element `i` of `source` (host memory) at `i * sst` into `pe`'s `dest` at
/// `i * dst`, for `i` in 0..nelems (strides in elements).
#[allow(clippy::too_many_arguments)]
pub(crate) fn iput<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*mut T, *const T, isize, isize, usize, c_int),
    dest: &SymmetricBuffer<T>,
    source: &[T],
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: i32,
) -> Result<()> {
    let sides = [("dest", "dst", dst, dest.len()), ("source", "sst", sst, source.len())];
    check_strided(dest.runtime(), call, sides, nelems, pe)?;
    // SAFETY: checked: `pe` is in the job, both strides are positive and both sides hold their last
    // strided element.
    unsafe { f(dest.as_mut_ptr(), source.as_ptr(), dst, sst, nelems, pe) };
    Ok(())
}

/// Blocking strided get: element `i` of `pe`'s `source` at `i * sst` into `dest` (host memory) at
/// `i * dst`, for `i` in 0..nelems (strides in elements).
#[allow(clippy::too_many_arguments)]
pub(crate) fn iget<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*mut T, *const T, isize, isize, usize, c_int),
    dest: &mut [T],
    source: &SymmetricBuffer<T>,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: i32,
) -> Result<()> {
    let sides = [("dest", "dst", dst, dest.len()), ("source", "sst", sst, source.len())];
    check_strided(source.runtime(), call, sides, nelems, pe)?;
    // SAFETY: as iput.
    unsafe { f(dest.as_mut_ptr(), source.as_ptr(), dst, sst, nelems, pe) };
    Ok(())
}

/// Element `index` of `pe`'s `buf`, checked (a live runtime, `pe` in the job, `index` in `buf`), handed
/// to `op`, which makes the C call on it: the blocking `p` and `g` and the atomics (`<T>_atomic_*`).
pub(crate) fn element<T: PlainData, R>(
    call: &'static str,
    buf: &SymmetricBuffer<T>,
    index: usize,
    pe: i32,
    op: impl FnOnce(*mut T) -> R,
) -> Result<R> {
    check_host(buf.runtime(), call, buf, index.saturating_add(1), pe)?;
    // SAFETY: checked: `index` is in `buf`; `op` reaches `pe`, which is in the job.
    Ok(op(unsafe { buf.as_mut_ptr().add(index) }))
}

/// Stream-ordered put or get of `nelems` elements between `dest` and `source`, one of them `pe`'s.
pub(crate) fn rma_on_stream<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*mut T, *const T, usize, c_int, cudaStream_t),
    dest: &SymmetricBuffer<T>,
    source: &SymmetricBuffer<T>,
    nelems: usize,
    pe: i32,
    stream: Stream,
) -> Result<()> {
    let rt = dest.runtime();
    rt.check_pe(pe, call)?;
    check_len(rt, call, "dest", dest, Some(nelems))?;
    check_len(rt, call, "source", source, Some(nelems))?;
    rt.require_device_heap(call)?;
    // SAFETY: checked: `pe`, both counts, the heap in GPU memory; the stream by Stream's contract.
    unsafe { f(dest.as_mut_ptr(), source.as_ptr(), nelems, pe, stream.as_raw()) };
    Ok(())
}

/// Stream-ordered store of `value` into element `index` of `pe`'s `dest`.
pub(crate) fn p_on_stream<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*mut T, T, c_int, cudaStream_t),
    dest: &SymmetricBuffer<T>,
    index: usize,
    value: T,
    pe: i32,
    stream: Stream,
) -> Result<()> {
    let rt = dest.runtime();
    check_host(rt, call, dest, index.saturating_add(1), pe)?;
    rt.require_device_heap(call)?;
    // SAFETY: checked: `pe`, `index`, the heap in GPU memory; the stream by Stream's contract.
    unsafe { f(dest.as_mut_ptr().add(index), value, pe, stream.as_raw()) };
    Ok(())
}

/// Load of element `index` of `pe`'s `source` in stream order (the call waits for the stream).
pub(crate) fn g_on_stream<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*const T, c_int, cudaStream_t) -> T,
    source: &SymmetricBuffer<T>,
    index: usize,
    pe: i32,
    stream: Stream,
) -> Result<T> {
    let rt = source.runtime();
    check_host(rt, call, source, index.saturating_add(1), pe)?;
    rt.require_device_heap(call)?;
    // SAFETY: as p_on_stream.
    Ok(unsafe { f(source.as_ptr().add(index), pe, stream.as_raw()) })
}

/// `Ok` for `NVSHMEM_SIGNAL_SET` and `NVSHMEM_SIGNAL_ADD`, else `NVSHMEMX_ERROR_INVALID_VALUE`.
fn check_sig_op(rt: &NvshmemRuntime, call: &'static str, sig_op: i32) -> Result<()> {
    if sig_op == sys::NVSHMEM_SIGNAL_SET || sig_op == sys::NVSHMEM_SIGNAL_ADD {
        return Ok(());
    }
    Err(Error::new(
        sys::NVSHMEMX_ERROR_INVALID_VALUE,
        call,
        format!(
            "PE {}: sig_op {} is neither NVSHMEM_SIGNAL_SET nor NVSHMEM_SIGNAL_ADD",
            rt.my_pe(),
            sig_op
        ),
    ))
}

/// Safe `nvshmemx_signal_op`: `sig_op` (`NVSHMEM_SIGNAL_SET` or `NVSHMEM_SIGNAL_ADD`) with `value` on
/// element `index` of `pe`'s `signal`, atomically. Errors: a PE outside the job, an element outside
/// the buffer, another operation (raw: `nvshmem::raw_signal_op`).
pub fn signal_op(signal: &SymmetricBuffer<u64>, index: usize, value: u64, sig_op: i32, pe: i32) -> Result<()> {
    let call = "nvshmemx_signal_op";
    let rt = signal.runtime();
    check_host(rt, call, signal, index.saturating_add(1), pe)?;
    check_sig_op(rt, call, sig_op)?;
    // SAFETY: checked: `pe`, `index`, the operation.
    unsafe { sys::nvshmemx_signal_op(signal.as_mut_ptr().add(index), value, sig_op, pe) };
    Ok(())
}

/// Safe `nvshmem_signal_fetch`: element `index` of this PE's `signal`, read atomically. Errors: an
/// element outside the buffer (raw: `nvshmem::raw_signal_fetch`).
pub fn signal_fetch(signal: &SymmetricBuffer<u64>, index: usize) -> Result<u64> {
    let call = "nvshmem_signal_fetch";
    let rt = signal.runtime();
    check_len(rt, call, "the signal buffer", signal, Some(index.saturating_add(1)))?;
    // SAFETY: checked: `index` is in `signal`, a symmetric object of the live runtime.
    Ok(unsafe { sys::nvshmem_signal_fetch(signal.as_mut_ptr().add(index)) })
}

/// Stream-ordered put of `nelems` elements into `pe`'s `dest`, then `sig_op` (`NVSHMEM_SIGNAL_SET` or
/// `NVSHMEM_SIGNAL_ADD`) with `value` on element 0 of `pe`'s `signal`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn put_signal_on_stream<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(*mut T, *const T, usize, *mut u64, u64, c_int, c_int, cudaStream_t),
    dest: &SymmetricBuffer<T>,
    source: &SymmetricBuffer<T>,
    nelems: usize,
    signal: &SymmetricBuffer<u64>,
    value: u64,
    sig_op: i32,
    pe: i32,
    stream: Stream,
) -> Result<()> {
    let rt = dest.runtime();
    rt.check_pe(pe, call)?;
    check_len(rt, call, "dest", dest, Some(nelems))?;
    check_len(rt, call, "source", source, Some(nelems))?;
    check_len(rt, call, "signal", signal, Some(1))?;
    check_sig_op(rt, call, sig_op)?;
    rt.require_device_heap(call)?;
    // SAFETY: checked: `pe`, the counts, the signal, the operation, the heap in GPU memory; the stream
    // by Stream's contract.
    unsafe {
        f(
            dest.as_mut_ptr(),
            source.as_ptr(),
            nelems,
            signal.as_mut_ptr(),
            value,
            sig_op,
            pe,
            stream.as_raw(),
        )
    };
    Ok(())
}

/// How many elements a stream collective reads from `source` and writes to `dest`, as multiples of
/// its count: reduce, broadcast 1 and 1; reducescatter team size and 1; fcollect 1 and team size;
/// alltoall team size and team size.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// reduce, broadcast
    Same,
    /// reducescatter
    Scatter,
    /// fcollect
    Gather,
    /// alltoall
    AllToAll,
}

/// The checks of a collective of `count` elements on `team` (and its `root`, an index in the team, for
/// a broadcast); a stream-ordered one (`on_stream`) also needs the heap in GPU memory.
#[allow(clippy::too_many_arguments)]
fn check_collective<T: PlainData>(
    call: &'static str,
    team: nvshmem_team_t,
    dest: &SymmetricBuffer<T>,
    source: &SymmetricBuffer<T>,
    count: usize,
    shape: Shape,
    root: Option<i32>,
    on_stream: bool,
) -> Result<()> {
    let rt = dest.runtime();
    let n = team_size(rt, call, team)?;
    if let Some(root) = root.filter(|&r| r < 0 || r as usize >= n) {
        return Err(Error::new(
            sys::NVSHMEMX_ERROR_INVALID_VALUE,
            call,
            format!("PE {}: root {} is not in 0..{} (team {})", rt.my_pe(), root, n, team),
        ));
    }
    let times = |many: bool| if many { count.checked_mul(n) } else { Some(count) };
    let (source_many, dest_many) = match shape {
        Shape::Same => (false, false),
        Shape::Scatter => (true, false),
        Shape::Gather => (false, true),
        Shape::AllToAll => (true, true),
    };
    check_len(rt, call, "source", source, times(source_many))?;
    check_len(rt, call, "dest", dest, times(dest_many))?;
    if on_stream {
        rt.require_device_heap(call)?;
    }
    Ok(())
}

/// A blocking (host-initiated) reduce, reducescatter, fcollect or alltoall of `count` elements on
/// `team`: every member calls it; returns when this PE's `dest` holds the result.
pub(crate) fn collective<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(nvshmem_team_t, *mut T, *const T, usize) -> c_int,
    shape: Shape,
    team: nvshmem_team_t,
    dest: &SymmetricBuffer<T>,
    source: &SymmetricBuffer<T>,
    count: usize,
) -> Result<()> {
    check_collective(call, team, dest, source, count, shape, None, false)?;
    // SAFETY: checked: the team and both sizes.
    let status = unsafe { f(team, dest.as_mut_ptr(), source.as_ptr(), count) };
    check_status(dest.runtime(), call, status)
}

/// A blocking (host-initiated) broadcast of `nelems` elements from `root` (an index in `team`).
pub(crate) fn broadcast<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(nvshmem_team_t, *mut T, *const T, usize, c_int) -> c_int,
    team: nvshmem_team_t,
    dest: &SymmetricBuffer<T>,
    source: &SymmetricBuffer<T>,
    nelems: usize,
    root: i32,
) -> Result<()> {
    check_collective(call, team, dest, source, nelems, Shape::Same, Some(root), false)?;
    // SAFETY: checked as collective, and the root.
    let status = unsafe { f(team, dest.as_mut_ptr(), source.as_ptr(), nelems, root) };
    check_status(dest.runtime(), call, status)
}

/// A stream-ordered reduce, reducescatter, fcollect or alltoall of `count` elements on `team`.
pub(crate) fn collective_on_stream<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(nvshmem_team_t, *mut T, *const T, usize, cudaStream_t) -> c_int,
    shape: Shape,
    team: nvshmem_team_t,
    dest: &SymmetricBuffer<T>,
    source: &SymmetricBuffer<T>,
    count: usize,
    stream: Stream,
) -> Result<()> {
    check_collective(call, team, dest, source, count, shape, None, true)?;
    // SAFETY: checked: the team, both sizes, the heap in GPU memory; the stream by Stream's contract.
    let status = unsafe { f(team, dest.as_mut_ptr(), source.as_ptr(), count, stream.as_raw()) };
    check_status(dest.runtime(), call, status)
}

/// A stream-ordered broadcast of `nelems` elements from `root` (an index in `team`).
pub(crate) fn broadcast_on_stream<T: PlainData>(
    call: &'static str,
    f: unsafe extern "C" fn(nvshmem_team_t, *mut T, *const T, usize, c_int, cudaStream_t) -> c_int,
    team: nvshmem_team_t,
    dest: &SymmetricBuffer<T>,
    source: &SymmetricBuffer<T>,
    nelems: usize,
    root: i32,
    stream: Stream,
) -> Result<()> {
    check_collective(call, team, dest, source, nelems, Shape::Same, Some(root), true)?;
    // SAFETY: checked as collective_on_stream, and the root.
    let status = unsafe { f(team, dest.as_mut_ptr(), source.as_ptr(), nelems, root, stream.as_raw()) };
    check_status(dest.runtime(), call, status)
}

/// The live runtime with its heap in GPU memory, for the untyped stream calls.
fn live_on_device(call: &'static str) -> Result<NvshmemRuntime> {
    let rt = NvshmemRuntime::live(call)?;
    rt.require_device_heap(call)?;
    Ok(rt)
}

/// `nvshmemx_barrier_all_on_stream`: every PE, in stream order (completes this PE's earlier stream
/// work, then waits for all). Errors: no live runtime, or the heap in host memory.
pub fn barrier_all_on_stream(stream: Stream) -> Result<()> {
    live_on_device("nvshmemx_barrier_all_on_stream")?;
    // SAFETY: live runtime, heap in GPU memory; the stream by Stream's contract.
    unsafe { sys::nvshmemx_barrier_all_on_stream(stream.as_raw()) };
    Ok(())
}

/// `nvshmemx_sync_all_on_stream`: every PE, in stream order (waits for all, no quiet). Errors as
/// [`barrier_all_on_stream`].
pub fn sync_all_on_stream(stream: Stream) -> Result<()> {
    live_on_device("nvshmemx_sync_all_on_stream")?;
    // SAFETY: as barrier_all_on_stream.
    unsafe { sys::nvshmemx_sync_all_on_stream(stream.as_raw()) };
    Ok(())
}

/// `nvshmemx_quiet_on_stream`: completes this PE's earlier stream-ordered RMA. Errors as
/// [`barrier_all_on_stream`].
pub fn quiet_on_stream(stream: Stream) -> Result<()> {
    live_on_device("nvshmemx_quiet_on_stream")?;
    // SAFETY: as barrier_all_on_stream.
    unsafe { sys::nvshmemx_quiet_on_stream(stream.as_raw()) };
    Ok(())
}

/// `nvshmemx_barrier_on_stream`: every member of `team`, in stream order. Errors as
/// [`barrier_all_on_stream`], and an invalid team.
pub fn barrier_on_stream(team: nvshmem_team_t, stream: Stream) -> Result<()> {
    let call = "nvshmemx_barrier_on_stream";
    let rt = live_on_device(call)?;
    team_size(&rt, call, team)?;
    // SAFETY: live runtime, heap in GPU memory, valid team; the stream by Stream's contract.
    check_status(&rt, call, unsafe {
        sys::nvshmemx_barrier_on_stream(team, stream.as_raw())
    })
}

/// `nvshmemx_team_sync_on_stream`: every member of `team`, in stream order (no quiet). Errors as
/// [`barrier_on_stream`].
pub fn team_sync_on_stream(team: nvshmem_team_t, stream: Stream) -> Result<()> {
    let call = "nvshmemx_team_sync_on_stream";
    let rt = live_on_device(call)?;
    team_size(&rt, call, team)?;
    // SAFETY: as barrier_on_stream.
    check_status(&rt, call, unsafe {
        sys::nvshmemx_team_sync_on_stream(team, stream.as_raw())
    })
}
