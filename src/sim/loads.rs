//! The liquid's loads on the bodies and the walls over the steps of a frame ([`LoadTally`]:
//! each step's impulses added up, with the step of the largest force and of the largest
//! torque), given out per frame as the mean force and torque over the frame's time
//! (`body_loads.csv`, `wall_loads.csv`).
use crate::output::Load;

pub use crate::boundary::LoadTally;

/// The loads of the steps `t` tallied since the last call, `n` entries (zero loads when no
/// step was added), and start `t` over.
pub fn take(t: &mut LoadTally, n: usize) -> Vec<Load> {
    let time = t.time();
    let out = (0..n)
        .map(|k| match (t.sums().get(k), t.peaks().get(k)) {
            (Some(&(j, l)), Some(&(f, tq))) if time > 0.0 => Load {
                force: j / time,
                torque: l / time,
                peak_force: f,
                peak_torque: tq,
            },
            _ => Load::default(),
        })
        .collect();
    t.clear();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn a_frame_gives_the_mean_force_and_the_largest_step() {
        let mut t = LoadTally::default();
        let dt = 0.01;
        t.add(&[(DVec3::new(0.01, 0.0, 0.0), DVec3::ZERO)], dt);
        t.add(
            &[(DVec3::new(0.03, 0.0, 0.0), DVec3::new(0.0, 0.0, -0.02))],
            dt,
        );
        let loads = take(&mut t, 1);
        assert!((loads[0].force - DVec3::new(2.0, 0.0, 0.0)).length() < 1e-12);
        assert!((loads[0].torque - DVec3::new(0.0, 0.0, -1.0)).length() < 1e-12);
        assert!((loads[0].peak_force - DVec3::new(3.0, 0.0, 0.0)).length() < 1e-12);
        assert!((loads[0].peak_torque - DVec3::new(0.0, 0.0, -2.0)).length() < 1e-12);
        // Taken, it starts over: a frame with no steps has no load.
        assert_eq!(take(&mut t, 1), vec![Load::default()]);
        // A checkpoint between frames carries it exactly.
        t.add(&[(DVec3::new(0.5, 1e-9, -3.0), DVec3::X)], dt);
        let back = LoadTally::restore(&t.save()).unwrap();
        assert_eq!(back, t);
        assert_eq!(LoadTally::restore(&[]).unwrap(), LoadTally::default());
        assert!(LoadTally::restore(&[1.0, 2.0]).is_none());
    }
}
