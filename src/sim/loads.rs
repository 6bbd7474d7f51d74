//! The liquid's loads on the bodies and the walls over the steps of a frame: each step's
//! impulses added up, with the step of the largest force and of the largest torque, and given
//! out per frame as the mean force and torque over the frame's time (`body_loads.csv`,
//! `wall_loads.csv`).
use crate::output::Load;
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

    /// Entries tallied (0 before the first step).
    pub fn len(&self) -> usize {
        self.sums.len()
    }

    /// Whether no entry was tallied yet.
    pub fn is_empty(&self) -> bool {
        self.sums.is_empty()
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

    /// The loads of the steps added since the last call, `n` entries (zero loads when no step
    /// was added), and start over.
    pub fn take(&mut self, n: usize) -> Vec<Load> {
        let time = self.time;
        let out = (0..n)
            .map(|k| match (self.sums.get(k), self.peaks.get(k)) {
                (Some(&(j, l)), Some(&(f, t))) if time > 0.0 => Load {
                    force: j / time,
                    torque: l / time,
                    peak_force: f,
                    peak_torque: t,
                },
                _ => Load::default(),
            })
            .collect();
        self.sums.fill((DVec3::ZERO, DVec3::ZERO));
        self.peaks.fill((DVec3::ZERO, DVec3::ZERO));
        self.time = 0.0;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_gives_the_mean_force_and_the_largest_step() {
        let mut t = LoadTally::default();
        let dt = 0.01;
        t.add(&[(DVec3::new(0.01, 0.0, 0.0), DVec3::ZERO)], dt);
        t.add(
            &[(DVec3::new(0.03, 0.0, 0.0), DVec3::new(0.0, 0.0, -0.02))],
            dt,
        );
        let loads = t.take(1);
        assert!((loads[0].force - DVec3::new(2.0, 0.0, 0.0)).length() < 1e-12);
        assert!((loads[0].torque - DVec3::new(0.0, 0.0, -1.0)).length() < 1e-12);
        assert!((loads[0].peak_force - DVec3::new(3.0, 0.0, 0.0)).length() < 1e-12);
        assert!((loads[0].peak_torque - DVec3::new(0.0, 0.0, -2.0)).length() < 1e-12);
        // Taken, it starts over: a frame with no steps has no load.
        assert_eq!(t.take(1), vec![Load::default()]);
        // A checkpoint between frames carries it exactly.
        t.add(&[(DVec3::new(0.5, 1e-9, -3.0), DVec3::X)], dt);
        let back = LoadTally::restore(&t.save()).unwrap();
        assert_eq!(back, t);
        assert_eq!(LoadTally::restore(&[]).unwrap(), LoadTally::default());
        assert!(LoadTally::restore(&[1.0, 2.0]).is_none());
    }
}
