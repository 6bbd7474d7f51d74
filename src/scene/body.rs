//! The `[[body]]` tables: a body as a scene file describes it (shape, pose, material,
//! integrator) and its checks. `sim::build` turns a checked table into a `rigid::RigidBody`.
use super::locate::KeyPath;
use super::problem::{Checked, Problem, fail, finite3};
use crate::rigid::Integrator;
use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One `[[body]]` table. Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// Name, used for output files (`rigid/<name>_NNNNN.ply`): letters, digits, `_` and `-`.
    pub name: String,
    /// The solid: a primitive with its dimensions, or a mesh file with a scale.
    pub shape: ShapeSpec,
    /// Density, kg/m^3.
    #[serde(default = "default_density")]
    pub density: f64,
    /// Particle spacing, m; when absent, the liquid's spacing, else the body's smallest extent / 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing: Option<f64>,
    /// World position of the shape's origin (a primitive's centre of mass, a mesh's origin), m.
    #[serde(default)]
    pub position: [f64; 3],
    /// Initial orientation; identity when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<OrientationSpec>,
    /// Initial velocity of the centre of mass, m/s.
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Initial angular velocity, world frame, rad/s.
    #[serde(default)]
    pub angular_velocity: [f64; 3],
    /// Angular impulse applied at time 0 after the angular velocity is set, world frame, N m s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torque_impulse: Option<[f64; 3]>,
    /// Whether the body moves; a static body stays where it is placed.
    #[serde(default = "default_true")]
    pub dynamic: bool,
    /// A prescribed motion, which makes the body kinematic (`dynamic = false` with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motion: Option<super::motion::MotionSpec>,
    /// Coefficient of restitution in contacts, 0..1.
    #[serde(default = "default_restitution")]
    pub restitution: f64,
    /// Coulomb friction coefficient in contacts, >= 0.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Time integrator: "euler", "rk4" or "implicit_midpoint".
    #[serde(default = "default_integrator")]
    pub integrator: String,
    /// Accept the body overlapping other bodies or the container's walls, or not fitting in
    /// the container, at time 0 (checked at setup otherwise).
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_overlap: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The solid of a body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ShapeSpec {
    /// `{ type = "box", size = [x, y, z] }`: full extents, m.
    Box {
        /// Full extents, m.
        size: [f64; 3],
    },
    /// `{ type = "sphere", radius = r }`.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// `{ type = "cylinder", radius = r, height = h }`: axis along the body's z.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Height, m.
        height: f64,
    },
    /// `{ type = "cone", radius = r, height = h }`: axis along z, centre of mass at the origin.
    Cone {
        /// Base radius, m.
        radius: f64,
        /// Height, m.
        height: f64,
    },
    /// `{ type = "ellipsoid", radii = [a, b, c] }`: semi-axes, m.
    Ellipsoid {
        /// Semi-axes, m.
        radii: [f64; 3],
    },
    /// `{ type = "mesh", path = "meshes/x.obj", scale = 1.0 }`: a closed PLY or OBJ mesh,
    /// path relative to the scene file; `scale` is one number or three.
    Mesh {
        /// Mesh file, relative to the scene file's directory.
        path: PathBuf,
        /// Scale applied to the mesh's coordinates.
        #[serde(default)]
        scale: Scale,
    },
}

/// A uniform or per-axis scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scale {
    /// The same factor on every axis.
    Uniform(f64),
    /// One factor per axis.
    PerAxis([f64; 3]),
}

impl Default for Scale {
    fn default() -> Self {
        Scale::Uniform(1.0)
    }
}

impl Scale {
    /// The factors per axis.
    pub fn vector(&self) -> DVec3 {
        match *self {
            Scale::Uniform(s) => DVec3::splat(s),
            Scale::PerAxis(v) => DVec3::from_array(v),
        }
    }
}

/// An orientation: `{ axis = [x, y, z], degrees = a }` or `{ quaternion = [w, x, y, z] }`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrientationSpec {
    /// Rotation axis (any length but zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<[f64; 3]>,
    /// Rotation angle about `axis`, degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degrees: Option<f64>,
    /// Unit quaternion `[w, x, y, z]` (normalised if nearly unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quaternion: Option<[f64; 4]>,
}

