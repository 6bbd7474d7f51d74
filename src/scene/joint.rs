//! A joint as a scene file describes it (`[[joint]]` tables), its checks, and building the
//! joint from the bodies at their starting poses.
use super::joint::{Joint, JointKind};
use crate::rigid::spec::SpecProblem;
use crate::rigid::{BodySpec, RigidBody};
use crate::scene::locate::KeyPath;
use crate::scene::validate::Origin;
use crate::{Error, Result};
use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The name that stands for the static world in a joint's `bodies`.
pub const WORLD: &str = "world";

/// The kind of joint, as the scene names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointType {
    /// A fixed distance between two anchors.
    Distance,
    /// Two anchors that coincide.
    Ball,
    /// A ball joint whose two axes stay aligned, with optional angle limits.
    Hinge,
}

/// One `[[joint]]` table. Points and the axis are in world coordinates at time 0 (the bodies
/// as the scene places them). Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointSpec {
    /// Name, used in `joint_errors.csv`; `joint<index>` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// "distance", "ball" or "hinge".
    #[serde(rename = "type")]
    pub kind: JointType,
    /// The two bodies linked, by name; "world" is the static world.
    pub bodies: Vec<String>,
    /// Ball and hinge: the point where the bodies are held together, world frame at time 0, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<[f64; 3]>,
    /// Distance: the anchor on each body, world frame at time 0, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchors: Option<[[f64; 3]; 2]>,
    /// Distance: the length held, m; the anchors' distance at time 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// Hinge: the axis, world frame at time 0 (any length but zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<[f64; 3]>,
    /// Hinge: `[lowest, highest]` angle about the axis, degrees, from the starting pose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<[f64; 2]>,
    /// Fraction of the position error removed per step (Baumgarte factor), 0..1.
    #[serde(default = "default_stabilization")]
    pub stabilization: f64,
}

fn default_stabilization() -> f64 {
    1.0
}

fn problem<T>(key: &str, problem: String, fix: &str) -> std::result::Result<T, SpecProblem> {
    Err(SpecProblem {
        key: key.to_string(),
        problem,
        fix: fix.to_string(),
    })
}

