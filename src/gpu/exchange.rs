//! What the coupling exchanges with the GPU liquid: the liquid/body particle pairs found on the
//! device (the `contacts` pass), and the contact impulses and push-outs sent back up (the
//! `impulses` and `push_out` passes), each as a list of slots. The three passes keep their bind
//! groups (one per cursor state, binding.rs), made again only when a buffer of the exchange
//! they bind has been replaced since (its generation moved).
use super::GpuLiquidSolver;
use super::binding::per_cursor;
use super::buffers::{self, check_fits};
use super::contacts::{BodyParticle, Contact, sort};
use super::context::GpuContext;
use crate::{Error, Result};
use glam::Vec3A;

/// The farthest a body particle's search reaches, in kernel radii (grid cells): the contact
/// search walks that many cells on each side.
pub const MAX_REACH_CELLS: f32 = 4.0;

/// Check that every contact distance fits the grid search (at most `MAX_REACH_CELLS` cells).
fn check_reach(body: &[BodyParticle], liquid_radius: f32, h: f32) -> Result<()> {
    let limit = MAX_REACH_CELLS * h;
    if let Some(b) = body.iter().find(|b| b.radius + liquid_radius > limit) {
        return Err(Error::input(format!(
            "a body particle of radius {} m reaches {} m, beyond {limit} m ({MAX_REACH_CELLS} \
             kernel radii), which the contact search covers; fix: sample bodies with particles \
             no larger than the liquid's kernel radius",
            b.radius,
            b.radius + liquid_radius
        )));
    }
    Ok(())
}

/// A device buffer kept from call to call and replaced, by one half again as large, only
/// when a call needs more than it holds.
#[derive(Debug)]
struct Grown {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buf: Option<wgpu::Buffer>,
    /// Buffers made so far (0 before the first use): bind groups over the buffer are made
    /// again when it moves.
    generation: u64,
}

/// A stamp of the buffers `g`: it changes whenever one of them is replaced.
fn generations(g: &[&Grown]) -> u64 {
    g.iter().map(|g| g.generation).sum()
}

impl Grown {
    /// An empty buffer of this use, made at the first call.
    fn new(label: &'static str, usage: wgpu::BufferUsages) -> Grown {
        Grown {
            label,
            usage,
            buf: None,
            generation: 0,
        }
    }

    /// Bytes the buffer holds (0 before its first use).
    fn bytes(&self) -> u64 {
        self.buf.as_ref().map_or(0, |b| b.size())
    }

    /// The buffer, at least `size` bytes (checked against the device's binding limit).
    fn at_least(&mut self, ctx: &GpuContext, size: u64) -> Result<&wgpu::Buffer> {
        let size = buffers::storage_size(size);
        let held = self.bytes();
        if size > held {
            check_fits(ctx, self.label, size)?;
            let max = ctx
                .limits
                .max_storage_buffer_binding_size
                .min(ctx.limits.max_buffer_size);
            // Half again as large, in whole 16-byte words (a binding's size must align).
            let grown = (held + held / 2).next_multiple_of(16);
            let cap = grown.min(max / 16 * 16).max(size);
            self.buf = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size: cap,
                usage: self.usage,
                mapped_at_creation: false,
            }));
            self.generation += 1;
        }
        Ok(self.buf.as_ref().expect("made above"))
    }
}

/// The buffers of the exchange with the coupling, kept from step to step (a step makes no
/// buffer once they have grown to the scene's contacts), with the host-side scratch.
#[derive(Debug)]
pub(super) struct ExchangeBuffers {
    uniform: Grown,
    spheres: Grown,
    owners: Grown,
    claimed: Grown,
    count: Grown,
    pairs: Grown,
    staging: Grown,
    vectors: Grown,
    slots: Grown,
    /// The pairs found by the last two searches (a step searches twice, the films' wider
    /// search and the narrower one after the solve): how much of the list to bring down.
    last_found: [u64; 2],
    host_spheres: Vec<[f32; 4]>,
    host_vectors: Vec<[f32; 4]>,
    host_slots: Vec<u32>,
    /// Per liquid slot, whether an entry named it (reset after each check).
    seen: Vec<bool>,
    /// The stamps ([`generations`]) of the buffers that the contacts, impulses and push-out
    /// passes' kept bind groups bind (0: none made yet).
    bound: [u64; 3],
}

