//! A kinematic body's motion from its scene table: degrees to radians, the period to a
//! frequency, and keyframes (inline or read from their file) from the pose the body's
//! `position` key means to its centre of mass.
use crate::rigid::motion::Motion;
use crate::scene::body::BodySpec;
use crate::scene::keyframe_file;
use crate::scene::motion::MotionSpec;
use crate::{Error, Result};
use glam::{DQuat, DVec3};
use std::path::Path;

/// The motion of the checked body table `spec` (`m` its `motion`), whose shape has its centre of
/// mass at `com` in its own coordinates; a keyframe file is read relative to `base_dir`.
pub fn motion(spec: &BodySpec, m: &MotionSpec, com: DVec3, base_dir: &Path) -> Result<Motion> {
    Ok(match m {
        MotionSpec::Linear {
            velocity,
            angular_velocity,
            start,
            stop,
        } => Motion::Linear {
            velocity: DVec3::from_array(*velocity),
            angular_velocity: DVec3::from_array(*angular_velocity),
            start: *start,
            stop: stop.unwrap_or(f64::INFINITY),
        },
        MotionSpec::Oscillate {
            axis,
            amplitude,
            period,
            phase,
            ramp,
            rotation,
            pivot,
        } => Motion::Oscillate {
            axis: DVec3::from_array(*axis).normalize(),
            amplitude: if *rotation {
                amplitude.to_radians()
            } else {
                *amplitude
            },
            omega: 2.0 * std::f64::consts::PI / period,
            phase: phase.to_radians(),
            ramp: *ramp,
            pivot: pivot.map(DVec3::from_array),
        },
        MotionSpec::Keyframes { file, keyframes } => {
            let rows = match (file, keyframes) {
                (Some(f), _) => keyframe_file::read(&base_dir.join(f))?,
                (None, Some(rows)) => rows.clone(),
                (None, None) => {
                    return Err(Error::input(format!(
                        "body '{}': a keyframe motion has no keyframes; fix: give file or keyframes",
                        spec.name
                    )));
                }
            };
            let orientations: Vec<DQuat> = rows
                .iter()
                .map(|r| DQuat::from_xyzw(r[5], r[6], r[7], r[4]).normalize())
                .collect();
            Motion::Keyframes {
                times: rows.iter().map(|r| r[0]).collect(),
                positions: rows
                    .iter()
                    .zip(&orientations)
                    .map(|(r, q)| DVec3::new(r[1], r[2], r[3]) + *q * com)
                    .collect(),
                orientations,
            }
        }
    })
}
