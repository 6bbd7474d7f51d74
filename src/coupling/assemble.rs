//! Baraff's contact problem in the structured form `D + J W J^T` (docs/src/design.md, step 8), and the
//! impulses of its solution applied back (step 9).
use super::body_contacts::BodyContact;
use super::liquid_body::first_of_slot_into;
use super::touches::{LiquidTouch, to_f};
use super::wedge::{Clamp, WEDGE_COS, WEDGE_SLOP, clamps, drop_inner_wedged_rows, share_along};
use crate::boundary::Walls;
use crate::boundary::gap;
use crate::boundary::wall_depth;
use crate::boundary::walls::{WallNormals, walls_under};
use crate::joints::Joint;
use crate::lcp::{StructuredProblem, StructuredRow, body_inverse_mass};
use crate::rigid::RigidBody;
use glam::DVec3;

/// The Jacobian row `sign [n, r x n]` of a body at lever arm `r` along `n`.
fn j_row(n: DVec3, r: DVec3, sign: f64) -> [f64; 6] {
    let a = r.cross(n);
    [n.x, n.y, n.z, a.x, a.y, a.z].map(|v| v * sign)
}

/// The q of a contact row: the approaching normal velocity, plus the bounce `e v_n` when
/// `bounce` and the approach is faster than `v_rest` (so that resting contacts do not jitter).
fn contact_q(v_n: f64, e: f64, v_rest: f64, bounce: bool) -> f64 {
    if bounces(v_n, e, v_rest, bounce) {
        (1.0 + e) * v_n
    } else {
        v_n
    }
}

/// Whether a contact row approaching at `v_n` bounces (see [`contact_q`]).
fn bounces(v_n: f64, e: f64, v_rest: f64, bounce: bool) -> bool {
    bounce && e > 0.0 && v_n < -v_rest
}

/// Each body's index among the dynamic bodies (the problem's bodies), `usize::MAX` for static
/// ones, into `out` (cleared first).
pub fn dynamic_index(bodies: &[RigidBody], out: &mut Vec<usize>) {
    let mut next = 0;
    out.clear();
    out.extend(bodies.iter().map(|b| {
        if b.dynamic {
            next += 1;
            next - 1
        } else {
            usize::MAX
        }
    }));
}

/// The scratch buffers of [`assemble`] and [`apply`], kept between steps.
#[derive(Debug, Clone, Default)]
pub struct AssembleBuffers {
    slot_list: Vec<u32>,
    order: Vec<usize>,
    first: Vec<usize>,
    term: Vec<usize>,
    /// Each body's index among the dynamic bodies (see [`dynamic_index`]).
    pub dyn_index: Vec<usize>,
    clamp: Vec<Clamp>,
    dyn_bodies: Vec<usize>,
    dv: Vec<DVec3>,
    /// The rows through particles the walls hold entirely: (row, body, point, normal).
    wedged: Vec<(usize, u32, DVec3, DVec3)>,
    /// One group of them (point, index into `wedged`), for [`reduce_patch_each`].
    patch: Vec<(DVec3, f64)>,
    /// Per row of `wedged`: grouped yet, kept.
    state: Vec<(bool, bool)>,
    /// Per body, the box its surface spans, once a contact next to a wall needs it.
    spans: gap::Spans,
    /// Per liquid row (the problem's first rows, in order): its body and the momentum and
    /// angular momentum (about the centre of mass) a unit impulse of the row gives that body,
    /// dynamic or not (what [`apply`] adds up as the liquid's load on it).
    load_terms: Vec<(u32, [f64; 6])>,
}

/// What goes into one step's problem besides the bodies.
#[derive(Debug, Clone, Copy)]
pub struct Contacts<'a> {
    /// Liquid/body contacts.
    pub liquid: &'a [LiquidTouch],
    /// Body/body and body/wall contacts.
    pub solid: &'a [BodyContact],
    /// The container's walls (particle-centre bounds), if any.
    pub walls: Option<&'a Walls>,
    /// The liquid's spacing, m.
    pub spacing: f64,
    /// Approaches slower than this do not bounce, m/s.
    pub v_rest: f64,
    /// Coulomb friction between liquid and bodies.
    pub liquid_friction: f64,
    /// The liquid's restitution against bodies (a contact's is the geometric mean of this and
    /// the body's).
    pub liquid_restitution: f64,
    /// Whether newly approaching contacts bounce with their restitution (false: the step is
    /// solved perfectly inelastic).
    pub bounce: bool,
    /// The joints, whose hinges to the world clamp their bodies (see [`Clamp`]).
    pub joints: &'a [Joint],
}

