// SPDX-License-Identifier: BSD-3-Clause
//! The crate's one error type.

use std::fmt;

use crate::sys;

/// A failed NVSHMEM operation: the status code (an `NVSHMEMX_ERROR_*` value of [`crate::sys`]), the
/// call that failed and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// `NVSHMEMX_ERROR_*` code (the library's return value, or the code the crate chose).
    pub status: i32,
    /// The C entry point or crate function that failed.
    pub call: &'static str,
    /// What went wrong.
    pub message: String,
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn new(status: i32, call: &'static str, message: impl Into<String>) -> Error {
        Error {
            status,
            call,
            message: message.into(),
        }
    }

    /// `Ok(())` for `NVSHMEMX_SUCCESS`, else an error carrying `status`.
    pub(crate) fn check(status: i32, call: &'static str, message: impl Into<String>) -> Result<()> {
        if status == sys::NVSHMEMX_SUCCESS {
            Ok(())
        } else {
            Err(Error::new(status, call, message))
        }
    }

    /// The name of the status code (`NVSHMEMX_ERROR_INVALID_VALUE`, ...).
    pub fn status_name(&self) -> &'static str {
        match self.status {
            sys::NVSHMEMX_SUCCESS => "NVSHMEMX_SUCCESS",
            sys::NVSHMEMX_ERROR_INVALID_VALUE => "NVSHMEMX_ERROR_INVALID_VALUE",
            sys::NVSHMEMX_ERROR_OUT_OF_MEMORY => "NVSHMEMX_ERROR_OUT_OF_MEMORY",
            sys::NVSHMEMX_ERROR_NOT_SUPPORTED => "NVSHMEMX_ERROR_NOT_SUPPORTED",
            sys::NVSHMEMX_ERROR_SYMMETRY => "NVSHMEMX_ERROR_SYMMETRY",
            sys::NVSHMEMX_ERROR_GPU_NOT_SELECTED => "NVSHMEMX_ERROR_GPU_NOT_SELECTED",
            sys::NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED => "NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED",
            sys::NVSHMEMX_ERROR_INTERNAL => "NVSHMEMX_ERROR_INTERNAL",
            _ => "unknown status",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.call, self.message, self.status_name())
    }
}

impl std::error::Error for Error {}
