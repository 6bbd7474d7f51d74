//! The liquid's sources and sinks: `[[emitter]]` tables (a nozzle that lets liquid in at a set
//! speed) and `[[outlet]]` tables (a region whose liquid leaves the run), each with its checks
//! against the container and the liquid blocks, and the plane a nozzle spans;
//! `liquid::emitter` and `liquid::sources` do the work.
use super::liquid::{Container, LiquidBlock};
use super::locate::KeyPath;
use super::problem::{Checked, fail, finite3};
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// A nozzle's cross-section, in the plane normal to its direction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum NozzleSpec {
    /// A disc of `radius`, m.
    Circle {
        /// Radius, m.
        radius: f64,
    },
    /// A rectangle `size = [a, b]`, m: `a` along the first axis of the nozzle's plane
    /// (`y x direction`: world z for a jet along x, x for a jet along z or y), `b` along the
    /// second (`direction x first`: world y for a horizontal jet).
    Rectangle {
        /// Side lengths, m.
        size: [f64; 2],
    },
}

/// One `[[emitter]]` table. Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmitterSpec {
    /// The nozzle's cross-section.
    pub shape: NozzleSpec,
    /// The nozzle's centre, m.
    pub position: [f64; 3],
    /// The direction the liquid leaves in (normalised when read).
    pub direction: [f64; 3],
    /// The speed the liquid leaves at, m/s.
    pub speed: f64,
    /// When emission starts, s.
    #[serde(default)]
    pub start: f64,
    /// When emission stops, s (none: at the end of the run, or when `volume` is out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<f64>,
    /// The volume to emit, m^3 (none: until `stop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<f64>,
    /// The `[[liquid]]` block whose spacing, density, stiffness and viscosity the emitted
    /// particles take (its phase); it may be empty (`min = max`).
    #[serde(default)]
    pub liquid: usize,
}

/// A container face, as an outlet names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    /// The wall at the container's lowest x.
    XMin,
    /// The wall at the container's highest x.
    XMax,
    /// The floor.
    YMin,
    /// The ceiling.
    YMax,
    /// The wall at the lowest z.
    ZMin,
    /// The wall at the highest z.
    ZMax,
}

/// One `[[outlet]]` table: a box (`min`, `max`) or a slab `depth` deep along a container
/// `face`. Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutletSpec {
    /// Lower corner of the box, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<[f64; 3]>,
    /// Upper corner of the box, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<[f64; 3]>,
    /// A container face: the slab `depth` deep along it is the outlet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face: Option<Face>,
    /// The depth of a face's slab, m (none: two particle spacings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
}

/// Two unit vectors spanning the plane normal to `dir`: the first is `y x dir` (horizontal for
/// any jet not along y; x for a vertical jet), the second `dir x first`.
pub fn plane_axes(dir: DVec3) -> (DVec3, DVec3) {
    let first = DVec3::Y.cross(dir);
    let first = if first.length_squared() < 1e-12 {
        DVec3::X
    } else {
        first.normalize()
    };
    (first, dir.cross(first).normalize())
}

impl NozzleSpec {
    /// The nozzle's area, m^2.
    pub fn area(&self) -> f64 {
        match *self {
            NozzleSpec::Circle { radius } => std::f64::consts::PI * radius * radius,
            NozzleSpec::Rectangle { size } => size[0] * size[1],
        }
    }
}

impl EmitterSpec {
    /// The direction, normalised.
    pub fn unit_direction(&self) -> [f64; 3] {
        let d = self.direction;
        let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        d.map(|x| x / n)
    }

    /// At most how many particles it emits by time `end` at `spacing`, estimated without
    /// making them: the volume it lets in over its window (or its `volume`) in particles, and
    /// one layer more (a layer holds at most the lattice points of the nozzle's bounding
    /// rectangle).
    pub fn particles_bound(&self, spacing: f64, end: f64) -> f64 {
        let (a, b) = match self.shape {
            NozzleSpec::Circle { radius } => (2.0 * radius, 2.0 * radius),
            NozzleSpec::Rectangle { size } => (size[0], size[1]),
        };
        let layer = (a / spacing).ceil().max(1.0) * (b / spacing).ceil().max(1.0);
        let until = self.stop.unwrap_or(f64::INFINITY).min(end);
        let mut volume = self.shape.area() * self.speed * (until - self.start).max(0.0);
        if let Some(v) = self.volume {
            volume = volume.min(v);
        }
        volume / spacing.powi(3) + layer
    }

