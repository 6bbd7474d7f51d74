//! Sample structured problems, deterministic from a seed: liquid particles pressing on the
//! faces of rotated boxes, with optional body/body and body/wall contacts carrying friction.
//! Used by tests, benchmarks and `sphrigid lcp sample`.
use super::structured::{StructuredProblem, StructuredRow, body_inverse_mass};
use crate::rng::XorShift;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleSpec {
    /// Liquid contacts (one particle each, plus `shared_particles` second contacts).
    pub liquid_contacts: usize,
    /// Dynamic bodies (boxes), at least 1.
    pub bodies: usize,
    /// Rigid normal contacts: body a on body a - 1, body 0 on the ground.
    pub rigid_contacts: usize,
    /// Give each rigid contact two friction rows (mu = 0.5).
    pub friction: bool,
    /// Particles that also touch a second body (a 2x2 D block).
    pub shared_particles: usize,
    /// Random seed.
    pub seed: u64,
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn mat_vec(r: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2])
}

/// Jacobian row `s [n; r x n]`.
fn jac(n: [f64; 3], r: [f64; 3], s: f64) -> [f64; 6] {
    let t = cross(r, n);
    [n[0], n[1], n[2], t[0], t[1], t[2]].map(|x| s * x)
}

struct Box3 {
    half: [f64; 3],
    rot: [[f64; 3]; 3],
}

impl Box3 {
    /// A random point on a face (top face twice as likely) in world offsets from the centre,
    /// and the outward world normal.
    fn face_point(&self, rng: &mut XorShift) -> ([f64; 3], [f64; 3]) {
        let face = (rng.unit() * 8.0) as usize;
        let (axis, sign) = match face {
            0..=2 => (2, 1.0),
            3 => (0, 1.0),
            4 => (0, -1.0),
            5 => (1, 1.0),
            6 => (1, -1.0),
            _ => (2, -1.0),
        };
        let mut p = [0.0; 3];
        for (k, pk) in p.iter_mut().enumerate() {
            *pk = if k == axis {
                sign * self.half[k]
            } else {
                rng.range(-self.half[k], self.half[k])
            };
        }
        let mut n = [0.0; 3];
        n[axis] = sign;
        (mat_vec(&self.rot, p), mat_vec(&self.rot, n))
    }
}

/// A rotation from a random unit quaternion.
fn random_rotation(rng: &mut XorShift) -> [[f64; 3]; 3] {
    let mut q = [0.0; 4].map(|_: f64| rng.range(-1.0, 1.0));
    let len = q.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
    q.iter_mut().for_each(|x| *x /= len);
    let [w, x, y, z] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// Liquid particles (spacing 2 cm, water) pressing on the faces of boxes of about a metre,
/// incoming normal velocities mostly negative, plus rigid contacts as asked.
pub fn liquid_on_boxes(spec: &SampleSpec) -> StructuredProblem {
    let mut rng = XorShift::new(spec.seed);
    let nb = spec.bodies.max(1);
    let mut p = StructuredProblem::default();
    let mut boxes = Vec::new();
    for _ in 0..nb {
        let half = [
            rng.range(0.2, 0.6),
            rng.range(0.2, 0.6),
            rng.range(0.2, 0.6),
        ];
        let density = rng.range(300.0, 900.0);
        let mass = density * 8.0 * half[0] * half[1] * half[2];
        let ib = [
            mass / 3.0 * (half[1] * half[1] + half[2] * half[2]),
            mass / 3.0 * (half[0] * half[0] + half[2] * half[2]),
            mass / 3.0 * (half[0] * half[0] + half[1] * half[1]),
        ];
        let rot = random_rotation(&mut rng);
        // I_world^-1 = R diag(1/I) R^T.
        let mut inv = [0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                inv[i * 3 + j] = (0..3).map(|k| rot[i][k] * rot[j][k] / ib[k]).sum();
            }
        }
        p.body_inv_mass.push(body_inverse_mass(mass, inv));
        boxes.push(Box3 { half, rot });
    }
    let particle_mass = 1000.0 * 0.02f64.powi(3);
    for c in 0..spec.liquid_contacts {
        let b = c % nb;
        let (r, n) = boxes[b].face_point(&mut rng);
        let vn = if rng.unit() < 0.8 {
            -rng.range(0.05, 1.0)
        } else {
            rng.range(0.0, 0.3)
        };
        let k = p.particle_inv_mass.len();
        p.particle_inv_mass.push(1.0 / particle_mass);
        p.rows.push(
            StructuredRow::contact(vn)
                .with_particle(k, n)
                .with_body(b, jac(n, r, -1.0)),
        );
        if c < spec.shared_particles && nb > 1 {
            // The same particle also touches the next body, from roughly the other side.
            let b2 = (b + 1) % nb;
            let (r2, _) = boxes[b2].face_point(&mut rng);
            let n2 = [
                -n[0] + rng.range(-0.3, 0.3),
                -n[1],
                -n[2] + rng.range(-0.3, 0.3),
            ];
            let len = n2.iter().map(|x| x * x).sum::<f64>().sqrt();
            let n2 = n2.map(|x| x / len);
            let vn2 = -rng.range(0.05, 0.5);
            p.rows.push(
                StructuredRow::contact(vn2)
                    .with_particle(k, n2)
                    .with_body(b2, jac(n2, r2, -1.0)),
            );
        }
    }
    for c in 0..spec.rigid_contacts {
        // A stack: body a rests on body a - 1, body 0 on the ground; normals point up.
        let a = c % nb;
        let n = [0.0, 0.0, 1.0];
        let foot = |bx: &Box3, rng: &mut XorShift, sign: f64| {
            let h = bx.half.iter().fold(f64::INFINITY, |m: f64, &x| m.min(x));
            [rng.range(-h, h), rng.range(-h, h), sign * h]
        };
        let ra = foot(&boxes[a], &mut rng, -1.0);
        let vn = if rng.unit() < 0.7 {
            -rng.range(0.05, 1.0)
        } else {
            rng.range(0.0, 0.3)
        };
        let mut row = StructuredRow::contact(vn).with_body(a, jac(n, ra, 1.0));
        let below = (a > 0).then(|| (a - 1, foot(&boxes[a - 1], &mut rng, 1.0)));
        if let Some((b, rb)) = below {
            row = row.with_body(b, jac(n, rb, -1.0));
        }
        let normal = p.rows.len();
        p.rows.push(row);
        if spec.friction {
            for t in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
                let mut fr = StructuredRow::contact(rng.range(-0.5, 0.5))
                    .with_friction(normal, -0.5, 0.5)
                    .with_body(a, jac(t, ra, 1.0));
                if let Some((b, rb)) = below {
                    fr = fr.with_body(b, jac(t, rb, -1.0));
                }
                p.rows.push(fr);
            }
        }
    }
    p
}
