//! Liquid particles a body presses into a wall: the walls that hold them, a particle's share
//! of its row along the walls, the bodies those rows clamp (and the slop a clamped body may
//! close at), and the rows of one patch reduced to its corners.
use super::body_contacts::{BodyContact, reduce_patch_each};
use super::touches::LiquidTouch;
use crate::boundary::walls::WallNormals;
use crate::joints::{Joint, JointKind};
use crate::lcp::StructuredRow;
use crate::rigid::RigidBody;
use glam::DVec3;

/// A body presses a liquid particle into a wall it rests on when the contact normal points
/// into the wall by more than this cosine.
pub const WEDGE_COS: f64 = 0.1;

/// A wedged particle's share of a row (the row's direction along the walls) below this
/// squared length is dropped, and the walls hold the particle entirely: a direction within
/// 6 degrees of a wall's normal. A sliver of a share would make the particle take an impulse
/// a hundred times the body's to resolve a speed rounding left in its row, an ill-conditioned
/// row for no physics.
const PARTICLE_SHARE_MIN: f64 = 0.01;

/// A row through a particle the walls hold entirely lets the body close on it at this
/// fraction of the resting speed, where the body is clamped (see [`Clamp`]). Such rows on
/// opposite faces of a body in a gap one film wide ask for an exact rigid clamp, which the
/// smoothed normals at edges and rounding make infeasible by a hair (a ray); the position
/// correction takes the slop out (a step closes at most `0.02 g dt^2`, about 1e-7 m at the
/// scenes' time steps). A body held from one side only (a box on a film over the floor) is
/// not clamped and gets no slop: it does not sink through the film that carries it.
pub const WEDGE_SLOP: f64 = 0.01;

/// The walls a body is held against this step, one bit per wall side (`axis * 2 + [lo, hi]`):
/// through particles the walls hold entirely, through its own wall contacts, and through a
/// hinge to the world whose axis lies along a wall's normal (the body cannot move along it,
/// either way). A row that holds the body against one wall clamps it when the opposite wall
/// holds it too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clamp(u8);

impl Clamp {
    /// The bit of the wall of inward unit normal `n` (axis-aligned).
    fn bit(n: DVec3) -> u8 {
        let a = n.abs().max_position();
        1 << (2 * a + usize::from(n[a] < 0.0))
    }

    /// Add the wall of inward unit normal `n`.
    fn add(&mut self, n: DVec3) {
        self.0 |= Clamp::bit(n);
    }

    /// Add both walls of coordinate axis `a`.
    fn add_axis(&mut self, a: usize) {
        self.add(DVec3::AXES[a]);
        self.add(-DVec3::AXES[a]);
    }

    /// Whether both walls of coordinate axis `a` hold the body.
    fn holds_axis(self, a: usize) -> bool {
        let both = Clamp::bit(DVec3::AXES[a]) | Clamp::bit(-DVec3::AXES[a]);
        self.0 & both == both
    }

    /// Whether the wall opposite one of `walls` (inward normals) holds the body too.
    pub fn opposes(self, walls: &[DVec3]) -> bool {
        walls.iter().any(|&n| self.0 & Clamp::bit(-n) != 0)
    }
}

/// The part of `d` along the walls `walls`, if it is more than a sliver (see
/// `PARTICLE_SHARE_MIN`): a wedged particle's share of a row in direction `d`.
pub fn share_along(walls: &[DVec3], d: DVec3) -> Option<DVec3> {
    let n = walls.iter().fold(d, |d, n| d - *n * d.dot(*n));
    (n.length_squared() > PARTICLE_SHARE_MIN).then_some(n)
}

/// A hinge clamps along a wall's normal when its axis lies within this cosine (2 degrees) of
/// it: every point of its body then moves across that normal only (relative to the other end).
const HINGE_AXIS_COS: f64 = 0.9994;

/// The coordinate axis a hinge's world axis `axis` (unit) lies along, within 2 degrees.
fn hinge_axis(axis: DVec3) -> Option<usize> {
    let a = axis.abs().max_position();
    (axis[a].abs() > HINGE_AXIS_COS).then_some(a)
}