    /// How far the nozzle and its particles (of radius `spacing / 2`) reach from its centre
    /// along each world axis, m.
    pub fn half_extent(&self, spacing: f64) -> [f64; 3] {
        let dir = DVec3::from_array(self.unit_direction());
        let (e1, e2) = plane_axes(dir);
        let r = 0.5 * spacing;
        let reach = match self.shape {
            NozzleSpec::Circle { radius } => (DVec3::ONE - dir * dir)
                .max(DVec3::ZERO)
                .to_array()
                .map(|x| radius * x.sqrt()),
            NozzleSpec::Rectangle { size } => {
                (e1.abs() * (0.5 * size[0]) + e2.abs() * (0.5 * size[1])).to_array()
            }
        };
        reach.map(|x| x + r)
    }

    /// Check the table found at `at` against the scene's liquid blocks and container: a
    /// nozzle with an area that holds a particle, a direction, a positive speed, a time
    /// window, a block to take the liquid from, and the nozzle inside the container.
    pub fn check(
        &self,
        at: &KeyPath,
        liquid: &[LiquidBlock],
        container: Option<&Container>,
    ) -> Checked {
        let Some(block) = liquid.get(self.liquid) else {
            return fail(
                at.key("liquid"),
                format!(
                    "there is no liquid[{}] (the scene has {} [[liquid]] blocks)",
                    self.liquid,
                    liquid.len()
                ),
                "name the [[liquid]] block whose particles the emitter makes (0 is the first); \
                 add one with min = max for liquid that only comes from the emitter",
            );
        };
        let s = block.spacing;
        let (sizes, what) = match self.shape {
            NozzleSpec::Circle { radius } => (vec![2.0 * radius], "radius"),
            NozzleSpec::Rectangle { size } => (size.to_vec(), "size"),
        };
        if sizes.iter().any(|&x| !(x.is_finite() && x >= s)) {
            return fail(
                at.key("shape").key(what),
                format!(
                    "the nozzle ({sizes:?} across) holds no particle at spacing {s}: its area is zero or too small"
                ),
                format!("give a nozzle at least one spacing ({s} m) across"),
            );
        }
        let d = self.direction;
        if !finite3(&d) || d.iter().map(|x| x * x).sum::<f64>() < 1e-12 {
            return fail(
                at.key("direction"),
                format!("{d:?} is not a direction"),
                "give a nonzero vector, e.g. [0, -1, 0] for a jet straight down",
            );
        }
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return fail(
                at.key("speed"),
                format!("{} is not a positive speed", self.speed),
                "give the speed the liquid leaves the nozzle at, m/s",
            );
        }
        if !(self.start.is_finite() && self.start >= 0.0) {
            return fail(
                at.key("start"),
                format!("{} is not a time >= 0", self.start),
                "give the time emission starts, s",
            );
        }
        if let Some(stop) = self.stop
            && !(stop.is_finite() && stop > self.start)
        {
            return fail(
                at.key("stop"),
                format!("{stop} is not after start ({})", self.start),
                "give a stop time after start, or leave it out to emit to the end",
            );
        }
        if let Some(v) = self.volume
            && !(v.is_finite() && v > 0.0)
        {
            return fail(
                at.key("volume"),
                format!("{v} is not a positive volume"),
                "give the volume to emit in m^3, or leave it out",
            );
        }
        if !finite3(&self.position) {
            return fail(
                at.key("position"),
                format!("{:?} is not finite", self.position),
                "give the nozzle's centre in m",
            );
        }
        if let Some(c) = container {
            // The whole nozzle, and the particles' radius around it, inside the walls.
            let half = self.half_extent(s);
            let outside = (0..3).any(|a| {
                self.position[a] - half[a] < c.min[a] - 1e-9
                    || self.position[a] + half[a] > c.max[a] + 1e-9
            });
            if outside {
                return fail(
                    at.key("position"),
                    format!(
                        "the nozzle at {:?} (reaching {half:?} either way with its particles) is not inside the container {:?}..{:?}",
                        self.position, c.min, c.max
                    ),
                    "move the nozzle inside the container, at least its half-width and half a spacing from every wall",
                );
            }
        }
        Ok(())
    }
}

