//! Every file a run writes per frame, together: the fluid frame and the manifest, the bodies'
//! frames and states, the joints' errors and the run's metrics. [`RunOutputs`] opens them for
//! a new run or for one resumed from a checkpoint (the tables cut back to the checkpoint's
//! frame), writes a frame, and reports the tables' lengths for the next checkpoint.
use super::Simulation;
use crate::coupling::leak::LeakCheck;
use crate::output::manifest::FrameEntry;
use crate::output::rigid_frames::manifest_entries;
use crate::output::{
    Checkpoint, FrameWriter, JointErrorWriter, Manifest, MetricsRow, MetricsWriter,
    RigidFrameWriter, RunDir, StatesWriter,
};
use crate::{Error, Result};

/// The writers of a run's per-frame files.
#[derive(Debug)]
pub struct RunOutputs {
    /// The fluid frames and the manifest.
    pub writer: FrameWriter,
    rigid: Option<(RigidFrameWriter, StatesWriter)>,
    joint_errors: Option<JointErrorWriter>,
    metrics: MetricsWriter,
    leak_check: LeakCheck,
}

impl RunOutputs {
    /// The writers for `sim` into `run`, starting with `manifest`: from scratch, or, given a
    /// checkpoint, after its frame (the manifest lists frames 0 to that frame, and the
    /// frames and failed contact problems written after the checkpoint are removed).
    pub fn open(
        run: &RunDir,
        sim: &Simulation,
        mut manifest: Manifest,
        fps: f64,
        resumed: Option<&Checkpoint>,
    ) -> Result<RunOutputs> {
        let has_bodies = !sim.bodies.is_empty();
        let has_joints = !sim.joints().is_empty();
        let Some(c) = resumed else {
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
            });
        };
        manifest.frames = (0..=c.frame)
            .map(|index| FrameEntry {
                index,
                time: index as f64 / fps,
                fluid: RunDir::fluid_frame_name(index),
                extra: if has_bodies {
                    manifest_entries(&sim.bodies, index)
                } else {
                    Default::default()
                },
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
        // The manifest first, then the files it no longer lists: a reader never meets a
        // manifest that lists a frame of the abandoned steps.
        let writer = FrameWriter::new(run, manifest)?;
        for f in run.written_after(c.frame, c.steps) {
            std::fs::remove_file(&f).map_err(|e| Error::io(&f, e))?;
        }
        Ok(RunOutputs {
            writer,
            rigid,
            joint_errors,
            metrics,
            leak_check: LeakCheck::new(&sim.bodies),
        })
    }

    /// Write frame `frame` at simulated time `time`: its figures, the bodies' frames, states
    /// and joint errors, then the fluid frame and the manifest that lists them all.
    pub fn write_frame(&mut self, sim: &mut Simulation, frame: u32, time: f64) -> Result<()> {
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
        })?;
        let extra = match self.rigid.as_mut() {
            Some((meshes, states)) => {
                let extra = meshes.write_frame(&sim.bodies, frame, time)?;
                states.write_frame(&sim.bodies, frame, time)?;
                extra
            }
            None => Default::default(),
        };
        if let Some(j) = self.joint_errors.as_mut() {
            let joints = sim.coupler.as_ref().map_or(&[][..], |c| &c.joints);
            j.write_frame(joints, &sim.bodies, &mut sim.joint_peaks, frame, time)?;
        }
        self.writer
            .write_frame_with(sim.particles(), sim.liquid.params(), frame, time, extra)
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