/// Per body, the walls it is held against (see [`Clamp`]), into `out` (cleared first): through
/// the touches of `liquid` whose particle the walls hold entirely (`wedging` gives the walls
/// that hold a touch's particle), the wall contacts among `solid`, and the hinges among
/// `joints` whose axis lies along a wall's normal: one to the world (or a static body) holds
/// its body on that axis, and one between two bodies passes a hold on it from either to the
/// other.
pub fn clamps(
    bodies: &[RigidBody],
    liquid: &[LiquidTouch],
    solid: &[BodyContact],
    joints: &[Joint],
    wedging: impl Fn(&LiquidTouch) -> WallNormals,
    out: &mut Vec<Clamp>,
) {
    out.clear();
    out.resize(bodies.len(), Clamp::default());
    for t in liquid {
        let walls = wedging(t);
        if share_along(&walls, t.contact.normal).is_none() {
            for &n in walls.iter() {
                out[t.contact.body as usize].add(n);
            }
        }
    }
    for sc in solid.iter().filter(|sc| sc.b.is_none()) {
        out[sc.a as usize].add(sc.normal);
    }
    // A hinge fixes its body's motion along the axis (relative to the other end), so a wedged
    // row along it depends on the hinge's rows (in exact arithmetic it asks for what they
    // give; rounding made such a problem a ray, the hinged gate against its side walls). A
    // hold passes along a chain of such hinges; each pass settles at least one more link.
    let moving = |e: Option<usize>| e.filter(|&b| bodies[b].dynamic);
    for _ in 0..=joints.len() {
        let mut changed = false;
        for j in joints
            .iter()
            .filter(|j| matches!(j.kind, JointKind::Hinge { .. }))
        {
            let ends = j.ends.map(moving);
            let Some((k, b)) = (0..2).find_map(|k| ends[k].map(|b| (k, b))) else {
                continue;
            };
            let axis = bodies[b].rotation() * j.axes[k];
            let Some(a) = hinge_axis(axis) else {
                continue;
            };
            let held = ends.map(|e| e.is_none_or(|b| out[b].holds_axis(a)));
            for (e, other) in [(ends[0], held[1]), (ends[1], held[0])] {
                if let Some(b) = e.filter(|&b| other && !out[b].holds_axis(a)) {
                    out[b].add_axis(a);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// Two wedged rows of one body whose normals lie within this cosine (2 degrees) share a plane.
const WEDGED_PLANE_COS: f64 = 0.9994;

/// Drop the rows through particles the walls hold entirely (no particle share: the body rests
/// on the wall through them) that lie inside the patch of the others on the same body and
/// plane: of each such patch, [`reduce_patch_each`] keeps at most its four corners. A rigid
/// body's frictionless forces at a point inside the patch are a blend of the corners' (the
/// same normal), and its speed there a blend of theirs, so the kept rows ask the same of the
/// body; the dropped rows would only add linearly dependent rows. A box on a film over the
/// floor had 80 such rows, on which block pivoting cycled and the dense fallback found the
/// problem singular. Only without liquid friction (no friction rows refer to the normal rows).
/// The entries of `beside` (kept alongside the rows, one per row from the first) at the
/// dropped rows go too.
pub fn drop_inner_wedged_rows<T>(
    rows: &mut Vec<StructuredRow>,
    beside: &mut Vec<T>,
    wedged: &mut Vec<(usize, u32, DVec3, DVec3)>,
    patch: &mut Vec<(DVec3, f64)>,
    state: &mut Vec<(bool, bool)>,
) {
    if wedged.len() < 5 {
        wedged.clear();
        return;
    }
    state.clear();
    state.resize(wedged.len(), (false, false));
    for seed in 0..wedged.len() {
        if state[seed].0 {
            continue;
        }
        let (_, body, _, normal) = wedged[seed];
        patch.clear();
        for (k, &(_, b, point, n)) in wedged.iter().enumerate().skip(seed) {
            if !state[k].0 && b == body && n.dot(normal) > WEDGED_PLANE_COS {
                state[k].0 = true;
                patch.push((point, k as f64));
            }
        }
        reduce_patch_each(patch, normal, |(_, k)| state[k as usize].1 = true);
    }
    // The rows to drop, in row order (`wedged` is in row order).
    let dropped = || {
        wedged
            .iter()
            .zip(state.iter())
            .filter(|(_, s)| !s.1)
            .map(|(w, _)| w.0)
            .peekable()
    };
    retain_but(rows, dropped());
    retain_but(beside, dropped());
    wedged.clear();
}

/// Remove the entries of `v` at the ascending indices `drop` (those beyond its end are
/// ignored).
fn retain_but<T>(v: &mut Vec<T>, mut drop: std::iter::Peekable<impl Iterator<Item = usize>>) {
    let mut i = 0;
    v.retain(|_| {
        let keep = drop.peek() != Some(&i);
        if !keep {
            drop.next();
        }
        i += 1;
        keep
    });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rigid::{Primitive, Shape};

    /// A hinge about `axis` (both ends' frames; the bodies are unrotated) between `ends`, at
    /// `anchors` in each end's frame.
    pub(crate) fn hinge(ends: [Option<usize>; 2], anchors: [DVec3; 2], axis: DVec3) -> Joint {
        Joint {
            name: "hinge".into(),
            kind: JointKind::Hinge { limits: None },
            ends,
            anchors,
            axes: [axis; 2],
            reference: glam::DQuat::IDENTITY,
            stabilization: 0.2,
        }
    }

    #[test]
    fn a_hold_along_a_hinge_axis_passes_down_a_chain_of_hinges() {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::splat(0.02),
        });
        let bodies: Vec<RigidBody> = (0..4)
            .map(|k| RigidBody::new(&format!("b{k}"), &shape, 500.0, 0.005).unwrap())
            .collect();
        let held = |joints: &[Joint]| {
            let mut out = Vec::new();
            clamps(
                &bodies,
                &[],
                &[],
                joints,
                |_| WallNormals::default(),
                &mut out,
            );
            out.iter().map(|c| c.holds_axis(2)).collect::<Vec<_>>()
        };
        // Flaps hinged about z: body 2 to body 1 (listed first), body 1 to the world, body 3
        // to body 2 about x. The world's hold reaches 1, then 2; 3 can still move along z.
        let chain = [
            hinge([Some(2), Some(1)], [DVec3::ZERO; 2], DVec3::Z),
            hinge([None, Some(1)], [DVec3::ZERO; 2], DVec3::Z),
            hinge([Some(3), Some(2)], [DVec3::ZERO; 2], DVec3::X),
        ];
        assert_eq!(held(&chain), [false, true, true, false]);
        // Without the hinge to the world nothing holds them.
        assert_eq!(held(&[chain[0].clone(), chain[2].clone()]), [false; 4]);
        // A hinge about z to a static body holds like one to the world.
        let mut fixed = bodies.clone();
        fixed[0].dynamic = false;
        let mut out = Vec::new();
        let to_static = [hinge([Some(0), Some(1)], [DVec3::ZERO; 2], DVec3::Z)];
        clamps(
            &fixed,
            &[],
            &[],
            &to_static,
            |_| WallNormals::default(),
            &mut out,
        );
        assert!(out[1].holds_axis(2) && !out[0].holds_axis(2));
    }
}
