//! One error type for the whole crate. Messages say what went wrong and what to do about it.

use std::path::PathBuf;

/// Everything that can go wrong in histosort.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument is out of its domain (bit range, digit width, bin count, length mismatch...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The requested backend or variant cannot run here, with the reason.
    #[error("{what} is not available: {reason}")]
    Unavailable { what: String, reason: String },

    /// A variant exists but does not support this combination (key type, value size, ...).
    #[error("{0}")]
    Unsupported(String),

    /// NVRTC rejected a kernel. The log and the flags are kept so the failure can be reproduced.
    #[error("NVRTC failed to compile {kernel} with flags {flags:?}:\n{log}")]
    Compile {
        kernel: String,
        flags: Vec<String>,
        log: String,
    },

    /// The device ran out of memory for an allocation of `bytes`.
    #[error("out of GPU memory: asked for {bytes} bytes ({what}); free {free} of {total} bytes")]
    OutOfMemory {
        what: String,
        bytes: u64,
        free: u64,
        total: u64,
    },

    /// Any other CUDA driver error, with the call that returned it.
    #[error("CUDA error in {call}: {message}")]
    Cuda { call: String, message: String },

    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A file's contents are not what histosort can read.
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },

    /// A result did not match the reference (validation, self-checks of the benchmarks).
    #[error("validation failed: {0}")]
    Validation(String),
}

impl Error {
    pub(crate) fn invalid(msg: impl Into<String>) -> Error {
        Error::InvalidArgument(msg.into())
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Format {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// `Result` with histosort's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