impl ExchangeBuffers {
    /// Empty buffers, made at their first use.
    pub(super) fn new() -> ExchangeBuffers {
        use wgpu::BufferUsages as U;
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        ExchangeBuffers {
            uniform: Grown::new("exchange params", U::UNIFORM | U::COPY_DST),
            spheres: Grown::new("body particles", storage),
            owners: Grown::new("body particles' bodies", storage),
            claimed: Grown::new("contact claims", storage),
            count: Grown::new("contact count", storage),
            pairs: Grown::new("contacts", storage),
            staging: Grown::new("contacts download", U::MAP_READ | U::COPY_DST),
            vectors: Grown::new("impulses", storage),
            slots: Grown::new("impulse slots", storage),
            last_found: [0; 2],
            host_spheres: Vec::new(),
            host_vectors: Vec::new(),
            host_slots: Vec::new(),
            seen: Vec::new(),
            bound: [0; 3],
        }
    }

    /// Bytes of GPU memory the exchange holds now (grown to the most contacts found yet).
    pub(super) fn bytes(&self) -> u64 {
        [
            &self.uniform,
            &self.spheres,
            &self.owners,
            &self.claimed,
            &self.count,
            &self.pairs,
            &self.staging,
            &self.vectors,
            &self.slots,
        ]
        .iter()
        .map(|g| g.bytes())
        .sum()
    }
}

impl ExchangeBuffers {
    /// The uniform, vector and slot buffers that [`upload_slots`] filled.
    fn slot_buffers(&self) -> (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer) {
        fn get(g: &Grown) -> &wgpu::Buffer {
            g.buf.as_ref().expect("uploaded")
        }
        (get(&self.uniform), get(&self.vectors), get(&self.slots))
    }
}

/// Bytes of one contact in the device's list: three vec4 words.
const PAIR_BYTES: u64 = 48;
/// Where the pairs begin in the download, after the count.
const PAIRS_AT: u64 = 16;

