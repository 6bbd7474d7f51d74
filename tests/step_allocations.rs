//! No allocation on a per-step path: after warm-up frames, a step of a shipped scene
//! allocates on the heap only where a buffer it keeps grows past its high-water mark. The
//! liquid, the coupling, the joints and the block-pivoting solver (its dense sub-solves
//! included) keep their buffers between steps. The counted steps run inside one
//! `rayon::scope`: `Simulation::step` moves itself onto a thread of rayon's pool, and a job
//! injected from outside the pool (the test's thread) goes into the pool's queue, which
//! allocates a block of 63 slots every 63 injections. Those fell into a scene's window or not
//! depending on how many jobs the scenes before it had queued (the chain,
//! which queues a few a step, counted one in 20 steps once the films changed the toppling
//! block's course before it), so they are left out: what is counted is the step's own. Each
//! scene's bound below is what its steps allocate, so that a change that adds allocations to a
//! step fails here.
use sphrigid::backend::Backend;
use sphrigid::scene;
use sphrigid::sim::Simulation;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The system allocator, counting the allocations and reallocations made through it (on every
/// thread, the rayon workers' too).
struct Counting;

static CALLS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Steps counted after the warm-up.
const STEPS: u64 = 20;

/// The allocations of `STEPS` steps of `file` after `warm_frames` frames on the CPU backend.
fn allocations(file: &str, warm_frames: u32) -> u64 {
    let loaded = scene::load(Path::new(file), &[]).unwrap();
    let mut sim = Simulation::setup(&loaded, Backend::Cpu).unwrap();
    for _ in 0..warm_frames {
        sim.advance_frame().unwrap();
    }
    let before = CALLS.load(Ordering::Relaxed);
    rayon::scope(|_| {
        for _ in 0..STEPS {
            sim.step().unwrap();
        }
    });
    CALLS.load(Ordering::Relaxed) - before
}

#[test]
fn steady_steps_allocate_at_most_their_scenes_bound() {
    // (scene, warm-up frames, most allocations per step). The toppling block is measured in
    // contact with the floor and the liquid (from frame 12), its films included. None, but
    // for the hinged gate (measured 0.25 a step: its liquid contact list still grows past its
    // high-water mark as the gate swings) and the viscous elastic block (0.2: its contacts
    // with the honey spreading on it): at most 1 a step.
    let scenes = [
        ("scenes/dam_break.toml", 2, 0),
        ("scenes/wrench_in_space.toml", 4, 0),
        ("scenes/viscous_elastic.toml", 4, 1),
        ("scenes/floating_box.toml", 4, 0),
        ("scenes/toppling_block.toml", 12, 0),
        ("scenes/hinged_gate.toml", 4, 1),
        ("scenes/chain.toml", 4, 0),
        // Emitting: the tap's layers go into arrays set aside at setup and the channel's
        // outlet removes in place; the tap's only allocations (0.2 a step) are the ball's
        // liquid contact lists growing to their high-water mark as the water reaches it.
        ("scenes/tap.toml", 4, 1),
        ("scenes/channel.toml", 18, 0),
    ];
    let mut over = Vec::new();
    for (file, frames, per_step) in scenes {
        let n = allocations(file, frames);
        eprintln!(
            "{file}: {n} allocations in {STEPS} steps ({} per step; bound {per_step})",
            n as f64 / STEPS as f64
        );
        if n > per_step * STEPS {
            over.push(format!("{file}: {n} > {}", per_step * STEPS));
        }
    }
    assert!(over.is_empty(), "steps allocate more than before: {over:?}");
}
