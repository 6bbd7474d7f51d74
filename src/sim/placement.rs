//! Where the bodies start: each fits in the container, a dynamic one clear of its walls, and
//! no two (one dynamic, not joined) overlapping, at time 0, to within half a spacing. More is
//! an input error naming the bodies, the overlap in metres and the fix, unless a body says
//! `allow_overlap = true`.
//!
//! Walls and fit are measured on the exact shape (a mesh's vertices, a primitive's tessellation,
//! which is inscribed: never larger than the shape). Two bodies are measured where the particles
//! of one lie inside the exact shape of the other: a particle at depth `d_b` in the other and
//! `d_a` in its own body lies in an overlap at least `d_a + d_b` thick (exactly, between flat
//! faces), so bodies that touch, or that no particle of the other reaches, measure 0.
use crate::rigid::sampling::{Lattice, mesh_inside};
use crate::rigid::shape::{TriangleFeature, closest_feature};
use crate::rigid::{MeshSolid, Primitive, RigidBody, Shape};
use crate::scene::LoadedScene;
use crate::scene::body::BodySpec;
use crate::scene::joint::WORLD;
use crate::scene::locate::KeyPath;
use crate::scene::problem::Problem;
use crate::{Error, Result};
use glam::{DQuat, DVec3};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};

/// The overlap accepted, m: half the liquid's spacing, else half the body's particle spacing.
pub fn tolerance(liquid_spacing: Option<f64>, body_spacing: f64) -> f64 {
    0.5 * liquid_spacing.unwrap_or(body_spacing)
}

const AXES: [&str; 3] = ["x", "y", "z"];

/// The error of a placement problem of the `index`th body: the key is its `position`.
fn refuse(loaded: &LoadedScene, index: usize, problem: String, fix: String) -> Error {
    let at = KeyPath::new().key("body").index(index).key("position");
    Problem::new(at, problem, fix).to_error(&loaded.file, &loaded.text)
}

/// The `index`th body of the scene (table `spec`, `shape` in its own coordinates, turned by
/// `q` and its origin at `spec.position`) fits in the container, and a dynamic one reaches
/// no more than `tol` (m) into a wall. Nothing to check without a container or with
/// `allow_overlap`.
pub fn check_walls(
    loaded: &LoadedScene,
    index: usize,
    spec: &BodySpec,
    shape: &Shape,
    q: DQuat,
    tol: f64,
) -> Result<()> {
    let Some(c) = &loaded.scene.container else {
        return Ok(());
    };
    if spec.allow_overlap {
        return Ok(());
    }
    let x = DVec3::from_array(spec.position);
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    let mut extend = |v: DVec3| {
        let w = x + q * v;
        lo = lo.min(w);
        hi = hi.max(w);
    };
    match shape {
        Shape::Mesh(m) => m.mesh.vertices.iter().for_each(|&v| extend(v)),
        Shape::Primitive(p) => p.surface_mesh().vertices.iter().for_each(|&v| extend(v)),
    }
    let (cmin, cmax) = (DVec3::from_array(c.min), DVec3::from_array(c.max));
    let who = format!("body[{index}] '{}'", spec.name);
    let allow = format!("set allow_overlap = true on body[{index}] if this is intended");
    for a in 0..3 {
        let (extent, room) = (hi[a] - lo[a], cmax[a] - cmin[a]);
        if extent > room + tol {
            return Err(refuse(
                loaded,
                index,
                format!(
                    "{who} does not fit in the container: it spans {extent:.4} m along {}, the container {room:.4} m",
                    AXES[a]
                ),
                format!("make the body smaller or the container larger, or {allow}"),
            ));
        }
    }
    if !spec.dynamic {
        // A static body meets no wall: the contacts leave it out.
        return Ok(());
    }
    let mut worst = (0.0, 0, "min", 0.0);
    for a in 0..3 {
        for (depth, side, wall) in [
            (cmin[a] - lo[a], "min", cmin[a]),
            (hi[a] - cmax[a], "max", cmax[a]),
        ] {
            if depth > worst.0 {
                worst = (depth, a, side, wall);
            }
        }
    }
    let (depth, a, side, wall) = worst;
    if depth > tol {
        return Err(refuse(
            loaded,
            index,
            format!(
                "{who} reaches {depth:.4} m into the container's wall at {} = {wall} (container.{side}), more than half a spacing ({tol:.4} m)",
                AXES[a]
            ),
            format!(
                "move the body {depth:.4} m away from the wall (position, orientation), or {allow}"
            ),
        ));
    }
    Ok(())
}

