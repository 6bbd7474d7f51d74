//! Contact candidates between liquid and body particles (shaders/gpu/contacts.wgsl): pairs
//! closer than the sum of their radii, found on the GPU over the liquid's grid, compacted
//! there, and sent down to the CPU (for the LCP) sorted by (liquid id, body particle), each
//! with the liquid particle's position, phase and velocity.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::liquid::Particles;
pub use crate::liquid::backend::BodyParticle;
use crate::liquid::grid::Grid;
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/contacts.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, R, R, R, RW, R, RW, RW, R];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::u32("id", 2),
    SplitArray::vec4("vel", 6),
];

/// A liquid particle touching a body particle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The liquid particle's id.
    pub liquid_id: u32,
    /// Index of the body particle in the list given.
    pub body_particle: u32,
    /// Distance between the centres, m.
    pub distance: f32,
    /// The liquid particle's slot on the GPU until the next grid build (where impulses go).
    pub slot: u32,
    /// The liquid particle's position, m.
    pub pos: Vec3A,
    /// The liquid particle's phase (liquid block).
    pub phase: u32,
    /// The liquid particle's velocity, m/s.
    pub vel: Vec3A,
    /// The liquid particle's kernel sum of the last density pass.
    pub rho: f32,
}

/// The pass's pipeline.
#[derive(Debug)]
pub struct Contacts {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl Contacts {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> Contacts {
        let src = include_str!("../../shaders/gpu/contacts.wgsl");
        Contacts {
            kernel: Kernel::new(
                device,
                "contacts",
                src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main"],
            ),
        }
    }
}

/// Sort contacts by (liquid id, body particle), a key no two contacts share.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) fn sort(c: &mut [Contact]) {
    c.sort_unstable_by_key(|c| (c.liquid_id, c.body_particle));
}

/// CPU twin: the same pairs from the CPU grid (same cells, same positions), sorted the same.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(
    p: &Particles,
    grid: &Grid,
    liquid_radius: f32,
    body: &[BodyParticle],
) -> Vec<Contact> {
    let mut out = Vec::new();
    let dims = grid.dims();
    for (bi, b) in body.iter().enumerate() {
        let reach = b.radius + liquid_radius;
        let c = grid.cell_index(b.pos);
        let (cx, cy, cz) = (
            c % dims[0],
            (c / dims[0]) % dims[1],
            c / (dims[0] * dims[1]),
        );
        // As many cells each side as the reach needs (at least one).
        let k = ((reach / grid.cell).ceil() as u32).max(1);
        for z in cz.saturating_sub(k)..=(cz + k).min(dims[2] - 1) {
            for y in cy.saturating_sub(k)..=(cy + k).min(dims[1] - 1) {
                for x in cx.saturating_sub(k)..=(cx + k).min(dims[0] - 1) {
                    let cell = ((z * dims[1] + y) * dims[0] + x) as usize;
                    for j in grid.cell_start[cell]..grid.cell_start[cell + 1] {
                        let d = (p.pos[j as usize] - b.pos).length();
                        if d < reach {
                            out.push(Contact {
                                liquid_id: p.id[j as usize],
                                body_particle: bi as u32,
                                distance: d,
                                slot: j,
                                pos: p.pos[j as usize],
                                phase: p.phase[j as usize],
                                vel: p.vel[j as usize],
                                rho: p.rho[j as usize],
                            });
                        }
                    }
                }
            }
        }
    }
    sort(&mut out);
    out
}
