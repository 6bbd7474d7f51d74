//! [`reconstruct`]: one frame's particles to a closed surface mesh with splashsurf (SPH density
//! field and marching cubes, multi-threaded on rayon's global pool), drawn onto the container's
//! walls, moved out of the bodies, with per-vertex outward normals and interpolated velocities.
use super::bodies::{BodySolid, push_out};
use super::container::{clamp_into, mirror_ghosts};
use super::interpolate::{PointFields, interpolate};
use super::mesh::SurfaceMesh;
use super::obstacles::Obstacles;
use super::params::SurfaceParams;
use crate::{Error, Result};
use splashsurf_lib::Parameters;
use splashsurf_lib::mesh::{Mesh3d, TriMesh3d};
use splashsurf_lib::nalgebra::Vector3;

/// Most marching cubes cells accepted over the particles' bounding box.
pub const MAX_CELLS: f64 = 2e9;
/// Particles within this many spacings of a wall are mirrored across it: those touching it
/// (resting liquid keeps its centres half a spacing off). Liquid farther off, though within the
/// kernel's reach, is not: its mirror image would be a blob of its own beyond the wall, which
/// clamping folds flat onto the wall as faces winding into the liquid (renderers draw them
/// black); mirroring within 2 spacings put 0.035 m^2 of such faces into a dam-break frame
/// against 0.0002 m^2 now.
pub const GHOST_REACH: f64 = 0.75;
/// Rest density handed to splashsurf, kg/m^3 (the shape does not depend on it).
const REST_DENSITY: f32 = 1000.0;
/// Weight of the neighbours' mean in one Laplacian smoothing iteration.
const SMOOTHING_BETA: f32 = 0.5;

/// Reconstruct the liquid's surface from particle positions `pos` (m) and velocities `vel`
/// (m/s) with `params`, meeting the container's walls and staying out of the bodies in
/// `obstacles`. No particles give an empty mesh.
pub fn reconstruct(
    pos: &[[f32; 3]],
    vel: &[[f32; 3]],
    params: &SurfaceParams,
    obstacles: &Obstacles,
) -> Result<SurfaceMesh> {
    params.validate().map_err(Error::input)?;
    check_input(pos, vel, obstacles)?;
    if pos.is_empty() {
        return Ok(SurfaceMesh::default());
    }
    let support = params.compact_support_radius();
    let (ghosts, ghost_source) = match obstacles.container {
        Some((lo, hi)) => mirror_ghosts(pos, lo, hi, GHOST_REACH * 2.0 * params.particle_radius),
        None => (Vec::new(), Vec::new()),
    };
    let particles: Vec<Vector3<f32>> = pos.iter().chain(&ghosts).map(|&p| p.into()).collect();
    check_cells(&particles, params)?;

    let mut sp = Parameters::<f32>::new(
        params.particle_radius as f32,
        support as f32,
        params.cube_length() as f32,
    );
    sp.rest_density = REST_DENSITY;
    sp.iso_surface_threshold = params.threshold as f32;
    // splashsurf's defaults otherwise: multi-threaded, SIMD, subdomains of 64^3 cubes. Its
    // AVX2 density loop runs only for i64 grid indices and f32 positions (half the frame).
    let rec = splashsurf_lib::reconstruct_surface::<i64, f32>(&particles, &sp)
        .map_err(|e| Error::Run(format!("surface reconstruction failed: {}", chain(&e))))?;
    let densities = rec
        .particle_densities
        .ok_or_else(|| Error::Run("surface reconstruction returned no densities".into()))?;
    let mut mesh: TriMesh3d<f32> = rec.mesh;
    if params.smooth_iterations > 0 {
        let connectivity = mesh.vertex_vertex_connectivity();
        let weights = vec![1.0f32; mesh.vertices.len()];
        splashsurf_lib::postprocessing::par_laplacian_smoothing_inplace(
            &mut mesh,
            &connectivity,
            params.smooth_iterations as usize,
            SMOOTHING_BETA,
            &weights,
        );
    }

    let mut vertices: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| [v.x, v.y, v.z]).collect();
    let before = vertices.clone();
    if let Some((lo, hi)) = obstacles.container {
        clamp_into(&mut vertices, lo, hi);
    }
    if !obstacles.bodies.is_empty() {
        let solids: Vec<BodySolid> = obstacles.bodies.iter().map(BodySolid::new).collect();
        push_out(&mut vertices, &solids);
        if let Some((lo, hi)) = obstacles.container {
            clamp_into(&mut vertices, lo, hi);
        }
    }
    if vertices.len() > u32::MAX as usize {
        return Err(Error::input(format!(
            "the surface has {} vertices, more than 2^32; use a larger surface.cube_size",
            vertices.len()
        )));
    }
    let triangles = mesh
        .triangles
        .iter()
        .map(|t| t.map(|i| i as u32))
        .collect::<Vec<_>>();

    // Normals and velocities from the SPH field of all particles, ghosts included (a ghost
    // carries the velocity of the particle it mirrors).
    let mass = REST_DENSITY * (2.0 * params.particle_radius as f32).powi(3);
    let volumes: Vec<f32> = densities.iter().map(|&rho| mass / rho).collect();
    let particle_vel: Vec<[f32; 3]> = vel
        .iter()
        .chain(ghost_source.iter().map(|&i| &vel[i as usize]))
        .copied()
        .collect();
    let fields = interpolate(
        bytemuck::cast_slice::<Vector3<f32>, [f32; 3]>(&particles),
        &volumes,
        &particle_vel,
        &vertices,
        support as f32,
    );
    let velocities = fill_velocities(&fields, &vertices, pos, vel);
    let face_normals = area_normals(&vertices, &triangles);
    let normals = (0..vertices.len())
        .map(|i| {
            let moved = vertices[i] != before[i];
            let sph = Vector3::from(fields[i].outward);
            let displacement = Vector3::from(before[i]) - Vector3::from(vertices[i]);
            choose_normal(face_normals[i], sph, displacement, moved)
        })
        .collect();
    Ok(SurfaceMesh {
        vertices,
        normals,
        velocities,
        triangles,
    })
}

