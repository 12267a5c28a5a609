// SPDX-License-Identifier: BSD-3-Clause
//! Rust host crate for NVSHMEM (this project's clean-room `libnvshmem_host.so`).
//!
//! Two layers:
//! - [`sys`]: every host function of `nvshmem_host.h` and the stream collectives under its exact C
//!   name (`nvshmem_int_p`, `nvshmemx_putmem_on_stream`, ...), with the C structs, typedefs and
//!   constants, generated from the installed headers (`build_bindings_rust`). The functions are
//!   `unsafe`: they take raw pointers and follow the C rules. [`api`] re-exports them without their
//!   `nvshmem_`/`nvshmemx_` prefix (`raw_` before the name where a safe form exists), and the crate
//!   root re-exports [`api`].
//! - The safe layer: [`NvshmemRuntime`] (a handle on the process-global runtime), [`SymmetricBuffer`]
//!   (a typed, collectively allocated symmetric array of [`PlainData`]), module registration
//!   ([`NvshmemRuntime::register_module`] for a [`LoadedModule`], [`ModuleRegistration`]), [`my_pe`],
//!   [`n_pes`], [`barrier_all`], [`init_status`], and the safe wrappers of the typed put/get and
//!   `_on_stream` families ([`safe`]: `int_put`, `int_put_on_stream`, `float_sum_reduce_on_stream`,
//!   ...) with [`Stream`], which return an [`Error`] where the C call would stop the process.
//!
//! The library is linked from `NVSHMEM_HOST_LIB_DIR` at build time and re-opened with global
//! visibility at init ([`library`]). The crate is the package that CMake generates beside the
//! bindings (`<output>/nvshmem_host_runtime/`, README.md): the bindings are `../nvshmem_host.rs` and
//! `../nvshmem_host_api.rs` of its manifest's folder.

mod buffer;
mod error;
pub mod library;
mod module;
mod runtime;
pub mod safe;
mod stream;

/// The raw host API with its exact C names, generated from the installed headers.
#[allow(non_camel_case_types, non_upper_case_globals, clippy::all)]
pub mod sys {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../nvshmem_host.rs"));
}

/// [`sys`] under its older name.
pub use sys as bindings;

/// The host functions without their `nvshmem_`/`nvshmemx_` prefix: the safe wrappers of the typed
/// families ([`safe`]) under the short name (`int_put_on_stream`), the raw functions (`unsafe`) under
/// the short name where there is no safe form and as `raw_<name>` where there is one
/// (`raw_int_put_on_stream`, `raw_cumodule_init`, `raw_my_pe`).
pub mod api {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../nvshmem_host_api.rs"));
}

pub use api::*;
pub use buffer::{PlainData, SymmetricBuffer};
pub use error::{Error, Result};
pub use module::{LoadedModule, ModuleRegistration};
pub use runtime::{barrier_all, init_status, my_pe, n_pes, InitMethod, MpiComm, NvshmemRuntime, UniqueId};
pub use safe::{
    barrier_all_on_stream, barrier_on_stream, quiet_on_stream, signal_fetch, signal_op, sync_all_on_stream,
    team_sync_on_stream,
};
pub use stream::Stream;
pub use sys::{cudaStream_t, Bfloat16, CUlibrary, CUmodule, Half};