impl Contacts<'_> {
    /// The inward normals of the walls that hold the particle of `t` against its body: walls it
    /// rests on that the body presses it towards, while it does not move away from them.
    fn wedging_walls(&self, t: &LiquidTouch) -> WallNormals {
        let lc = &t.contact;
        self.walls.map_or_else(WallNormals::default, |w| {
            let mut walls = walls_under(lc.point, w, self.spacing);
            walls.retain(|n| lc.normal.dot(*n) < -WEDGE_COS && t.vel.dot(*n) <= 0.0);
            walls
        })
    }
}

/// Baraff's A in the structured form, one row per liquid contact and per body contact (plus
/// two friction rows where there is friction: `liquid_friction` on liquid contacts, the
/// bodies' own on body contacts), into `prob` (cleared first). Also gives the slot of each
/// particle term in `slots` (cleared first) and returns the number of rows that bounce. `buf`
/// holds the scratch buffers (all kept between steps).
pub fn assemble(
    bodies: &[RigidBody],
    c: &Contacts,
    prob: &mut StructuredProblem,
    slots: &mut Vec<u32>,
    buf: &mut AssembleBuffers,
) -> usize {
    prob.body_inv_mass.clear();
    prob.particle_inv_mass.clear();
    prob.rows.clear();
    slots.clear();
    buf.load_terms.clear();
    let mut bounced = 0;
    // Each particle's term: numbered in order of its slot's first contact.
    buf.slot_list.clear();
    buf.slot_list
        .extend(c.liquid.iter().map(|t| t.contact.slot));
    first_of_slot_into(&buf.slot_list, &mut buf.order, &mut buf.first);
    let first = &buf.first;
    buf.term.clear();
    buf.term.resize(first.len(), 0);
    let term = &mut buf.term;
    dynamic_index(bodies, &mut buf.dyn_index);
    let dyn_index = &buf.dyn_index;
    clamps(
        bodies,
        c.liquid,
        c.solid,
        c.joints,
        |t| c.wedging_walls(t),
        &mut buf.clamp,
    );
    let clamp = &buf.clamp;
    buf.spans.reset(bodies.len());
    for body in bodies.iter().filter(|b| b.dynamic) {
        // to_cols_array of a symmetric matrix is also its row-major form.
        let inv = body.world_inverse_inertia().to_cols_array();
        prob.body_inv_mass.push(body_inverse_mass(body.mass(), inv));
    }
    for (i, t) in c.liquid.iter().enumerate() {
        let lc = &t.contact;
        if first[i] == i {
            term[i] = slots.len();
            slots.push(lc.slot);
            prob.particle_inv_mass.push(t.inv_mass);
        }
        let k = term[first[i]];
        let body = &bodies[lc.body as usize];
        let r = lc.point - body.state.x;
        // The share of the particle's column the body covers: less than 1 next to a gap
        // between the body and a wall that no particle fits in ([`gap`]).
        let covered = match c.walls {
            Some(w)
                if body.dynamic
                    && wall_depth(w, (c.spacing / 2.0) as f32, to_f(lc.point))
                        < c.spacing as f32 =>
            {
                let span = buf.spans.of(lc.body as usize, body);
                gap::covered_share(w, c.spacing, lc.point, lc.normal, span)
            }
            _ => 1.0,
        };
        let with_body = |row: StructuredRow, d: DVec3| {
            if body.dynamic {
                row.with_body(dyn_index[lc.body as usize], j_row(d, r, -covered))
            } else {
                row
            }
        };
        // A particle resting on a wall that the body presses it towards cannot move into the
        // wall: its share of the row is the part of the direction along the wall, and the
        // wall takes the rest (a particle caught between a body and a wall holds the body off
        // the wall instead of being pushed into either).
        let walls = c.wedging_walls(t);
        // Where the walls leave the particle no share (the body presses it straight into a
        // wall), the row holds the body against the wall through the particle alone.
        let share = |d: DVec3| share_along(&walls, d);
        let with_particle = |row: StructuredRow, d: DVec3| match share(d) {
            Some(n) => row.with_particle(k, n.to_array()),
            None => row,
        };
        // The relative velocity along `d` counts the particle's velocity only along its share:
        // the walls hold the rest. A body whose wedged rows have no particle share is then
        // asked for nothing a rigid motion at rest would not give (were the particle's speed
        // counted, rows on opposite faces could ask the body to move both ways at once).
        let body_v = body.point_velocity(lc.point) * covered;
        let rel = |d: DVec3| share(d).map_or(0.0, |n| n.dot(t.vel)) - body_v.dot(d);
        let normal_row = prob.rows.len();
        // A film of liquid between a body and a wall does not bounce: a body in a gap filled
        // from both sides cannot move away from both walls at once.
        let bounce = c.bounce && t.new && walls.is_empty();
        let slop = if share(lc.normal).is_none() && clamp[lc.body as usize].opposes(&walls) {
            WEDGE_SLOP * c.v_rest
        } else {
            0.0
        };
        let v_n = rel(lc.normal);
        let e = (body.restitution * c.liquid_restitution).sqrt();
        bounced += usize::from(bounces(v_n, e, c.v_rest, bounce));
        let q = contact_q(v_n, e, c.v_rest, bounce) + slop;
        let row = with_body(
            with_particle(StructuredRow::contact(q), lc.normal),
            lc.normal,
        );
        if row.particle.is_none() && row.body_terms().next().is_none() {
            // Caught between a static body and a wall: nothing can move; the position
            // correction keeps it out of both.
            continue;
        }
        if row.particle.is_none() && c.liquid_friction == 0.0 {
            buf.wedged.push((normal_row, lc.body, lc.point, lc.normal));
        }
        prob.rows.push(row);
        buf.load_terms
            .push((lc.body, j_row(lc.normal, r, -covered)));
        if c.liquid_friction > 0.0 {
            let (t1, t2) = lc.normal.any_orthonormal_pair();
            for d in [t1, t2] {
                let row = with_particle(StructuredRow::contact(rel(d)), d).with_friction(
                    normal_row,
                    -c.liquid_friction,
                    c.liquid_friction,
                );
                prob.rows.push(with_body(row, d));
                buf.load_terms.push((lc.body, j_row(d, r, -covered)));
            }
        }
    }
    drop_inner_wedged_rows(
        &mut prob.rows,
        &mut buf.load_terms,
        &mut buf.wedged,
        &mut buf.patch,
        &mut buf.state,
    );
    for sc in c.solid {
        let a = &bodies[sc.a as usize];
        let b = sc.b.map(|b| &bodies[b as usize]);
        let (e, mu) = match b {
            Some(b) => (
                (a.restitution * b.restitution).sqrt(),
                (a.friction * b.friction).sqrt(),
            ),
            None => (a.restitution, a.friction),
        };
        let rel_v = |d: DVec3| {
            let va = a.point_velocity(sc.point).dot(d);
            va - b.map_or(0.0, |b| b.point_velocity(sc.point).dot(d))
        };
        let with_bodies = |mut row: StructuredRow, d: DVec3| {
            if a.dynamic {
                row = row.with_body(
                    dyn_index[sc.a as usize],
                    j_row(d, sc.point - a.state.x, 1.0),
                );
            }
            if let Some(bb) = b.filter(|bb| bb.dynamic) {
                let bi = sc.b.expect("b is some") as usize;
                row = row.with_body(dyn_index[bi], j_row(d, sc.point - bb.state.x, -1.0));
            }
            row
        };
        let normal_row = prob.rows.len();
        let v_n = rel_v(sc.normal);
        bounced += usize::from(bounces(v_n, e, c.v_rest, c.bounce));
        prob.rows.push(with_bodies(
            StructuredRow::contact(contact_q(v_n, e, c.v_rest, c.bounce)),
            sc.normal,
        ));
        if mu > 0.0 {
            let (t1, t2) = sc.normal.any_orthonormal_pair();
            for t in [t1, t2] {
                let row = StructuredRow::contact(rel_v(t)).with_friction(normal_row, -mu, mu);
                prob.rows.push(with_bodies(row, t));
            }
        }
    }
    bounced
}

