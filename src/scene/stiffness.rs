//! The liquid's default stiffness: 100 m^2/s^2, or with `[solver] derived_stiffness` the one
//! derived from the scene, a speed of sound ten times the fastest flow the scene starts or
//! feeds, so that a tall column does not settle short ([`default_stiffness`]).
//! A block's own `stiffness` wins.
use super::Scene;
use super::liquid::LiquidBlock;
use glam::DVec3;

/// How many times the flow's speed the default speed of sound is: density errors of about
/// `1 / SOUND_OVER_FLOW^2` = 1% ([`default_stiffness`]).
pub const SOUND_OVER_FLOW: f64 = 10.0;

/// The least default speed of sound, m/s (the stiffness 100 m^2/s^2 of shallow scenes).
pub const MIN_SOUND_SPEED: f64 = 10.0;

/// The default stiffness `k = c^2`, m^2/s^2, for liquid `height` m deep under gravity `g`
/// whose fastest initial speed is `speed`: `c = 10 max(sqrt(g H), speed)`, at least 10 m/s.
/// Still liquid then compresses by `g H / c^2` = 1% at its deepest point (and half that on
/// average, so its surface stands 0.5% low), and flow at `speed` changes the density by about
/// `(speed / c)^2` = 1%: weakly compressible SPH's rule of a Mach number of 0.1.
pub fn default_stiffness(g: f64, height: f64, speed: f64) -> f64 {
    let flow = (g.max(0.0) * height.max(0.0)).sqrt().max(speed.abs());
    (SOUND_OVER_FLOW * flow).max(MIN_SOUND_SPEED).powi(2)
}

impl Scene {
    /// The stiffness of block `b`, m^2/s^2: its own, else [`Scene::default_stiffness`].
    pub fn stiffness(&self, b: &LiquidBlock) -> f64 {
        b.stiffness.unwrap_or_else(|| self.default_stiffness())
    }

    /// The default stiffness of the scene's liquid, m^2/s^2: 100, or with
    /// `[solver] derived_stiffness` [`default_stiffness`] for the liquid's depth (its highest
    /// point above the lowest of its own bottom and the container's floor, along gravity) and
    /// its fastest start (a block's velocity or an emitter's speed).
    pub fn default_stiffness(&self) -> f64 {
        if !self.solver.derived_stiffness {
            return MIN_SOUND_SPEED * MIN_SOUND_SPEED;
        }
        let g = DVec3::from_array(self.gravity);
        let speed = self
            .liquid
            .iter()
            .map(|b| DVec3::from_array(b.velocity).length())
            .chain(self.emitter.iter().map(|e| e.speed))
            .fold(0.0, f64::max);
        default_stiffness(g.length(), self.liquid_depth(), speed)
    }

    /// The liquid's vertical extent along gravity, m: from the lowest of the blocks' bottoms
    /// and the container's floor to the blocks' highest point (0 without gravity or liquid).
    fn liquid_depth(&self) -> f64 {
        let Some(up) = (-DVec3::from_array(self.gravity)).try_normalize() else {
            return 0.0;
        };
        let heights = |(min, max): ([f64; 3], [f64; 3])| {
            let (lo, hi) = (DVec3::from_array(min), DVec3::from_array(max));
            // The box's lowest and highest corners along `up`.
            let low = DVec3::select(up.cmpge(DVec3::ZERO), lo, hi).dot(up);
            let high = DVec3::select(up.cmpge(DVec3::ZERO), hi, lo).dot(up);
            (low, high)
        };
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for b in &self.liquid {
            let (l, h) = heights(b.bounds());
            low = low.min(l);
            high = high.max(h);
        }
        if let Some(c) = &self.container {
            low = low.min(heights((c.min, c.max)).0);
        }
        (high - low).max(0.0)
    }

    /// Give every block without a `stiffness` the scene's default, so that the scene as run
    /// (and its manifest) holds the value used.
    pub(super) fn resolve_stiffness(&mut self) {
        let k = self.default_stiffness();
        for b in &mut self.liquid {
            b.stiffness.get_or_insert(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::parse;
    use std::path::Path;

    /// The stiffness of the first block of `text`, with `[solver] derived_stiffness` on.
    fn stiffness_of(text: &str) -> f64 {
        let s = parse(text.to_string(), Path::new("t.toml"), &derived()).unwrap();
        s.scene.liquid[0].stiffness.unwrap()
    }

    fn derived() -> [String; 1] {
        ["solver.derived_stiffness=true".to_string()]
    }

    #[test]
    fn the_default_stiffness_compresses_a_still_column_by_one_percent() {
        // Shallow liquid keeps the least sound speed, 10 m/s.
        assert_eq!(default_stiffness(9.81, 0.05, 0.0), 100.0);
        // A metre of water: g H / k = 1% at its bottom.
        let k = default_stiffness(9.81, 1.0, 0.0);
        assert!((9.81 / k - 0.01).abs() < 1e-12, "{k}");
        // A jet at 3 m/s over a shallow pool: c = 30 m/s.
        assert!((default_stiffness(9.81, 0.05, 3.0) - 900.0).abs() < 1e-9);
        // No gravity and no flow: the least sound speed.
        assert_eq!(default_stiffness(0.0, 2.0, 0.0), 100.0);
    }

    #[test]
    fn without_the_switch_every_scene_keeps_100() {
        let column = "[[liquid]]\nmin = [0, 0, 0]\nmax = [0.2, 1.0, 0.2]\nspacing = 0.02\n";
        let s = parse(column.to_string(), Path::new("t.toml"), &[]).unwrap();
        assert_eq!(s.scene.liquid[0].stiffness, Some(100.0));
    }

    #[test]
    fn a_tall_column_gets_the_stiffness_that_compresses_it_by_one_percent() {
        let column = "[container]\nmin = [0, 0, 0]\nmax = [0.2, 1.2, 0.2]\n\
                      [[liquid]]\nmin = [0, 0, 0]\nmax = [0.2, 1.0, 0.2]\nspacing = 0.02\n";
        assert!((stiffness_of(column) - 981.0).abs() < 1e-9);
        // Lifted 0.5 m off the floor, it falls 1.5 m: the depth counts from the floor.
        let lifted = column.replace(
            "min = [0, 0, 0]\nmax = [0.2, 1.0",
            "min = [0, 0.5, 0]\nmax = [0.2, 1.5",
        );
        let lifted = lifted.replace("1.2, 0.2]", "1.6, 0.2]");
        assert!((stiffness_of(&lifted) - 1471.5).abs() < 1e-9);
        // Typed in, it wins.
        assert_eq!(stiffness_of(&format!("{column}stiffness = 50\n")), 50.0);
        // Shallow liquid keeps 100 m^2/s^2; a fast block sets it by its speed.
        let shallow = "[[liquid]]\nmin = [0, 0, 0]\nmax = [0.1, 0.05, 0.1]\n";
        assert_eq!(stiffness_of(shallow), 100.0);
        assert!((stiffness_of(&format!("{shallow}velocity = [0, 0, -3]\n")) - 900.0).abs() < 1e-9);
    }

    #[test]
    fn sideways_gravity_measures_the_depth_along_it() {
        let text =
            "gravity = [-9.81, 0, 0]\n[[liquid]]\nmin = [0, 0, 0]\nmax = [0.5, 0.05, 0.05]\n";
        assert!((stiffness_of(text) - 490.5).abs() < 1e-9);
    }
}
