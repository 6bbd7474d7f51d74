//! An emitter: a nozzle that lets liquid in as whole lattice layers, at the rate that gives the
//! flow `rho A v` over time, and holds its newest layers at the set velocity (a short pipe)
//! so that the jet leaves straight.
use glam::{DVec3, Vec3A};

/// A nozzle of the run, in world coordinates, with its schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Emitter {
    /// The nozzle's centre, m.
    pub origin: DVec3,
    /// The unit direction the liquid leaves in.
    pub dir: DVec3,
    /// The speed it leaves at, m/s.
    pub speed: f64,
    /// The time of the first layer, s.
    pub start: f64,
    /// No layer is due at or after this time, s (infinite: none).
    pub stop: f64,
    /// The most layers it emits (from a volume; `u64::MAX`: no limit).
    pub max_layers: u64,
    /// The time between layers, s: a layer of `n` particles of volume `s^3` every
    /// `n s^3 / (A v)` gives the flow `A v` exactly over time.
    pub interval: f64,
    /// How long a layer is held at the set velocity after it is due, s (the time to cross a
    /// kernel radius).
    pub hold: f64,
    /// The phase (liquid block) of its particles.
    pub phase: u32,
    /// The offsets of one layer's particles from the centre, in the nozzle's plane, m.
    pub sites: Vec<DVec3>,
}

/// A layer emitted and still held: its index, and the id of its first particle (the layer's
/// ids are consecutive, in site order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldLayer {
    /// The layer's index (0 is the first).
    pub layer: u64,
    /// The id of its first particle.
    pub first_id: u32,
}

/// Where an emitter stands: the layers emitted, and those still held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmitterState {
    /// Layers emitted so far.
    pub layers: u64,
    /// The emitted layers still held, oldest first.
    pub held: Vec<HeldLayer>,
}

/// The nozzle's cross-section, in world units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Nozzle {
    /// A disc of this radius, m.
    Circle(f64),
    /// A rectangle with sides along the plane's first and second axes, m.
    Rectangle(f64, f64),
}

impl Nozzle {
    /// The cross-section's area, m^2.
    pub fn area(&self) -> f64 {
        match *self {
            Nozzle::Circle(r) => std::f64::consts::PI * r * r,
            Nozzle::Rectangle(a, b) => a * b,
        }
    }
}

/// The sites of one layer across `nozzle` in the plane of `(e1, e2)` at `spacing`: the
/// cell-centred square lattice of the nozzle's bounding square, kept where the centre lies in
/// the cross-section (every site of a rectangle whose sides are multiples of the spacing).
pub fn layer_sites(nozzle: Nozzle, e1: DVec3, e2: DVec3, spacing: f64) -> Vec<DVec3> {
    let (a, b) = match nozzle {
        Nozzle::Circle(r) => (2.0 * r, 2.0 * r),
        Nozzle::Rectangle(a, b) => (a, b),
    };
    let count = |len: f64| ((len / spacing) - 1e-6).ceil().max(1.0) as i64;
    let (na, nb) = (count(a), count(b));
    let mut sites = Vec::new();
    for j in 0..nb {
        for i in 0..na {
            let u = (i as f64 + 0.5 - na as f64 / 2.0) * spacing;
            let v = (j as f64 + 0.5 - nb as f64 / 2.0) * spacing;
            let inside = match nozzle {
                Nozzle::Circle(r) => u * u + v * v <= r * r * (1.0 + 1e-9),
                Nozzle::Rectangle(a, b) => {
                    u.abs() <= 0.5 * a * (1.0 + 1e-9) && v.abs() <= 0.5 * b * (1.0 + 1e-9)
                }
            };
            if inside {
                sites.push(e1 * u + e2 * v);
            }
        }
    }
    sites
}

impl Emitter {
    /// The time layer `k` is due, s.
    pub fn due(&self, k: u64) -> f64 {
        self.start + k as f64 * self.interval
    }

    /// The layers due by time `t` (at most `max_layers`, none at or after `stop`).
    pub fn layers_due(&self, t: f64) -> u64 {
        if t < self.start {
            return 0;
        }
        // A hair of slack, so that a layer due exactly at a step's time is not put off by
        // rounding.
        let by_time = ((t - self.start) / self.interval + 1e-9).floor() as u64 + 1;
        let by_stop = if self.stop.is_finite() {
            ((self.stop - self.start) / self.interval - 1e-9)
                .ceil()
                .max(0.0) as u64
        } else {
            u64::MAX
        };
        by_time.min(by_stop).min(self.max_layers)
    }

