//! The liquid's tables: `[[liquid]]` blocks with their viscosity, the `[solver]` settings they
//! share and the `[container]` that holds them, each with its checks.
use super::body::{OrientationSpec, ShapeSpec};
use super::liquid_shape::PosedSolid;
use super::locate::KeyPath;
use super::problem::{Checked, fail, finite3};
use serde::{Deserialize, Serialize};

/// Solver settings shared by all liquid blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSpec {
    /// Jacobi passes of double-density relaxation per step.
    #[serde(default = "default_relaxation_passes")]
    pub relaxation_passes: u32,
    /// Courant number used to choose substeps when `time.substeps` is absent.
    #[serde(default = "default_cfl")]
    pub cfl: f64,
    /// Let the liquid settle into hydrostatic equilibrium before time 0 (`sim::settle`).
    #[serde(default = "default_settle")]
    pub settle: bool,
    /// Take the rest kernel sum of the face-centred packing at the lattice's volume rather
    /// than the lattice's own (`liquid::params::rest_kernel_sum`): still water keeps its volume.
    #[serde(default)]
    pub packed_rest: bool,
    /// Give blocks without their own `stiffness` the one derived from the scene's depth and
    /// speeds (`Scene::default_stiffness`, 1% compression at the bottom of a still column)
    /// rather than 100 m^2/s^2.
    #[serde(default)]
    pub derived_stiffness: bool,
}

/// An axis-aligned box of static walls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Container {
    /// Lower corner, m.
    pub min: [f64; 3],
    /// Upper corner, m.
    pub max: [f64; 3],
    /// Normal restitution of liquid against the walls, 0..1.
    #[serde(default)]
    pub restitution: f64,
    /// Coulomb friction coefficient of liquid against the walls.
    #[serde(default)]
    pub friction: f64,
    /// The walls' viscous (no-slip) friction `f`, m/s: liquid within the kernel radius of a
    /// wall feels the shear stress `rho f u_t` (`boundary::wall_friction`); 0: none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub viscous_friction: f64,
    /// Whether the walls' ghosts push the liquid in the relaxation (ghost pressure; on by default).
    #[serde(default = "default_ghost_pressure")]
    pub ghost_pressure: bool,
}

/// A region of liquid, a box (`min`, `max`) or a shape (`shape`, `position`, `orientation`),
/// and the parameters of its particles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiquidBlock {
    /// Lower corner of the box filled, m (the box form; `min = max`: an empty block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<[f64; 3]>,
    /// Upper corner of the box filled, m (the box form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<[f64; 3]>,
    /// The solid filled, as a body's `shape` (the shape form, instead of `min` and `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<ShapeSpec>,
    /// World position of the shape's origin, m (the shape form).
    #[serde(default, skip_serializing_if = "is_origin")]
    pub position: [f64; 3],
    /// Orientation of the shape; identity when absent (the shape form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<OrientationSpec>,
    /// The shape read and posed in the world (`liquid_shape::resolve`, when the scene is
    /// loaded); `None` for a box.
    #[serde(skip)]
    pub solid: Option<PosedSolid>,
    /// Lattice spacing between particles, m (the particle diameter).
    #[serde(default = "default_spacing")]
    pub spacing: f64,
    /// Rest density, kg/m^3; a particle's mass is density * spacing^3.
    #[serde(default = "default_density")]
    pub density: f64,
    /// Pressure stiffness k in m^2/s^2 (the squared speed of sound); none: the scene's default
    /// (`Scene::default_stiffness`), set when the scene is loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiffness: Option<f64>,
    /// Near-pressure stiffness k_near in m^2/s^2 (keeps particles apart, gives surface tension);
    /// none: derived from gravity and the kernel radius (`liquid::params::default_near_stiffness`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near_stiffness: Option<f64>,
    /// Kernel radius h as a multiple of the spacing.
    #[serde(default = "default_kernel_radius")]
    pub kernel_radius: f64,
    /// Keep negative pressures (Clavet's cohesion and surface tension, for goo and drops);
    /// off clamps the pressure at zero, as water at these scales needs.
    #[serde(default)]
    pub cohesion: bool,
    /// Initial velocity, m/s.
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Viscosity impulses.
    #[serde(default)]
    pub viscosity: Viscosity,
}

