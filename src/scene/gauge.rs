//! The `[[gauge]]` tables: a water-height gauge on a vertical line or a pressure probe at a
//! point, sampled every frame (or every `every` steps) into `gauges.csv`; checked against the
//! container here, measured by `liquid::gauge`.
use super::liquid::Container;
use super::locate::KeyPath;
use super::problem::{Checked, fail};
use serde::{Deserialize, Serialize};

/// What a gauge measures, as the scene names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GaugeType {
    /// The liquid's surface height on the vertical line through `at = [x, z]`, m.
    Height,
    /// The liquid's mechanical pressure (pressure and near pressure) at `at = [x, y, z]`, Pa.
    Pressure,
}

/// One `[[gauge]]` table. Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaugeSpec {
    /// The gauge's column in `gauges.csv`.
    pub name: String,
    /// "height" or "pressure".
    #[serde(rename = "type")]
    pub kind: GaugeType,
    /// Height: `[x, z]` of the vertical line, m; pressure: `[x, y, z]` of the point, m.
    pub at: Vec<f64>,
    /// Sample every this many steps instead of at every frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u32>,
}

impl GaugeSpec {
    /// The point of a pressure gauge, or the line's `[x, z]` of a height gauge, as given.
    pub fn point(&self) -> [f64; 3] {
        match self.kind {
            GaugeType::Height => [self.at[0], f64::NAN, self.at[1]],
            GaugeType::Pressure => [self.at[0], self.at[1], self.at[2]],
        }
    }

    /// Check the table found at `at`: a usable name, as many coordinates as the kind takes,
    /// finite and inside the container, a positive `every`, and for a height gauge gravity
    /// along -y (the height is the world's y).
    pub fn check(
        &self,
        path: &KeyPath,
        container: Option<&Container>,
        gravity: [f64; 3],
    ) -> Checked {
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return fail(
                path.key("name"),
                format!("'{}' is not a usable name", self.name),
                "use letters, digits, '_' and '-' only, e.g. \"h1\" (it names a column of gauges.csv)",
            );
        }
        let (want, form) = match self.kind {
            GaugeType::Height => (
                2,
                "at = [x, z], the vertical line's horizontal position in m",
            ),
            GaugeType::Pressure => (3, "at = [x, y, z], the point in m"),
        };
        if self.at.len() != want {
            return fail(
                path.key("at"),
                format!(
                    "{} numbers given; a {} gauge takes {want}",
                    self.at.len(),
                    self.kind.word()
                ),
                format!("give {form}"),
            );
        }
        if let Some(k) = self.at.iter().position(|v| !v.is_finite()) {
            return fail(
                path.key("at"),
                format!("coordinate {k} is {}", self.at[k]),
                format!("give {form}"),
            );
        }
        if self.every == Some(0) {
            return fail(
                path.key("every"),
                "0 steps".to_string(),
                "give a step count of 1 or more, or leave `every` out to sample at every frame",
            );
        }
        let g = gravity[0].hypot(gravity[2]);
        if self.kind == GaugeType::Height && !(gravity[1] < 0.0 && g <= 1e-6 * gravity[1].abs()) {
            return fail(
                path.key("type"),
                format!("a height gauge measures along y, and gravity is {gravity:?}"),
                "point gravity along -y (e.g. gravity = [0, -9.81, 0]), or measure with a pressure gauge",
            );
        }
        match (self.kind, container) {
            (GaugeType::Height, None) => fail(
                path.key("type"),
                "a height gauge measures up from the container's floor, and the scene has no [container]".to_string(),
                "add a [container], or measure with a pressure gauge",
            ),
            (_, Some(c)) => {
                let p = self.point();
                let axes: &[usize] = match self.kind {
                    GaugeType::Height => &[0, 2],
                    GaugeType::Pressure => &[0, 1, 2],
                };
                for &a in axes {
                    if !(c.min[a]..=c.max[a]).contains(&p[a]) {
                        return fail(
                            path.key("at"),
                            format!(
                                "{} = {} lies outside the container ({} to {} m)",
                                ["x", "y", "z"][a],
                                p[a],
                                c.min[a],
                                c.max[a]
                            ),
                            "place the gauge inside the [container]",
                        );
                    }
                }
                Ok(())
            }
            (GaugeType::Pressure, None) => Ok(()),
        }
    }
}

impl GaugeType {
    /// The kind as the scene names it.
    pub fn word(self) -> &'static str {
        match self {
            GaugeType::Height => "height",
            GaugeType::Pressure => "pressure",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: [f64; 3] = [0.0, -9.81, 0.0];

    fn tank() -> Container {
        toml::from_str("min = [0, 0, 0]\nmax = [1, 0.5, 0.2]").unwrap()
    }

    fn gauge(text: &str) -> GaugeSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn gauges_inside_the_tank_pass_and_others_are_named() {
        let c = tank();
        let at = KeyPath::new().key("gauge").index(0);
        let h = gauge("name = \"h1\"\ntype = \"height\"\nat = [0.5, 0.1]");
        assert!(h.check(&at, Some(&c), G).is_ok());
        let p = gauge("name = \"p\"\ntype = \"pressure\"\nat = [0.5, 0.1, 0.1]\nevery = 5");
        assert!(p.check(&at, Some(&c), G).is_ok());
        let out = gauge("name = \"p\"\ntype = \"pressure\"\nat = [0.5, 0.7, 0.1]");
        let e = out.check(&at, Some(&c), G).unwrap_err();
        assert_eq!(e.path.to_string(), "gauge[0].at");
        assert!(e.problem.contains("y = 0.7 lies outside"), "{}", e.problem);
        let short = gauge("name = \"p\"\ntype = \"pressure\"\nat = [0.5, 0.1]");
        let e = short.check(&at, Some(&c), G).unwrap_err();
        assert!(e.problem.contains("2 numbers given"), "{}", e.problem);
        let zero = gauge("name = \"h\"\ntype = \"height\"\nat = [0.5, 0.1]\nevery = 0");
        assert_eq!(
            zero.check(&at, Some(&c), G).unwrap_err().path.to_string(),
            "gauge[0].every"
        );
        let open = gauge("name = \"h\"\ntype = \"height\"\nat = [0.5, 0.1]");
        assert!(
            open.check(&at, None, G)
                .unwrap_err()
                .problem
                .contains("no [container]")
        );
        let sideways = h.check(&at, Some(&c), [9.81, 0.0, 0.0]).unwrap_err();
        assert!(
            sideways.problem.contains("measures along y"),
            "{}",
            sideways.problem
        );
        let named = gauge("name = \"a b\"\ntype = \"height\"\nat = [0.5, 0.1]");
        assert_eq!(
            named.check(&at, Some(&c), G).unwrap_err().path.to_string(),
            "gauge[0].name"
        );
    }
}
