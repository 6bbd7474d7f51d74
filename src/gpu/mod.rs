//! The GPU backend: the liquid step as WGSL compute kernels through wgpu. Each pass has its
//! module here and its shader in `shaders/gpu/` under the same name, a `dispatch` and a CPU
//! twin that the tests hold it against.
//!
//! One step, in the CPU step's order: `viscosity` at `with_gravity` (gravity added to every
//! velocity as it is read, on the previous step's grid, as the CPU uses the previous step's
//! lists; without viscosity `cell_index` adds the gravity); the grid build (`cell_index`
//! predicts `x + v dt` over the velocity buffer, bins it and counts its cell, `prefix_sum`,
//! `scatter` with per cell a sort by id and the gather, so the order is the CPU grid's
//! (cell, id); the scatter counts each cell's cursor down to zero, which leaves the counts
//! clear for the next build); with bodies, `boundary_grid` bins this step's body boundary
//! particles into the same cells, sorted by (cell, index) (its counts and prefix sum are the
//! `count` and `prefix_sum` passes again, into a cell-start buffer of their own); per
//! relaxation pass `density` (the liquid's kernel sums, then the body boundary particles' from
//! the 27 cells of their bins and the walls' from their table, as the CPU adds them, and the
//! pressures) then `relaxation` (ping-pong positions); `walls` at `with_update`, which ends
//! with the velocity update (`velocity::update` without walls), then with walls `wall_loads`
//! (the walls' loads: the walls, `wall_friction` and `relaxation` passes sum each workgroup's
//! impulses per wall into its slot of partial sums, `wall_gather`; this one dispatch reduces
//! them in slot order into the frame's tally on the device, which comes down once a frame).
//! A liquid-only step is one
//! submission with no host round trip: 5 dispatches (4 without viscosity), 2 per relaxation
//! pass, the prefix sum's (2 per level, less one) and with walls the walls' loads' one: 11 for
//! the dam break. No neighbour lists: every neighbour pass loops the
//! 27 cells around a particle as 9 contiguous x-rows. Sums are gathers in grid order, so a
//! run repeats bit for bit on the same device; the atomics only choose slots that the
//! per-cell sort then orders. The neighbour passes (`density`, `relaxation`, `viscosity`)
//! have `tiled` entry points that read the rows through workgroup memory, one workgroup per
//! segment of a grid row, with the same pairs in the same order (`tile`); the prefix sum scans
//! its blocks with subgroup operations where the device has them.
//!
//! Memory per particle (structure of arrays): positions 2 x 16 B (w = phase), velocities and
//! start-of-step positions 2 x 16 B (a ping-pong pair: one holds the velocities, w = the
//! kernel sum, the other the start-of-step positions; from the gather to the velocity update
//! the velocity buffer holds the pressures, the predictions before that), ids 2 x 4 B, cell
//! 4 B, permutation 4 B: 80 B, plus 8 B per grid cell (counts, starts), the prefix sum's level
//! totals and the walls' table (65 x 8 B), and with walls their loads' partial sums (192 B per
//! workgroup of 256 particles, or per tiled segment where the neighbour passes run tiled) and
//! tally (384 B). Bodies add, from the first upload of their boundary
//! particles, 40 B per boundary particle (uploaded position and weight 16 B, cell 4 B,
//! permutation 4 B, sorted copy 16 B; only the 16 B upload crosses the bus each step) and 4 B
//! per grid cell (their cell starts; their counts borrow the liquid's count buffer) with a
//! second prefix sum's level totals. The exchange with the coupling (`exchange`) keeps its
//! buffers from step to step, grown to the most contacts found yet: the body particles
//! (20 B each, with their bodies), a claim per liquid particle (4 B), the contact list and
//! its download (48 B per liquid particle and body each, with room to spare) and the impulses
//! (20 B per touched particle). Every per-particle buffer holds the solver's capacity (set at
//! setup, at least the initial particles), so memory is counted per particle of the capacity.
//! The particles come down (`Liquid::sync`, each edit of the particles) through a host-visible
//! staging buffer of 52 B per particle of the capacity, made at the first download and kept
//! (host memory, not counted as the device's). The rest is counted by
//! [`GpuLiquidSolver::bytes_allocated`], and the liquid's share without a device by
//! [`GpuLiquidSolver::bytes_needed`] ([`GpuLiquidSolver::bytes_needed_for`] for a capacity).
//!
//! Besides the passes: `solver` holds the [`GpuLiquidSolver`] (buffers, the step's
//! orchestration), `upload` puts the particles up (any count up to the capacity its buffers
//! were sized for at setup: every choice made from the count there, the two-part split, the
//! tiling and the walls' partial sums, is made for the capacity, and the step's dispatches and
//! uniform follow the current count, so emission and removal make no buffer or bind group),
//! `binding` makes the passes' bind groups (at setup, and again only when a
//! buffer they bind is replaced; a step makes none), `recording` records each phase, `timing` times them, `readback` reads
//! results back, `single_pass` runs one phase alone (the per-pass tests' hooks), `grid_spec`
//! places the grid, `tile` chooses and sizes the tiled neighbour passes (their shared WGSL is
//! `shaders/gpu/tile.wgsl`), `split` binds each per-particle array as two parts so that a
//! scene larger than one storage binding runs (the shaders' accessors are
//! `shaders/gpu/split.wgsl`),
//! `exchange` answers the coupling (pairs down, impulses and push-outs up), and `liquid`
//! implements the [`crate::liquid::Liquid`] interface ([`GpuLiquid`]). This
//! module imports `liquid/` and never the reverse.
pub(crate) mod binding;
pub(crate) mod bodies;
pub(crate) mod boundary_grid;
pub(crate) mod buffers;
pub(crate) mod cell_index;
pub(crate) mod contacts;
pub(crate) mod context;
pub(crate) mod count;
pub(crate) mod density;
pub(crate) mod exchange;
pub(crate) mod ghosts;
pub(crate) mod grid_spec;
pub(crate) mod impulses;
pub(crate) mod kernel;
pub(crate) mod liquid;
pub(crate) mod prefix_sum;
pub(crate) mod push_out;
pub(crate) mod readback;
pub(crate) mod recording;
pub(crate) mod relaxation;
pub(crate) mod scatter;
pub(crate) mod single_pass;
pub(crate) mod solver;
pub(crate) mod split;
pub(crate) mod tile;
pub(crate) mod timing;
pub(crate) mod upload;
pub(crate) mod velocity;
pub(crate) mod viscosity;
pub(crate) mod wall_gather;
pub(crate) mod wall_loads;
pub(crate) mod walls;

pub use crate::timing::Timing;
pub use liquid::GpuLiquid;
pub use solver::GpuLiquidSolver;
