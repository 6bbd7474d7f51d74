//! The scene's gauges during a run: when each is due (every frame, or every `every` steps)
//! and its reading from the liquid through `liquid::gauge`, in the scene's order.
use crate::liquid::gauge::{GaugeReader, PressureModel};
use crate::liquid::{LiquidParams, Particles};
use crate::scene::{GaugeType, Scene};
use glam::Vec3A;

/// One gauge: what it reads, where, and how often.
#[derive(Debug, Clone)]
struct Gauge {
    kind: GaugeType,
    point: Vec3A,
    every: u64,
}

/// The gauges of a run and the buffers their readings go through.
#[derive(Debug, Clone)]
pub struct Gauges {
    gauges: Vec<Gauge>,
    names: Vec<String>,
    reader: GaugeReader,
    floor: f32,
    top: f32,
    pressure: PressureModel,
    values: Vec<Option<f32>>,
}

impl Gauges {
    /// The gauges of `scene` (none: `None`) for its liquid `params`, those without `every`
    /// read at each frame (`substeps` steps apart). A pressure gauge reads the liquid's
    /// mechanical pressure, Pa, near pressure included ([`PressureModel`]).
    pub fn new(scene: &Scene, params: &LiquidParams, substeps: u32) -> Option<Gauges> {
        if scene.gauge.is_empty() {
            return None;
        }
        let (floor, top) = scene
            .container
            .as_ref()
            .map_or((f32::MIN, f32::MAX), |c| (c.min[1] as f32, c.max[1] as f32));
        let gauges = scene
            .gauge
            .iter()
            .map(|g| Gauge {
                kind: g.kind,
                point: Vec3A::from_array(g.point().map(|v| v as f32)),
                every: u64::from(g.every.unwrap_or(substeps).max(1)),
            })
            .collect::<Vec<_>>();
        Some(Gauges {
            values: vec![None; gauges.len()],
            gauges,
            names: scene.gauge.iter().map(|g| g.name.clone()).collect(),
            reader: GaugeReader::new(
                params.spacing,
                scene.container.as_ref().map(|c| {
                    (
                        [c.min[0] as f32, c.min[2] as f32],
                        [c.max[0] as f32, c.max[2] as f32],
                    )
                }),
            ),
            floor,
            top,
            pressure: PressureModel::new(params),
        })
    }

    /// The gauges' names, in the scene's order (the columns of `gauges.csv`).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether any gauge is read at step `step`.
    pub fn due(&self, step: u64) -> bool {
        self.gauges.iter().any(|g| step.is_multiple_of(g.every))
    }

    /// Each gauge's reading at step `step` from `particles`: `None` for a gauge not due then.
    pub fn read(&mut self, particles: &Particles, step: u64) -> &[Option<f32>] {
        for (g, out) in self.gauges.iter().zip(&mut self.values) {
            *out = step.is_multiple_of(g.every).then(|| match g.kind {
                GaugeType::Height => self.reader.surface_height(
                    &particles.pos,
                    g.point.x,
                    g.point.z,
                    self.floor,
                    self.top,
                ),
                GaugeType::Pressure => self.reader.pressure(particles, g.point, &self.pressure),
            });
        }
        &self.values
    }
}
