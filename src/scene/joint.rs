//! The `[[joint]]` tables: a joint as a scene file describes it and its checks against the
//! scene's bodies. `sim::build` turns a checked table into a `joints::Joint` once the bodies
//! stand at their starting poses.
use super::body::BodySpec;
use super::locate::KeyPath;
use super::problem::{Checked, fail, finite3};
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// The name that stands for the static world in a joint's `bodies`.
pub const WORLD: &str = "world";

/// The kind of joint, as the scene names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointType {
    /// A fixed distance between two anchors.
    Distance,
    /// Two anchors that coincide.
    Ball,
    /// A ball joint whose two axes stay aligned, with optional angle limits.
    Hinge,
}

/// One `[[joint]]` table. Points and the axis are in world coordinates at time 0 (the bodies
/// as the scene places them). Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointSpec {
    /// Name, used in `joint_errors.csv`; `joint<index>` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// "distance", "ball" or "hinge".
    #[serde(rename = "type")]
    pub kind: JointType,
    /// The two bodies linked, by name; "world" is the static world.
    pub bodies: Vec<String>,
    /// Ball and hinge: the point where the bodies are held together, world frame at time 0, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<[f64; 3]>,
    /// Distance: the anchor on each body, world frame at time 0, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchors: Option<[[f64; 3]; 2]>,
    /// Distance: the length held, m; the anchors' distance at time 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// Hinge: the axis, world frame at time 0 (any length but zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<[f64; 3]>,
    /// Hinge: `[lowest, highest]` angle about the axis, degrees, from the starting pose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<[f64; 2]>,
    /// Fraction of the position error removed per step (Baumgarte factor), 0..1.
    #[serde(default = "default_stabilization")]
    pub stabilization: f64,
}

fn default_stabilization() -> f64 {
    1.0
}

