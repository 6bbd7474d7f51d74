//! Contact candidates between liquid and body particles (shaders/gpu/contacts.wgsl): pairs
//! closer than the sum of their radii, found on the GPU over the liquid's grid, compacted
//! there, and sent down to the CPU (for the LCP) sorted by (liquid id, body particle), each
//! with the liquid particle's position, phase and velocity.
use super::GpuLiquidSolver;
use super::buffers::{self, check_fits};
use super::kernel::Kernel;
use crate::liquid::Particles;
pub use crate::liquid::backend::BodyParticle;
use crate::liquid::grid::Grid;
use crate::{Error, Result};
use glam::Vec3A;

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
}

/// The pass's pipeline.
#[derive(Debug)]
pub struct Contacts {
    /// Its kernel.
    pub kernel: Kernel,
}

impl Contacts {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> Contacts {
        let src = include_str!("../../shaders/gpu/contacts.wgsl");
        Contacts {
            kernel: Kernel::new(device, "contacts", src, true, 7, &["main"]),
        }
    }
}

fn sort(c: &mut [Contact]) {
    c.sort_by_key(|c| (c.liquid_id, c.body_particle));
}

/// Check that every contact distance fits the grid search (at most one cell, h).
fn check_reach(body: &[BodyParticle], liquid_radius: f32, h: f32) -> Result<()> {
    if let Some(b) = body.iter().find(|b| b.radius + liquid_radius > h) {
        return Err(Error::input(format!(
            "a body particle of radius {} m reaches {} m, beyond the liquid's kernel radius {h} m, \
             which the contact search covers; fix: sample bodies with particles no larger than \
             the liquid's kernel radius minus half its spacing",
            b.radius,
            b.radius + liquid_radius
        )));
    }
    Ok(())
}

impl GpuLiquidSolver {
    /// Liquid/body particle pairs closer than the sum of radii, on the current positions and
    /// grid, sorted by (liquid id, body particle). Only the pairs come down.
    pub fn find_contacts(&mut self, body: &[BodyParticle]) -> Result<Vec<Contact>> {
        let liquid_radius = self.params.spacing / 2.0;
        check_reach(body, liquid_radius, self.params.h)?;
        if body.is_empty() || self.n == 0 {
            return Ok(Vec::new());
        }
        if !self.has_grid {
            self.rebuild_grid()?;
        }
        let device = &self.ctx.device;
        let kernel = &self.passes.contacts.kernel;
        let nb = body.len() as u32;
        let mut params: buffers::GpuParams = self.gp;
        params.n_body = nb;
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("contact params"),
            size: std::mem::size_of::<buffers::GpuParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.ctx
            .queue
            .write_buffer(&uniform, 0, bytemuck::bytes_of(&params));
        let spheres: Vec<[f32; 4]> = body
            .iter()
            .map(|b| [b.pos.x, b.pos.y, b.pos.z, b.radius + liquid_radius])
            .collect();
        let mut scratch = 0u64;
        let body_buf = buffers::storage(&self.ctx, "body particles", nb as u64 * 16, &mut scratch)?;
        self.ctx
            .queue
            .write_buffer(&body_buf, 0, bytemuck::cast_slice(&spheres));
        let count = buffers::storage(&self.ctx, "contact count", 4, &mut scratch)?;
        let mut capacity = (nb as u64 * 16).max(1024);
        loop {
            check_fits(&self.ctx, "contact", capacity * 48)?;
            let pairs = buffers::storage(&self.ctx, "contacts", capacity * 48, &mut scratch)?;
            self.ctx.queue.write_buffer(&count, 0, &[0u8; 4]);
            let b = &self.bufs;
            let g = kernel.bind(
                device,
                &uniform,
                &[
                    &b.pos[self.cur.pos],
                    &b.id[self.cur.id],
                    &b.cell_start,
                    &body_buf,
                    &count,
                    &b.vel[self.cur.vel],
                    &pairs,
                ],
            );
            let mut enc = device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                kernel.dispatch(&mut pass, "main", &g, nb);
            }
            self.ctx.queue.submit([enc.finish()]);
            let found = buffers::read::<u32>(&self.ctx, &count, 1)?[0] as u64;
            if found > capacity {
                capacity = found;
                continue;
            }
            let raw: Vec<[u32; 4]> = buffers::read(&self.ctx, &pairs, 3 * found as usize)?;
            let f = |w: [u32; 4]| {
                Vec3A::new(
                    f32::from_bits(w[0]),
                    f32::from_bits(w[1]),
                    f32::from_bits(w[2]),
                )
            };
            let mut out: Vec<Contact> = raw
                .chunks_exact(3)
                .map(|c| Contact {
                    liquid_id: c[0][0],
                    body_particle: c[0][1],
                    distance: f32::from_bits(c[0][2]),
                    slot: c[0][3],
                    pos: f(c[1]),
                    phase: f32::from_bits(c[1][3]) as u32,
                    vel: f(c[2]),
                })
                .collect();
            sort(&mut out);
            return Ok(out);
        }
    }
}

/// CPU twin: the same pairs from the CPU grid (same cells, same positions), sorted the same.
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
        for z in cz.saturating_sub(1)..=(cz + 1).min(dims[2] - 1) {
            for y in cy.saturating_sub(1)..=(cy + 1).min(dims[1] - 1) {
                for x in cx.saturating_sub(1)..=(cx + 1).min(dims[0] - 1) {
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
