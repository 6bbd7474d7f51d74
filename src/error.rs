//! The one error type of the program, and the exit status each kind maps to.
use std::path::PathBuf;

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input from the user (scene, mesh, problem file, argument): the message names the
    /// file, the place and the fix.
    #[error("{0}")]
    Input(String),
    /// An I/O failure on a named path.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The simulation or a solver failed while running.
    #[error("{0}")]
    Run(String),
    /// A run stopped on request (a signal) after writing its checkpoint: not a failure, but
    /// the run is not complete. `status` is the exit status (128 + the signal's number).
    #[error("{message}")]
    Stopped {
        /// What stopped the run, and how to resume it.
        message: String,
        /// The exit status.
        status: u8,
    },
}

impl Error {
    /// Build an input error from anything printable.
    pub fn input(msg: impl Into<String>) -> Self {
        Error::Input(msg.into())
    }

    /// Wrap an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// The process exit status for this error: 2 for bad input and I/O, 1 for run failures,
    /// 128 + the signal's number for a run stopped by a signal (130 for SIGINT, 143 for
    /// SIGTERM).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) | Error::Io { .. } => 2,
            Error::Run(_) => 1,
            Error::Stopped { status, .. } => *status,
        }
    }
}

/// Result with the program's error type.
pub type Result<T> = std::result::Result<T, Error>;