    /// The most particles it emits by time `t`.
    pub fn particles_by(&self, t: f64) -> u64 {
        self.layers_due(t).saturating_mul(self.sites.len() as u64)
    }

    /// Where site `j` of layer `k` stands at time `t`, and its velocity: carried from the
    /// nozzle along the direction at the set speed since the layer was due.
    pub fn site_at(&self, k: u64, j: usize, t: f64) -> (Vec3A, Vec3A) {
        let travelled = self.speed * (t - self.due(k));
        let x = self.origin + self.sites[j] + self.dir * travelled;
        let v = self.dir * self.speed;
        (x.as_vec3a(), v.as_vec3a())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jet(nozzle: Nozzle, spacing: f64) -> Emitter {
        // The nozzle's plane for a jet along x: z (as `y x dir` gives it, up to sign) and y.
        let dir = DVec3::new(1.0, 0.0, 0.0);
        let (e1, e2) = (DVec3::new(0.0, 0.0, -1.0), DVec3::Y);
        let sites = layer_sites(nozzle, e1, e2, spacing);
        let n = sites.len() as f64;
        Emitter {
            origin: DVec3::ZERO,
            dir,
            speed: 2.0,
            start: 0.1,
            stop: f64::INFINITY,
            max_layers: u64::MAX,
            interval: n * spacing.powi(3) / (nozzle.area() * 2.0),
            hold: 0.01,
            phase: 0,
            sites,
        }
    }

    #[test]
    fn a_rectangle_of_whole_spacings_has_a_site_per_cell_and_a_disc_about_its_area() {
        let s = 0.01;
        let e = jet(Nozzle::Rectangle(0.1, 0.05), s);
        assert_eq!(e.sites.len(), 50);
        // Every site in the plane normal to the jet, within the rectangle.
        for x in &e.sites {
            assert!(x.dot(e.dir).abs() < 1e-15);
            assert!(x.z.abs() < 0.05 && x.y.abs() < 0.025, "{x}");
        }
        // The disc's sites: the lattice points in a circle of radius 10 spacings, whose count
        // differs from pi r^2 by the boundary's lattice error (Gauss's circle problem: well
        // under 2 r / s = 20 sites).
        let d = jet(Nozzle::Circle(0.1), s);
        let exact = std::f64::consts::PI * 100.0;
        assert!(
            (d.sites.len() as f64 - exact).abs() < 20.0,
            "{}",
            d.sites.len()
        );
    }

    #[test]
    fn the_layers_give_the_flow_rho_a_v_over_time_to_one_layer() {
        let s = 0.01;
        for nozzle in [Nozzle::Circle(0.037), Nozzle::Rectangle(0.1, 0.033)] {
            let e = jet(nozzle, s);
            for t in [0.1, 0.35, 1.0, 2.7] {
                let volume = e.particles_by(t) as f64 * s.powi(3);
                let exact = nozzle.area() * e.speed * (t - e.start);
                let layer = e.sites.len() as f64 * s.powi(3);
                assert!(
                    volume >= exact - 1e-12 && volume <= exact + layer + 1e-12,
                    "{nozzle:?} at {t}: {volume} against {exact} (a layer is {layer})"
                );
            }
            assert_eq!(e.layers_due(0.0999), 0);
        }
    }

    #[test]
    fn stop_and_volume_end_the_layers() {
        let mut e = jet(Nozzle::Rectangle(0.02, 0.02), 0.01);
        e.stop = e.due(10);
        assert_eq!(e.layers_due(100.0), 10);
        e.stop = e.due(10) + 1e-6;
        assert_eq!(e.layers_due(100.0), 11);
        e.max_layers = 3;
        assert_eq!(e.layers_due(100.0), 3);
    }

    #[test]
    fn a_site_moves_along_the_jet_at_the_set_speed() {
        let e = jet(Nozzle::Rectangle(0.02, 0.02), 0.01);
        let (x0, v) = e.site_at(4, 1, e.due(4));
        let (x1, _) = e.site_at(4, 1, e.due(4) + 0.25);
        assert!(((x1 - x0).length() - 0.5).abs() < 1e-6);
        assert!((v - Vec3A::new(2.0, 0.0, 0.0)).length() < 1e-6);
    }
}
