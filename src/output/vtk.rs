//! The VTK export of a run (`sphrigid export RUN_DIR --to vtk`), for ParaView and splashsurf:
//! `fluid.pvd` (a time series) over `fluid/fluid_NNNNN.vtu`, VTK XML unstructured grids of
//! vertex cells with the point arrays `velocity` (3 components), `density` and `id`, and per
//! body `<body>.pvd` over `rigid/<body>_NNNNN.vtu` of triangles. When frames have a liquid
//! surface, `surface.pvd` over `surface/surface_NNNNN.vtu`: its triangles with the point arrays
//! `Normals` and `Velocity` (3 components each). Binary data is appended raw, little-endian,
//! with 64-bit block headers. Written by [`export`], read back by [`read_vtu`].
use super::export::{ExportReport, body_names};
use super::fluid_frames::{FluidPoints, read_fluid_points};
use super::manifest;
use super::rigid_frames::{BodyMesh, read_body};
use super::run_dir::{RunDir, SURFACE_DIR, VTK_FLUID_SERIES, VTK_SURFACE_SERIES};
use super::surface_frames::read_surface;
use super::{create_dir, write_atomic};
use crate::surface::mesh::SurfaceMesh;
use crate::{Error, Result};
use bytemuck::Pod;
use std::path::Path;

/// VTK's cell type of a single point.
const VTK_VERTEX: u8 = 1;
/// VTK's cell type of a triangle.
const VTK_TRIANGLE: u8 = 5;

/// An unstructured grid being assembled: the XML of its arrays and their appended bytes.
struct Grid {
    /// Attributes of the `PointData` element naming its active arrays (e.g. ` Normals="N"`).
    point_attributes: String,
    point_data: String,
    points: String,
    cells: String,
    appended: Vec<u8>,
}

impl Grid {
    fn new() -> Grid {
        Grid {
            point_attributes: String::new(),
            point_data: String::new(),
            points: String::new(),
            cells: String::new(),
            appended: Vec::new(),
        }
    }

    /// One `DataArray` element whose values go to the appended block (8-byte length first).
    fn array<T: Pod>(&mut self, ty: &str, name: &str, components: usize, values: &[T]) -> String {
        let bytes: &[u8] = bytemuck::cast_slice(values);
        let offset = self.appended.len();
        self.appended
            .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.appended.extend_from_slice(bytes);
        format!(
            "        <DataArray type=\"{ty}\" Name=\"{name}\" NumberOfComponents=\"{components}\" format=\"appended\" offset=\"{offset}\"/>\n"
        )
    }

    fn finish(self, points: usize, cells: usize) -> Vec<u8> {
        let mut out = format!(
            "<?xml version=\"1.0\"?>\n\
             <VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n\
             \x20 <UnstructuredGrid>\n\
             \x20   <Piece NumberOfPoints=\"{points}\" NumberOfCells=\"{cells}\">\n\
             \x20     <PointData{}>\n{}      </PointData>\n\
             \x20     <Points>\n{}      </Points>\n\
             \x20     <Cells>\n{}      </Cells>\n\
             \x20   </Piece>\n\
             \x20 </UnstructuredGrid>\n\
             \x20 <AppendedData encoding=\"raw\">\n_",
            self.point_attributes, self.point_data, self.points, self.cells
        )
        .into_bytes();
        out.extend_from_slice(&self.appended);
        out.extend_from_slice(b"\n  </AppendedData>\n</VTKFile>\n");
        out
    }

    fn cells(&mut self, connectivity: &[i64], offsets: &[i64], types: &[u8]) {
        let c = self.array("Int64", "connectivity", 1, connectivity);
        let o = self.array("Int64", "offsets", 1, offsets);
        let t = self.array("UInt8", "types", 1, types);
        self.cells = c + &o + &t;
    }
}

