//! Gaps between a body and a wall narrower than a liquid particle, and the part of a
//! particle's column a body covers next to one.
//!
//! The walls hold particle centres half a spacing inside them, so a particle against a wall
//! stands for the liquid of a column a spacing wide that reaches to the wall. A body whose face
//! ends `u` short of that wall (`0 < u < MIN_GAP` spacings: no particle fits between) covers
//! only `1 - u / spacing` of that column, yet a particle under its face would pass the whole
//! column's push to it: the body would float as a piston across the gap, its weight on its
//! own area and the liquid's pressure on the gap's too. The liquid that would fill the gap
//! takes the uncovered strip instead: the contact row of such a particle couples the body by
//! the covered share alone (its body terms scaled by it, in velocity and impulse alike, so the
//! problem stays symmetric), and a film there passes its pressure over the covered part. A
//! body flush with the wall, or one that leaves room for a particle, covers it all.
use super::params::Walls;
use crate::rigid::RigidBody;
use glam::DVec3;

/// A gap between a wall and a body's surface, along the wall's normal, must be at least this
/// many spacings for a liquid particle to sit in it.
pub const MIN_GAP: f64 = 0.75;

/// A particle less than this many spacings clear of a body's surface is pressed by it: no
/// other particle fits between (a body resting on a row touches its particles only to
/// rounding, and under a body lifting off the next layer comes in only once it fits).
pub const TOUCH_GAP: f64 = 0.75;

/// The body's surface must lie within this cosine of perpendicular to a wall (about 6
/// degrees) for its edge against that wall to leave a strip of a particle's column uncovered.
const ALONG: f64 = 0.1;

/// The box a body's surface spans (world frame): its least and greatest coordinates over its
/// surface's vertices.
pub fn span(body: &RigidBody) -> (DVec3, DVec3) {
    body.surface.vertices.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), v| {
            let w = body.world_point(*v);
            (lo.min(w), hi.max(w))
        },
    )
}

/// Each body's [`span`] in one step, found the first time a contact or a film next to a wall
/// needs it.
#[derive(Debug, Clone, Default)]
pub struct Spans(Vec<Option<(DVec3, DVec3)>>);

impl Spans {
    /// Forgets last step's spans; room for `n` bodies.
    pub fn reset(&mut self, n: usize) {
        self.0.clear();
        self.0.resize(n, None);
    }

    /// The span of body `b` (`body`), found once per step.
    pub fn of(&mut self, b: usize, body: &RigidBody) -> (DVec3, DVec3) {
        *self.0[b].get_or_insert_with(|| span(body))
    }
}

/// The share of the column of a particle at `x` (`spacing` apart) that a body spanning
/// `span` ([`span`]) covers, where its surface at the particle (outward normal `normal`) ends
/// in a sub-particle gap short of a wall: one less, for each wall that bounds the column, the
/// gap's width less the particle's own stand-off from the wall, over a spacing; 1 where no
/// gap cuts the column.
pub fn covered_share(
    walls: &Walls,
    spacing: f64,
    x: DVec3,
    normal: DVec3,
    span: (DVec3, DVec3),
) -> f64 {
    let r = spacing / 2.0;
    let mut strip = 0.0;
    for a in 0..3 {
        if normal[a].abs() > ALONG {
            continue;
        }
        // The wall's face (half a spacing beyond the particles' bound), the particle's
        // stand-off from the particles' bound, and the gap between the body and the face.
        for (off, u) in [
            (
                x[a] - walls.lo[a] as f64,
                span.0[a] - (walls.lo[a] as f64 - r),
            ),
            (
                walls.hi[a] as f64 - x[a],
                walls.hi[a] as f64 + r - span.1[a],
            ),
        ] {
            if off < r && u > 1e-6 * spacing && u < MIN_GAP * spacing {
                strip += (u - off.max(0.0)).max(0.0);
            }
        }
    }
    1.0 - (strip / spacing).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::{Primitive, Shape};
    use glam::Vec3A;

    const S: f64 = 0.005;

    /// Unit container walls for spacing 0.005.
    fn walls() -> Walls {
        let r = (S / 2.0) as f32;
        Walls::bare(Vec3A::splat(r), Vec3A::splat(1.0 - r))
    }

    /// A box 0.04 x 0.02 x 0.04 m whose underside lies one liquid layer above the floor and
    /// whose front face (low z) stands `u` from the front wall.
    fn box_off_the_wall(u: f64) -> RigidBody {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.04, 0.02, 0.04),
        });
        let mut b = RigidBody::new("box", &shape, 800.0, S).unwrap();
        b.state.x = DVec3::new(0.5, S + 0.01, u + 0.02);
        b
    }

    /// The covered share under the box `u` from the front wall of the particle of the layer
    /// under it at `z`, against its underside.
    fn covered(u: f64, z: f64) -> f64 {
        let b = box_off_the_wall(u);
        let x = DVec3::new(0.5, S / 2.0, z);
        covered_share(&walls(), S, x, DVec3::NEG_Y, span(&b))
    }

    #[test]
    fn a_face_ending_short_of_a_wall_covers_the_wall_column_but_its_gap() {
        // The column against the wall: a tenth uncovered; the next column all covered.
        assert!((covered(0.1 * S, S / 2.0) - 0.9).abs() < 1e-9);
        assert_eq!(covered(0.1 * S, 1.5 * S), 1.0);
        // With the particle's centre still under the face: 0.4 uncovered.
        assert!((covered(0.4 * S, S / 2.0) - 0.6).abs() < 1e-9);
        // A particle standing a fifth of a spacing off its bound keeps that much of the gap.
        assert!((covered(0.4 * S, 0.7 * S) - 0.8).abs() < 1e-9);
    }

    #[test]
    fn a_flush_face_or_a_gap_a_particle_fits_in_covers_it_all() {
        assert_eq!(covered(0.0, S / 2.0), 1.0);
        // From three quarters of a spacing a particle fits: the gap is resolved.
        assert_eq!(covered(0.8 * S, S / 2.0), 1.0);
        // A face along the wall's normal (the box's front face itself) cuts no column.
        let b = box_off_the_wall(0.1 * S);
        let x = DVec3::new(0.5, 0.015, S / 2.0);
        assert_eq!(covered_share(&walls(), S, x, DVec3::NEG_Z, span(&b)), 1.0);
    }

    #[test]
    fn a_turned_body_spans_its_turned_corners() {
        let mut b = box_off_the_wall(0.1 * S);
        b.state.q = glam::DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
        let (lo, hi) = span(&b);
        // Turned a quarter about y: 0.04 along z, 0.04 along x, centred where it was.
        assert!((hi.z - lo.z - 0.04).abs() < 1e-12 && (hi.x - lo.x - 0.04).abs() < 1e-12);
        assert!((lo.z - 0.1 * S).abs() < 1e-12, "{lo}");
    }

    #[test]
    fn spans_are_found_once_a_step_and_forgotten_at_the_next() {
        let mut b = box_off_the_wall(0.1 * S);
        let mut spans = Spans::default();
        spans.reset(1);
        let first = spans.of(0, &b);
        assert_eq!(first, span(&b));
        // Within the step the body's first span stands, however it moves.
        b.state.x.z += 0.01;
        assert_eq!(spans.of(0, &b), first);
        // The next step finds it anew.
        spans.reset(1);
        assert!((spans.of(0, &b).0.z - first.0.z - 0.01).abs() < 1e-12);
    }
}
