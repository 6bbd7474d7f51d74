//! The USD export of a run (`sphrigid export RUN_DIR --to usd`): one text stage (`.usda`) for
//! Blender, Houdini's Solaris and usdview. The fluid is a `Points` prim whose `points`,
//! `velocities`, `widths` (2 x particle radius) and `primvars:id` (int) are sampled at every
//! frame; each body is a `Mesh` in its own frame with a time-sampled `xformOp:translate` and
//! `xformOp:orient` from `rigid_states.csv` (or, for a body without states, time-sampled
//! points). When frames have a liquid surface (`surface/surface_NNNNN.ply`), it is the `Mesh`
//! prim `/run/fluid_surface` whose `points`, `faceVertexCounts`, `faceVertexIndices` (its
//! topology changes from frame to frame), `normals` (per vertex), `velocities` and `extent`
//! are sampled at each frame that has one. The stage is y-up, in metres, with one time code
//! per frame at the run's fps.
use super::export::{ExportReport, body_names};
use super::fluid_frames::read_fluid_points;
use super::manifest;
use super::rigid_frames::{BodyMesh, read_body};
use super::rigid_states::{self, StateRow};
use super::run_dir::RunDir;
use super::surface_frames::read_surface;
use super::write_atomic;
use crate::Result;
use crate::surface::mesh::SurfaceMesh;
use glam::{DQuat, DVec3};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// A USD prim name for `name`: letters, digits and `_`, not starting with a digit.
pub fn prim_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// `[(x, y, z), ...]` with each number in its shortest exact form.
fn vec3s<T: std::fmt::Display>(s: &mut String, values: &[[T; 3]]) {
    s.push('[');
    for (k, [x, y, z]) in values.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "({x}, {y}, {z})");
    }
    s.push(']');
}

/// `[a, b, ...]`.
fn list<T: std::fmt::Display>(s: &mut String, values: impl IntoIterator<Item = T>) {
    s.push('[');
    for (k, v) in values.into_iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{v}");
    }
    s.push(']');
}

/// A time-sampled attribute: `TYPE NAME.timeSamples = { t: value, ... }`, each value written
/// by `value`.
fn samples<T>(
    s: &mut String,
    decl: &str,
    items: &[(u32, T)],
    mut value: impl FnMut(&mut String, &T),
) {
    let _ = writeln!(s, "        {decl}.timeSamples = {{");
    for (t, item) in items {
        let _ = write!(s, "            {t}: ");
        value(s, item);
        s.push_str(",\n");
    }
    s.push_str("        }\n");
}

/// The faces of a mesh prim.
fn faces(s: &mut String, mesh: &BodyMesh) {
    s.push_str("        int[] faceVertexCounts = ");
    list(s, mesh.triangles.iter().map(|_| 3));
    s.push_str("\n        int[] faceVertexIndices = ");
    list(s, mesh.triangles.iter().flatten());
    s.push_str("\n        uniform token subdivisionScheme = \"none\"\n");
}

/// A body's prim: its first mesh brought into the body frame and its pose per frame from
/// `states`, or its posed meshes as time-sampled points when it has no states.
fn body_prim(s: &mut String, name: &str, meshes: &[(u32, BodyMesh)], states: &[&StateRow]) {
    let Some((first_index, first)) = meshes.first() else {
        return;
    };
    let _ = writeln!(s, "\n    def Mesh \"{}\"\n    {{", prim_name(name));
    faces(s, first);
    let pose = |r: &StateRow| {
        let v = &r.values;
        (
            DVec3::new(v[0], v[1], v[2]),
            DQuat::from_xyzw(v[4], v[5], v[6], v[3]).normalize(),
        )
    };
    match states.iter().find(|r| r.frame == *first_index) {
        Some(r0) => {
            let (x0, q0) = pose(r0);
            let local: Vec<[f32; 3]> = first
                .vertices
                .iter()
                .map(|v| {
                    (q0.inverse() * (DVec3::from_array(*v) - x0))
                        .as_vec3()
                        .to_array()
                })
                .collect();
            s.push_str("        point3f[] points = ");
            vec3s(s, &local);
            s.push('\n');
            let poses: Vec<(u32, (DVec3, DQuat))> =
                states.iter().map(|r| (r.frame, pose(r))).collect();
            samples(s, "double3 xformOp:translate", &poses, |s, (x, _)| {
                let _ = write!(s, "({}, {}, {})", x.x, x.y, x.z);
            });
            samples(s, "quatd xformOp:orient", &poses, |s, (_, q)| {
                let _ = write!(s, "({}, {}, {}, {})", q.w, q.x, q.y, q.z);
            });
            s.push_str(
                "        uniform token[] xformOpOrder = [\"xformOp:translate\", \"xformOp:orient\"]\n",
            );
        }
        None => samples(s, "point3f[] points", meshes, |s, m| vec3s(s, &m.vertices)),
    }
    s.push_str("    }\n");
}

