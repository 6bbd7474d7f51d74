//! A `[[body]]`'s `motion`: a kinematic body's prescribed motion as the scene writes it, and
//! its checks. `sim::build` turns it into a `rigid::Motion` (reading a keyframe file).
use super::limits::{MAX_ANGULAR_SPEED, MAX_SPEED};
use super::locate::KeyPath;
use super::problem::{Checked, fail, finite3};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `motion = { type = ..., ... }`: how a kinematic body moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MotionSpec {
    /// Constant velocities from `start` to `stop` (a gate lifted at a set speed).
    Linear {
        /// Velocity of the centre of mass, m/s.
        #[serde(default)]
        velocity: [f64; 3],
        /// Angular velocity about the centre of mass, world frame, rad/s.
        #[serde(default)]
        angular_velocity: [f64; 3],
        /// When the motion starts, s.
        #[serde(default)]
        start: f64,
        /// When it stops, s; never when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop: Option<f64>,
    },
    /// A sinusoidal translation along `axis`, or with `rotation = true` a rotation about
    /// `axis` through `pivot` (a piston or a flap wave maker).
    Oscillate {
        /// The direction of the translation or the rotation's axis (any length but zero).
        axis: [f64; 3],
        /// Amplitude: m for a translation, degrees for a rotation.
        amplitude: f64,
        /// Period, s.
        period: f64,
        /// Phase, degrees.
        #[serde(default)]
        phase: f64,
        /// Time over which the amplitude ramps up from zero, s.
        #[serde(default)]
        ramp: f64,
        /// Rotate about `axis` through `pivot` instead of translating.
        #[serde(default)]
        rotation: bool,
        /// The rotation's pivot, m (rotation only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pivot: Option<[f64; 3]>,
    },
    /// Poses at times, from a CSV `file` (relative to the scene) or inline: rows
    /// `[t, x, y, z, qw, qx, qy, qz]`, the position being the one the body's `position` key
    /// means and the orientation body to world.
    Keyframes {
        /// A CSV file of rows `t,x,y,z,qw,qx,qy,qz` (a header line is allowed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<PathBuf>,
        /// The rows inline.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        keyframes: Option<Vec<[f64; 8]>>,
    },
}

