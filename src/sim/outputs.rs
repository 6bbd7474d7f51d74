//! Every file a run writes per frame, together: the fluid frame and the manifest, the bodies'
//! frames and states, the joints' errors, the run's metrics, the gauges' readings and the
//! liquid's loads on the bodies and the walls. [`RunOutputs`] opens them for
//! a new run or for one resumed from a checkpoint (the tables cut back to the checkpoint's
//! frame), writes a frame, and reports the tables' lengths for the next checkpoint.
use super::Simulation;
use super::gauges::Gauges;
use super::loads;
use super::surfaces::SurfaceWorker;
use crate::coupling::leak::LeakCheck;
use crate::output::checksum::FileSum;
use crate::output::loads::WALL_NAMES;
use crate::output::manifest::{FrameEntry, FrameRef};
use crate::output::resume_check::FrameSums;
use crate::output::rigid_frames::manifest_entries;
use crate::output::run_dir::{
    BODY_LOADS, GAUGES, JOINT_ERRORS, RIGID_STATES, RUN_METRICS, WALL_LOADS,
};
use crate::output::{
    Checkpoint, FrameWriter, GaugeWriter, JointErrorWriter, LoadTable, LoadWriter, Manifest,
    MetricsRow, MetricsWriter, RigidFrameWriter, RunDir, StatesWriter,
};
use crate::surface::SurfaceParams;
use crate::{Error, Result};
use std::collections::BTreeMap;

/// The writers of a run's per-frame files.
#[derive(Debug)]
pub struct RunOutputs {
    /// The fluid frames and the manifest.
    pub writer: FrameWriter,
    rigid: Option<(RigidFrameWriter, StatesWriter)>,
    joint_errors: Option<JointErrorWriter>,
    metrics: MetricsWriter,
    leak_check: LeakCheck,
    surface: Option<SurfaceWorker>,
    gauges: Option<(Gauges, GaugeWriter)>,
    /// `body_loads.csv` (with bodies and liquid, or an emitter) and `wall_loads.csv` (with walls whose loads the
    /// liquid's backend gathers).
    loads: Loads,
}

/// The loads' writers.
#[derive(Debug, Default)]
struct Loads {
    bodies: Option<LoadWriter>,
    walls: Option<LoadWriter>,
}

impl Loads {
    /// The writers for `sim`'s loads in `run`: new, or resumed after frame `resumed`.
    fn open(run: &RunDir, sim: &Simulation, resumed: Option<u32>) -> Result<Loads> {
        let open = |table| match resumed {
            None => Ok(LoadWriter::new(run, table)),
            Some(frame) => LoadWriter::resume(run, table, frame),
        };
        Ok(Loads {
            bodies: if sim.bodies.is_empty()
                || (sim.liquid.is_empty() && sim.sources.emitters.is_empty())
            {
                None
            } else {
                Some(open(LoadTable::Bodies)?)
            },
            walls: if sim.liquid.has_wall_loads() {
                Some(open(LoadTable::Walls)?)
            } else {
                None
            },
        })
    }

    /// Write frame `frame`'s loads (the steps since the last frame's) and start over.
    fn write_frame(&mut self, sim: &mut Simulation, frame: u32, time: f64) -> Result<()> {
        let bodies = loads::take(&mut sim.body_loads, sim.bodies.len());
        // The walls' tally: one download on a device (the particles come down with it).
        let walls = match sim.liquid.take_wall_loads()? {
            Some(mut t) => loads::take(&mut t, WALL_NAMES.len()),
            None => Vec::new(),
        };
        // Frame 0 comes before any step.
        if frame == 0 {
            return Ok(());
        }
        if let Some(w) = self.bodies.as_mut() {
            let names: Vec<&str> = sim.bodies.iter().map(|b| b.name.as_str()).collect();
            w.write_frame(&names, &bodies, frame, time)?;
        }
        if let Some(w) = self.walls.as_mut() {
            w.write_frame(&WALL_NAMES, &walls, frame, time)?;
        }
        Ok(())
    }
}

