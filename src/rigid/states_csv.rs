//! `OUT/rigid_states.csv`: one row per body and frame with its pose and velocities.
use super::body::RigidBody;

/// The header line (without newline).
pub const HEADER: &str = "frame,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz";

/// One row (without newline): the centre of mass, the orientation quaternion (body to world),
/// the linear velocity and the world-frame angular velocity, each in the shortest decimal
/// form that reads back exactly.
pub fn row(frame: u32, time: f64, body: &RigidBody) -> String {
    let (x, q, v, w) = (
        body.state.x,
        body.state.q,
        body.velocity(),
        body.angular_velocity(),
    );
    let mut s = format!("{frame},{},{}", num(time), body.name);
    for c in [
        x.x, x.y, x.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y, w.z,
    ] {
        s.push(',');
        s.push_str(&num(c));
    }
    s
}

/// The shortest decimal that reads back as exactly `v`: plain for moderate magnitudes,
/// scientific (`1.5e-7`) for tiny and huge ones.
fn num(v: f64) -> String {
    if v == 0.0 || (1e-4..1e7).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A parsed row of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct StateRow {
    /// Frame index.
    pub frame: u32,
    /// Time, s.
    pub time: f64,
    /// Body name.
    pub body: String,
    /// x y z qw qx qy qz vx vy vz wx wy wz.
    pub values: [f64; 13],
}

/// Parse the file's text (header checked); rows that do not parse are an error naming the line.
pub fn parse(text: &str) -> Result<Vec<StateRow>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(format!("first line is not the header '{HEADER}'"));
    }
    lines
        .enumerate()
        .map(|(i, line)| {
            let bad = || format!("line {}: cannot parse '{line}'", i + 2);
            let cols: Vec<&str> = line.split(',').collect();
            if cols.len() != 16 {
                return Err(bad());
            }
            let mut values = [0.0; 13];
            for (v, c) in values.iter_mut().zip(&cols[3..]) {
                *v = c.parse().map_err(|_| bad())?;
            }
            Ok(StateRow {
                frame: cols[0].parse().map_err(|_| bad())?,
                time: cols[1].parse().map_err(|_| bad())?,
                body: cols[2].to_string(),
                values,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::{Primitive, Shape};
    use glam::{DQuat, DVec3};

    #[test]
    fn row_round_trips_through_parse() {
        let shape = Shape::Primitive(Primitive::Sphere { radius: 0.5 });
        let mut b = RigidBody::new("ball", &shape, 1000.0, 0.1).unwrap();
        b.state.x = DVec3::new(1.0, -2.5, 1e-7);
        assert!(row(0, 0.0, &b).contains(",1e-7,"));
        b.state.q = DQuat::from_rotation_y(0.3);
        b.set_velocity(DVec3::new(0.1, 0.2, 0.3));
        b.set_angular_velocity(DVec3::new(-1.0, 0.0, 2.0));
        let text = format!("{HEADER}\n{}\n", row(7, 0.125, &b));
        let rows = parse(&text).unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.frame, r.time, r.body.as_str()), (7, 0.125, "ball"));
        assert_eq!(r.values[0..3], [1.0, -2.5, 1e-7]);
        assert_eq!(r.values[3], b.state.q.w);
        assert!(
            (DVec3::from_slice(&r.values[10..13]) - DVec3::new(-1.0, 0.0, 2.0)).length() < 1e-12
        );
        assert!(parse("frame,time\n").is_err());
    }
}