/// The `.vtu` bytes of one fluid frame: a vertex cell per particle and the point arrays
/// `velocity`, `density` and `id`.
pub fn encode_fluid_vtu(p: &FluidPoints) -> Vec<u8> {
    let n = p.pos.len();
    let mut g = Grid::new();
    let v = g.array("Float32", "velocity", 3, &p.vel);
    let d = g.array("Float32", "density", 1, &p.density);
    let i = g.array("Int32", "id", 1, &p.id);
    g.point_data = v + &d + &i;
    g.points = g.array("Float32", "Points", 3, &p.pos);
    let conn: Vec<i64> = (0..n as i64).collect();
    let offsets: Vec<i64> = (1..=n as i64).collect();
    g.cells(&conn, &offsets, &vec![VTK_VERTEX; n]);
    g.finish(n, n)
}

/// The `.vtu` bytes of a body's triangle mesh.
pub fn encode_mesh_vtu(mesh: &BodyMesh) -> Vec<u8> {
    let mut g = Grid::new();
    let xyz: Vec<f64> = mesh.vertices.iter().flatten().copied().collect();
    g.points = g.array("Float64", "Points", 3, &xyz);
    let conn: Vec<i64> = mesh.triangles.iter().flatten().map(|&v| v as i64).collect();
    let t = mesh.triangles.len();
    let offsets: Vec<i64> = (1..=t as i64).map(|k| 3 * k).collect();
    g.cells(&conn, &offsets, &vec![VTK_TRIANGLE; t]);
    g.finish(mesh.vertices.len(), t)
}

/// The `.vtu` bytes of a liquid surface: its triangles, with the point arrays `Normals` (the
/// grid's active normals) and `Velocity`.
pub fn encode_surface_vtu(mesh: &SurfaceMesh) -> Vec<u8> {
    let mut g = Grid::new();
    let n = g.array("Float32", "Normals", 3, &mesh.normals);
    let v = g.array("Float32", "Velocity", 3, &mesh.velocities);
    g.point_attributes = " Normals=\"Normals\" Vectors=\"Velocity\"".into();
    g.point_data = n + &v;
    g.points = g.array("Float32", "Points", 3, &mesh.vertices);
    let conn: Vec<i64> = mesh.triangles.iter().flatten().map(|&v| v as i64).collect();
    let t = mesh.triangles.len();
    let offsets: Vec<i64> = (1..=t as i64).map(|k| 3 * k).collect();
    g.cells(&conn, &offsets, &vec![VTK_TRIANGLE; t]);
    g.finish(mesh.vertices.len(), t)
}