fn default_density() -> f64 {
    1000.0
}
fn default_true() -> bool {
    true
}
fn default_restitution() -> f64 {
    0.5
}
fn default_friction() -> f64 {
    0.5
}
fn default_integrator() -> String {
    Integrator::default().name().to_string()
}

impl OrientationSpec {
    /// The rotation, or what is wrong with the table found at `at`.
    pub fn quat(&self, at: &KeyPath) -> Checked<DQuat> {
        let bad = |key: &str, problem: String, fix: &str| Problem::new(at.key(key), problem, fix);
        match (self.axis, self.degrees, self.quaternion) {
            (Some(axis), Some(deg), None) => {
                let a = DVec3::from_array(axis);
                if !finite3(&axis) || a.length() == 0.0 {
                    return Err(bad(
                        "axis",
                        format!("{axis:?} is not a direction"),
                        "give a non-zero axis such as [0, 0, 1]",
                    ));
                }
                if !deg.is_finite() {
                    return Err(bad(
                        "degrees",
                        format!("{deg} is not finite"),
                        "give an angle in degrees",
                    ));
                }
                Ok(DQuat::from_axis_angle(a.normalize(), deg.to_radians()))
            }
            (None, None, Some([w, x, y, z])) => {
                let q = DQuat::from_xyzw(x, y, z, w);
                if !q.is_finite() || (q.length() - 1.0).abs() > 1e-6 {
                    return Err(bad(
                        "quaternion",
                        format!("[{w}, {x}, {y}, {z}] is not a unit quaternion"),
                        "give [w, x, y, z] with w^2 + x^2 + y^2 + z^2 = 1",
                    ));
                }
                Ok(q.normalize())
            }
            _ => fail(
                at.clone(),
                "needs either axis and degrees, or quaternion",
                "write orientation = { axis = [0, 0, 1], degrees = 30 } or orientation = { quaternion = [1, 0, 0, 0] }",
            ),
        }
    }
}

impl ShapeSpec {
    /// Check the dimensions of the shape table found at `at` (positive sizes, a usable
    /// scale); a mesh file is read, and checked, when the shape is built.
    pub fn check(&self, at: &KeyPath) -> Checked {
        let pos = |v: &[f64], key: &str| -> Checked {
            if v.iter().all(|x| x.is_finite() && *x > 0.0) {
                Ok(())
            } else {
                fail(
                    at.key(key),
                    format!("{v:?} is not positive"),
                    "give positive dimensions in m",
                )
            }
        };
        match self {
            ShapeSpec::Box { size } => pos(size, "size"),
            ShapeSpec::Sphere { radius } => pos(&[*radius], "radius"),
            ShapeSpec::Cylinder { radius, height } | ShapeSpec::Cone { radius, height } => {
                pos(&[*radius], "radius")?;
                pos(&[*height], "height")
            }
            ShapeSpec::Ellipsoid { radii } => pos(radii, "radii"),
            ShapeSpec::Mesh { scale, .. } => {
                let v = scale.vector();
                if !v.is_finite() || v.x * v.y * v.z == 0.0 {
                    return fail(
                        at.key("scale"),
                        match scale {
                            Scale::Uniform(s) => format!("{s} is zero or not finite"),
                            Scale::PerAxis(v) => {
                                format!("[{}, {}, {}] is zero or not finite", v[0], v[1], v[2])
                            }
                        },
                        "give a non-zero scale, e.g. 1.0 or [1, 1, 1]",
                    );
                }
                Ok(())
            }
        }
    }
}

