//! The start from rest: before time 0 the liquid relaxes under gravity into hydrostatic
//! equilibrium, its motion damped, the walls and bodies held still, so that a block does not
//! start with a pressure burst (the lattice's free surface pushed up by the near pressure,
//! the column not yet compressed by its weight). Each block is held in the box it was filled
//! in, open only on its upper side, as a dam is held by its gate: it starts where it was placed.
use crate::Result;
use crate::liquid::Liquid;
use crate::timing::{PhaseTimes, Timing};
use glam::Vec3A;

/// How long the liquid settles before time 0 and how strongly its motion is damped.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SettlePlan {
    /// Steps of the liquid alone before time 0.
    pub steps: u32,
    /// The fraction of its velocity a particle keeps after each step.
    pub keep: f32,
}

/// The box a block's particle centres stay in while the liquid settles: the block's own box
/// less a particle radius, unbounded on the side gravity points away from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    /// Lowest allowed particle centre.
    pub lo: Vec3A,
    /// Highest allowed particle centre.
    pub hi: Vec3A,
}

impl Gate {
    /// The gate of a block filling `min..max` with particles of `radius`, under `gravity`: open
    /// (infinite) on each axis's upper side against gravity, closed on every other face.
    pub fn for_block(min: [f64; 3], max: [f64; 3], radius: f64, gravity: [f64; 3]) -> Gate {
        let (mut lo, mut hi) = ([0f32; 3], [0f32; 3]);
        for k in 0..3 {
            let (a, b) = (min[k].min(max[k]), min[k].max(max[k]));
            lo[k] = if gravity[k] > 0.0 {
                f32::NEG_INFINITY
            } else {
                (a + radius) as f32
            };
            hi[k] = if gravity[k] < 0.0 {
                f32::INFINITY
            } else {
                (b - radius) as f32
            };
        }
        Gate {
            lo: Vec3A::from_array(lo),
            hi: Vec3A::from_array(hi),
        }
    }

    /// Keep `x` inside the gate, stopping `v` along every axis where it was moved.
    fn hold(&self, x: &mut Vec3A, v: &mut Vec3A) {
        let c = x.clamp(self.lo, self.hi);
        if c != *x {
            *v = Vec3A::select(c.cmpeq(*x), *v, Vec3A::ZERO);
            *x = c;
        }
    }
}

/// Relax the liquid from rest for `plan.steps` steps of `dt` (no coupling: the bodies'
/// boundary stays where it is), damping every velocity by `plan.keep` a step and holding each
/// particle inside its block's `gates[phase]`, then give every particle its block's initial
/// velocity (`velocity[phase]`). The particles whose slot is `held` now (next to a body, which
/// would not push them out) stay where they are.
pub fn settle(
    liquid: &mut dyn Liquid,
    dt: f32,
    plan: SettlePlan,
    velocity: &[Vec3A],
    gates: &[Gate],
    held: &[bool],
) -> Result<()> {
    let mut times = PhaseTimes::default();
    let p = liquid.particles_mut();
    p.vel.fill(Vec3A::ZERO);
    // Where each held particle stays, by id (the steps reorder the slots).
    let mut anchor = vec![None; p.len()];
    for (slot, _) in held.iter().enumerate().filter(|(_, h)| **h) {
        anchor[p.id[slot] as usize] = Some(p.pos[slot]);
    }
    let any_held = held.contains(&true);
    for _ in 0..plan.steps {
        liquid.step(dt, Timing::Off, &mut times)?;
        let p = liquid.particles_mut();
        for ((x, v), &ph) in p.pos.iter_mut().zip(&mut p.vel).zip(&p.phase) {
            *v *= plan.keep;
            gates[ph as usize].hold(x, v);
        }
        if any_held {
            for (slot, id) in p.id.iter().enumerate() {
                if let Some(x) = anchor[*id as usize] {
                    (p.pos[slot], p.vel[slot]) = (x, Vec3A::ZERO);
                }
            }
        }
    }
    let p = liquid.particles_mut();
    for (v, &ph) in p.vel.iter_mut().zip(&p.phase) {
        *v = velocity[ph as usize];
    }
    Ok(())
}

impl SettlePlan {
    /// The plan for a liquid column `height` m tall along gravity with sound speed `c` m/s
    /// (`sqrt(k)`), stepped at `dt`: settle for four sound crossings `4 H / c` (a quarter
    /// period of the column's slowest compression mode is `H / c`), damped at the rate
    /// `pi c / H`, twice the slowest mode's angular frequency `pi c / 2H`, so that mode is
    /// critically damped and the faster ones (the surface's) are damped harder.
    pub fn for_column(height: f64, c: f64, dt: f64) -> SettlePlan {
        if !(height > 0.0 && c > 0.0 && dt > 0.0) {
            return SettlePlan::default();
        }
        SettlePlan {
            steps: (4.0 * height / c / dt).ceil().min(1e6) as u32,
            keep: (-std::f64::consts::PI * c / height * dt).exp() as f32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_settles_for_four_crossings_its_slowest_mode_critically_damped() {
        // H = 0.1 m, c = 10 m/s: 0.04 s at dt = 1e-4 is 400 steps; keep = exp(-pi * 0.01).
        let plan = SettlePlan::for_column(0.1, 10.0, 1e-4);
        assert_eq!(plan.steps, 400);
        assert!((plan.keep as f64 - (-std::f64::consts::PI * 0.01).exp()).abs() < 1e-7);
        // Without gravity (no column) or stiffness there is nothing to settle.
        assert_eq!(SettlePlan::for_column(0.0, 10.0, 1e-4).steps, 0);
        assert_eq!(SettlePlan::for_column(0.1, 0.0, 1e-4).steps, 0);
    }

    #[test]
    fn a_gate_is_the_block_less_a_radius_open_against_gravity() {
        let gate = Gate::for_block([0.0, 0.0, 0.0], [1.0, 2.0, 3.0], 0.1, [0.0, -9.81, 0.0]);
        assert_eq!(gate.lo, Vec3A::new(0.1, 0.1, 0.1));
        assert_eq!(gate.hi, Vec3A::new(0.9, f32::INFINITY, 2.9));
        // A particle pushed out through a side is put back and stopped along that axis only.
        let (mut x, mut v) = (Vec3A::new(0.95, 5.0, -1.0), Vec3A::new(1.0, 2.0, -3.0));
        gate.hold(&mut x, &mut v);
        assert_eq!(x, Vec3A::new(0.9, 5.0, 0.1));
        assert_eq!(v, Vec3A::new(0.0, 2.0, 0.0));
        // Gravity along +x opens the lower x face instead.
        let gate = Gate::for_block([0.0; 3], [1.0; 3], 0.1, [9.81, 0.0, 0.0]);
        assert_eq!(gate.lo.x, f32::NEG_INFINITY);
        assert_eq!(gate.hi, Vec3A::splat(0.9));
    }
}
