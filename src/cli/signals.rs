//! SIGINT and SIGTERM ask a run to stop at the end of its current step: the handler only
//! records the signal in [`STOP`], which the run loop reads after every step. A second signal
//! while the first is being honoured ends the process at once (every file on disk is whole
//! either way: frames and checkpoints are written through a rename).
use std::sync::atomic::{AtomicI32, Ordering};

/// The number of the first stop signal received (0: none yet).
pub static STOP: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    if STOP.swap(signal, Ordering::SeqCst) != 0 {
        // SAFETY: _exit is async-signal-safe; the user asked twice.
        unsafe { libc::_exit(128 + signal) };
    }
}

/// Route SIGINT and SIGTERM to [`STOP`] for the rest of the process; returns the flag
/// (elsewhere than on Unix the signals keep their default action).
pub fn install() -> &'static AtomicI32 {
    #[cfg(unix)]
    route();
    &STOP
}

#[cfg(unix)]
fn route() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only touches an atomic and calls _exit, both async-signal-safe.
        unsafe { libc::signal(signal, handler) };
    }
}
