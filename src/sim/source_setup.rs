//! The run's emitters and outlets from their scene tables: a nozzle's layer of lattice sites
//! and its schedule (the layer interval that gives the flow `A v`, the stop time, the layers a
//! volume takes), and each outlet's box.
use crate::liquid::emitter::{Emitter, Nozzle, layer_sites};
use crate::liquid::sources::{Outlet, Sources};
use crate::scene::sources::plane_axes;
use crate::scene::{NozzleSpec, Scene};
use glam::{DVec3, Vec3A};

/// The sources of a checked scene whose particles at time 0 have ids below `next_id`, at the
/// liquid's `spacing` and kernel radius `h`.
pub fn sources(scene: &Scene, spacing: f64, h: f64, next_id: u32) -> Sources {
    let emitters = scene
        .emitter
        .iter()
        .map(|e| {
            let dir = DVec3::from_array(e.unit_direction());
            let (e1, e2) = plane_axes(dir);
            let nozzle = match e.shape {
                NozzleSpec::Circle { radius } => Nozzle::Circle(radius),
                NozzleSpec::Rectangle { size } => Nozzle::Rectangle(size[0], size[1]),
            };
            let sites = layer_sites(nozzle, e1, e2, spacing);
            let layer_volume = sites.len() as f64 * spacing.powi(3);
            Emitter {
                origin: DVec3::from_array(e.position),
                dir,
                speed: e.speed,
                start: e.start,
                stop: e.stop.unwrap_or(f64::INFINITY),
                max_layers: e
                    .volume
                    .map_or(u64::MAX, |v| (v / layer_volume).round().max(1.0) as u64),
                interval: layer_volume / (nozzle.area() * e.speed),
                hold: h / e.speed,
                phase: e.liquid as u32,
                sites,
            }
        })
        .collect();
    let outlets = scene
        .outlet
        .iter()
        .filter_map(|o| o.region(scene.container.as_ref(), spacing))
        .map(|[lo, hi]| Outlet {
            min: Vec3A::from_array(lo.map(|x| x as f32)),
            max: Vec3A::from_array(hi.map(|x| x as f32)),
        })
        .collect();
    Sources::new(emitters, outlets, next_id)
}

/// The run's end, s, for `frames` frames of the scene.
pub fn end_time(scene: &Scene, frames: u32) -> f64 {
    frames as f64 / scene.time.fps
}