/// Refuse inputs that cannot describe a liquid.
fn check_input(pos: &[[f32; 3]], vel: &[[f32; 3]], obstacles: &Obstacles) -> Result<()> {
    if pos.len() != vel.len() {
        return Err(Error::input(format!(
            "surface reconstruction: {} positions but {} velocities; give one velocity per particle",
            pos.len(),
            vel.len()
        )));
    }
    if let Some(i) = pos.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(Error::input(format!(
            "surface reconstruction: particle {i} has a non-finite position {:?}; the frame is corrupt",
            pos[i]
        )));
    }
    if let Some(i) = vel.iter().position(|v| !v.iter().all(|x| x.is_finite())) {
        return Err(Error::input(format!(
            "surface reconstruction: particle {i} has a non-finite velocity {:?}; the frame is corrupt",
            vel[i]
        )));
    }
    if let Some((lo, hi)) = obstacles.container
        && !(0..3).all(|a| lo[a].is_finite() && hi[a].is_finite() && lo[a] < hi[a])
    {
        return Err(Error::input(format!(
            "surface reconstruction: container min {lo:?} / max {hi:?} is not a box; give finite corners with min < max"
        )));
    }
    Ok(())
}

/// Refuse a grid of more than [`MAX_CELLS`] cubes over the particles' bounding box.
fn check_cells(particles: &[Vector3<f32>], params: &SurfaceParams) -> Result<()> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in particles {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a] as f64);
            hi[a] = hi[a].max(p[a] as f64);
        }
    }
    let margin = 2.0 * params.compact_support_radius();
    let cube = params.cube_length();
    let cells: f64 = (0..3)
        .map(|a| ((hi[a] - lo[a] + margin) / cube).ceil())
        .product();
    if cells > MAX_CELLS {
        return Err(Error::input(format!(
            "surface.cube_size = {} particle radii makes {cells:.3e} marching cubes cells over the liquid's \
             bounding box, more than {MAX_CELLS:e}; use a larger surface.cube_size (at least {:.2})",
            params.cube_size,
            params.cube_size * (cells / MAX_CELLS).cbrt()
        )));
    }
    Ok(())
}

/// An error and its sources, joined.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(c) = source {
        s.push_str(": ");
        s.push_str(&c.to_string());
        source = c.source();
    }
    s
}

/// The interpolated velocities, with the nearest particle's velocity at a vertex that no
/// particle reaches.
fn fill_velocities(
    fields: &[PointFields],
    points: &[[f32; 3]],
    pos: &[[f32; 3]],
    vel: &[[f32; 3]],
) -> Vec<[f32; 3]> {
    let lonely: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i].velocity.is_none())
        .collect();
    let mut out: Vec<[f32; 3]> = fields
        .iter()
        .map(|f| f.velocity.unwrap_or_default())
        .collect();
    if lonely.is_empty() {
        return out;
    }
    let tree = rstar::RTree::bulk_load(
        pos.iter()
            .enumerate()
            .map(|(i, p)| rstar::primitives::GeomWithData::new(*p, i))
            .collect(),
    );
    for i in lonely {
        let nearest = tree.nearest_neighbor(points[i]).map_or(0, |n| n.data);
        out[i] = vel[nearest];
    }
    out
}

/// Per-vertex sums of the incident triangles' area vectors (area-weighted normal directions).
fn area_normals(vertices: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<Vector3<f64>> {
    let mut n = vec![Vector3::<f64>::zeros(); vertices.len()];
    let p = |i: u32| Vector3::from(vertices[i as usize]).cast::<f64>();
    for t in triangles {
        let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
        let area = (b - a).cross(&(c - a));
        for &i in t {
            n[i as usize] += area;
        }
    }
    n
}

/// A vertex's unit outward normal. A vertex moved onto a wall or out of a body faces the
/// direction it was moved from (the wall's or the body's normal into the obstacle: the mesh
/// folds there, so its own normals are no guide). Any other vertex takes the SPH gradient's
/// direction where it agrees with the mesh (smoother), else the mesh's area-weighted normal.
fn choose_normal(
    mesh: Vector3<f64>,
    sph: Vector3<f32>,
    displacement: Vector3<f32>,
    moved: bool,
) -> [f32; 3] {
    let unit = |v: Vector3<f64>| {
        let l = v.norm();
        (l > 0.0 && l.is_finite()).then(|| (v / l).cast::<f32>())
    };
    let mesh = unit(mesh);
    let sph = unit(sph.cast::<f64>());
    let moved = unit(displacement.cast::<f64>()).filter(|_| moved);
    let n = match (moved, mesh, sph) {
        (Some(d), _, _) => d,
        (None, Some(m), Some(s)) if m.dot(&s) > 0.0 => s,
        (None, Some(m), _) => m,
        (None, None, s) => s.unwrap_or(Vector3::y()),
    };
    [n.x, n.y, n.z]
}