/// `/run/fluid_surface`: the liquid's surface meshes `surfaces` (frame, mesh), every
/// attribute time-sampled since the topology changes from frame to frame; nothing when there
/// are none.
fn surface_prim(s: &mut String, surfaces: &[(u32, SurfaceMesh)]) {
    if surfaces.is_empty() {
        return;
    }
    s.push_str("\n    def Mesh \"fluid_surface\"\n    {\n");
    samples(s, "int[] faceVertexCounts", surfaces, |s, m| {
        list(s, m.triangles.iter().map(|_| 3))
    });
    samples(s, "int[] faceVertexIndices", surfaces, |s, m| {
        list(s, m.triangles.iter().flatten())
    });
    samples(s, "point3f[] points", surfaces, |s, m| {
        vec3s(s, &m.vertices)
    });
    s.push_str("        normal3f[] normals (\n            interpolation = \"vertex\"\n        )\n");
    samples(s, "normal3f[] normals", surfaces, |s, m| {
        vec3s(s, &m.normals)
    });
    samples(s, "vector3f[] velocities", surfaces, |s, m| {
        vec3s(s, &m.velocities)
    });
    samples(s, "float3[] extent", surfaces, |s, m| {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for v in &m.vertices {
            for c in 0..3 {
                lo[c] = lo[c].min(v[c]);
                hi[c] = hi[c].max(v[c]);
            }
        }
        if m.vertices.is_empty() {
            (lo, hi) = ([0.0; 3], [0.0; 3]);
        }
        vec3s(s, &[lo, hi]);
    });
    s.push_str("        uniform token subdivisionScheme = \"none\"\n    }\n");
}

/// Export the run in `run` as one USD text stage at `out`: every complete frame is a time
/// sample; each file that is missing or unreadable (and an unfinished run) is noted in the
/// report.
pub fn export(run: &RunDir, out: &Path) -> Result<ExportReport> {
    let m = manifest::read(run)?;
    let mut report = ExportReport::for_run(&m);
    let mut fluid = Vec::new();
    for f in &m.frames {
        match read_fluid_points(&f.fluid) {
            Ok(p) => {
                fluid.push((f.index, p));
                report.frames += 1;
            }
            Err(e) => report.missing(&e),
        }
    }
    let end = m.frames.last().map_or(0, |f| f.index);
    let mut s = String::new();
    let _ = write!(
        s,
        "#usda 1.0\n(\n    defaultPrim = \"run\"\n    doc = \"sphrigid run {}\"\n    endTimeCode = {end}\n    framesPerSecond = {fps}\n    metersPerUnit = 1\n    startTimeCode = 0\n    timeCodesPerSecond = {fps}\n    upAxis = \"Y\"\n)\n\ndef Xform \"run\"\n{{\n    def Points \"fluid\"\n    {{\n",
        run.path().display().to_string().replace(['"', '\\'], "_"),
        fps = m.fps,
    );
    samples(&mut s, "point3f[] points", &fluid, |s, p| vec3s(s, &p.pos));
    samples(&mut s, "vector3f[] velocities", &fluid, |s, p| {
        vec3s(s, &p.vel)
    });
    let width = 2.0 * m.particle_radius as f32;
    s.push_str("        float[] widths (\n            interpolation = \"vertex\"\n        )\n");
    samples(&mut s, "float[] widths", &fluid, |s, p| {
        list(s, p.pos.iter().map(|_| width))
    });
    s.push_str("        int[] primvars:id (\n            interpolation = \"vertex\"\n        )\n");
    samples(&mut s, "int[] primvars:id", &fluid, |s, p| list(s, &p.id));
    s.push_str("    }\n");
    let mut surfaces = Vec::new();
    for f in &m.frames {
        if let Some(path) = &f.surface {
            match read_surface(path) {
                Ok(mesh) => surfaces.push((f.index, mesh)),
                Err(e) => report.missing(&e),
            }
        }
    }
    surface_prim(&mut s, &surfaces);
    let states = if m.frames.iter().any(|f| !f.rigid.is_empty()) {
        rigid_states::read(run).unwrap_or_else(|e| {
            report.missing(&e);
            Vec::new()
        })
    } else {
        Vec::new()
    };
    for body in body_names(&m.frames) {
        let mut meshes = Vec::new();
        for f in &m.frames {
            if let Some(path) = f.rigid.get(&body) {
                match read_body(path) {
                    Ok(mesh) => meshes.push((f.index, mesh)),
                    Err(e) => report.missing(&e),
                }
            }
        }
        let mut by_frame: BTreeMap<u32, &StateRow> = BTreeMap::new();
        for r in states.iter().filter(|r| r.body == body) {
            by_frame.insert(r.frame, r);
        }
        let rows: Vec<&StateRow> = by_frame.into_values().collect();
        body_prim(&mut s, &body, &meshes, &rows);
    }
    s.push_str("}\n");
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        super::create_dir(parent)?;
    }
    write_atomic(out, s.as_bytes())?;
    report.files.push(out.to_path_buf());
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surface_is_sampled_with_its_topology_at_each_frame() {
        let mut s = String::new();
        surface_prim(&mut s, &[]);
        assert!(s.is_empty(), "no surface, no prim");
        let tri = SurfaceMesh {
            vertices: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.5]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            velocities: vec![[0.5, 0.0, 0.0]; 3],
            triangles: vec![[0, 1, 2]],
        };
        let mut quad = tri.clone();
        quad.vertices.push([1.0, 2.0, 0.0]);
        quad.normals.push([0.0, 0.0, 1.0]);
        quad.velocities.push([0.0, 0.0, 0.0]);
        quad.triangles.push([1, 3, 2]);
        surface_prim(&mut s, &[(0, tri), (4, quad)]);
        for line in [
            "    def Mesh \"fluid_surface\"",
            "            0: [3],\n            4: [3, 3],",
            "            0: [0, 1, 2],\n            4: [0, 1, 2, 1, 3, 2],",
            "        normal3f[] normals (\n            interpolation = \"vertex\"\n        )",
            "            0: [(0, 0, 0), (1, 2, 0.5)],",
            "            4: [(0, 0, 0), (1, 2, 0.5)],",
        ] {
            assert!(s.contains(line), "{line:?} not in\n{s}");
        }
    }

    #[test]
    fn prim_names_are_identifiers() {
        assert_eq!(prim_name("block"), "block");
        assert_eq!(prim_name("lid-2"), "lid_2");
        assert_eq!(prim_name("2nd"), "_2nd");
    }
}