impl OutletSpec {
    /// The outlet's box in the `container` (a face's slab, or the box given), m.
    pub fn region(&self, container: Option<&Container>, spacing: f64) -> Option<[[f64; 3]; 2]> {
        if let (Some(min), Some(max)) = (self.min, self.max) {
            return Some([min, max]);
        }
        let (face, c) = (self.face?, container?);
        let depth = self.depth.unwrap_or(2.0 * spacing);
        let (mut lo, mut hi) = (c.min, c.max);
        // A slab inside the face, and as far again outside (what leaks through is removed too).
        let (axis, high) = match face {
            Face::XMin => (0, false),
            Face::XMax => (0, true),
            Face::YMin => (1, false),
            Face::YMax => (1, true),
            Face::ZMin => (2, false),
            Face::ZMax => (2, true),
        };
        if high {
            lo[axis] = c.max[axis] - depth;
            hi[axis] = c.max[axis] + depth;
        } else {
            lo[axis] = c.min[axis] - depth;
            hi[axis] = c.min[axis] + depth;
        }
        Some([lo, hi])
    }

    /// Check the table found at `at`: a box or a face (not both), a positive depth, and a
    /// region that leaves some of the container.
    pub fn check(&self, at: &KeyPath, container: Option<&Container>, spacing: f64) -> Checked {
        let boxed = self.min.is_some() || self.max.is_some();
        if boxed && self.face.is_some() {
            return fail(
                at.key("face"),
                "both a box (min/max) and a face are given",
                "give either min and max, or face (with an optional depth)",
            );
        }
        if !boxed && self.face.is_none() {
            return fail(
                at.clone(),
                "neither a box (min/max) nor a face is given",
                "give min and max of the region, or face = \"x_max\" (x_min, y_min, ...)",
            );
        }
        if boxed {
            let (Some(lo), Some(hi)) = (self.min, self.max) else {
                return fail(
                    at.key(if self.min.is_none() { "min" } else { "max" }),
                    "the box has only one corner",
                    "give both min and max",
                );
            };
            if !finite3(&lo) || !finite3(&hi) || (0..3).any(|a| lo[a] >= hi[a]) {
                return fail(
                    at.key("max"),
                    format!("min {lo:?} / max {hi:?} is not a box"),
                    "give finite corners with min < max on every axis",
                );
            }
        } else if container.is_none() {
            return fail(
                at.key("face"),
                "the scene has no [container] whose face this could be",
                "add a [container] or give the outlet's min and max",
            );
        }
        if let Some(d) = self.depth
            && !(d.is_finite() && d > 0.0)
        {
            return fail(
                at.key("depth"),
                format!("{d} is not a positive depth"),
                "give the slab's depth in m, e.g. two spacings",
            );
        }
        if let (Some(c), Some([lo, hi])) = (container, self.region(container, spacing))
            && (0..3).all(|a| lo[a] <= c.min[a] && hi[a] >= c.max[a])
        {
            return fail(
                at.key(if boxed { "max" } else { "depth" }),
                format!(
                    "the outlet {lo:?}..{hi:?} covers the whole container {:?}..{:?}: every particle would leave at the first step",
                    c.min, c.max
                ),
                "make the outlet a region at the container's end, e.g. face = \"x_max\"",
            );
        }
        Ok(())
    }
}

/// Check the emitters and outlets of a scene together: no nozzle inside an outlet (its
/// liquid would leave as it came).
pub fn check_pair(
    emitters: &[EmitterSpec],
    outlets: &[OutletSpec],
    container: Option<&Container>,
    spacing: f64,
    root: &KeyPath,
) -> Checked {
    for (i, e) in emitters.iter().enumerate() {
        for (j, o) in outlets.iter().enumerate() {
            if let Some([lo, hi]) = o.region(container, spacing)
                && (0..3).all(|a| e.position[a] >= lo[a] && e.position[a] <= hi[a])
            {
                return fail(
                    root.key("emitter").index(i).key("position"),
                    format!(
                        "the nozzle at {:?} lies in outlet[{j}] ({lo:?}..{hi:?}): its liquid would leave as it is emitted",
                        e.position
                    ),
                    "move the nozzle or the outlet apart",
                );
            }
        }
    }
    Ok(())
}