impl BodySpec {
    /// Check every value of the table found at `at` that can be checked without reading
    /// files (a mesh file is read, and checked, when the body is built).
    pub fn check(&self, at: &KeyPath) -> Checked {
        let bad = |key: &str, problem: String, fix: &str| {
            let path = key.split('.').fold(at.clone(), |p, k| p.key(k));
            fail(path, problem, fix)
        };
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return bad(
                "name",
                format!("'{}' is not usable in file names", self.name),
                "use letters, digits, '_' and '-' only, e.g. \"wrench\"",
            );
        }
        if !(self.density.is_finite() && self.density > 0.0) {
            return bad(
                "density",
                format!("{} is not a positive number", self.density),
                "give a density in kg/m^3, e.g. 1000",
            );
        }
        if let Some(s) = self.spacing
            && !(s.is_finite() && s > 0.0)
        {
            return bad(
                "spacing",
                format!("{s} is not a positive length"),
                "give the particle spacing in m, or leave it out",
            );
        }
        self.shape.check(&at.key("shape"))?;
        for (key, v) in [
            ("position", &self.position),
            ("velocity", &self.velocity),
            ("angular_velocity", &self.angular_velocity),
        ] {
            if !finite3(v) {
                return bad(key, format!("{v:?} is not finite"), "give three numbers");
            }
        }
        if let Some(h) = &self.torque_impulse
            && !finite3(h)
        {
            return bad(
                "torque_impulse",
                format!("{h:?} is not finite"),
                "give three numbers in N m s",
            );
        }
        if let Some(o) = &self.orientation {
            o.quat(&at.key("orientation"))?;
        }
        if let Some(m) = &self.motion {
            if self.dynamic {
                return bad(
                    "motion",
                    "a body with a motion is kinematic and takes no forces, and this one is dynamic".into(),
                    "add dynamic = false to the body (it then follows the motion exactly)",
                );
            }
            m.check(&at.key("motion"), self.position)?;
        }
        if !self.dynamic {
            let moving = [
                ("velocity", self.velocity),
                ("angular_velocity", self.angular_velocity),
                ("torque_impulse", self.torque_impulse.unwrap_or_default()),
            ];
            if let Some((key, v)) = moving.iter().find(|(_, v)| v.iter().any(|x| *x != 0.0)) {
                return bad(
                    key,
                    format!("{v:?} given to a static or kinematic body, whose motion is set"),
                    "remove it, or set dynamic = true (or give the motion in `motion`)",
                );
            }
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return bad(
                "restitution",
                format!("{} is outside [0, 1]", self.restitution),
                "use a value between 0 and 1",
            );
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return bad(
                "friction",
                format!("{} is negative or not finite", self.friction),
                "use a friction coefficient >= 0",
            );
        }
        if let Err(e) = self.integrator.parse::<Integrator>() {
            return bad("integrator", e, "pick one of the three");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> BodySpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn bad_keys_are_named() {
        let base = r#"name = "b"
            shape = { type = "sphere", radius = 0.5 }
            "#;
        for (extra, key) in [
            ("density = -1", "density"),
            ("restitution = 1.5", "restitution"),
            ("friction = -0.1", "friction"),
            ("integrator = \"leapfrog\"", "integrator"),
            (
                "orientation = { axis = [0, 0, 0], degrees = 3 }",
                "orientation.axis",
            ),
            ("orientation = { degrees = 3 }", "orientation"),
            (
                "orientation = { quaternion = [2, 0, 0, 0] }",
                "orientation.quaternion",
            ),
            ("spacing = 0", "spacing"),
        ] {
            let s = spec(&format!("{base}{extra}\n"));
            assert_eq!(
                s.check(&KeyPath::new()).unwrap_err().path.to_string(),
                key,
                "{extra}"
            );
        }
        let s = spec("name = \"a b\"\nshape = { type = \"sphere\", radius = 0.5 }\n");
        assert_eq!(
            s.check(&KeyPath::new()).unwrap_err().path.to_string(),
            "name"
        );
        let s = spec("name = \"a\"\nshape = { type = \"cone\", radius = 0.5, height = -1 }\n");
        assert_eq!(
            s.check(&KeyPath::new()).unwrap_err().path.to_string(),
            "shape.height"
        );
        assert!(
            toml::from_str::<BodySpec>(
                "name = \"a\"\nshape = { type = \"sphere\", radius = 1 }\ncolour = 3\n"
            )
            .is_err()
        );
        assert!(
            toml::from_str::<BodySpec>(
                "name = \"a\"\nshape = { type = \"sphere\", radius = 1, size = 3 }\n"
            )
            .is_err()
        );
    }
}
