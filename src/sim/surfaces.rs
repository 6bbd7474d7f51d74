//! The liquid's surface of a run's frames, built from the files the run wrote (the fluid
//! frame and the bodies' meshes): one frame at a time ([`build_frame`], for `sphrigid
//! surface`), or beside a running simulation ([`SurfaceWorker`], for `[output] surface`), so
//! that both write the same bytes. Each frame is built on one thread of its own: splashsurf's
//! multi-threaded passes sum in an order that varies from run to run, and a frame built on
//! one thread is the same bytes every time; frames are built side by side instead.
use crate::output::manifest::FrameRef;
use crate::output::surface_frames::encode_surface;
use crate::output::{RunDir, fluid_frames, mesh_files, write_atomic};
use crate::surface::{Obstacles, SurfaceParams, reconstruct};
use crate::{Error, Result};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;

/// Frames a running simulation may get ahead of its surfaces before it waits for them.
pub const MAX_PENDING: usize = 2;

/// The container of a run from its scene echo (`scene.container.min/max`), if it has one.
pub fn container_of(scene: &serde_json::Value) -> Option<([f64; 3], [f64; 3])> {
    let corner = |key: &str| -> Option<[f64; 3]> {
        let a = scene.get("container")?.get(key)?.as_array()?;
        match a.as_slice() {
            [x, y, z] => Some([x.as_f64()?, y.as_f64()?, z.as_f64()?]),
            _ => None,
        }
    };
    Some((corner("min")?, corner("max")?))
}

/// Build the surfaces of `frames` on `jobs` threads, one frame per thread at a time, calling
/// `done` as each ends; returns each frame's index and triangle count (or error) in order.
pub fn build_frames(
    run: &RunDir,
    frames: &[&FrameRef],
    container: Option<([f64; 3], [f64; 3])>,
    params: &SurfaceParams,
    jobs: usize,
    done: &(dyn Fn(u32, &Result<usize>) + Sync),
) -> Vec<(u32, Result<usize>)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<usize>>>> =
        frames.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, frames.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(frame) = frames.get(k) else { break };
                    let r = build_frame(run, frame, container, params);
                    done(frame.index, &r);
                    *results[k].lock().expect("no thread panics holding it") = Some(r);
                }
            });
        }
    });
    frames
        .iter()
        .zip(results)
        .map(|(f, r)| {
            let r = r.into_inner().expect("no thread panics holding it");
            (f.index, r.expect("every frame was taken"))
        })
        .collect()
}

/// Build frame `frame`'s surface from its fluid and body files with `params`, on the calling
/// thread alone, and write it to `surface/surface_NNNNN.ply`; returns its triangle count.
pub fn build_frame(
    run: &RunDir,
    frame: &FrameRef,
    container: Option<([f64; 3], [f64; 3])>,
    params: &SurfaceParams,
) -> Result<usize> {
    let points = fluid_frames::read_fluid_points(&frame.fluid)?;
    let bodies = frame
        .rigid
        .values()
        .map(|p| mesh_files::read_ply(p))
        .collect::<Result<Vec<_>>>()?;
    let obstacles = Obstacles { container, bodies };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::Run(format!("cannot start a thread for the surface: {e}")))?;
    let mesh = one.install(|| reconstruct(&points.pos, &points.vel, params, &obstacles))?;
    crate::output::create_dir(&run.surface_dir())?;
    write_atomic(
        &run.surface_frame(frame.index),
        &encode_surface(&mesh, frame.index, frame.time),
    )?;
    Ok(mesh.triangles.len())
}

/// Builds the surfaces of a running simulation's frames on a thread of its own, at most
/// `MAX_PENDING` frames behind the frames written. A frame whose surface cannot be built
/// does not stop the run: it is left without one and its error kept in `failures`.
#[derive(Debug)]
pub struct SurfaceWorker {
    jobs: Option<Sender<FrameRef>>,
    done: Receiver<(u32, Result<usize>)>,
    thread: Option<JoinHandle<()>>,
    pending: usize,
    /// Frames whose surface failed, with why, not yet reported.
    pub failures: Vec<(u32, Error)>,
}

impl SurfaceWorker {
    /// Start the worker for the run in `run`.
    pub fn start(
        run: &RunDir,
        container: Option<([f64; 3], [f64; 3])>,
        params: SurfaceParams,
    ) -> SurfaceWorker {
        let (jobs, rx) = channel::<FrameRef>();
        let (tx, done) = channel();
        let run = run.clone();
        let thread = std::thread::Builder::new()
            .name("sphrigid-surface".into())
            .spawn(move || {
                for frame in rx {
                    let r = build_frame(&run, &frame, container, &params);
                    if tx.send((frame.index, r)).is_err() {
                        break;
                    }
                }
            })
            .expect("a thread starts");
        SurfaceWorker {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
            pending: 0,
            failures: Vec::new(),
        }
    }

    /// Queue `frame` (its files already written); waits first while [`MAX_PENDING`] frames
    /// are still being built. Returns the frames finished meanwhile.
    pub fn submit(&mut self, frame: FrameRef) -> Result<Vec<u32>> {
        let mut finished = self.finished();
        while self.pending >= MAX_PENDING {
            finished.extend(self.wait_one()?);
        }
        self.pending += 1;
        self.jobs
            .as_ref()
            .expect("the worker runs until finish")
            .send(frame)
            .map_err(|_| Error::Run("the surface worker stopped".into()))?;
        Ok(finished)
    }

    /// The frames whose surfaces were written since the last call, without waiting.
    pub fn finished(&mut self) -> Vec<u32> {
        let mut out = Vec::new();
        while let Ok((index, r)) = self.done.try_recv() {
            self.pending -= 1;
            out.extend(self.sort(index, r));
        }
        out
    }

    /// Wait for every queued frame and stop the thread; returns the frames finished.
    pub fn finish(&mut self) -> Result<Vec<u32>> {
        self.jobs = None;
        let mut out = Vec::new();
        while self.pending > 0 {
            out.extend(self.wait_one()?);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        Ok(out)
    }

    /// The frame of a finished job, or its error kept in `failures`.
    fn sort(&mut self, index: u32, r: Result<usize>) -> Option<u32> {
        match r {
            Ok(_) => Some(index),
            Err(e) => {
                self.failures.push((index, e));
                None
            }
        }
    }

    fn wait_one(&mut self) -> Result<Option<u32>> {
        let (index, r) = self
            .done
            .recv()
            .map_err(|_| Error::Run("the surface worker stopped".into()))?;
        self.pending -= 1;
        Ok(self.sort(index, r))
    }
}

impl Drop for SurfaceWorker {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