impl GpuLiquidSolver {
    /// Liquid/body particle pairs closer than the sum of radii, on the current positions and
    /// grid, sorted by (liquid id, body particle). Only the pairs come down.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn find_contacts(&mut self, body: &[BodyParticle]) -> Result<Vec<Contact>> {
        let mut out = Vec::new();
        let each_its_own: Vec<u32> = (0..body.len() as u32).collect();
        self.find_contacts_unsorted(body, &each_its_own, &mut out)?;
        sort(&mut out);
        Ok(out)
    }

    /// Liquid/body particle pairs as [`GpuLiquidSolver::find_contacts`] finds them, but each
    /// liquid particle once per body (`owner`, the body of each body particle) with one of
    /// that body's particles that reach it (a particle two bodies reach can come more than
    /// once, as their claims interleave), into `out` (cleared first), in the order the device
    /// appended them, which varies from run to run. One round trip to the device: the
    /// search, the count and the pairs come down in one submission, into buffers kept from
    /// call to call; a second search runs only when the list outgrew its buffer.
    pub fn find_contacts_unsorted(
        &mut self,
        body: &[BodyParticle],
        owner: &[u32],
        out: &mut Vec<Contact>,
    ) -> Result<()> {
        out.clear();
        assert_eq!(owner.len(), body.len(), "one owner per body particle");
        let liquid_radius = self.params.spacing / 2.0;
        check_reach(body, liquid_radius, self.params.h)?;
        if body.is_empty() || self.n == 0 {
            return Ok(());
        }
        if !self.has_grid {
            self.rebuild_grid()?;
        }
        let nb = body.len() as u32;
        let mut params: buffers::GpuParams = self.gp;
        params.n_body = nb;
        // Each body particle's rows of cells: as many as the widest search's block has (its
        // side computed as the pass computes it, in f32, so no row is missed).
        let side = body
            .iter()
            .map(|b| (((b.radius + liquid_radius) * params.inv_cell).ceil() as u32).max(1))
            .max()
            .unwrap_or(1)
            * 2
            + 1;
        params.search_rows = side * side;
        let rows = nb.checked_mul(params.search_rows).ok_or_else(|| {
            Error::input(format!(
                "{nb} body particles searching {side} cells across are too many for one \
                 GPU dispatch; fix: sample bodies with fewer particles, or --backend cpu"
            ))
        })?;
        let x = &mut self.exchange;
        x.host_spheres.clear();
        x.host_spheres.extend(
            body.iter()
                .map(|b| [b.pos.x, b.pos.y, b.pos.z, b.radius + liquid_radius]),
        );
        // Room for 4 pairs per body particle at first (at least 1,024); the list's buffer
        // keeps what it has grown to since.
        let mut want = (nb as u64 * 4).max(1024);
        // Bring down as much of the list as the last two searches found, with room to spare:
        // all of it unless the list is far larger than the contacts are.
        let mut hint = 2 * x.last_found[0].max(x.last_found[1]) + 1024;
        loop {
            let ctx = &self.ctx;
            // The search fills the whole buffer, which may have grown past what was asked.
            let capacity = x.pairs.at_least(ctx, want * PAIR_BYTES)?.size() / PAIR_BYTES;
            let down = capacity.min(hint);
            ctx.queue.write_buffer(
                x.uniform
                    .at_least(ctx, std::mem::size_of::<buffers::GpuParams>() as u64)?,
                0,
                bytemuck::bytes_of(&params),
            );
            ctx.queue.write_buffer(
                x.spheres.at_least(ctx, nb as u64 * 16)?,
                0,
                bytemuck::cast_slice(&x.host_spheres),
            );
            ctx.queue.write_buffer(
                x.owners.at_least(ctx, nb as u64 * 4)?,
                0,
                bytemuck::cast_slice(owner),
            );
            // A claim per slot of the capacity, so that a count grown by emission reuses it.
            x.claimed.at_least(ctx, self.capacity as u64 * 4)?;
            x.count.at_least(ctx, 4)?;
            x.staging.at_least(ctx, PAIRS_AT + down * PAIR_BYTES)?;
            let (uniform, spheres, owners, claimed, count, pairs, staging) = (
                x.uniform.buf.as_ref().expect("made above"),
                x.spheres.buf.as_ref().expect("made above"),
                x.owners.buf.as_ref().expect("made above"),
                x.claimed.buf.as_ref().expect("made above"),
                x.count.buf.as_ref().expect("made above"),
                x.pairs.buf.as_ref().expect("made above"),
                x.staging.buf.as_ref().expect("made above"),
            );
            let b = &self.bufs;
            let stamp = generations(&[
                &x.uniform, &x.spheres, &x.owners, &x.claimed, &x.count, &x.pairs,
            ]);
            if x.bound[0] != stamp {
                per_cursor(
                    &mut self.passes.contacts.kernel,
                    &ctx.device,
                    uniform,
                    |c| {
                        vec![
                            &b.pos[c.pos],
                            &b.id[c.id],
                            &b.cell_start,
                            spheres,
                            count,
                            &b.vel[c.vel],
                            pairs,
                            claimed,
                            owners,
                        ]
                    },
                );
                x.bound[0] = stamp;
            }
            let kernel = &self.passes.contacts.kernel;
            let g = kernel.group(self.cur.index());
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.clear_buffer(count, 0, None);
            enc.clear_buffer(claimed, 0, None);
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                kernel.dispatch(&mut pass, "main", g, rows);
            }
            enc.copy_buffer_to_buffer(count, 0, staging, 0, 4);
            enc.copy_buffer_to_buffer(pairs, 0, staging, PAIRS_AT, down * PAIR_BYTES);
            ctx.queue.submit([enc.finish()]);
            let found = buffers::map_read(ctx, staging, PAIRS_AT + down * PAIR_BYTES, |bytes| {
                let found = bytemuck::pod_read_unaligned::<u32>(&bytes[..4]) as u64;
                if found <= down {
                    let words: &[[u32; 4]] = bytemuck::cast_slice(
                        &bytes[PAIRS_AT as usize..(PAIRS_AT + found * PAIR_BYTES) as usize],
                    );
                    out.extend(words.chunks_exact(3).map(contact));
                }
                found
            })?;
            if found > capacity {
                // The list outgrew its buffer: search again with room for all of it.
                want = found + found / 4;
                hint = hint.max(want);
                continue;
            }
            if found > down {
                // The list fits its buffer but not the part brought down: bring it all.
                let raw: Vec<[u32; 4]> = buffers::read(ctx, pairs, 3 * found as usize)?;
                out.extend(raw.chunks_exact(3).map(contact));
            }
            x.last_found = [x.last_found[1], found];
            return Ok(());
        }
    }
}

/// A contact from its three words in the device's list.
fn contact(c: &[[u32; 4]]) -> Contact {
    let f = |w: [u32; 4]| {
        Vec3A::new(
            f32::from_bits(w[0]),
            f32::from_bits(w[1]),
            f32::from_bits(w[2]),
        )
    };
    Contact {
        liquid_id: c[0][0],
        body_particle: c[0][1],
        distance: f32::from_bits(c[0][2]),
        slot: c[0][3],
        pos: f(c[1]),
        phase: f32::from_bits(c[1][3]) as u32,
        vel: f(c[2]),
        rho: f32::from_bits(c[2][3]),
    }
}

