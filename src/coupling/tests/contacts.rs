//! Liquid/body contact detection: one contact per liquid particle and body, with the normal of
//! the body's solid (the union of its particles' cells) and the overlap with it.
use crate::coupling::SurfaceIndex;
use crate::rigid::tests::top_particle;
use crate::rigid::{Primitive, RigidBody, Shape};
use glam::{DQuat, DVec3, Vec3A};

const S: f64 = 0.01;

fn block() -> RigidBody {
    let shape = Shape::Primitive(Primitive::Box {
        size: DVec3::new(0.1, 0.06, 0.08),
    });
    RigidBody::new("block", &shape, 500.0, S).unwrap()
}

fn v(p: DVec3) -> Vec3A {
    Vec3A::new(p.x as f32, p.y as f32, p.z as f32)
}

#[test]
fn a_particle_over_a_flat_face_is_pushed_straight_out() {
    let b = block();
    let idx = SurfaceIndex::new(std::slice::from_ref(&b));
    let r = S / 2.0;
    let under = top_particle(&b, 0.0, 0.0);
    // 0.3 spacing of overlap with the particle right below; its lattice neighbours are farther.
    let x = under + DVec3::Y * (2.0 * r - 0.3 * S);
    let far = under + DVec3::new(0.0, 0.2, 0.0);
    let contacts = idx.liquid_contacts(std::slice::from_ref(&b), &[v(x), v(far)], r);
    assert_eq!(contacts.len(), 1, "{contacts:?}");
    let c = contacts[0];
    assert_eq!((c.slot, c.body), (0, 0));
    assert!(
        (c.normal - DVec3::Y).length() < 1e-12,
        "normal {}",
        c.normal
    );
    // f32 positions: the depth is exact to f32 rounding of the coordinates.
    assert!((c.depth - 0.3 * S).abs() < 1e-7, "depth {}", c.depth);
}

#[test]
fn the_normal_turns_with_the_body() {
    let mut b = block();
    b.state.q = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
    b.state.x = DVec3::new(1.0, 2.0, 3.0);
    let idx = SurfaceIndex::new(std::slice::from_ref(&b));
    let r = S / 2.0;
    let under = top_particle(&b, 0.0, 0.0);
    let xb = under + DVec3::Y * (2.0 * r - 0.25 * S);
    let xw = b.state.x + b.state.q * xb;
    let contacts = idx.liquid_contacts(std::slice::from_ref(&b), &[v(xw)], r);
    assert_eq!(contacts.len(), 1);
    // The body's +y face now faces world -x.
    assert!(
        (contacts[0].normal - DVec3::NEG_X).length() < 1e-6,
        "normal {}",
        contacts[0].normal
    );
    assert!((contacts[0].depth - 0.25 * S).abs() < 1e-6);
}

#[test]
fn round_an_edge_the_normal_follows_the_edge() {
    let b = block();
    let idx = SurfaceIndex::new(std::slice::from_ref(&b));
    let r = S / 2.0;
    // The block's solid is the union of its particles' cells: its top edge along z lies at
    // x = 0.05, y = 0.03. 60 degrees round the edge from the top face, the liquid is pushed
    // straight away from the edge line.
    let edge = DVec3::new(0.05, 0.03, 0.0);
    let dir = DVec3::new(3f64.sqrt() / 2.0, 0.5, 0.0);
    let x = edge + dir * (r - 0.2 * S);
    let contacts = idx.liquid_contacts(std::slice::from_ref(&b), &[v(x)], r);
    assert_eq!(contacts.len(), 1);
    let n = contacts[0].normal;
    assert!((n - dir).length() < 1e-6, "normal {n}, expected {dir}");
    assert!((contacts[0].depth - 0.2 * S).abs() < 1e-7);
}

#[test]
fn contacts_come_in_body_then_slot_order_and_one_per_body() {
    let a = block();
    let mut b = block();
    b.state.x = DVec3::new(0.2, 0.0, 0.0);
    let bodies = [a, b];
    let idx = SurfaceIndex::new(&bodies);
    let r = S / 2.0;
    let mut pos = Vec::new();
    for body in bodies.iter().rev() {
        for dx in [-0.02, 0.0, 0.02] {
            let under = top_particle(body, dx, 0.0);
            pos.push(v(body.state.x + under + DVec3::Y * (2.0 * r - 0.1 * S)));
        }
    }
    let contacts = idx.liquid_contacts(&bodies, &pos, r);
    assert_eq!(contacts.len(), 6);
    let order: Vec<(u32, u32)> = contacts.iter().map(|c| (c.body, c.slot)).collect();
    assert_eq!(order, vec![(0, 3), (0, 4), (0, 5), (1, 0), (1, 1), (1, 2)]);
}

