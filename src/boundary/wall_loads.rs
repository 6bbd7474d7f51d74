//! What the liquid puts on the container's walls in one step: each wall-side operation of the
//! step (the walls' viscous friction, the ghosts' push in each relaxation pass, the collisions)
//! hands the impulse it gives each particle to a [`WallLoads`], which adds them up per wall in
//! fixed chunks of slots and then in chunk order, so the sums are the same however the threads
//! share the work (a resumed run writes the same `wall_loads.csv`). The load on a wall is the
//! opposite of the impulse it gave the liquid; its torque is about the wall's centre.
use super::params::Walls;
use glam::{DVec3, Vec3A};
use rayon::prelude::*;

/// Slots per chunk of the deterministic sums.
pub const CHUNK: usize = 1024;

/// One chunk's sums: per wall, the impulse on the liquid and its moment about the origin.
type ChunkSums = [[DVec3; 2]; 6];

/// The particles' masses as the loads read them: per slot its phase, per phase its mass, kg.
#[derive(Debug, Clone, Copy)]
pub struct Masses<'a> {
    /// Per slot, its phase (liquid block).
    pub phase: &'a [u32],
    /// Per phase, a particle's mass, kg.
    pub mass: &'a [f32],
}

impl Masses<'_> {
    /// The mass of the particle in slot `i`, kg.
    #[inline]
    pub fn of(&self, i: usize) -> f32 {
        self.mass[self.phase[i] as usize]
    }
}

/// The sink a chunk's impulses go into: per wall, the impulse the wall gave the liquid and its
/// moment about the origin.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sink {
    sums: ChunkSums,
}

impl Sink {
    /// Add the impulse `j` (N s) that wall `w` (x lo, x hi, y lo, y hi, z lo, z hi) gave a
    /// particle at `x`.
    #[inline]
    pub fn add(&mut self, w: usize, x: Vec3A, j: Vec3A) {
        let (x, j) = (x.as_dvec3(), j.as_dvec3());
        let s = &mut self.sums[w];
        s[0] += j;
        s[1] += x.cross(j);
    }
}

/// The liquid's loads on the six walls over one step, gathered operation by operation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WallLoads {
    /// Per chunk of slots, its sums of the operation in progress.
    chunks: Vec<ChunkSums>,
    /// Per wall, the impulse the walls gave the liquid so far this step, and its moment
    /// about the origin.
    total: ChunkSums,
    /// The walls' centres (the container's faces, half a spacing beyond the planes that hold
    /// the particle centres).
    centres: [DVec3; 6],
}

impl WallLoads {
    /// Loads on `walls`, particles of half spacing `half_spacing` (m) held half a spacing
    /// inside the container's faces.
    pub fn new(walls: &Walls, half_spacing: f32) -> WallLoads {
        let lo = (walls.lo - Vec3A::splat(half_spacing)).as_dvec3();
        let hi = (walls.hi + Vec3A::splat(half_spacing)).as_dvec3();
        let mid = (lo + hi) / 2.0;
        let mut centres = [mid; 6];
        for (w, c) in centres.iter_mut().enumerate() {
            let a = w / 2;
            c[a] = if w % 2 == 0 { lo[a] } else { hi[a] };
        }
        WallLoads {
            chunks: Vec::new(),
            total: [[DVec3::ZERO; 2]; 6],
            centres,
        }
    }

    /// Start a step: nothing gathered yet.
    pub fn clear(&mut self) {
        self.total = [[DVec3::ZERO; 2]; 6];
    }

    /// Run `f(first, chunk, sink)` over `chunks`, the caller's arrays cut into chunks of
    /// [`CHUNK`] slots (`first` the chunk's first slot), in parallel, each chunk's impulses into
    /// its own [`Sink`]; then add the chunks' sums to the step's in chunk order.
    pub fn gather<I>(&mut self, chunks: I, f: impl Fn(usize, I::Item, &mut Sink) + Sync + Send)
    where
        I: IndexedParallelIterator,
    {
        self.chunks.resize(chunks.len(), [[DVec3::ZERO; 2]; 6]);
        chunks
            .zip(self.chunks.par_iter_mut())
            .enumerate()
            .for_each(|(c, (chunk, out))| {
                let mut sink = Sink::default();
                f(c * CHUNK, chunk, &mut sink);
                *out = sink.sums;
            });
        for chunk in &self.chunks {
            for (t, s) in self.total.iter_mut().zip(chunk) {
                t[0] += s[0];
                t[1] += s[1];
            }
        }
    }

    /// Per wall, the liquid's impulse on it (N s) and angular impulse about its centre
    /// (N m s) over the step so far.
    pub fn impulses(&self) -> [(DVec3, DVec3); 6] {
        std::array::from_fn(|w| {
            let [j, m] = self.total[w];
            // The wall gave the liquid j with moment m about the origin; the liquid gives the
            // wall -j, whose moment about the centre c is -(m - c x j).
            (-j, -(m - self.centres[w].cross(j)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_per_wall_about_its_centre_and_do_not_depend_on_the_threads() {
        let walls = Walls::bare(Vec3A::splat(0.5), Vec3A::new(1.5, 2.5, 3.5));
        let mut loads = WallLoads::new(&walls, 0.5);
        // Every particle on the floor (y lo, wall 2) at x = 1 + i/n gets an impulse of 1 up.
        let n = 3 * CHUNK + 17;
        let mut items = vec![0u8; n];
        let push = |first: usize, chunk: &mut [u8], sink: &mut Sink| {
            for i in first..first + chunk.len() {
                let x = Vec3A::new(1.0 + i as f32 / n as f32, 0.5, 1.0);
                sink.add(2, x, Vec3A::Y);
            }
        };
        loads.gather(items.par_chunks_mut(CHUNK), push);
        let first = loads.impulses();
        assert!((first[2].0 - DVec3::new(0.0, -(n as f64), 0.0)).length() < 1e-9);
        // The floor's centre is (1, 0, 2): the pushes lie at x >= 1 and z = 1 < 2.
        let xs: f64 = (0..n).map(|i| (i as f32 / n as f32) as f64).sum();
        let zs = -(n as f64);
        // Torque of -y forces at r = (dx, 0, dz): r x (0, -1, 0) = (dz, 0, -dx).
        assert!((first[2].1 - DVec3::new(zs, 0.0, -xs)).length() < 1e-6 * n as f64);
        assert!(first[0].0 == DVec3::ZERO && first[5].1 == DVec3::ZERO);
        // The same again on one thread: the same bits.
        loads.clear();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        pool.install(|| loads.gather(items.par_chunks_mut(CHUNK), push));
        assert_eq!(loads.impulses(), first);
    }
}
