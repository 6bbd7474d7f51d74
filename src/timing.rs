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
    /// Walls.
    Collisions,
    /// Emitters and outlets: particles added, steered and removed at the end of a step.
    Sources,
    /// Writing frames.
    Output,
    /// The bodies' kernel sums lent to the liquid: placing their boundary particles, binning
    /// them, and gathering their sums.
    Boundary,
    /// Finding the contacts of the liquid, the bodies and the walls.
    Contacts,
    /// Assembling the contact problem, and applying its solution to the bodies.
    Assemble,
    /// Solving the contact LCP.
    Lcp,
    /// Position-level correction: liquid pushed out of bodies, bodies out of walls and each
    /// other.
    Correction,
    /// The joints' rows, their projection and their error peaks.
    Joints,
    /// The bodies' motion: gravity, poses, and the impulses handed back to the liquid.
    Bodies,
    /// Writing the bodies' frames and states.
    RigidOutput,
}

impl Phase {
    /// Every phase: the liquid's in step order, then the coupling's.
    pub const ALL: [Phase; 16] = [
        Phase::Grid,
        Phase::Integrate,
        Phase::Viscosity,
        Phase::Density,
        Phase::Relaxation,
        Phase::Collisions,
        Phase::Sources,
        Phase::Output,
        Phase::Boundary,
        Phase::Contacts,
        Phase::Assemble,
        Phase::Lcp,
        Phase::Correction,
        Phase::Joints,
        Phase::Bodies,
        Phase::RigidOutput,
    ];

    /// The liquid's own phases per step (frames written aside).
    pub const LIQUID: [Phase; 7] = [
        Phase::Grid,
        Phase::Integrate,
        Phase::Viscosity,
        Phase::Density,
        Phase::Relaxation,
        Phase::Collisions,
        Phase::Sources,
    ];

    /// The coupling's phases per step (the bodies' frames written aside): their sum is the
    /// coupling's cost.
    pub const COUPLING: [Phase; 7] = [
        Phase::Boundary,
        Phase::Contacts,
        Phase::Assemble,
        Phase::Lcp,
        Phase::Correction,
        Phase::Joints,
        Phase::Bodies,
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
            Phase::Sources => "sources",
            Phase::Output => "output",
            Phase::Boundary => "boundary",
            Phase::Contacts => "contacts",
            Phase::Assemble => "assemble",
            Phase::Lcp => "lcp",
            Phase::Correction => "correction",
            Phase::Joints => "joints",
            Phase::Bodies => "bodies",
            Phase::RigidOutput => "rigid_output",
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
    totals: [Duration; Phase::ALL.len()],
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

    /// Total over `phases`.
    pub fn sum(&self, phases: &[Phase]) -> Duration {
        phases.iter().map(|&p| self.get(p)).sum()
    }
}
