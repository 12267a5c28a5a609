// SPDX-License-Identifier: BSD-3-Clause
//! CTest contrib.nvshmem4rust.device_bindings: the generated nvshmem_device_cuda_oxide.rs (path in
//! NVSHMEM_RUST_DEVICE_BINDINGS at compile time) compiles as CUDA-Oxide device code includes it (a
//! no_std crate, warnings as errors), and a few declarations have the C signatures.
#![no_std]

/// The device bindings, as a kernel crate would include them.
#[allow(non_camel_case_types, non_upper_case_globals)]
pub mod nvshmem {
    include!(env!("NVSHMEM_RUST_DEVICE_BINDINGS"));
}

use nvshmem::*;

const _: unsafe extern "C" fn() -> c_int = nvshmem_my_pe;
const _: unsafe extern "C" fn(*mut c_int, c_int, c_int) = nvshmem_int_p;
const _: unsafe extern "C" fn(*const c_int, c_int) -> c_int = nvshmem_int_g;
const _: unsafe extern "C" fn(*mut c_void, *const c_void, usize, c_int) = nvshmemx_putmem_warp;
const _: unsafe extern "C" fn(*mut u64, u64, c_int) -> u64 = nvshmem_uint64_atomic_fetch_add;
const _: unsafe extern "C" fn(*mut u64, c_int, u64) -> u64 = nvshmem_signal_wait_until;
const _: unsafe extern "C" fn(nvshmem_team_t, *mut f32, *const f32, usize) -> c_int = nvshmem_float_sum_reduce;
const _: unsafe extern "C" fn() = nvshmem_barrier_all;
const _: unsafe extern "C" fn() = nvshmemx_flush_block;