/// What a run builds of the liquid's surface: its settings and the container it meets.
#[derive(Debug, Clone)]
pub struct SurfaceOutput {
    /// The reconstruction's settings.
    pub params: SurfaceParams,
    /// The container's corners, if there is one.
    pub container: Option<([f64; 3], [f64; 3])>,
}

impl RunOutputs {
    /// The writers for `sim` into `run`, starting with `manifest`: from scratch, or, given a
    /// checkpoint and the sums of the frames it keeps (checked by
    /// [`crate::output::resume_check`]), after its frame (the manifest lists frames 0 to that
    /// frame, and the frames and failed contact problems written after the checkpoint are
    /// removed). `gauges`, the scene's, write `gauges.csv` (cut back to the checkpoint's step
    /// on a resume).
    pub fn open(
        run: &RunDir,
        sim: &Simulation,
        mut manifest: Manifest,
        fps: f64,
        resumed: Option<(&Checkpoint, FrameSums)>,
        surface: Option<SurfaceOutput>,
        gauges: Option<Gauges>,
    ) -> Result<RunOutputs> {
        let has_bodies = !sim.bodies.is_empty();
        let has_joints = !sim.joints().is_empty();
        if let Some(s) = &surface {
            manifest.surface = Some(serde_json::to_value(&s.params).expect("settings serialise"));
        }
        let worker = surface.map(|s| SurfaceWorker::start(run, s.container, s.params));
        let Some((c, mut kept)) = resumed else {
            let writer = FrameWriter::new(run, manifest)?;
            let rigid = if has_bodies {
                Some((RigidFrameWriter::new(run)?, StatesWriter::new(run)))
            } else {
                None
            };
            return Ok(RunOutputs {
                writer,
                rigid,
                joint_errors: has_joints.then(|| JointErrorWriter::new(run)),
                metrics: MetricsWriter::new(run),
                leak_check: LeakCheck::new(&sim.bodies),
                surface: worker,
                gauges: gauges.map(|g| {
                    let w = GaugeWriter::new(run, g.names());
                    (g, w)
                }),
                loads: Loads::open(run, sim, None)?,
            });
        };
        manifest.frames = (0..=c.frame)
            .map(|index| FrameEntry {
                index,
                time: index as f64 / fps,
                fluid: RunDir::fluid_frame_name(index),
                particles: crate::output::fluid_frames::particle_count(
                    &run.join(&RunDir::fluid_frame_name(index)),
                ),
                extra: {
                    let mut extra = if has_bodies {
                        manifest_entries(&sim.bodies, index)
                    } else {
                        Default::default()
                    };
                    if run.surface_frame(index).is_file() {
                        extra.insert("surface".into(), RunDir::surface_frame_name(index).into());
                    }
                    extra
                },
                checksums: kept.remove(&index).unwrap_or_default(),
            })
            .collect();
        manifest.lcp_fallbacks = c.fallbacks.clone();
        manifest.steps = c.steps;
        manifest.wall_seconds = c.wall_seconds;
        manifest.checkpoint_step = Some(c.steps);
        let [states, joints, metrics] = c.tables;
        let rigid = if has_bodies {
            Some((
                RigidFrameWriter::new(run)?,
                StatesWriter::resume(run, states)?,
            ))
        } else {
            None
        };
        let joint_errors = if has_joints {
            Some(JointErrorWriter::resume(run, joints)?)
        } else {
            None
        };
        let metrics = MetricsWriter::resume(run, metrics)?;
        let gauges = match gauges {
            Some(g) => {
                let w = GaugeWriter::resume(run, g.names(), c.steps)?;
                Some((g, w))
            }
            None => None,
        };
        let loads = Loads::open(run, sim, Some(c.frame))?;
        manifest.tables = table_sums(
            rigid.as_ref().map(|r| &r.1),
            joint_errors.as_ref(),
            &metrics,
            gauges.as_ref().map(|g| &g.1),
            &loads,
        );
        // The manifest first, then the files it no longer lists: a reader never meets a
        // manifest that lists a frame of the abandoned steps.
        let writer = FrameWriter::new(run, manifest)?;
        for f in run.written_after(c.frame, c.steps) {
            std::fs::remove_file(&f).map_err(|e| Error::io(&f, e))?;
        }
        let mut out = RunOutputs {
            writer,
            rigid,
            joint_errors,
            metrics,
            leak_check: LeakCheck::new(&sim.bodies),
            surface: worker,
            gauges,
            loads,
        };
        // Frames the run wrote before it was stopped, or before surfaces were asked for, that
        // have no surface yet get one now.
        if out.surface.is_some() {
            for index in 0..=c.frame {
                if !run.surface_frame(index).is_file() {
                    out.submit_surface(sim, index, index as f64 / fps)?;
                }
            }
        }
        Ok(out)
    }