/// A `.pvd` collection: one `DataSet` per `(time, file)`.
pub fn encode_pvd(series: &[(f64, String)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (time, file) in series {
        s.push_str(&format!(
            "    <DataSet timestep=\"{time}\" group=\"\" part=\"0\" file=\"{file}\"/>\n"
        ));
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    s
}

/// Export the run in `run` to the folder `out`: every complete frame is written; each file
/// that is missing or unreadable (and an unfinished run) is noted in the report.
///
/// ```no_run
/// use sphrigid::output::{RunDir, vtk};
/// use std::path::Path;
///
/// let run = RunDir::open(Path::new("out/dam_break"))?;
/// let report = vtk::export(&run, Path::new("out/dam_break/vtk"))?;
/// println!("{} frames into {:?}", report.frames, report.files);
/// # Ok::<(), sphrigid::Error>(())
/// ```
pub fn export(run: &RunDir, out: &Path) -> Result<ExportReport> {
    let m = manifest::read(run)?;
    let mut report = ExportReport::for_run(&m);
    create_dir(&out.join(super::run_dir::FLUID_DIR))?;
    let mut series = Vec::new();
    for f in &m.frames {
        match read_fluid_points(&f.fluid) {
            Ok(points) => {
                let name = RunDir::vtk_fluid_name(f.index);
                write_atomic(&out.join(&name), &encode_fluid_vtu(&points))?;
                series.push((f.time, name));
                report.frames += 1;
            }
            Err(e) => report.missing(&e),
        }
    }
    let pvd = out.join(VTK_FLUID_SERIES);
    write_atomic(&pvd, encode_pvd(&series).as_bytes())?;
    report.files.push(pvd);
    let bodies = body_names(&m.frames);
    if !bodies.is_empty() {
        create_dir(&out.join(super::run_dir::RIGID_DIR))?;
    }
    for body in bodies {
        let mut series = Vec::new();
        for f in &m.frames {
            let Some(path) = f.rigid.get(&body) else {
                continue;
            };
            match read_body(path) {
                Ok(mesh) => {
                    let name = RunDir::vtk_body_name(&body, f.index);
                    write_atomic(&out.join(&name), &encode_mesh_vtu(&mesh))?;
                    series.push((f.time, name));
                }
                Err(e) => report.missing(&e),
            }
        }
        let pvd = out.join(RunDir::vtk_body_series(&body));
        write_atomic(&pvd, encode_pvd(&series).as_bytes())?;
        report.files.push(pvd);
    }
    export_surface(&m.frames, out, &mut report)?;
    Ok(report)
}

/// `surface.pvd` over `surface/surface_NNNNN.vtu` in `out` for the frames that have a liquid
/// surface (nothing when none has); a listed surface that is missing or unreadable goes to
/// `report`.
fn export_surface(
    frames: &[manifest::FrameRef],
    out: &Path,
    report: &mut ExportReport,
) -> Result<()> {
    if frames.iter().all(|f| f.surface.is_none()) {
        return Ok(());
    }
    create_dir(&out.join(SURFACE_DIR))?;
    let mut series = Vec::new();
    for f in frames {
        let Some(path) = &f.surface else {
            continue;
        };
        match read_surface(path) {
            Ok(mesh) => {
                let name = RunDir::vtk_surface_name(f.index);
                write_atomic(&out.join(&name), &encode_surface_vtu(&mesh))?;
                series.push((f.time, name));
            }
            Err(e) => report.missing(&e),
        }
    }
    let pvd = out.join(VTK_SURFACE_SERIES);
    write_atomic(&pvd, encode_pvd(&series).as_bytes())?;
    report.files.push(pvd);
    Ok(())
}

/// A `.vtu` file as read back by [`read_vtu`]: its point coordinates and named point arrays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VtuRead {
    /// Points, as stored (Float32 or Float64), widened to f64.
    pub points: Vec<[f64; 3]>,
    /// Cell types, one per cell.
    pub cell_types: Vec<u8>,
    /// The cells' point indices, one cell after another.
    pub connectivity: Vec<u32>,
    /// Point arrays by name, widened to f64, components interleaved.
    pub point_data: Vec<(String, Vec<f64>)>,
}

/// Read a `.vtu` written by [`encode_fluid_vtu`], [`encode_mesh_vtu`] or
/// [`encode_surface_vtu`] (raw appended data, 64-bit headers).
pub fn read_vtu(path: &Path) -> Result<VtuRead> {
    let bad = |what: &str| {
        Error::input(format!(
            "{}: {what}; fix: export the run again with `sphrigid export RUN_DIR --to vtk`",
            path.display()
        ))
    };
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let marker = b"<AppendedData encoding=\"raw\">\n_";
    let start = bytes
        .windows(marker.len())
        .position(|w| w == marker)
        .ok_or_else(|| bad("no raw appended data"))?;
    let xml = std::str::from_utf8(&bytes[..start]).map_err(|_| bad("the XML is not UTF-8"))?;
    let data = &bytes[start + marker.len()..];
    let mut out = VtuRead::default();
    let mut in_point_data = false;
    for line in xml.lines() {
        let line = line.trim();
        if line.starts_with("<PointData") {
            in_point_data = true;
        } else if line.starts_with("</PointData") {
            in_point_data = false;
        }
        if !line.starts_with("<DataArray") {
            continue;
        }
        let attr = |key: &str| -> Option<&str> {
            let at = line.find(&format!(" {key}=\""))? + key.len() + 3;
            Some(&line[at..at + line[at..].find('"')?])
        };
        let (Some(ty), Some(name), Some(offset)) = (attr("type"), attr("Name"), attr("offset"))
        else {
            return Err(bad("a DataArray lacks type, Name or offset"));
        };
        let offset: usize = offset.parse().map_err(|_| bad("a bad offset"))?;
        let block = data
            .get(offset..offset + 8)
            .ok_or_else(|| bad("an offset past the data"))?;
        let len = u64::from_le_bytes(block.try_into().expect("8 bytes")) as usize;
        let raw = data
            .get(offset + 8..offset + 8 + len)
            .ok_or_else(|| bad("an array past the data"))?;
        let values: Vec<f64> = match ty {
            "Float32" => raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4")) as f64)
                .collect(),
            "Float64" => raw
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
                .collect(),
            "Int32" => raw
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().expect("4")) as f64)
                .collect(),
            "Int64" => raw
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().expect("8")) as f64)
                .collect(),
            "UInt8" => raw.iter().map(|&b| b as f64).collect(),
            _ => return Err(bad("an unknown array type")),
        };
        if name == "Points" {
            out.points = values.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        } else if name == "types" {
            out.cell_types = values.iter().map(|&t| t as u8).collect();
        } else if name == "connectivity" {
            out.connectivity = values.iter().map(|&i| i as u32).collect();
        } else if in_point_data {
            out.point_data.push((name.to_string(), values));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fluid_grid_reads_back_with_its_arrays() {
        let p = FluidPoints {
            pos: vec![[0.1, 0.2, 0.3], [1.0, -2.0, 3.5]],
            vel: vec![[0.5, 0.0, -1.0], [2.0, 3.0, 4.0]],
            density: vec![998.0, 1001.5],
            id: vec![0, 7],
        };
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f.vtu");
        std::fs::write(&path, encode_fluid_vtu(&p)).unwrap();
        let r = read_vtu(&path).unwrap();
        assert_eq!(r.points[1], [1.0, -2.0, 3.5]);
        assert_eq!(r.points[0][0], 0.1f32 as f64);
        assert_eq!(r.cell_types, [VTK_VERTEX, VTK_VERTEX]);
        let names: Vec<&str> = r.point_data.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["velocity", "density", "id"]);
        assert_eq!(r.point_data[0].1, [0.5, 0.0, -1.0, 2.0, 3.0, 4.0]);
        assert_eq!(r.point_data[1].1, [998.0, 1001.5]);
        assert_eq!(r.point_data[2].1, [0.0, 7.0]);
    }

    #[test]
    fn a_surface_grid_reads_back_as_triangles_with_normals_and_velocity() {
        let mesh = SurfaceMesh {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
            ],
            normals: vec![
                [-0.5, -0.5, -0.5],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
            ],
            velocities: vec![
                [0.25, -1.0, 0.0],
                [0.0, 0.0, 0.0],
                [1.0, 2.0, 3.0],
                [0.5, 0.0, 0.0],
            ],
            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        };
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.vtu");
        let bytes = encode_surface_vtu(&mesh);
        std::fs::write(&path, &bytes).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("<PointData Normals=\"Normals\" Vectors=\"Velocity\">"));
        let r = read_vtu(&path).unwrap();
        assert_eq!(r.points[3], [0.0, 0.0, 1.0]);
        assert_eq!(r.cell_types, [VTK_TRIANGLE; 4]);
        assert_eq!(r.connectivity, [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]);
        let names: Vec<&str> = r.point_data.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Normals", "Velocity"]);
        assert_eq!(r.point_data[0].1[..3], [-0.5, -0.5, -0.5]);
        assert_eq!(r.point_data[1].1[6..9], [1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_series_lists_every_time() {
        let s = encode_pvd(&[(0.0, "a.vtu".into()), (0.5, "b.vtu".into())]);
        assert!(s.contains("<DataSet timestep=\"0.5\" group=\"\" part=\"0\" file=\"b.vtu\"/>"));
        assert_eq!(s.matches("<DataSet").count(), 2);
    }
}