fn finite3(v: &[f64; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

impl JointSpec {
    /// The joint's name: its `name`, or `joint<index>`.
    pub fn name_or_default(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("joint{index}"))
    }

    /// Check every value that can be checked against the scene's body tables; the key named is
    /// relative to the `[[joint]]` table (`bodies[1]`, `axis`, ...; empty for the table itself,
    /// when a key is missing).
    pub fn check(&self, bodies: &[BodySpec]) -> std::result::Result<(), SpecProblem> {
        if let Some(name) = &self.name
            && (name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            return problem(
                "name",
                format!("'{name}' is not a usable name"),
                "use letters, digits, '_' and '-' only, e.g. \"hinge\"",
            );
        }
        if self.bodies.len() != 2 {
            return problem(
                "bodies",
                format!("{} names given, not two", self.bodies.len()),
                "name the two bodies linked, e.g. bodies = [\"gate\", \"world\"] (\"world\" is the static world)",
            );
        }
        let mut dynamic = [false; 2];
        for (k, name) in self.bodies.iter().enumerate() {
            let key = format!("bodies[{k}]");
            if name == WORLD {
                if bodies.iter().any(|b| b.name == WORLD) {
                    return problem(
                        &key,
                        "\"world\" is both a body's name and the name of the static world".into(),
                        "rename the body called \"world\"",
                    );
                }
                continue;
            }
            match bodies.iter().find(|b| &b.name == name) {
                Some(b) => dynamic[k] = b.dynamic,
                None => {
                    let known: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
                    return problem(
                        &key,
                        format!("there is no body named '{name}'"),
                        &format!(
                            "use the name of a [[body]] ({}) or \"world\"",
                            if known.is_empty() {
                                "the scene has none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    );
                }
            }
        }
        if self.bodies[0] == self.bodies[1] {
            return problem(
                "bodies[1]",
                format!("the joint links '{}' to itself", self.bodies[0]),
                "name two different bodies, or one body and \"world\"",
            );
        }
        if !dynamic[0] && !dynamic[1] {
            return problem(
                "bodies",
                "neither end is a dynamic body, so the joint would hold nothing".into(),
                "link at least one body with dynamic = true",
            );
        }
        let only = |key: &str, given: bool, kinds: &str| -> std::result::Result<(), SpecProblem> {
            if given {
                problem(
                    key,
                    format!("is not a key of a {} joint", self.type_name()),
                    &format!("remove it ({key} belongs to {kinds} joints)"),
                )
            } else {
                Ok(())
            }
        };
        match self.kind {
            JointType::Distance => {
                only("anchor", self.anchor.is_some(), "ball and hinge")?;
                only("axis", self.axis.is_some(), "hinge")?;
                only("limits", self.limits.is_some(), "hinge")?;
                let Some(anchors) = &self.anchors else {
                    return problem(
                        "",
                        "a distance joint needs its two anchors".into(),
                        "add anchors = [[x, y, z], [x, y, z]]: a point on each body, world frame at time 0",
                    );
                };
                if !finite3(&anchors[0]) || !finite3(&anchors[1]) {
                    return problem(
                        "anchors",
                        format!("{anchors:?} is not finite"),
                        "give two points of three numbers each, m",
                    );
                }
                let gap = (DVec3::from_array(anchors[0]) - DVec3::from_array(anchors[1])).length();
                match self.length {
                    Some(l) if !(l.is_finite() && l > 0.0) => {
                        return problem(
                            "length",
                            format!("{l} is not a positive length"),
                            "give the distance held in m, or leave it out to keep the anchors' distance at time 0",
                        );
                    }
                    None if gap == 0.0 => {
                        return problem(
                            "anchors",
                            "the two anchors coincide, so the distance held would be zero".into(),
                            "use type = \"ball\" for coinciding anchors, or give a length",
                        );
                    }
                    _ => {}
                }
            }
            JointType::Ball | JointType::Hinge => {
                only("anchors", self.anchors.is_some(), "distance")?;
                only("length", self.length.is_some(), "distance")?;
                match &self.anchor {
                    None => {
                        return problem(
                            "",
                            format!("a {} joint needs its anchor", self.type_name()),
                            "add anchor = [x, y, z]: the point where the bodies are held together, world frame at time 0",
                        );
                    }
                    Some(a) if !finite3(a) => {
                        return problem(
                            "anchor",
                            format!("{a:?} is not finite"),
                            "give three numbers, m",
                        );
                    }
                    _ => {}
                }
                if self.kind == JointType::Ball {
                    only("axis", self.axis.is_some(), "hinge")?;
                    only("limits", self.limits.is_some(), "hinge")?;
                } else {
                    self.check_hinge()?;
                }
            }
        }
        if !(self.stabilization.is_finite() && (0.0..=1.0).contains(&self.stabilization)) {
            return problem(
                "stabilization",
                format!("{} is outside [0, 1]", self.stabilization),
                "use a fraction between 0 (no drift correction) and 1 (the default)",
            );
        }
        Ok(())
    }

    fn check_hinge(&self) -> std::result::Result<(), SpecProblem> {
        match &self.axis {
            None => {
                return problem(
                    "",
                    "a hinge joint needs its axis".into(),
                    "add axis = [x, y, z]: the direction of the hinge, world frame at time 0",
                );
            }
            Some(a) if !finite3(a) || DVec3::from_array(*a).length() == 0.0 => {
                return problem(
                    "axis",
                    format!("{a:?} is not a direction"),
                    "give a non-zero axis such as [0, 0, 1]",
                );
            }
            _ => {}
        }
        if let Some([lo, hi]) = self.limits
            && !(lo.is_finite()
                && hi.is_finite()
                && lo < hi
                && lo <= 0.0
                && hi >= 0.0
                && lo > -180.0
                && hi < 180.0)
        {
            return problem(
                "limits",
                format!("[{lo}, {hi}] is not a range of angles around the starting pose"),
                "give [lowest, highest] in degrees with -180 < lowest <= 0 <= highest < 180 (the starting pose is angle 0)",
            );
        }
        Ok(())
    }

    fn type_name(&self) -> &'static str {
        match self.kind {
            JointType::Distance => "distance",
            JointType::Ball => "ball",
            JointType::Hinge => "hinge",
        }
    }

    /// Build the joint from checked values and the bodies at their starting poses (`body_of`
    /// maps a body name to its index). The anchors must lie on or near their bodies.
    pub fn build(
        &self,
        index: usize,
        bodies: &[RigidBody],
        body_of: &dyn Fn(&str) -> Option<usize>,
    ) -> std::result::Result<Joint, SpecProblem> {
        let ends = [0, 1].map(|k| body_of(&self.bodies[k]));
        let pose = |k: usize| {
            ends[k].map_or((DVec3::ZERO, DQuat::IDENTITY), |b| {
                (bodies[b].state.x, bodies[b].state.q)
            })
        };
        let world_points = match (self.anchor, self.anchors) {
            (Some(a), _) => [DVec3::from_array(a); 2],
            (None, Some([a, b])) => [DVec3::from_array(a), DVec3::from_array(b)],
            (None, None) => unreachable!("checked: every kind has its anchors"),
        };
        let key = if self.anchor.is_some() {
            "anchor"
        } else {
            "anchors"
        };
        let mut anchors = [DVec3::ZERO; 2];
        for k in 0..2 {
            let (x, q) = pose(k);
            anchors[k] = q.conjugate() * (world_points[k] - x);
            if let Some(b) = ends[k] {
                let key = if self.anchors.is_some() {
                    format!("{key}[{k}]")
                } else {
                    key.to_string()
                };
                check_near(&bodies[b], anchors[k], world_points[k], &key)?;
            }
        }
        let axis = self
            .axis
            .map_or(DVec3::Z, |a| DVec3::from_array(a).normalize());
        let axes = [0, 1].map(|k| pose(k).1.conjugate() * axis);
        let kind = match self.kind {
            JointType::Distance => JointKind::Distance {
                length: self
                    .length
                    .unwrap_or_else(|| (world_points[0] - world_points[1]).length()),
            },
            JointType::Ball => JointKind::Ball,
            JointType::Hinge => JointKind::Hinge {
                limits: self
                    .limits
                    .map(|[lo, hi]| (lo.to_radians(), hi.to_radians())),
            },
        };
        Ok(Joint {
            name: self.name_or_default(index),
            kind,
            ends,
            anchors,
            axes,
            reference: pose(1).1.conjugate() * pose(0).1,
            stabilization: self.stabilization,
        })
    }
}

/// An anchor (body frame `local`, world `world`) must lie within half the body's largest
/// extent of its bounding box: further out it is most likely a mistyped coordinate.
fn check_near(
    body: &RigidBody,
    local: DVec3,
    world: DVec3,
    key: &str,
) -> std::result::Result<(), SpecProblem> {
    let (lo, hi) = body.shape.bounds();
    let outside = (lo - local).max(local - hi).max(DVec3::ZERO).length();
    let reach = 0.5 * (hi - lo).max_element();
    if outside > reach {
        let (blo, bhi) = (
            body.state.x + body.state.q * lo,
            body.state.x + body.state.q * hi,
        );
        return problem(
            key,
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

/// Build every joint of a scene from the built bodies. Problems are input errors naming the
/// scene file, the line of the key (read back from `scene_file`) and the fix.
pub fn build_joints(
    specs: &[JointSpec],
    body_specs: &[BodySpec],
    bodies: &[RigidBody],
    scene_file: &Path,
) -> Result<Vec<Joint>> {
    let text = std::fs::read_to_string(scene_file).unwrap_or_default();
    let origin = Origin {
        file: scene_file,
        text: &text,
    };
    let body_of = |name: &str| -> Option<usize> {
        (name != WORLD)
            .then(|| body_specs.iter().position(|b| b.name == name))
            .flatten()
    };
    specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let at = |p: SpecProblem| -> Error {
                let path = p
                    .key
                    .split('.')
                    .fold(KeyPath::new().key("joint").index(i), |path, k| {
                        key_with_index(path, k)
                    });
                origin.error(&path, &p.problem, &p.fix)
            };
            s.check(body_specs).map_err(at)?;
            s.build(i, bodies, &body_of).map_err(at)
        })
        .collect()
}

/// Extend `path` by a key that may end in an index, `bodies[1]` or `anchors[0]`; an empty key
/// is the table itself.
pub fn key_with_index(path: KeyPath, key: &str) -> KeyPath {
    if key.is_empty() {
        return path;
    }
    match key.split_once('[') {
        Some((k, rest)) => match rest.trim_end_matches(']').parse::<usize>() {
            Ok(i) => path.key(k).index(i),
            Err(_) => path.key(key),
        },
        None => path.key(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joints::Pose;
    use crate::rigid::{Primitive, Shape};

    fn bodies() -> Vec<BodySpec> {
        let text = r#"
            [[body]]
            name = "gate"
            shape = { type = "box", size = [0.02, 0.2, 0.1] }
            position = [1, 0, 0]
            [[body]]
            name = "post"
            shape = { type = "box", size = [0.1, 0.1, 0.1] }
            dynamic = false
            [[body]]
            name = "floor"
            shape = { type = "box", size = [1, 0.1, 1] }
            dynamic = false
        "#;
        #[derive(Deserialize)]
        struct B {
            body: Vec<BodySpec>,
        }
        toml::from_str::<B>(text).unwrap().body
    }

    fn spec(text: &str) -> JointSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn bad_keys_are_named_with_a_fix() {
        let b = bodies();
        let hinge = "type = \"hinge\"\nbodies = [\"gate\", \"world\"]\nanchor = [1, 0.1, 0]\n";
        for (text, key) in [
            (format!("{hinge}axis = [0, 0, 0]\n"), "axis"),
            (hinge.to_string(), ""),
            (
                hinge.replace("\"gate\", \"world\"", "\"gat\", \"world\""),
                "bodies[0]",
            ),
            (
                hinge.replace("\"gate\", \"world\"", "\"gate\", \"gate\""),
                "bodies[1]",
            ),
            (
                hinge.replace("\"gate\", \"world\"", "\"post\", \"floor\""),
                "bodies",
            ),
            (hinge.replace("\"gate\", \"world\"", "\"gate\""), "bodies"),
            (format!("{hinge}axis = [0, 0, 1]\nlimits = [10, 20]\n"), "limits"),
            (format!("{hinge}axis = [0, 0, 1]\nlength = 2\n"), "length"),
            (
                format!("{hinge}axis = [0, 0, 1]\nstabilization = 1.5\n"),
                "stabilization",
            ),
            (
                "type = \"ball\"\nbodies = [\"gate\", \"world\"]\n".into(),
                "",
            ),
            (
                "type = \"ball\"\nbodies = [\"gate\", \"world\"]\nanchor = [1, 0, 0]\naxis = [1, 0, 0]\n"
                    .into(),
                "axis",
            ),
            (
                "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchors = [[1, 0, 0], [1, 0, 0]]\n"
                    .into(),
                "anchors",
            ),
            (
                "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchors = [[1, 0, 0], [1, 1, 0]]\nlength = -1\n"
                    .into(),
                "length",
            ),
            (
                "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchor = [1, 0, 0]\n".into(),
                "anchor",
            ),
            (
                format!("name = \"a b\"\n{hinge}axis = [0, 0, 1]\n"),
                "name",
            ),
        ] {
            let p = spec(&text).check(&b).unwrap_err();
            assert_eq!(p.key, key, "{text}");
            assert!(!p.fix.is_empty());
        }
        assert!(
            spec(&format!("{hinge}axis = [0, 0, 2]\nlimits = [-10, 20]\n"))
                .check(&b)
                .is_ok()
        );
        assert!(
            toml::from_str::<JointSpec>("type = \"slider\"\nbodies = [\"gate\", \"world\"]\n")
                .is_err()
        );
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
        let j = s.build(2, &bodies, &of).unwrap();
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
        assert!(near.build(0, &bodies, &of).is_ok());
        let far = spec("type = \"ball\"\nbodies = [\"world\", \"gate\"]\nanchor = [1.25, 0, 0]\n");
        let p = far.build(0, &bodies, &of).unwrap_err();
        assert_eq!(p.key, "anchor");
        assert!(p.problem.contains("outside body 'gate'"), "{}", p.problem);
        let d = spec(
            "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchors = [[1, 0.1, 0], [1, 3, 0]]\n",
        );
        let j = d.build(0, &bodies, &of).unwrap();
        let JointKind::Distance { length } = j.kind else {
            panic!("a distance joint")
        };
        assert!((length - 2.9).abs() < 1e-12);
    }
}
