//! Timing the GPU step: a [`Recorder`] records the phases into one submission, or one per
//! phase with wall times, or with timestamp queries around each phase's compute pass.
use super::buffers;
use super::context::GpuContext;
use crate::Result;
use crate::timing::{Phase, PhaseTimes, Timing};
use std::time::Instant;

/// Timestamp queries of one step.
#[derive(Debug)]
pub(super) struct Stamps {
    pub(super) set: wgpu::QuerySet,
    pub(super) resolve: wgpu::Buffer,
    pub(super) capacity: u32,
}

/// Records a step's phases: into one submission, or one submission per phase with wall
/// times, or with timestamp queries around each phase's compute pass.
pub(super) struct Recorder {
    enc: Option<wgpu::CommandEncoder>,
    timing: Timing,
    stamped: Vec<Phase>,
    wall: Vec<(Phase, std::time::Duration)>,
}

impl Recorder {
    /// A recorder of one step of `s`, timed as `timing` says.
    pub(super) fn new(ctx: &GpuContext, timing: Timing) -> Recorder {
        Recorder {
            enc: Some(ctx.device.create_command_encoder(&Default::default())),
            timing,
            stamped: Vec::new(),
            wall: Vec::new(),
        }
    }

    /// Record one phase into a compute pass of its own (`f` records its dispatches), timed as
    /// the recorder says; returns what `f` returns.
    pub(super) fn phase<T>(
        &mut self,
        ctx: &GpuContext,
        stamps: Option<&Stamps>,
        phase: Phase,
        f: impl FnOnce(&mut wgpu::ComputePass<'_>) -> T,
    ) -> Result<T> {
        let t = Instant::now();
        let enc = self.enc.as_mut().expect("an open encoder");
        let next = {
            let stamps = match (self.timing, stamps) {
                (Timing::Timestamps, Some(st))
                    if (self.stamped.len() as u32 + 1) * 2 <= st.capacity =>
                {
                    let k = self.stamped.len() as u32 * 2;
                    self.stamped.push(phase);
                    Some(wgpu::ComputePassTimestampWrites {
                        query_set: &st.set,
                        beginning_of_pass_write_index: Some(k),
                        end_of_pass_write_index: Some(k + 1),
                    })
                }
                _ => None,
            };
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(phase.name()),
                timestamp_writes: stamps,
            });
            f(&mut pass)
        };
        if self.timing == Timing::Wall {
            let enc = self.enc.take().expect("an open encoder");
            ctx.queue.submit([enc.finish()]);
            ctx.wait()?;
            self.enc = Some(ctx.device.create_command_encoder(&Default::default()));
            // Wall time of this phase: recording, submission and execution.
            self.wall.push((phase, t.elapsed()));
        }
        Ok(next)
    }

    /// Submit what is left and add the phases' times to `times`.
    pub(super) fn finish(
        mut self,
        ctx: &GpuContext,
        stamps: Option<&Stamps>,
        times: &mut PhaseTimes,
    ) -> Result<()> {
        let mut enc = self.enc.take().expect("an open encoder");
        let stamped = std::mem::take(&mut self.stamped);
        let resolved = match (stamps, stamped.is_empty()) {
            (Some(st), false) => {
                let count = stamped.len() as u32 * 2;
                enc.resolve_query_set(&st.set, 0..count, &st.resolve, 0);
                Some((st, count))
            }
            _ => None,
        };
        ctx.queue.submit([enc.finish()]);
        for (phase, d) in self.wall.drain(..) {
            times.add(phase, d);
        }
        if let Some((st, count)) = resolved {
            let ticks: Vec<u64> = buffers::read(ctx, &st.resolve, count as usize)?;
            let period = ctx.queue.get_timestamp_period() as f64;
            for (k, phase) in stamped.iter().enumerate() {
                let ns = ticks[2 * k + 1].saturating_sub(ticks[2 * k]) as f64 * period;
                times.add(*phase, std::time::Duration::from_nanos(ns as u64));
            }
        } else {
            let _ = ctx.device.poll(wgpu::PollType::Poll);
        }
        Ok(())
    }
}
