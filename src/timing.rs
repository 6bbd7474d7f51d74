//! Time spent in each phase of the step, for `sphrigid bench` and the run summary, and how a
//! device backend measures it.
use std::time::{Duration, Instant};

/// The phases a step is timed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Binning and sorting particles into the neighbour grid.
    Grid,
    /// Gravity, prediction and the velocity update.
    Integrate,
    /// Viscosity impulses.
    Viscosity,
    /// Kernel sums and pressures.
    Density,
    /// Relaxation displacements.
    Relaxation,
    /// Walls (and later bodies).
    Collisions,
    /// Writing frames.
    Output,
}

impl Phase {
    /// Every phase, in step order.
    pub const ALL: [Phase; 7] = [
        Phase::Grid,
        Phase::Integrate,
        Phase::Viscosity,
        Phase::Density,
        Phase::Relaxation,
        Phase::Collisions,
        Phase::Output,
    ];

    /// The phase's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Grid => "grid",
            Phase::Integrate => "integrate",
            Phase::Viscosity => "viscosity",
            Phase::Density => "density",
            Phase::Relaxation => "relaxation",
            Phase::Collisions => "collisions",
            Phase::Output => "output",
        }
    }
}

/// How a device backend times a step's phases (the CPU backend always uses the wall clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// Not at all: one submission per step.
    Off,
    /// Wall-clock time of each phase, submitted and waited for on its own.
    Wall,
    /// GPU timestamps at the start and end of each phase's compute pass.
    Timestamps,
}

/// Accumulated time per phase.
#[derive(Debug, Clone, Default)]
pub struct PhaseTimes {
    totals: [Duration; 7],
}

impl PhaseTimes {
    /// Run `f`, adding its duration to `phase`.
    #[inline]
    pub fn time<T>(&mut self, phase: Phase, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.totals[phase as usize] += t.elapsed();
        out
    }

    /// Add a duration measured elsewhere (a GPU timestamp, a waited submission) to `phase`.
    pub fn add(&mut self, phase: Phase, d: Duration) {
        self.totals[phase as usize] += d;
    }

    /// Total time in `phase`.
    pub fn get(&self, phase: Phase) -> Duration {
        self.totals[phase as usize]
    }

    /// Total over all phases.
    pub fn total(&self) -> Duration {
        self.totals.iter().sum()
    }
}
