//! A body's motion over a run: tilt from vertical and centre of mass, from `rigid_states.csv`.
use crate::output::rigid_states::StateRow;
#[cfg(test)]
use crate::output::rigid_states::tilt_deg;
use glam::DVec3;
use std::fmt::Write;

/// The CSV header of `<body>_motion.csv`.
pub const HEADER: &str = "frame,time,tilt_deg,x,y,z";

/// One sample of a body's motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionSample {
    /// Frame index.
    pub frame: u32,
    /// Time, s.
    pub time: f64,
    /// Angle between the body's up axis (its own y axis) and the vertical, degrees.
    pub tilt_deg: f64,
    /// Centre of mass, m.
    pub com: DVec3,
}

/// The motion of body `name` from the rows of `rigid_states.csv`, in file order; empty when
/// the body has no rows.
pub fn of_body(rows: &[StateRow], name: &str) -> Vec<MotionSample> {
    rows.iter()
        .filter(|r| r.body == name)
        .map(|r| MotionSample {
            frame: r.frame,
            time: r.time,
            tilt_deg: r.tilt_deg(),
            com: DVec3::from_slice(&r.values[0..3]),
        })
        .collect()
}

/// The CSV text of `samples`, numbers in the shortest form that reads back exactly.
pub fn to_csv(samples: &[MotionSample]) -> String {
    let mut s = format!("{HEADER}\n");
    for m in samples {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{}",
            m.frame, m.time, m.tilt_deg, m.com.x, m.com.y, m.com.z
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    fn row(frame: u32, q: DQuat, y: f64) -> StateRow {
        let mut values = [0.0; 13];
        values[1] = y;
        values[3..7].copy_from_slice(&[q.w, q.x, q.y, q.z]);
        StateRow {
            frame,
            time: frame as f64 * 0.1,
            body: "b".into(),
            values,
        }
    }

    #[test]
    fn tilt_is_the_angle_of_the_body_up_axis_from_vertical() {
        let q0 = DQuat::from_rotation_z(30f64.to_radians());
        assert!((tilt_deg(q0) - 30.0).abs() < 1e-9);
        assert!(tilt_deg(DQuat::IDENTITY).abs() < 1e-12);
        // A spin about the vertical does not tilt; a turn about x or z does.
        assert!((tilt_deg(DQuat::from_rotation_y(1.0) * q0) - 30.0).abs() < 1e-9);
        assert!(tilt_deg(DQuat::from_rotation_y(2.5)).abs() < 1e-9);
        assert!((tilt_deg(DQuat::from_rotation_x(0.5)) - 0.5f64.to_degrees()).abs() < 1e-9);
        assert!((tilt_deg(DQuat::from_rotation_z(-2.0)) - 2.0f64.to_degrees()).abs() < 1e-9);
        // Upside down is 180 degrees; lying on its side 90.
        assert!((tilt_deg(DQuat::from_rotation_x(std::f64::consts::PI)) - 180.0).abs() < 1e-9);
        assert!(
            (tilt_deg(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2)) - 90.0).abs() < 1e-9
        );
        let rows = vec![
            row(0, q0, 1.0),
            StateRow {
                body: "other".into(),
                ..row(0, DQuat::IDENTITY, 5.0)
            },
            row(1, DQuat::from_rotation_z(0.25) * q0, 0.9),
        ];
        let m = of_body(&rows, "b");
        assert_eq!(m.len(), 2);
        assert!((m[0].tilt_deg - 30.0).abs() < 1e-9);
        assert!((m[1].tilt_deg - 30.0 - 0.25f64.to_degrees()).abs() < 1e-9);
        assert_eq!(m[1].com.y, 0.9);
        assert!(of_body(&rows, "nobody").is_empty());
        let csv = to_csv(&m);
        assert!(csv.starts_with("frame,time,tilt_deg,x,y,z\n0,0,"), "{csv}");
        assert!(csv.lines().nth(1).unwrap().ends_with(",0,1,0"));
        assert_eq!(csv.lines().count(), 3);
    }
}
