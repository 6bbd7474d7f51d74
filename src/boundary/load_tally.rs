//! The liquid's loads on a set of bodies or walls over the steps of a frame: each step's
//! impulses added up, with the step of the largest force and of the largest torque (what
//! `body_loads.csv` and `wall_loads.csv` give per frame, `sim::loads`). The walls' tally is
//! kept by the liquid's backend (on the GPU backend, its sums and peaks on the device), the
//! bodies' by the simulation.
use glam::DVec3;

/// The impulses on a set of bodies or walls since the last frame written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadTally {
    /// Per entry, the impulse (N s) and angular impulse (N m s) summed over the steps.
    sums: Vec<(DVec3, DVec3)>,
    /// Per entry, the step force and torque of the largest magnitude.
    peaks: Vec<(DVec3, DVec3)>,
    /// The simulated time the steps cover, s.
    time: f64,
}

impl LoadTally {
    /// A tally of `sums` (per entry the impulse, N s, and angular impulse, N m s), `peaks`
    /// (per entry the step force and torque of the largest magnitude) over `time` s.
    pub fn from_parts(
        sums: Vec<(DVec3, DVec3)>,
        peaks: Vec<(DVec3, DVec3)>,
        time: f64,
    ) -> LoadTally {
        assert_eq!(sums.len(), peaks.len());
        LoadTally { sums, peaks, time }
    }

    /// Add one step of length `dt`, s: per entry its impulse and angular impulse.
    pub fn add(&mut self, impulses: &[(DVec3, DVec3)], dt: f64) {
        if self.sums.len() != impulses.len() {
            self.sums.resize(impulses.len(), (DVec3::ZERO, DVec3::ZERO));
            self.peaks
                .resize(impulses.len(), (DVec3::ZERO, DVec3::ZERO));
        }
        for ((sum, peak), &(j, l)) in self.sums.iter_mut().zip(&mut self.peaks).zip(impulses) {
            sum.0 += j;
            sum.1 += l;
            let (f, t) = (j / dt, l / dt);
            if f.length_squared() > peak.0.length_squared() {
                peak.0 = f;
            }
            if t.length_squared() > peak.1.length_squared() {
                peak.1 = t;
            }
        }
        self.time += dt;
    }

    /// Per entry, the impulse and angular impulse summed over the steps.
    pub fn sums(&self) -> &[(DVec3, DVec3)] {
        &self.sums
    }

    /// Per entry, the step force and torque of the largest magnitude.
    pub fn peaks(&self) -> &[(DVec3, DVec3)] {
        &self.peaks
    }

    /// The simulated time the steps cover, s.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Entries tallied (0 before the first step).
    pub fn len(&self) -> usize {
        self.sums.len()
    }

    /// Whether no entry was tallied yet.
    pub fn is_empty(&self) -> bool {
        self.sums.is_empty()
    }

    /// Start over: no step tallied, the entries kept at zero.
    pub fn clear(&mut self) {
        self.sums.fill((DVec3::ZERO, DVec3::ZERO));
        self.peaks.fill((DVec3::ZERO, DVec3::ZERO));
        self.time = 0.0;
    }

    /// The tally as numbers for a checkpoint: the time, then per entry its sums and peaks
    /// (12 numbers); empty when no step was added.
    pub fn save(&self) -> Vec<f64> {
        if self.time == 0.0 {
            return Vec::new();
        }
        let mut out = vec![self.time];
        for (s, p) in self.sums.iter().zip(&self.peaks) {
            for v in [s.0, s.1, p.0, p.1] {
                out.extend(v.to_array());
            }
        }
        out
    }

    /// The tally that [`LoadTally::save`] gave; `None` when the numbers do not make one.
    pub fn restore(saved: &[f64]) -> Option<LoadTally> {
        let Some((&time, rest)) = saved.split_first() else {
            return Some(LoadTally::default());
        };
        if !rest.len().is_multiple_of(12) {
            return None;
        }
        let v = |c: &[f64]| DVec3::new(c[0], c[1], c[2]);
        let (sums, peaks) = rest
            .chunks(12)
            .map(|c| ((v(&c[0..3]), v(&c[3..6])), (v(&c[6..9]), v(&c[9..12]))))
            .unzip();
        Some(LoadTally { sums, peaks, time })
    }
}
