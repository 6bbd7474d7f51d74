//! A small binary little-endian PLY writer for points with scalar properties and for triangle
//! meshes, using the plain type names (`float`, `int`, `uchar`) that Houdini and Blender read.
use bytemuck::Pod;

/// A scalar property type of PLY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// 32-bit float.
    Float,
    /// 32-bit signed integer.
    Int,
}

impl Scalar {
    fn name(self) -> &'static str {
        match self {
            Scalar::Float => "float",
            Scalar::Int => "int",
        }
    }
}

/// A PLY file being assembled in memory: header first, then binary records.
#[derive(Debug, Default)]
pub struct PlyBuilder {
    header: String,
    body: Vec<u8>,
}

impl PlyBuilder {
    /// Start a file with the given comment lines.
    pub fn new(comments: &[String]) -> PlyBuilder {
        let mut header = String::from("ply\nformat binary_little_endian 1.0\n");
        for c in comments {
            header.push_str("comment ");
            header.push_str(&c.replace('\n', " "));
            header.push('\n');
        }
        PlyBuilder {
            header,
            body: Vec::new(),
        }
    }

    /// Declare the vertex element with its scalar properties.
    pub fn vertex_element(&mut self, count: usize, props: &[(&str, Scalar)]) -> &mut Self {
        self.header.push_str(&format!("element vertex {count}\n"));
        for (name, ty) in props {
            self.header
                .push_str(&format!("property {} {name}\n", ty.name()));
        }
        self
    }

    /// Declare a face element of triangles (`property list uchar int vertex_indices`).
    pub fn face_element(&mut self, count: usize) -> &mut Self {
        self.header.push_str(&format!(
            "element face {count}\nproperty list uchar int vertex_indices\n"
        ));
        self
    }

    /// Append raw little-endian record bytes (already laid out as declared).
    pub fn push<T: Pod>(&mut self, values: &[T]) -> &mut Self {
        self.body.extend_from_slice(bytemuck::cast_slice(values));
        self
    }

    /// Append triangles as `uchar 3, int a, int b, int c` records.
    pub fn push_triangles(&mut self, tris: &[[u32; 3]]) -> &mut Self {
        self.body.reserve(tris.len() * 13);
        for t in tris {
            self.body.push(3);
            for &v in t {
                self.body.extend_from_slice(&(v as i32).to_le_bytes());
            }
        }
        self
    }

    /// Reserve room for `bytes` more body bytes.
    pub fn reserve(&mut self, bytes: usize) {
        self.body.reserve(bytes);
    }

    /// The whole file.
    pub fn finish(self) -> Vec<u8> {
        let mut out = self.header.into_bytes();
        out.extend_from_slice(b"end_header\n");
        out.extend_from_slice(&self.body);
        out
    }
}

/// One fluid vertex record: `x y z vx vy vz density` as float and `id` as int.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, bytemuck::Zeroable)]
pub struct FluidVertex {
    /// Position and velocity.
    pub xyz_v: [f32; 6],
    /// Density, kg/m^3.
    pub density: f32,
    /// Particle id.
    pub id: i32,
}

/// The vertex properties of a fluid frame, in file order.
pub const FLUID_PROPERTIES: [(&str, Scalar); 8] = [
    ("x", Scalar::Float),
    ("y", Scalar::Float),
    ("z", Scalar::Float),
    ("vx", Scalar::Float),
    ("vy", Scalar::Float),
    ("vz", Scalar::Float),
    ("density", Scalar::Float),
    ("id", Scalar::Int),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_plain_types_and_body_follows() {
        let mut b = PlyBuilder::new(&["frame 3".into()]);
        b.vertex_element(1, &FLUID_PROPERTIES);
        b.push(&[FluidVertex {
            xyz_v: [1.0, 2.0, 3.0, 0.0, 0.0, 0.0],
            density: 1000.0,
            id: 7,
        }]);
        let bytes = b.finish();
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.starts_with("ply\nformat binary_little_endian 1.0\ncomment frame 3\nelement vertex 1\nproperty float x\n"));
        let end = text.find("end_header\n").unwrap() + "end_header\n".len();
        assert_eq!(bytes.len() - end, 32);
        assert_eq!(&bytes[bytes.len() - 4..], &7i32.to_le_bytes());
    }
}