    /// Queue frame `index`'s surface (its files written) and list the surfaces finished.
    fn submit_surface(&mut self, sim: &Simulation, index: u32, time: f64) -> Result<()> {
        let Some(worker) = self.surface.as_mut() else {
            return Ok(());
        };
        let run = self.writer.run();
        let frame = FrameRef {
            index,
            time,
            fluid: run.fluid_frame(index),
            rigid: sim
                .bodies
                .iter()
                .map(|b| (b.name.clone(), run.body_frame(&b.name, index)))
                .collect(),
            surface: None,
        };
        for done in worker.submit(frame)? {
            self.writer.manifest.add_surface(done);
        }
        Ok(())
    }

    /// The frames whose surface could not be built since the last call, each with a line that
    /// says why (the run goes on without them; `sphrigid surface` can build them later).
    pub fn surface_failures(&mut self) -> Vec<String> {
        let Some(w) = self.surface.as_mut() else {
            return Vec::new();
        };
        std::mem::take(&mut w.failures)
            .into_iter()
            .map(|(frame, e)| {
                format!(
                    "frame {frame}: no liquid surface: {e} (the run goes on; rebuild it with `sphrigid surface {} --frames {frame}`)",
                    self.writer.run().path().display()
                )
            })
            .collect()
    }

    /// Wait for the surfaces still being built, list them, and mark the run complete (or
    /// not) in the manifest.
    pub fn finish(&mut self, complete: bool) -> Result<()> {
        self.flush_gauges()?;
        let built = match self.surface.as_mut() {
            Some(w) => w.finish(),
            None => Ok(Vec::new()),
        };
        let built = match built {
            Ok(b) => b,
            Err(e) => {
                self.writer.finish(false)?;
                return Err(e);
            }
        };
        for done in built {
            self.writer.manifest.add_surface(done);
        }
        self.writer.finish(complete)
    }

