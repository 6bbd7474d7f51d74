//! The resident memory of this process, read from Linux's `/proc/self/status`: how `check`
//! and `bench` measure the CPU memory per particle.
use crate::sim::footprint::proc_kb;

/// The `kB` figure of `key` in `/proc/self/status`, in bytes.
fn status_bytes(key: &str) -> Option<u64> {
    proc_kb("/proc/self/status", key)
}

/// Run `f` and measure the peak resident memory it adds: the peak during `f` (its mark reset
/// first) less the resident memory before. `None` where `/proc` cannot tell (not Linux).
pub fn peak_added<T>(f: impl FnOnce() -> T) -> (T, Option<u64>) {
    // Writing 5 to clear_refs resets the peak mark (VmHWM) to the current resident size.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = status_bytes("VmRSS:");
    let out = f();
    let peak = status_bytes("VmHWM:");
    let added = match (reset, before, peak) {
        (true, Some(b), Some(p)) => Some(p.saturating_sub(b)),
        _ => None,
    };
    (out, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allocation_touched_whole_shows_in_the_peak() {
        if status_bytes("VmRSS:").is_none() {
            return;
        }
        let size = 64 << 20;
        let (sum, added) = peak_added(|| {
            let v = std::hint::black_box(vec![1u8; size]);
            v.iter().map(|&b| b as u64).sum::<u64>()
        });
        assert_eq!(sum, size as u64);
        let added = added.expect("a Linux /proc");
        // Other test threads may add a little; the buffer must be there in full.
        assert!(added >= size as u64 * 95 / 100, "{added}");
    }
}