/// Clavet's viscosity impulse coefficients.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Viscosity {
    /// Linear coefficient sigma, 1/s.
    #[serde(default)]
    pub sigma: f64,
    /// Quadratic coefficient beta, 1/m.
    #[serde(default)]
    pub beta: f64,
}

fn default_relaxation_passes() -> u32 {
    1
}
fn default_cfl() -> f64 {
    0.4
}
fn default_settle() -> bool {
    true
}
fn default_ghost_pressure() -> bool {
    true
}
fn default_spacing() -> f64 {
    0.01
}
fn default_density() -> f64 {
    1000.0
}
fn default_kernel_radius() -> f64 {
    2.0
}

impl Default for SolverSpec {
    fn default() -> Self {
        SolverSpec {
            relaxation_passes: default_relaxation_passes(),
            cfl: default_cfl(),
            settle: default_settle(),
            packed_rest: false,
            derived_stiffness: false,
        }
    }
}

impl SolverSpec {
    /// Check the `[solver]` table found at `at`.
    pub fn check(&self, at: &KeyPath) -> Checked {
        if self.relaxation_passes == 0 {
            return fail(at.key("relaxation_passes"), "0 passes", "use 1 or more");
        }
        if !(self.cfl.is_finite() && self.cfl > 0.0 && self.cfl <= 2.0) {
            return fail(
                at.key("cfl"),
                format!("{} is outside (0, 2]", self.cfl),
                "use a Courant number such as 0.4",
            );
        }
        Ok(())
    }
}

impl Container {
    /// Check the `[container]` table found at `at`: a box, restitution and friction in range.
    pub fn check(&self, at: &KeyPath) -> Checked {
        let c = self;
        if !finite3(&c.min) || !finite3(&c.max) || (0..3).any(|a| c.min[a] >= c.max[a]) {
            return fail(
                at.key("max"),
                format!("min {:?} / max {:?} is not a box", c.min, c.max),
                "give finite corners with min < max on every axis",
            );
        }
        if !(c.restitution.is_finite() && (0.0..=1.0).contains(&c.restitution)) {
            return fail(
                at.key("restitution"),
                format!("{} is outside [0, 1]", c.restitution),
                "use a value between 0 and 1",
            );
        }
        if !(c.friction.is_finite() && c.friction >= 0.0) {
            return fail(
                at.key("friction"),
                format!("{} is negative or not finite", c.friction),
                "use a friction coefficient >= 0",
            );
        }
        if !(c.viscous_friction.is_finite() && c.viscous_friction >= 0.0) {
            return fail(
                at.key("viscous_friction"),
                format!("{} is negative or not finite", c.viscous_friction),
                "use a viscous friction >= 0 m/s (0: none)",
            );
        }
        Ok(())
    }
}

/// Whether a value is zero (an absent optional coefficient; kept out of the manifest).
fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// Whether a position is the origin (an absent one; kept out of the manifest).
fn is_origin(v: &[f64; 3]) -> bool {
    *v == [0.0; 3]
}

impl LiquidBlock {
    /// Check the block found at `at`: values in range, inside the `container` if any, and the
    /// same spacing and kernel radius as the scene's `first` block.
    pub fn check(
        &self,
        at: &KeyPath,
        container: Option<&Container>,
        first: &LiquidBlock,
    ) -> Checked {
        let (b, p) = (self, at);
        if !(b.spacing.is_finite() && b.spacing > 0.0) {
            return fail(
                p.key("spacing"),
                format!("{} is not a positive length", b.spacing),
                "give the particle spacing in m, for example 0.01",
            );
        }
        b.check_region(p)?;
        let positive = [
            (
                "density",
                b.density,
                "a rest density in kg/m^3, for example 1000",
            ),
            (
                "kernel_radius",
                b.kernel_radius - 1.0,
                "a kernel radius above 1 spacing, for example 2",
            ),
        ];
        for (key, v, fix) in positive {
            if !(v.is_finite() && v > 0.0) {
                let shown = if key == "kernel_radius" { v + 1.0 } else { v };
                return fail(p.key(key), format!("{shown} is out of range"), fix);
            }
        }
        let non_negative = [
            (p.key("stiffness"), b.stiffness.unwrap_or(0.0)),
            (p.key("near_stiffness"), b.near_stiffness.unwrap_or(0.0)),
            (p.key("viscosity").key("sigma"), b.viscosity.sigma),
            (p.key("viscosity").key("beta"), b.viscosity.beta),
        ];
        for (path, v) in non_negative {
            if !(v.is_finite() && v >= 0.0) {
                return fail(
                    path,
                    format!("{v} is negative or not finite"),
                    "use a value >= 0",
                );
            }
        }
        if !finite3(&b.velocity) {
            return fail(
                p.key("velocity"),
                format!("{:?} is not finite", b.velocity),
                "give three numbers in m/s",
            );
        }
        if let (Some(c), Some(min), Some(max)) = (container, b.min, b.max) {
            check_inside(&p.key("min"), "block", min, max, c)?;
        }
        if b.spacing != first.spacing || b.kernel_radius != first.kernel_radius {
            return fail(
                p.key("spacing"),
                format!(
                    "spacing {} and kernel_radius {} differ from liquid[0]'s {} and {}",
                    b.spacing, b.kernel_radius, first.spacing, first.kernel_radius
                ),
                "give every liquid block the same spacing and kernel_radius",
            );
        }
        Ok(())
    }
}

