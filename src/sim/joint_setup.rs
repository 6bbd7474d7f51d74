//! The joints of a loaded scene, built from its bodies at their starting poses: anchors and
//! axes taken into the body frames, each anchor checked to lie on or near its body.
use crate::Result;
use crate::joints::{Joint, JointKind};
use crate::rigid::RigidBody;
use crate::scene::LoadedScene;
use crate::scene::joint::{JointSpec, JointType, WORLD};
use crate::scene::locate::KeyPath;
use crate::scene::problem::{Checked, fail};
use glam::{DQuat, DVec3};

/// Every joint of a loaded scene from its built bodies. Problems are input errors naming the
/// scene file, the line of the key (found in the loaded text) and the fix.
pub fn joints(loaded: &LoadedScene, bodies: &[RigidBody]) -> Result<Vec<Joint>> {
    let body_specs = &loaded.scene.body;
    let body_of = |name: &str| -> Option<usize> {
        (name != WORLD)
            .then(|| body_specs.iter().position(|b| b.name == name))
            .flatten()
    };
    loaded
        .scene
        .joint
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let at = KeyPath::new().key("joint").index(i);
            s.check(&at, body_specs)
                .and_then(|()| joint(s, i, bodies, &body_of, &at))
                .map_err(|p| p.to_error(&loaded.file, &loaded.text))
        })
        .collect()
}

/// The joint of a checked table found at `at` (the `index`th), from the bodies at their
/// starting poses (`body_of` maps a body name to its index). The anchors must lie on or near
/// their bodies.
pub fn joint(
    spec: &JointSpec,
    index: usize,
    bodies: &[RigidBody],
    body_of: &dyn Fn(&str) -> Option<usize>,
    at: &KeyPath,
) -> Checked<Joint> {
    let ends = [0, 1].map(|k| body_of(&spec.bodies[k]));
    let pose = |k: usize| {
        ends[k].map_or((DVec3::ZERO, DQuat::IDENTITY), |b| {
            (bodies[b].state.x, bodies[b].state.q)
        })
    };
    let world_points = match (spec.anchor, spec.anchors) {
        (Some(a), _) => [DVec3::from_array(a); 2],
        (None, Some([a, b])) => [DVec3::from_array(a), DVec3::from_array(b)],
        (None, None) => unreachable!("checked: every kind has its anchors"),
    };
    let mut anchors = [DVec3::ZERO; 2];
    for k in 0..2 {
        let (x, q) = pose(k);
        anchors[k] = q.conjugate() * (world_points[k] - x);
        if let Some(b) = ends[k] {
            let key = if spec.anchor.is_some() {
                "anchor"
            } else {
                "anchors"
            };
            let path = match spec.anchors {
                Some(_) => at.key(key).index(k),
                None => at.key(key),
            };
            check_near(&bodies[b], anchors[k], world_points[k], path)?;
        }
    }
    let axis = spec
        .axis
        .map_or(DVec3::Z, |a| DVec3::from_array(a).normalize());
    let axes = [0, 1].map(|k| pose(k).1.conjugate() * axis);
    let kind = match spec.kind {
        JointType::Distance => JointKind::Distance {
            length: spec
                .length
                .unwrap_or_else(|| (world_points[0] - world_points[1]).length()),
        },
        JointType::Ball => JointKind::Ball,
        JointType::Hinge => JointKind::Hinge {
            limits: spec
                .limits
                .map(|[lo, hi]| (lo.to_radians(), hi.to_radians())),
        },
    };
    Ok(Joint {
        name: spec.name_or_default(index),
        kind,
        ends,
        anchors,
        axes,
        reference: pose(1).1.conjugate() * pose(0).1,
        stabilization: spec.stabilization,
    })
}

/// An anchor (body frame `local`, world `world`, key `path`) must lie within half the body's
/// largest extent of its bounding box: further out it is most likely a mistyped coordinate.
fn check_near(body: &RigidBody, local: DVec3, world: DVec3, path: KeyPath) -> Checked {
    let (lo, hi) = body.shape.bounds();
    let outside = (lo - local).max(local - hi).max(DVec3::ZERO).length();
    let reach = 0.5 * (hi - lo).max_element();
    if outside > reach {
        let (blo, bhi) = (
            body.state.x + body.state.q * lo,
            body.state.x + body.state.q * hi,
        );
        return fail(
            path,
            format!(
                "{:?} lies {outside:.4} m outside body '{}' (its box spans {:?} to {:?} at time 0), more than half its size ({reach:.4} m)",
                world.to_array(),
                body.name,
                blo.min(bhi).to_array(),
                blo.max(bhi).to_array()
            ),
            "give the anchor in world coordinates at time 0, on or near the body",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joints::Pose;
    use crate::rigid::{Primitive, Shape};

    fn spec(text: &str) -> JointSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn anchors_and_axes_go_into_the_body_frames() {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.02, 0.2, 0.1),
        });
        let mut gate = RigidBody::new("gate", &shape, 500.0, 0.01).unwrap();
        gate.state.x = DVec3::new(1.0, 0.0, 0.0);
        gate.state.q = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
        let bodies = [gate];
        let of = |n: &str| (n == "gate").then_some(0);
        let s = spec(
            "type = \"hinge\"\nbodies = [\"gate\", \"world\"]\nanchor = [0.9, 0, 0.05]\naxis = [0, 0, 3]\nlimits = [-30, 60]\n",
        );
        let j = joint(&s, 2, &bodies, &of, &KeyPath::new()).unwrap();
        assert_eq!(j.name, "joint2");
        assert_eq!(j.ends, [Some(0), None]);
        // The world point (0.9, 0, 0.05) is (0, 0.1, 0.05) in the gate's frame: the middle of
        // an edge. The world end keeps world coordinates.
        assert!((j.anchors[0] - DVec3::new(0.0, 0.1, 0.05)).length() < 1e-12);
        assert_eq!(j.anchors[1], DVec3::new(0.9, 0.0, 0.05));
        assert!((j.axes[0] - DVec3::Z).length() < 1e-12);
        assert_eq!(j.axes[1], DVec3::Z);
        let poses = Pose::of_all(&bodies);
        let e = j.error(&poses);
        assert!(e.separation < 1e-15 && e.misalignment < 1e-15 && e.angle.abs() < 1e-15);
        assert_eq!(
            j.kind,
            JointKind::Hinge {
                limits: Some((-30f64.to_radians(), 60f64.to_radians()))
            }
        );
        // Half the gate's largest extent (0.1 m) beyond its box is accepted; more is not.
        let near = spec("type = \"ball\"\nbodies = [\"gate\", \"world\"]\nanchor = [1.19, 0, 0]\n");
        assert!(joint(&near, 0, &bodies, &of, &KeyPath::new()).is_ok());
        let far = spec("type = \"ball\"\nbodies = [\"world\", \"gate\"]\nanchor = [1.25, 0, 0]\n");
        let p = joint(&far, 0, &bodies, &of, &KeyPath::new()).unwrap_err();
        assert_eq!(p.path.to_string(), "anchor");
        assert!(p.problem.contains("outside body 'gate'"), "{}", p.problem);
        let d = spec(
            "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchors = [[1, 0.1, 0], [1, 3, 0]]\n",
        );
        let j = joint(&d, 0, &bodies, &of, &KeyPath::new()).unwrap();
        let JointKind::Distance { length } = j.kind else {
            panic!("a distance joint")
        };
        assert!((length - 2.9).abs() < 1e-12);
    }
}
