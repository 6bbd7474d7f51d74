//! The one kind of problem a scene check finds: the key path of the value, what is wrong and
//! how to fix it, rendered with the file and the line the key stands on.
use super::locate::{KeyPath, line_of};
use crate::Error;
use std::path::Path;

/// A problem with one value of a scene: where it is, what is wrong, and the fix.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Path of the value from the scene's root, e.g. `body[0].shape.radius`; a table's own
    /// path when a key is missing from it.
    pub path: KeyPath,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

/// What a check returns: nothing, or the first problem found.
pub type Checked<T = ()> = std::result::Result<T, Problem>;

impl Problem {
    /// A problem with the value at `path`.
    pub fn new(path: KeyPath, problem: impl Into<String>, fix: impl Into<String>) -> Problem {
        Problem {
            path,
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    /// The problem as an input error naming the scene `file`, the line of the key in its
    /// `text` (or that the value came from a default or `--set`), and the fix.
    pub fn to_error(&self, file: &Path, text: &str) -> Error {
        let place = match line_of(text, &self.path) {
            Some(line) => format!("{}:{line}", file.display()),
            None => format!("{} (value from a default or --set)", file.display()),
        };
        Error::input(format!(
            "{place}: {}: {}; fix: {}",
            self.path, self.problem, self.fix
        ))
    }
}

/// `Err` of a [`Problem`] at `path`, for checks that return at the first problem.
pub fn fail<T>(path: KeyPath, problem: impl Into<String>, fix: impl Into<String>) -> Checked<T> {
    Err(Problem::new(path, problem, fix))
}

/// Whether all three numbers are finite.
pub fn finite3(v: &[f64; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}