/// Check that the box `min`..`max` of a block (a box, or a shape's bounds: `what`) lies
/// inside the container `c`; a problem is reported at `at`.
pub fn check_inside(
    at: &KeyPath,
    what: &str,
    min: [f64; 3],
    max: [f64; 3],
    c: &Container,
) -> Checked {
    let tol = 1e-9
        * (1.0
            + c.max
                .iter()
                .chain(c.min.iter())
                .fold(0.0f64, |m, x| m.max(x.abs())));
    if (0..3).any(|a| min[a] < c.min[a] - tol || max[a] > c.max[a] + tol) {
        return fail(
            at.clone(),
            format!(
                "the {what} {min:?}..{max:?} is not inside the container {:?}..{:?}",
                c.min, c.max
            ),
            "move the block inside the container or enlarge the container",
        );
    }
    Ok(())
}

impl LiquidBlock {
    /// Check the region of the block found at `p`: a box (`min` and `max`, at least a spacing
    /// apart on every axis, or equal: an empty block) or a shape (its dimensions, position and
    /// orientation), not both.
    fn check_region(&self, p: &KeyPath) -> Checked {
        let b = self;
        match (b.min, b.max, &b.shape) {
            (None, None, Some(shape)) => {
                shape.check(&p.key("shape"))?;
                if !finite3(&b.position) {
                    return fail(
                        p.key("position"),
                        format!("{:?} is not finite", b.position),
                        "give three numbers in m",
                    );
                }
                if let Some(o) = &b.orientation {
                    o.quat(&p.key("orientation"))?;
                }
                Ok(())
            }
            (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => fail(
                p.key("shape"),
                "the block gives both a box (min/max) and a shape",
                "give either min and max (a box) or shape (with position and orientation), not both",
            ),
            (None, None, None) => fail(
                p.clone(),
                "the block gives neither a box (min and max) nor a shape",
                "add min = [x, y, z] and max = [x, y, z], or shape = { type = \"sphere\", radius = 0.1 } with a position",
            ),
            (Some(_), None, None) | (None, Some(_), None) => fail(
                p.key(if b.min.is_none() { "min" } else { "max" }),
                "a box needs both corners, min and max",
                "give both min = [x, y, z] and max = [x, y, z]",
            ),
            (Some(min), Some(max), None) => {
                let empty = min == max;
                let thin = (0..3).any(|a| max[a] - min[a] < b.spacing);
                if !finite3(&min) || !finite3(&max) || (thin && !empty) {
                    return fail(
                        p.key("max"),
                        format!(
                            "min {min:?} / max {max:?} holds no particle at spacing {}",
                            b.spacing
                        ),
                        "give finite corners at least one spacing apart on every axis (or min = max for an empty block)",
                    );
                }
                if b.position != [0.0; 3] || b.orientation.is_some() {
                    return fail(
                        p.key(if b.orientation.is_some() {
                            "orientation"
                        } else {
                            "position"
                        }),
                        "position and orientation place a shape, and this block is a box",
                        "remove it and give the box's corners in min and max, or give a shape",
                    );
                }
                Ok(())
            }
        }
    }

    /// The block's box, m: `min` and `max`, or the world bounds of its shape once resolved
    /// (before that, the point `position`).
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        match (&self.solid, self.min, self.max) {
            (Some(s), _, _) => (s.lo.to_array(), s.hi.to_array()),
            (None, Some(min), Some(max)) => (min, max),
            _ => (self.position, self.position),
        }
    }
}