    /// Write frame `frame` at simulated time `time`: its figures, the bodies' frames, states
    /// and joint errors, then the fluid frame; the manifest in memory lists them all, with
    /// their sums, and is written by [`FrameWriter::write_manifest`] (after the checkpoint,
    /// when one is due).
    pub fn write_frame(&mut self, sim: &mut Simulation, frame: u32, time: f64) -> Result<()> {
        if let Some((g, w)) = self.gauges.as_mut()
            && g.due(sim.steps)
        {
            w.push(sim.steps, time, g.read(sim.particles(), sim.steps));
        }
        if let Some((_, w)) = self.gauges.as_mut() {
            w.flush()?;
        }
        let energy = sim.energy();
        let leak = self.leak_check.deepest(sim.particles(), &sim.bodies);
        let tally = std::mem::take(&mut sim.lcp_tally);
        self.metrics.write_frame(&MetricsRow {
            frame,
            time,
            kinetic: energy.kinetic,
            potential: energy.potential,
            leak_depth: leak.map_or(0.0, |l| l.depth),
            leak: leak.map(|l| (sim.bodies[l.body].name.clone(), l.id)),
            lcp_unsolved: tally.unsolved,
            lcp_residual: tally.residual,
            particles: sim.particles().len() as u64,
            emitted: sim.sources.state.emitted,
            removed: sim.sources.state.removed,
            liquid_mass: sim.liquid_mass(),
        })?;
        let (extra, sums) = match self.rigid.as_mut() {
            Some((meshes, states)) => {
                let written = meshes.write_frame(&sim.bodies, frame, time)?;
                states.write_frame(&sim.bodies, frame, time)?;
                written
            }
            None => Default::default(),
        };
        if let Some(j) = self.joint_errors.as_mut() {
            let joints = sim.coupler.as_ref().map_or(&[][..], |c| &c.joints);
            j.write_frame(joints, &sim.bodies, &mut sim.joint_peaks, frame, time)?;
        }
        self.loads.write_frame(sim, frame, time)?;
        if let Some(w) = self.surface.as_mut() {
            for done in w.finished() {
                self.writer.manifest.add_surface(done);
            }
        }
        self.writer.manifest.tables = table_sums(
            self.rigid.as_ref().map(|r| &r.1),
            self.joint_errors.as_ref(),
            &self.metrics,
            self.gauges.as_ref().map(|g| &g.1),
            &self.loads,
        );
        self.writer.write_frame_files(
            sim.particles(),
            sim.liquid.params(),
            frame,
            time,
            extra,
            sums,
        )?;
        self.submit_surface(sim, frame, time)
    }

    /// Read the gauges due after the step just taken, between frames (a frame's step is read
    /// with its frame); their rows go out with the next frame.
    pub fn after_step(&mut self, sim: &mut Simulation) -> Result<()> {
        let Some((g, w)) = self.gauges.as_mut() else {
            return Ok(());
        };
        let step = sim.steps;
        if step.is_multiple_of(u64::from(sim.substeps)) || !g.due(step) {
            return Ok(());
        }
        sim.sync_particles()?;
        w.push(step, sim.time, g.read(sim.particles(), step));
        Ok(())
    }

    /// Write the gauges' rows read since the last frame (a run stopped between frames keeps
    /// them) and record the table's sum in the manifest.
    pub fn flush_gauges(&mut self) -> Result<()> {
        if let Some((_, w)) = self.gauges.as_mut() {
            w.flush()?;
            self.writer.manifest.tables = table_sums(
                self.rigid.as_ref().map(|r| &r.1),
                self.joint_errors.as_ref(),
                &self.metrics,
                Some(w),
                &self.loads,
            );
        }
        Ok(())
    }

    /// Bytes written so far to `rigid_states.csv`, `joint_errors.csv` and `run_metrics.csv`.
    pub fn tables(&self) -> [u64; 3] {
        [
            self.rigid.as_ref().map_or(0, |(_, s)| s.len()),
            self.joint_errors.as_ref().map_or(0, JointErrorWriter::len),
            self.metrics.len(),
        ]
    }
}

/// The manifest's record of the tables written so far (those the run has).
fn table_sums(
    states: Option<&StatesWriter>,
    joints: Option<&JointErrorWriter>,
    metrics: &MetricsWriter,
    gauges: Option<&GaugeWriter>,
    loads: &Loads,
) -> BTreeMap<String, FileSum> {
    let mut out = BTreeMap::new();
    for (name, sum) in [
        (RIGID_STATES, states.map(StatesWriter::sum)),
        (JOINT_ERRORS, joints.map(JointErrorWriter::sum)),
        (RUN_METRICS, Some(metrics.sum())),
        (GAUGES, gauges.map(GaugeWriter::sum)),
        (BODY_LOADS, loads.bodies.as_ref().map(LoadWriter::sum)),
        (WALL_LOADS, loads.walls.as_ref().map(LoadWriter::sum)),
    ] {
        if let Some(sum) = sum.filter(|s| s.bytes > 0) {
            out.insert(name.to_string(), sum);
        }
    }
    out
}
