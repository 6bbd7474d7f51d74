//! The solids of a scene's shapes: a `shape` table made into a `rigid::Shape` (meshes read
//! relative to the scene file, scaled and checked closed), and the shaped `[[liquid]]` blocks
//! posed in the world when the scene is loaded, with their world bounds checked against the
//! container and the other blocks.
use super::body::ShapeSpec;
use super::liquid::check_inside;
use super::locate::KeyPath;
use super::problem::{Checked, Problem};
use super::schema::Scene;
use crate::rigid::{MeshSolid, Primitive, Shape, TriMesh};
use crate::{Error, Result};
use glam::{DQuat, DVec3};
use std::path::Path;
use std::sync::Arc;

/// A shaped liquid block's solid in the world: the shape in its own coordinates, turned by
/// `rotation` about its origin and moved to `position`, and its world bounds.
#[derive(Debug, Clone)]
pub struct PosedSolid {
    /// The solid in its own coordinates (shared: scenes are cloned).
    pub shape: Arc<Shape>,
    /// Rotation about the shape's origin.
    pub rotation: DQuat,
    /// World position of the shape's origin, m.
    pub position: DVec3,
    /// Lower corner of the world bounds, m.
    pub lo: DVec3,
    /// Upper corner of the world bounds, m.
    pub hi: DVec3,
}

impl PartialEq for PosedSolid {
    /// Two posed solids of the same table are equal; the pose and bounds tell them apart.
    fn eq(&self, other: &Self) -> bool {
        (self.rotation, self.position, self.lo, self.hi)
            == (other.rotation, other.position, other.lo, other.hi)
    }
}

/// The solid of a checked shape table in its own coordinates; a mesh is read relative to
/// `base_dir`, scaled and checked closed. `what` names the shape's owner in messages.
pub fn solid(spec: &ShapeSpec, base_dir: &Path, what: &str) -> Result<Shape> {
    let prim = match spec {
        ShapeSpec::Box { size } => Primitive::Box {
            size: DVec3::from_array(*size),
        },
        ShapeSpec::Sphere { radius } => Primitive::Sphere { radius: *radius },
        ShapeSpec::Cylinder { radius, height } => Primitive::Cylinder {
            radius: *radius,
            height: *height,
        },
        ShapeSpec::Cone { radius, height } => Primitive::Cone {
            radius: *radius,
            height: *height,
        },
        ShapeSpec::Ellipsoid { radii } => Primitive::Ellipsoid {
            radii: DVec3::from_array(*radii),
        },
        ShapeSpec::Mesh { path, scale } => {
            let file = base_dir.join(path);
            let mut mesh = read_and_scale(&file, scale.vector())?;
            mesh.validate(&file.display().to_string())?;
            return Ok(Shape::Mesh(MeshSolid::new(mesh)));
        }
    };
    prim.check(what)?;
    Ok(Shape::Primitive(prim))
}

/// A mesh file read and scaled (a mirroring scale turns its faces outward again).
pub fn read_and_scale(file: &Path, scale: DVec3) -> Result<TriMesh> {
    let mut mesh = crate::output::mesh_files::read(file)?;
    mesh.transform(scale, DQuat::IDENTITY, DVec3::ZERO);
    Ok(mesh)
}

/// Pose every shaped liquid block of a validated scene in the world (meshes read relative to
/// `base_dir`), then check that each is a spacing across, lies inside the container, and
/// that no two blocks' bounds overlap. A mesh that cannot be read or is not closed is a problem at its
/// `shape.path`.
pub fn resolve(scene: &mut Scene, base_dir: &Path) -> Checked {
    let root = KeyPath::new().key("liquid");
    for (i, b) in scene.liquid.iter_mut().enumerate() {
        let Some(spec) = &b.shape else { continue };
        let at = root.index(i).key("shape");
        let shape = solid(spec, base_dir, &format!("liquid[{i}].shape")).map_err(|e| {
            let at = match spec {
                ShapeSpec::Mesh { .. } => at.key("path"),
                _ => at.clone(),
            };
            problem(at, e)
        })?;
        let rotation = match &b.orientation {
            Some(o) => o.quat(&root.index(i).key("orientation"))?,
            None => DQuat::IDENTITY,
        };
        let position = DVec3::from_array(b.position);
        let (lo, hi) = shape.rotated_bounds(rotation);
        b.solid = Some(PosedSolid {
            shape: Arc::new(shape),
            rotation,
            position,
            lo: lo + position,
            hi: hi + position,
        });
        let (lo, hi) = b.bounds();
        let thin = (0..3).find(|&a| hi[a] - lo[a] < b.spacing);
        if let Some(a) = thin {
            return Err(Problem::new(
                at,
                format!(
                    "the shape is {:.3e} m across along {}, less than the spacing {}: it holds no particle",
                    hi[a] - lo[a],
                    ["x", "y", "z"][a],
                    b.spacing
                ),
                "make the shape at least one spacing across on every axis, or the spacing smaller",
            ));
        }
        if let Some(c) = &scene.container {
            check_inside(
                &root.index(i).key("position"),
                "shape (its bounds)",
                lo,
                hi,
                c,
            )?;
        }
    }
    super::limits::check_overlaps(scene)
}

/// A problem at `at` from an input error whose message ends in `; fix: ...`.
fn problem(at: KeyPath, e: Error) -> Problem {
    let m = e.to_string();
    match m.rsplit_once("; fix: ") {
        Some((what, fix)) => Problem::new(at, what, fix),
        None => Problem::new(at, m, "see docs/src/guide/scene-files.md"),
    }
}