impl MotionSpec {
    /// Check the motion found at `at` (a body's `motion` key) of a body placed at `position`.
    pub fn check(&self, at: &KeyPath, position: [f64; 3]) -> Checked {
        match self {
            MotionSpec::Linear {
                velocity,
                angular_velocity,
                start,
                stop,
            } => {
                for (key, v) in [("velocity", velocity), ("angular_velocity", angular_velocity)] {
                    if !finite3(v) {
                        return fail(at.key(key), format!("{v:?} is not finite"), "give three numbers");
                    }
                }
                let (v, w) = (len(velocity), len(angular_velocity));
                if v > MAX_SPEED {
                    return fail(
                        at.key("velocity"),
                        format!("{v:e} m/s is faster than {MAX_SPEED:e} m/s"),
                        "give a speed in m/s",
                    );
                }
                if w > MAX_ANGULAR_SPEED {
                    return fail(
                        at.key("angular_velocity"),
                        format!("{w:e} rad/s is faster than {MAX_ANGULAR_SPEED:e} rad/s"),
                        "give an angular speed in rad/s",
                    );
                }
                if !start.is_finite() {
                    return fail(at.key("start"), format!("{start} is not finite"), "give a time in s");
                }
                if let Some(stop) = stop
                    && !(stop.is_finite() && stop > start)
                {
                    return fail(
                        at.key("stop"),
                        format!("{stop} is not after start = {start}"),
                        "give a stop time after the start, or leave `stop` out to move until the end",
                    );
                }
                Ok(())
            }
            MotionSpec::Oscillate {
                axis,
                amplitude,
                period,
                phase,
                ramp,
                rotation,
                pivot,
            } => {
                if !len(axis).is_normal() {
                    return fail(
                        at.key("axis"),
                        format!("{axis:?} is not a direction"),
                        "give three finite numbers, not all zero, e.g. [1, 0, 0]",
                    );
                }
                if !amplitude.is_finite() {
                    return fail(
                        at.key("amplitude"),
                        format!("{amplitude} is not finite"),
                        "give the amplitude in m (degrees with rotation = true)",
                    );
                }
                if !(period.is_finite() && *period > 0.0) {
                    return fail(
                        at.key("period"),
                        format!("{period} is not a positive time"),
                        "give the period in s, e.g. period = 1.5",
                    );
                }
                // The peak speed of the swing: A 2 pi / T.
                let peak = amplitude.abs() * 2.0 * std::f64::consts::PI / period;
                let (limit, unit) = if *rotation {
                    (MAX_ANGULAR_SPEED.to_degrees(), "degrees/s")
                } else {
                    (MAX_SPEED, "m/s")
                };
                if peak > limit {
                    return fail(
                        at.key("amplitude"),
                        format!("the peak speed 2 pi amplitude / period = {peak:e} {unit} is faster than {limit:e} {unit}"),
                        "give a smaller amplitude or a longer period",
                    );
                }
                if !phase.is_finite() {
                    return fail(at.key("phase"), format!("{phase} is not finite"), "give the phase in degrees");
                }
                if !(ramp.is_finite() && *ramp >= 0.0) {
                    return fail(
                        at.key("ramp"),
                        format!("{ramp} is not a time >= 0"),
                        "give the ramp-up time in s, or 0 for none",
                    );
                }
                match (rotation, pivot) {
                    (true, None) => fail(
                        at.key("pivot"),
                        "a rotation needs the point it turns about".to_string(),
                        "give pivot = [x, y, z] in m, e.g. the flap's hinge",
                    ),
                    (false, Some(_)) => fail(
                        at.key("pivot"),
                        "a pivot given to a translation".to_string(),
                        "set rotation = true to turn about the pivot, or remove it",
                    ),
                    (true, Some(p)) if !finite3(p) => fail(
                        at.key("pivot"),
                        format!("{p:?} is not finite"),
                        "give three numbers in m",
                    ),
                    // The body's speed at the swing's peak: its angular speed times its
                    // distance from the pivot.
                    (true, Some(p)) => {
                        let r = len(&[position[0] - p[0], position[1] - p[1], position[2] - p[2]]);
                        let v = peak.to_radians() * r;
                        if v > MAX_SPEED || !v.is_finite() {
                            fail(
                                at.key("pivot"),
                                format!("{r:e} m from the body, where the swing moves it at {v:e} m/s, faster than {MAX_SPEED:e} m/s"),
                                "put the pivot at the flap's hinge, or give a smaller amplitude or a longer period",
                            )
                        } else {
                            Ok(())
                        }
                    }
                    _ => Ok(()),
                }
            }
            MotionSpec::Keyframes { file, keyframes } => match (file, keyframes) {
                (Some(_), Some(_)) | (None, None) => fail(
                    at.clone(),
                    "a keyframe motion needs either `file` or `keyframes`, and not both".to_string(),
                    "give file = \"motion.csv\" or keyframes = [[t, x, y, z, qw, qx, qy, qz], ...]",
                ),
                (None, Some(rows)) => {
                    check_keyframes(rows).map_err(|(k, problem)| {
                        super::problem::Problem::new(
                            at.key("keyframes").index(k),
                            problem,
                            "give rows [t, x, y, z, qw, qx, qy, qz] of finite numbers at strictly increasing times, with a nonzero quaternion",
                        )
                    })
                }
                (Some(_), None) => Ok(()),
            },
        }
    }
}