/// Apply the impulses `z` of `prob` to the bodies (momentum changes `z J`) and give the liquid
/// particles' velocity changes `z n / m` in `out` (cleared first), one per slot of `slots`.
/// Adds the liquid rows' impulse and angular impulse on each body, dynamic or not, to `loads`
/// (one entry per body).
pub fn apply(
    bodies: &mut [RigidBody],
    prob: &StructuredProblem,
    slots: &[u32],
    z: &[f64],
    buf: &mut AssembleBuffers,
    out: &mut Vec<(u32, DVec3)>,
    loads: &mut [(DVec3, DVec3)],
) {
    for (&(b, j), &zi) in buf.load_terms.iter().zip(z) {
        let load = &mut loads[b as usize];
        load.0 += DVec3::new(j[0], j[1], j[2]) * zi;
        load.1 += DVec3::new(j[3], j[4], j[5]) * zi;
    }
    let dyn_bodies = &mut buf.dyn_bodies;
    dyn_bodies.clear();
    dyn_bodies.extend((0..bodies.len()).filter(|&b| bodies[b].dynamic));
    let dv = &mut buf.dv;
    dv.clear();
    dv.resize(slots.len(), DVec3::ZERO);
    for (row, &zi) in prob.rows.iter().zip(z) {
        if zi == 0.0 {
            continue;
        }
        if let Some(t) = &row.particle {
            dv[t.particle] += DVec3::from_array(t.n) * zi * prob.particle_inv_mass[t.particle];
        }
        for t in row.body_terms() {
            let body = &mut bodies[dyn_bodies[t.body]];
            body.state.p += DVec3::new(t.j[0], t.j[1], t.j[2]) * zi;
            body.state.l += DVec3::new(t.j[3], t.j[4], t.j[5]) * zi;
        }
    }
    out.clear();
    out.extend(slots.iter().copied().zip(dv.iter().copied()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::liquid_body::LiquidBodyContact;
    use crate::coupling::wedge::tests::hinge;
    use crate::rigid::{Primitive, Shape};
    use glam::Vec3A;

    /// A box of 0.04 x 0.02 x 0.04 m (spacing 0.005) whose underside lies one liquid layer
    /// (0.005 m) above the floor of a unit container, at rest.
    fn box_on_a_film() -> (RigidBody, Walls) {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.04, 0.02, 0.04),
        });
        let mut b = RigidBody::new("box", &shape, 800.0, 0.005).unwrap();
        b.state.x = DVec3::new(0.5, 0.005 + 0.01, 0.5);
        let r = 0.0025;
        let walls = Walls::bare(Vec3A::splat(r), Vec3A::splat(1.0 - r));
        (b, walls)
    }

    /// A particle on the floor under the box's centre, pressed into the floor by it.
    fn film_particle() -> LiquidTouch {
        LiquidTouch {
            contact: LiquidBodyContact {
                slot: 0,
                body: 0,
                normal: DVec3::NEG_Y,
                point: DVec3::new(0.5, 0.0025, 0.5),
                depth: 1e-6,
            },
            id: 0,
            vel: DVec3::ZERO,
            inv_mass: 1.0 / 0.125e-3,
            phase: 0,
            rho: 0.0,
            new: false,
        }
    }

    /// The contacts of `liquid` and `solid` in `walls` at spacing 0.005, without friction.
    fn film_contacts<'a>(
        liquid: &'a [LiquidTouch],
        solid: &'a [BodyContact],
        walls: &'a Walls,
    ) -> Contacts<'a> {
        Contacts {
            liquid,
            solid,
            walls: Some(walls),
            spacing: 0.005,
            v_rest: 2.0 * 9.81 * 1e-4,
            liquid_friction: 0.0,
            liquid_restitution: 0.5,
            bounce: true,
            joints: &[],
        }
    }

    /// The problem `c` gives for the one body `body`, with the buffers it left.
    fn assembled(body: &RigidBody, c: &Contacts) -> (StructuredProblem, AssembleBuffers) {
        let (mut prob, mut buf) = (StructuredProblem::default(), AssembleBuffers::default());
        assemble(
            std::slice::from_ref(body),
            c,
            &mut prob,
            &mut Vec::new(),
            &mut buf,
        );
        (prob, buf)
    }

    fn first_q(body: &RigidBody, walls: &Walls, solid: &[BodyContact]) -> (f64, f64) {
        let liquid = [film_particle()];
        let c = film_contacts(&liquid, solid, walls);
        (assembled(body, &c).0.rows[0].q, c.v_rest)
    }

    #[test]
    fn a_body_on_a_film_over_the_floor_may_not_close_on_it_but_a_clamped_one_may() {
        let (b, walls) = box_on_a_film();
        // Held by the floor only: the row holds the body exactly (it cannot sink through the
        // film); the particle has no share (the floor holds it).
        let (q, _) = first_q(&b, &walls, &[]);
        assert_eq!(q, 0.0);
        // Held against the ceiling too (a wall contact pointing down into it): the wedged row
        // lets it close at the slop, so that rounding cannot make the clamp infeasible.
        let ceiling = BodyContact {
            a: 0,
            b: None,
            point: DVec3::new(0.5, 0.025, 0.5),
            normal: DVec3::NEG_Y,
            depth: 1e-6,
        };
        let (q, v_rest) = first_q(&b, &walls, &[ceiling]);
        assert!((q - WEDGE_SLOP * v_rest).abs() < 1e-15, "q {q}");
        // A wall contact on another axis does not clamp it.
        let side = BodyContact {
            normal: DVec3::NEG_X,
            ..ceiling
        };
        assert_eq!(first_q(&b, &walls, &[side]).0, 0.0);
    }

    #[test]
    fn a_hinge_to_the_world_along_a_wall_normal_clamps_its_body_on_that_axis() {
        // The box pressing its film into the floor, hinged to the world about the vertical:
        // it cannot move along y at all, so its wedged row (along y) depends on the hinge's
        // rows, and asking it for an exact zero there made rounding turn such a problem into
        // a ray (the hinged gate against its side walls). It gets the clamped slop. About x
        // the hinge lets the box's points move along y: no clamp, no slop.
        let (b, walls) = box_on_a_film();
        let liquid = [film_particle()];
        for (axis, clamped) in [
            (DVec3::Y, true),
            (DVec3::new(0.03, 1.0, 0.0).normalize(), true),
            (DVec3::new(0.04, 1.0, 0.0).normalize(), false),
            (DVec3::X, false),
        ] {
            // At the box's centre: its own origin, and where it stands in the world.
            let joints = [hinge([Some(0), None], [DVec3::ZERO, b.state.x], axis)];
            let c = Contacts {
                joints: &joints,
                ..film_contacts(&liquid, &[], &walls)
            };
            let (mut prob, buf) = assembled(&b, &c);
            let expect = if clamped { WEDGE_SLOP * c.v_rest } else { 0.0 };
            assert_eq!(prob.rows[0].q, expect, "axis {axis}");
            // With the hinge's rows the problem solves, its wedged row asking for a hair
            // more than the hinge gives (rounding) or not.
            crate::joints::append_rows_with(
                &mut prob,
                std::slice::from_ref(&b),
                &buf.dyn_index,
                &joints,
                1e-4,
                &mut crate::joints::JointBuffers::default(),
            );
            assert_eq!(prob.rows.len(), 6);
            if clamped {
                prob.rows[0].q -= 1e-12;
                let mut solver = crate::lcp::block_pivot::BlockPivotSolver::default();
                let sol = solver
                    .solve(&prob, &crate::lcp::Options::default())
                    .expect("solves");
                assert!(sol.is_solved(), "axis {axis}: {:?}", sol.outcome);
            }
        }
    }

    #[test]
    fn a_film_under_a_body_leaves_the_corners_of_its_wedged_rows() {
        // A 5 x 5 grid of film particles under the box, each pressed into the floor: 25 rows
        // through particles the floor holds entirely. Of the patch, its four corners are kept
        // (the others' forces and speeds are blends of theirs), in row order; the body is
        // asked the same of at each corner as before.
        let (b, walls) = box_on_a_film();
        let liquid: Vec<LiquidTouch> = (0..25)
            .map(|k| {
                let mut t = film_particle();
                t.contact.slot = k;
                t.id = k;
                let (i, j) = (f64::from(k % 5) - 2.0, f64::from(k / 5) - 2.0);
                t.contact.point = DVec3::new(0.5 + 0.005 * i, 0.0025, 0.5 + 0.005 * j);
                t
            })
            .collect();
        let c = film_contacts(&liquid, &[], &walls);
        let prob = assembled(&b, &c).0;
        assert_eq!(prob.rows.len(), 4, "the patch's corners");
        assert!(prob.rows.iter().all(|r| r.particle.is_none()));
        // The corners' rows: their torque arms reach the patch's corners (x, z = +-0.01 m).
        for r in &prob.rows {
            let j = r.body_terms().next().expect("a body row").j;
            assert!(
                (j[3].abs() - 0.01).abs() < 1e-12 && (j[5].abs() - 0.01).abs() < 1e-12,
                "{j:?}"
            );
        }
        // With liquid friction the rows stay (friction rows refer to them).
        let c = Contacts {
            liquid_friction: 0.5,
            ..c
        };
        let prob = assembled(&b, &c).0;
        assert_eq!(
            prob.rows.len(),
            75,
            "25 normal rows and their friction rows"
        );
    }
}