/// A body's exact solid in its body frame, for the queries of the pair check: whether a point
/// lies inside, and how far it lies from the surface.
struct Solid<'a> {
    /// The body's primitive, if it is one (its inside test is exact).
    primitive: Option<Primitive>,
    /// The body's surface (a mesh's own, a primitive's tessellation) with its face index;
    /// none for a box or a sphere, whose distances are closed forms.
    surface: Option<std::borrow::Cow<'a, MeshSolid>>,
    /// The solid's bounds, grown by a particle spacing: nothing outside lies inside.
    lo: DVec3,
    /// The upper corner of those bounds.
    hi: DVec3,
}

impl<'a> Solid<'a> {
    fn of(body: &'a RigidBody) -> Solid<'a> {
        let (primitive, surface) = match &body.shape {
            Shape::Mesh(m) => (None, Some(std::borrow::Cow::Borrowed(m))),
            Shape::Primitive(p @ (Primitive::Box { .. } | Primitive::Sphere { .. })) => {
                (Some(*p), None)
            }
            Shape::Primitive(p) => (
                Some(*p),
                Some(std::borrow::Cow::Owned(MeshSolid::new(
                    body.surface.clone(),
                ))),
            ),
        };
        let (lo, hi) = body.shape.bounds();
        let pad = DVec3::splat(body.clump.spacing);
        Solid {
            primitive,
            surface,
            lo: lo - pad,
            hi: hi + pad,
        }
    }

    /// The distance of `p` from the surface, the nearest point, the feature of the nearest
    /// face it lies on, and that face (a box's or a sphere's: the distance alone, the rest
    /// unused).
    fn nearest(&self, p: DVec3) -> (f64, DVec3, TriangleFeature, usize) {
        let Some(surface) = &self.surface else {
            let d = match self.primitive {
                Some(Primitive::Sphere { radius }) => (radius - p.length()).abs(),
                Some(Primitive::Box { size }) => {
                    let gap = size * 0.5 - p.abs();
                    if gap.cmpgt(DVec3::ZERO).all() {
                        gap.min_element()
                    } else {
                        (-gap).max(DVec3::ZERO).length()
                    }
                }
                _ => unreachable!("a solid without a surface is a box or a sphere"),
            };
            return (d, p, TriangleFeature::Face, 0);
        };
        let f = surface.nearest_face(p);
        let [a, b, c] = surface.mesh.corners(f);
        let (q, feature) = closest_feature(p, a, b, c);
        ((p - q).length(), q, feature, f)
    }

    /// How deep `p` lies inside the solid, `None` outside.
    fn depth(&self, p: DVec3) -> Option<f64> {
        if p.cmplt(self.lo).any() || p.cmpgt(self.hi).any() {
            return None;
        }
        if let Some(prim) = self.primitive {
            return prim.contains(p).then(|| self.nearest(p).0);
        }
        let (d, q, feature, f) = self.nearest(p);
        let Some(surface) = &self.surface else {
            return None;
        };
        let inside = match feature {
            TriangleFeature::Face => (p - q).dot(surface.mesh.face_normal(f)) < 0.0,
            // Nearest an edge or a corner, the face's side may mislead: count the crossings.
            _ => {
                let lattice = Lattice {
                    origin: p,
                    spacing: 1.0,
                    dims: [1, 1, 1],
                };
                mesh_inside(&surface.mesh, &lattice)[0]
            }
        };
        (inside && d > 0.0).then_some(d)
    }
}

/// How thick the overlap of bodies `a` and `b` is where `a`'s particles lie inside `b`'s
/// exact solid: the largest `d_a + d_b` over those particles (0 when none does).
fn overlap_into(a: &RigidBody, sa: &Solid, b: &RigidBody, sb: &Solid) -> f64 {
    let to_b = b.state.q.conjugate();
    let mut worst = 0.0f64;
    for &p in &a.clump.positions {
        let w = a.state.x + a.state.q * p;
        let pb = to_b * (w - b.state.x);
        if let Some(db) = sb.depth(pb) {
            worst = worst.max(db + sa.nearest(p).0);
        }
    }
    worst
}

/// No two bodies of the scene overlap by more than half a spacing ([`tolerance`]), the pairs
/// of two static bodies, of bodies a joint links, and of a body with `allow_overlap` left
/// out. Candidate pairs come from an R-tree of the bodies' bounding boxes.
pub fn check_pairs(
    loaded: &LoadedScene,
    bodies: &[RigidBody],
    liquid_spacing: Option<f64>,
) -> Result<()> {
    let specs = &loaded.scene.body;
    let index_of = |name: &str| specs.iter().position(|s| s.name == name);
    let linked: Vec<(usize, usize)> = loaded
        .scene
        .joint
        .iter()
        .filter_map(|j| {
            let [a, b] = [0, 1].map(|k| j.bodies.get(k).filter(|n| *n != WORLD));
            Some((index_of(a?)?, index_of(b?)?))
        })
        .collect();
    let boxes: Vec<GeomWithData<Rectangle<[f64; 3]>, usize>> = bodies
        .iter()
        .enumerate()
        .filter(|(i, _)| !specs.get(*i).is_some_and(|s| s.allow_overlap))
        .map(|(i, b)| {
            let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
            for &v in &b.surface.vertices {
                let w = b.state.x + b.state.q * v;
                lo = lo.min(w);
                hi = hi.max(w);
            }
            let pad = DVec3::splat(b.clump.spacing);
            let rect = Rectangle::from_corners((lo - pad).to_array(), (hi + pad).to_array());
            GeomWithData::new(rect, i)
        })
        .collect();
    let tree = RTree::bulk_load(boxes.clone());
    let mut solids: Vec<Option<Solid>> = (0..bodies.len()).map(|_| None).collect();
    for g in &boxes {
        let i = g.data;
        let env = AABB::from_corners(g.geom().lower(), g.geom().upper());
        let mut near: Vec<usize> = tree
            .locate_in_envelope_intersecting(env)
            .map(|o| o.data)
            .filter(|&j| j > i)
            .collect();
        near.sort_unstable();
        for j in near {
            let (a, b) = (&bodies[i], &bodies[j]);
            if (!a.dynamic && !b.dynamic) || linked.contains(&(i, j)) || linked.contains(&(j, i)) {
                continue;
            }
            for k in [i, j] {
                if solids[k].is_none() {
                    solids[k] = Some(Solid::of(&bodies[k]));
                }
            }
            let (si, sj) = (solids[i].as_ref().unwrap(), solids[j].as_ref().unwrap());
            let overlap = overlap_into(a, si, b, sj).max(overlap_into(b, sj, a, si));
            let tol = tolerance(liquid_spacing, a.clump.spacing.min(b.clump.spacing));
            if overlap > tol {
                return Err(refuse(
                    loaded,
                    j,
                    format!(
                        "body[{j}] '{}' overlaps body[{i}] '{}' by about {overlap:.4} m, more than half a spacing ({tol:.4} m)",
                        b.name, a.name
                    ),
                    format!(
                        "move them apart, by at least that much (position, orientation), or set allow_overlap = true on body[{j}] or body[{i}] if this is intended"
                    ),
                ));
            }
        }
    }
    Ok(())
}