/// The length of a vector.
fn len(v: &[f64; 3]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Check keyframe rows: at least one, finite, strictly increasing times, nonzero quaternions,
/// and no faster than the scene's speed limits between rows; the index of the first bad row
/// and what is wrong with it.
pub fn check_keyframes(rows: &[[f64; 8]]) -> std::result::Result<(), (usize, String)> {
    if rows.is_empty() {
        return Err((0, "there are no keyframes".into()));
    }
    for (k, r) in rows.iter().enumerate() {
        if let Some(i) = r.iter().position(|v| !v.is_finite()) {
            return Err((k, format!("value {i} is {}", r[i])));
        }
        let norm = (r[4] * r[4] + r[5] * r[5] + r[6] * r[6] + r[7] * r[7]).sqrt();
        if !norm.is_normal() {
            return Err((k, format!("the quaternion's length {norm:e} is not usable")));
        }
        if k == 0 {
            continue;
        }
        let prev = rows[k - 1];
        if r[0] <= prev[0] {
            return Err((
                k,
                format!("time {} is not after the previous row's {}", r[0], prev[0]),
            ));
        }
        let dt = r[0] - prev[0];
        let v = len(&[r[1] - prev[1], r[2] - prev[2], r[3] - prev[3]]) / dt;
        if v.is_nan() || v > MAX_SPEED {
            return Err((
                k,
                format!(
                    "the body would move at {v:e} m/s from the previous row, faster than {MAX_SPEED:e} m/s"
                ),
            ));
        }
        let unit = |q: &[f64]| {
            let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
            [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
        };
        let (a, b) = (unit(&prev[4..]), unit(&r[4..]));
        let dot = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3])
            .abs()
            .min(1.0);
        let w = 2.0 * dot.acos() / dt;
        if w.is_nan() || w > MAX_ANGULAR_SPEED {
            return Err((
                k,
                format!(
                    "the body would turn at {w:e} rad/s from the previous row, faster than {MAX_ANGULAR_SPEED:e} rad/s"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn motion(text: &str) -> MotionSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn each_kind_is_checked_and_the_bad_key_named() {
        let at = KeyPath::new().key("body").index(0).key("motion");
        let ok = [
            "type = \"linear\"\nvelocity = [0, 0.5, 0]\nstart = 0.1\nstop = 0.5",
            "type = \"oscillate\"\naxis = [1, 0, 0]\namplitude = 0.05\nperiod = 1.2\nramp = 0.5",
            "type = \"oscillate\"\naxis = [0, 0, 1]\namplitude = 10\nperiod = 2\nrotation = true\npivot = [0, 0, 0]",
            "type = \"keyframes\"\nkeyframes = [[0, 0, 0, 0, 1, 0, 0, 0], [1, 0, 1, 0, 1, 0, 0, 0]]",
            "type = \"keyframes\"\nfile = \"motion.csv\"",
        ];
        for text in ok {
            assert!(motion(text).check(&at, [0.0; 3]).is_ok(), "{text}");
        }
        let bad = [
            (
                "type = \"linear\"\nstart = 1\nstop = 0.5",
                "body[0].motion.stop",
            ),
            (
                "type = \"oscillate\"\naxis = [0, 0, 0]\namplitude = 1\nperiod = 1",
                "body[0].motion.axis",
            ),
            (
                "type = \"oscillate\"\naxis = [1, 0, 0]\namplitude = 1\nperiod = 0",
                "body[0].motion.period",
            ),
            (
                "type = \"oscillate\"\naxis = [1, 0, 0]\namplitude = 1\nperiod = 1\nrotation = true",
                "body[0].motion.pivot",
            ),
            ("type = \"keyframes\"", "body[0].motion"),
            (
                "type = \"linear\"\nvelocity = [1e9, 0, 0]",
                "body[0].motion.velocity",
            ),
            (
                "type = \"oscillate\"\naxis = [1, 0, 0]\namplitude = 1e6\nperiod = 1",
                "body[0].motion.amplitude",
            ),
            (
                "type = \"oscillate\"\naxis = [1e-200, 0, 0]\namplitude = 1\nperiod = 1",
                "body[0].motion.axis",
            ),
            (
                "type = \"oscillate\"\naxis = [0, 0, 1]\namplitude = 10\nperiod = 1\nrotation = true\npivot = [1e300, 0, 0]",
                "body[0].motion.pivot",
            ),
            (
                "type = \"keyframes\"\nkeyframes = [[0, 0, 0, 0, 1, 0, 0, 0], [1e-9, 1e3, 0, 0, 1, 0, 0, 0]]",
                "body[0].motion.keyframes[1]",
            ),
            (
                "type = \"keyframes\"\nkeyframes = [[0, 0, 0, 0, 1, 0, 0, 0], [1e-9, 0, 0, 0, 0, 1, 0, 0]]",
                "body[0].motion.keyframes[1]",
            ),
            (
                "type = \"keyframes\"\nkeyframes = [[0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 1, 0, 1, 0, 0, 0]]",
                "body[0].motion.keyframes[1]",
            ),
        ];
        for (text, path) in bad {
            let e = motion(text).check(&at, [0.0; 3]).unwrap_err();
            assert_eq!(e.path.to_string(), path, "{text}: {}", e.problem);
        }
        // A motion with no period is a parse error naming the field.
        let e =
            toml::from_str::<MotionSpec>("type = \"oscillate\"\naxis = [1, 0, 0]\namplitude = 1")
                .unwrap_err();
        assert!(e.to_string().contains("period"), "{e}");
    }
}
