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

    /// The process exit status for this error: 2 for bad input and I/O, 1 for run failures.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) | Error::Io { .. } => 2,
            Error::Run(_) => 1,
        }
    }
}

/// Result with the program's error type.
pub type Result<T> = std::result::Result<T, Error>;