impl JointSpec {
    /// The joint's name: its `name`, or `joint<index>`.
    pub fn name_or_default(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("joint{index}"))
    }

    /// Check every value of the table found at `at` that can be checked against the scene's
    /// body tables; a missing key is a problem of the table itself.
    pub fn check(&self, at: &KeyPath, bodies: &[BodySpec]) -> Checked {
        let problem = |key: &str, problem: String, fix: &str| -> Checked {
            fail(key_path(at, key), problem, fix)
        };
        if let Some(name) = &self.name
            && (name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            return problem(
                "name",
                format!("'{name}' is not a usable name"),
                "use letters, digits, '_' and '-' only, e.g. \"hinge\"",
            );
        }
        if self.bodies.len() != 2 {
            return problem(
                "bodies",
                format!("{} names given, not two", self.bodies.len()),
                "name the two bodies linked, e.g. bodies = [\"gate\", \"world\"] (\"world\" is the static world)",
            );
        }
        let mut dynamic = [false; 2];
        for (k, name) in self.bodies.iter().enumerate() {
            let key = format!("bodies[{k}]");
            if name == WORLD {
                if bodies.iter().any(|b| b.name == WORLD) {
                    return problem(
                        &key,
                        "\"world\" is both a body's name and the name of the static world".into(),
                        "rename the body called \"world\"",
                    );
                }
                continue;
            }
            match bodies.iter().find(|b| &b.name == name) {
                Some(b) => dynamic[k] = b.dynamic,
                None => {
                    let known: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
                    return problem(
                        &key,
                        format!("there is no body named '{name}'"),
                        &format!(
                            "use the name of a [[body]] ({}) or \"world\"",
                            if known.is_empty() {
                                "the scene has none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    );
                }
            }
        }
        if self.bodies[0] == self.bodies[1] {
            return problem(
                "bodies[1]",
                format!("the joint links '{}' to itself", self.bodies[0]),
                "name two different bodies, or one body and \"world\"",
            );
        }
        if !dynamic[0] && !dynamic[1] {
            return problem(
                "bodies",
                "neither end is a dynamic body, so the joint would hold nothing".into(),
                "link at least one body with dynamic = true",
            );
        }
        let only = |key: &str, given: bool, kinds: &str| -> Checked {
            if given {
                problem(
                    key,
                    format!("is not a key of a {} joint", self.type_name()),
                    &format!("remove it ({key} belongs to {kinds} joints)"),
                )
            } else {
                Ok(())
            }
        };
        match self.kind {
            JointType::Distance => {
                only("anchor", self.anchor.is_some(), "ball and hinge")?;
                only("axis", self.axis.is_some(), "hinge")?;
                only("limits", self.limits.is_some(), "hinge")?;
                let Some(anchors) = &self.anchors else {
                    return problem(
                        "",
                        "a distance joint needs its two anchors".into(),
                        "add anchors = [[x, y, z], [x, y, z]]: a point on each body, world frame at time 0",
                    );
                };
                if !finite3(&anchors[0]) || !finite3(&anchors[1]) {
                    return problem(
                        "anchors",
                        format!("{anchors:?} is not finite"),
                        "give two points of three numbers each, m",
                    );
                }
                let gap = (DVec3::from_array(anchors[0]) - DVec3::from_array(anchors[1])).length();
                match self.length {
                    Some(l) if !(l.is_finite() && l > 0.0) => {
                        return problem(
                            "length",
                            format!("{l} is not a positive length"),
                            "give the distance held in m, or leave it out to keep the anchors' distance at time 0",
                        );
                    }
                    None if gap == 0.0 => {
                        return problem(
                            "anchors",
                            "the two anchors coincide, so the distance held would be zero".into(),
                            "use type = \"ball\" for coinciding anchors, or give a length",
                        );
                    }
                    _ => {}
                }
            }
            JointType::Ball | JointType::Hinge => {
                only("anchors", self.anchors.is_some(), "distance")?;
                only("length", self.length.is_some(), "distance")?;
                match &self.anchor {
                    None => {
                        return problem(
                            "",
                            format!("a {} joint needs its anchor", self.type_name()),
                            "add anchor = [x, y, z]: the point where the bodies are held together, world frame at time 0",
                        );
                    }
                    Some(a) if !finite3(a) => {
                        return problem(
                            "anchor",
                            format!("{a:?} is not finite"),
                            "give three numbers, m",
                        );
                    }
                    _ => {}
                }
                if self.kind == JointType::Ball {
                    only("axis", self.axis.is_some(), "hinge")?;
                    only("limits", self.limits.is_some(), "hinge")?;
                } else {
                    self.check_hinge(at)?;
                }
            }
        }
        if !(self.stabilization.is_finite() && (0.0..=1.0).contains(&self.stabilization)) {
            return problem(
                "stabilization",
                format!("{} is outside [0, 1]", self.stabilization),
                "use a fraction between 0 (no drift correction) and 1 (the default)",
            );
        }
        Ok(())
    }

    fn check_hinge(&self, at: &KeyPath) -> Checked {
        let problem = |key: &str, problem: String, fix: &str| -> Checked {
            fail(key_path(at, key), problem, fix)
        };
        match &self.axis {
            None => {
                return problem(
                    "",
                    "a hinge joint needs its axis".into(),
                    "add axis = [x, y, z]: the direction of the hinge, world frame at time 0",
                );
            }
            Some(a) if !finite3(a) || DVec3::from_array(*a).length() == 0.0 => {
                return problem(
                    "axis",
                    format!("{a:?} is not a direction"),
                    "give a non-zero axis such as [0, 0, 1]",
                );
            }
            _ => {}
        }
        if let Some([lo, hi]) = self.limits
            && !(lo.is_finite()
                && hi.is_finite()
                && lo < hi
                && lo <= 0.0
                && hi >= 0.0
                && lo > -180.0
                && hi < 180.0)
        {
            return problem(
                "limits",
                format!("[{lo}, {hi}] is not a range of angles around the starting pose"),
                "give [lowest, highest] in degrees with -180 < lowest <= 0 <= highest < 180 (the starting pose is angle 0)",
            );
        }
        Ok(())
    }

    fn type_name(&self) -> &'static str {
        match self.kind {
            JointType::Distance => "distance",
            JointType::Ball => "ball",
            JointType::Hinge => "hinge",
        }
    }
}

/// `at` extended by a key relative to a joint's table, which may end in an index
/// (`bodies[1]`, `anchors[0]`); an empty key is the table itself.
pub fn key_path(at: &KeyPath, key: &str) -> KeyPath {
    if key.is_empty() {
        return at.clone();
    }
    match key.split_once('[') {
        Some((k, rest)) => match rest.trim_end_matches(']').parse::<usize>() {
            Ok(i) => at.key(k).index(i),
            Err(_) => at.key(key),
        },
        None => at.key(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies() -> Vec<BodySpec> {
        let text = r#"
            [[body]]
            name = "gate"
            shape = { type = "box", size = [0.02, 0.2, 0.1] }
            position = [1, 0, 0]
            [[body]]
            name = "post"
            shape = { type = "box", size = [0.1, 0.1, 0.1] }
            dynamic = false
            [[body]]
            name = "floor"
            shape = { type = "box", size = [1, 0.1, 1] }
            dynamic = false
        "#;
        #[derive(Deserialize)]
        struct B {
            body: Vec<BodySpec>,
        }
        toml::from_str::<B>(text).unwrap().body
    }

    fn spec(text: &str) -> JointSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn bad_keys_are_named_with_a_fix() {
        let b = bodies();
        let hinge = "type = \"hinge\"\nbodies = [\"gate\", \"world\"]\nanchor = [1, 0.1, 0]\n";
        for (text, key) in [
            (format!("{hinge}axis = [0, 0, 0]\n"), "axis"),
            (hinge.to_string(), ""),
            (
                hinge.replace("\"gate\", \"world\"", "\"gat\", \"world\""),
                "bodies[0]",
            ),
            (
                hinge.replace("\"gate\", \"world\"", "\"gate\", \"gate\""),
                "bodies[1]",
            ),
            (
                hinge.replace("\"gate\", \"world\"", "\"post\", \"floor\""),
                "bodies",
            ),
            (hinge.replace("\"gate\", \"world\"", "\"gate\""), "bodies"),
            (format!("{hinge}axis = [0, 0, 1]\nlimits = [10, 20]\n"), "limits"),
            (format!("{hinge}axis = [0, 0, 1]\nlength = 2\n"), "length"),
            (
                format!("{hinge}axis = [0, 0, 1]\nstabilization = 1.5\n"),
                "stabilization",
            ),
            (
                "type = \"ball\"\nbodies = [\"gate\", \"world\"]\n".into(),
                "",
            ),
            (
                "type = \"ball\"\nbodies = [\"gate\", \"world\"]\nanchor = [1, 0, 0]\naxis = [1, 0, 0]\n"
                    .into(),
                "axis",
            ),
            (
                "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchors = [[1, 0, 0], [1, 0, 0]]\n"
                    .into(),
                "anchors",
            ),
            (
                "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchors = [[1, 0, 0], [1, 1, 0]]\nlength = -1\n"
                    .into(),
                "length",
            ),
            (
                "type = \"distance\"\nbodies = [\"gate\", \"world\"]\nanchor = [1, 0, 0]\n".into(),
                "anchor",
            ),
            (
                format!("name = \"a b\"\n{hinge}axis = [0, 0, 1]\n"),
                "name",
            ),
        ] {
            let p = spec(&text).check(&KeyPath::new(), &b).unwrap_err();
            assert_eq!(p.path.to_string(), key, "{text}");
            assert!(!p.fix.is_empty());
        }
        assert!(
            spec(&format!("{hinge}axis = [0, 0, 2]\nlimits = [-10, 20]\n"))
                .check(&KeyPath::new(), &b)
                .is_ok()
        );
        assert!(
            toml::from_str::<JointSpec>("type = \"slider\"\nbodies = [\"gate\", \"world\"]\n")
                .is_err()
        );
    }
}