/// Upload `(slot, vector)` entries into the kept vector and slot buffers, and the uniform
/// with `n_body` the entry count and `dt` the given step. Returns nothing: the buffers are
/// in `s.exchange`.
fn upload_slots(s: &mut GpuLiquidSolver, entries: &[(u32, Vec3A)], dt: f32) -> Result<()> {
    check_slots(
        entries,
        s.n as usize,
        s.capacity as usize,
        &mut s.exchange.seen,
    )?;
    let mut params = s.gp;
    params.n_body = entries.len() as u32;
    params.dt = dt;
    let (ctx, x) = (&s.ctx, &mut s.exchange);
    let n = entries.len() as u64;
    x.host_vectors.clear();
    x.host_vectors
        .extend(entries.iter().map(|(_, v)| [v.x, v.y, v.z, 0.0]));
    x.host_slots.clear();
    x.host_slots.extend(entries.iter().map(|(s, _)| *s));
    ctx.queue.write_buffer(
        x.uniform
            .at_least(ctx, std::mem::size_of::<buffers::GpuParams>() as u64)?,
        0,
        bytemuck::bytes_of(&params),
    );
    ctx.queue.write_buffer(
        x.vectors.at_least(ctx, n * 16)?,
        0,
        bytemuck::cast_slice(&x.host_vectors),
    );
    ctx.queue.write_buffer(
        x.slots.at_least(ctx, n * 4)?,
        0,
        bytemuck::cast_slice(&x.host_slots),
    );
    Ok(())
}

/// Check that every slot is in range (below `n`) and appears once (sum a particle's impulses
/// first), with `seen` (grown to the `capacity`, so that a count changed by emission reuses
/// it; all false before and after).
fn check_slots(dv: &[(u32, Vec3A)], n: usize, capacity: usize, seen: &mut Vec<bool>) -> Result<()> {
    if seen.len() < capacity.max(n) {
        seen.resize(capacity.max(n), false);
    }
    let bad = dv.iter().position(|&(s, _)| {
        let s = s as usize;
        s >= n || std::mem::replace(&mut seen[s], true)
    });
    // Leave `seen` all false again, touching only the entries checked.
    for &(s, _) in &dv[..bad.unwrap_or(dv.len())] {
        seen[s as usize] = false;
    }
    match bad {
        None => Ok(()),
        Some(k) => Err(Error::Run(format!(
            "contact impulse for slot {}: out of range or given twice (sum a particle's \
             impulses into one entry)",
            dv[k].0
        ))),
    }
}

impl GpuLiquidSolver {
    /// Apply velocity changes `(slot, dv)` (slots as [`super::contacts::Contact::slot`] gave
    /// them, each at most once) after a step of `dt`: `v += dv`, `x += dv dt`.
    pub fn apply_impulses(&mut self, dv: &[(u32, Vec3A)], dt: f32) -> Result<()> {
        if dv.is_empty() {
            return Ok(());
        }
        upload_slots(self, dv, dt)?;
        let device = &self.ctx.device;
        let (b, x) = (&self.bufs, &mut self.exchange);
        let stamp = generations(&[&x.uniform, &x.vectors, &x.slots]);
        if x.bound[1] != stamp {
            let (u, v, s) = x.slot_buffers();
            per_cursor(&mut self.passes.impulses.kernel, device, u, |c| {
                vec![&b.pos[c.pos], &b.vel[c.vel], v, s]
            });
            x.bound[1] = stamp;
        }
        let kernel = &self.passes.impulses.kernel;
        let g = kernel.group(self.cur.index());
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            kernel.dispatch(&mut pass, "main", g, dv.len() as u32);
        }
        self.ctx.queue.submit([enc.finish()]);
        Ok(())
    }
}

impl GpuLiquidSolver {
    /// Move the listed slots (each at most once) by `dx`: `x += dx`.
    pub fn push_out(&mut self, dx: &[(u32, Vec3A)]) -> Result<()> {
        if dx.is_empty() {
            return Ok(());
        }
        upload_slots(self, dx, 0.0)?;
        let device = &self.ctx.device;
        let (b, x) = (&self.bufs, &mut self.exchange);
        let stamp = generations(&[&x.uniform, &x.vectors, &x.slots]);
        if x.bound[2] != stamp {
            let (u, v, s) = x.slot_buffers();
            per_cursor(&mut self.passes.push_out.kernel, device, u, |c| {
                vec![&b.pos[c.pos], v, s]
            });
            x.bound[2] = stamp;
        }
        let kernel = &self.passes.push_out.kernel;
        let g = kernel.group(self.cur.index());
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            kernel.dispatch(&mut pass, "main", g, dx.len() as u32);
        }
        self.ctx.queue.submit([enc.finish()]);
        Ok(())
    }
}
