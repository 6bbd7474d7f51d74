//! A shaped block: the sphere of water of `scenes/liquid_sphere.toml`, from the primitive and
//! from a closed mesh (`scenes/meshes/icosphere.obj`), falls into the empty tank, reaches the
//! floor and splashes out wider than it was, every particle inside the walls.
use crate::common;
use glam::Vec3A;

#[test]
fn a_sphere_of_water_splashes_on_the_tank_floor_inside_the_walls() {
    splashes(&[]);
}

#[test]
fn a_sphere_of_water_from_a_mesh_splashes_on_the_tank_floor_inside_the_walls() {
    // The unit icosphere scaled to the primitive's radius.
    let mesh = r#"liquid.0.shape={ type = "mesh", path = "meshes/icosphere.obj", scale = 0.06 }"#;
    splashes(&[mesh.to_string()]);
}

/// Run the scene with `sets` for 0.3 s and check the splash.
fn splashes(sets: &[String]) {
    // The scene's tank, sphere and spacing (scenes/liquid_sphere.toml).
    let (lo, hi) = (Vec3A::ZERO, Vec3A::new(0.4, 0.3, 0.4));
    let (radius, s) = (0.06f32, 0.01f32);
    // 0.3 s at 30 fps: the sphere's bottom, 0.14 m up, lands at 0.17 s.
    let sim = common::run_scene_without_leaks("liquid_sphere.toml", sets, 9, |sim, frame| {
        let p = &sim.particles().pos;
        // The walls stand half a spacing (a particle's radius) inside the container, and the
        // step projects any centre beyond them onto them: no centre lies closer than half a
        // spacing to a wall. 1e-6 m covers f32 rounding at these coordinates (an ulp of 0.4
        // is 3e-8 m); a centre inside a wall would miss by a good part of a spacing.
        let margin = 0.5 * s - 1e-6;
        for x in p {
            assert!(
                x.cmpge(lo + margin).all() && x.cmple(hi - margin).all(),
                "frame {frame}: particle at {x} lies within half a spacing of a wall"
            );
        }
    });
    let p = &sim.particles().pos;
    assert_eq!(p.len(), sim.particles().len());
    // The bottom reached the floor: the lowest centres rest on the floor's wall.
    let bottom = p.iter().map(|x| x.y).fold(f32::INFINITY, f32::min);
    assert!(bottom < lo.y + s, "the lowest particle is at {bottom} m");
    // And spread: the liquid within two spacings of the floor is wider than the sphere's
    // diameter in both x and z.
    let floor: Vec<Vec3A> = p.iter().copied().filter(|x| x.y < lo.y + 2.0 * s).collect();
    let (fmin, fmax) = floor
        .iter()
        .fold((Vec3A::INFINITY, Vec3A::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        });
    let width = fmax - fmin;
    assert!(
        floor.len() > 50 && width.x > 2.0 * radius && width.z > 2.0 * radius,
        "{} particles on the floor, {width} wide",
        floor.len()
    );
}