#[test]
fn liquid_that_starts_inside_a_body_is_removed_and_ids_stay_contiguous() {
    use crate::coupling::inside::remove_liquid_inside;
    use crate::liquid::LatticeBlock;
    use crate::liquid::Particles;
    // A liquid block 0..0.2 at spacing 0.01 (centres at 0.005 + 0.01 i), and a 0.06 x 0.06 x
    // 0.06 box centred at (0.1, 0.1, 0.1) sampled at the same spacing: the liquid centres
    // strictly inside the box's particle cells are the 6 x 6 x 6 at 0.075..0.125.
    let block = LatticeBlock {
        min: [0.0; 3],
        max: [0.2; 3],
        velocity: [0.0; 3],
    };
    let mut p = Particles::from_blocks(&[block], 0.01);
    let n = p.len();
    let mut b = RigidBody::new(
        "cube",
        &Shape::Primitive(Primitive::Box {
            size: DVec3::splat(0.06),
        }),
        500.0,
        S,
    )
    .unwrap();
    b.state.x = DVec3::splat(0.1);
    let removed = remove_liquid_inside(&mut p, std::slice::from_ref(&b));
    assert_eq!(removed, 6 * 6 * 6);
    assert_eq!(p.len(), n - removed);
    let mut ids = p.id.clone();
    ids.sort();
    assert_eq!(ids, (0..p.len() as u32).collect::<Vec<_>>());
    for x in &p.pos {
        let inside = (*x - Vec3A::splat(0.1)).abs().max_element() < 0.03;
        assert!(!inside, "{x} is inside the box");
    }
}

fn cube(at: DVec3) -> RigidBody {
    let mut b = RigidBody::new(
        "cube",
        &Shape::Primitive(Primitive::Box {
            size: DVec3::splat(0.1),
        }),
        500.0,
        S,
    )
    .unwrap();
    b.state.x = at;
    b
}

#[test]
fn a_cube_sinking_into_the_floor_touches_it_at_its_four_corners() {
    use crate::boundary::Walls;
    use crate::coupling::body_contacts::wall_contacts;
    let r = S / 2.0;
    // Container [0, 1]^3; the liquid's centre bounds are shrunk by the liquid radius.
    let walls = Walls {
        lo: Vec3A::splat(r as f32),
        hi: Vec3A::splat((1.0 - r) as f32),
        restitution: 0.0,
        friction: 0.0,
        drag: 0.0,
        drag_reach: 0.0,
    };
    let b = cube(DVec3::new(0.5, 0.05 - 0.002, 0.5));
    let contacts = wall_contacts(std::slice::from_ref(&b), &walls, r);
    assert_eq!(contacts.len(), 4, "{contacts:?}");
    let mut corners: Vec<(i64, i64)> = contacts
        .iter()
        .map(|c| {
            assert_eq!((c.a, c.b), (0, None));
            assert_eq!(c.normal, DVec3::Y);
            assert!((c.depth - 0.002).abs() < 1e-9, "depth {}", c.depth);
            assert!(
                c.point.y.abs() < 1e-9,
                "the point lies on the floor: {}",
                c.point
            );
            (
                ((c.point.x - 0.5) / 0.045).round() as i64,
                ((c.point.z - 0.5) / 0.045).round() as i64,
            )
        })
        .collect();
    corners.sort();
    assert_eq!(corners, vec![(-1, -1), (-1, 1), (1, -1), (1, 1)]);
    // Lifted clear of the floor: no contact.
    assert!(wall_contacts(&[cube(DVec3::new(0.5, 0.06, 0.5))], &walls, r).is_empty());
}

#[test]
fn a_cube_resting_on_another_touches_it_with_the_face_normal() {
    use crate::coupling::body_contacts::body_body_contacts;
    // The upper cube overlaps the lower one by 1 mm.
    let bodies = [
        cube(DVec3::new(0.0, 0.0, 0.0)),
        cube(DVec3::new(0.0, 0.1 - 0.001, 0.0)),
    ];
    let index = SurfaceIndex::new(&bodies);
    let contacts = body_body_contacts(&bodies, &index);
    assert_eq!(contacts.len(), 4, "{contacts:?}");
    for c in &contacts {
        assert_eq!((c.a, c.b), (0, Some(1)));
        // From body 1 (above) into body 0 (below).
        assert!(
            (c.normal - DVec3::NEG_Y).length() < 1e-9,
            "normal {}",
            c.normal
        );
        assert!((c.depth - 0.001).abs() < 1e-6, "depth {}", c.depth);
    }
    // Apart: nothing.
    let apart = [cube(DVec3::ZERO), cube(DVec3::new(0.0, 0.2, 0.0))];
    assert!(body_body_contacts(&apart, &SurfaceIndex::new(&apart)).is_empty());
}

#[test]
fn a_flat_face_is_a_plane_even_over_the_hollows_between_its_particles() {
    // Before the face was measured along its normal, a liquid particle sank into the hollow
    // between four face particles until 0.71 spacings from their layer (0.21 spacings below
    // the face), so a floating box displaced too little liquid and floated 8-14% too deep.
    let b = block();
    let idx = SurfaceIndex::new(std::slice::from_ref(&b));
    let r = S / 2.0;
    let corner = top_particle(&b, 0.0, 0.0);
    let hollow = corner + DVec3::new(S / 2.0, 0.0, S / 2.0);
    for height in [0.72 * S, 0.8 * S, 0.95 * S] {
        let x = hollow + DVec3::Y * height;
        let contacts = idx.liquid_contacts(std::slice::from_ref(&b), &[v(x)], r);
        assert_eq!(contacts.len(), 1, "at {height}: {contacts:?}");
        assert!((contacts[0].normal - DVec3::Y).length() < 1e-12);
        // The overlap is the distance below the face plane, one radius out of the layer.
        let want = 2.0 * r - height;
        assert!(
            (contacts[0].depth - want).abs() < 1e-7,
            "at {height}: depth {} instead of {want}",
            contacts[0].depth
        );
    }
    // At one spacing it just touches nothing.
    let x = hollow + DVec3::Y * (1.001 * S);
    assert!(
        idx.liquid_contacts(std::slice::from_ref(&b), &[v(x)], r)
            .is_empty()
    );
}
