//! `OUT/run_metrics.csv`: per-frame figures of a run's health, one row per frame, appended
//! frame by frame; written by [`MetricsWriter`], read back by [`read`].
//!
//! Columns: `frame,time,kinetic,potential,energy,leak_depth,leak_body,leak_particle,`
//! `lcp_unsolved,lcp_residual,particles,emitted,removed,liquid_mass`: the mechanical energy (J; potential `-m g.x`, zero at the
//! origin), the deepest liquid particle centre inside a body (m; 0 with empty body and
//! particle when none lies inside), and over the steps since the previous frame the number
//! whose contact LCP missed the residual tolerance and the largest relative residual of the
//! contact LCPs applied (0 without bodies), then the liquid particles alive, those the
//! emitters have added and the outlets removed since time 0, and the liquid's mass (kg).
use super::csv::{self, AppendTable};
use super::run_dir::RunDir;
use crate::Result;

/// The header line (without newline).
pub const HEADER: &str = "frame,time,kinetic,potential,energy,leak_depth,leak_body,leak_particle,lcp_unsolved,lcp_residual,particles,emitted,removed,liquid_mass";

/// The figures of one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsRow {
    /// Frame index.
    pub frame: u32,
    /// Time, s.
    pub time: f64,
    /// Kinetic energy of liquid and bodies, J.
    pub kinetic: f64,
    /// Gravitational potential energy, J.
    pub potential: f64,
    /// The deepest liquid centre inside a body, m (0 when none).
    pub leak_depth: f64,
    /// The body it lies in and the particle's id, when one lies inside.
    pub leak: Option<(String, u32)>,
    /// Steps since the previous frame whose contact LCP missed the residual tolerance.
    pub lcp_unsolved: u32,
    /// The largest relative residual of the contact LCPs applied since the previous frame.
    pub lcp_residual: f64,
    /// Liquid particles alive.
    pub particles: u64,
    /// Particles the emitters have added since time 0.
    pub emitted: u64,
    /// Particles the outlets have removed since time 0.
    pub removed: u64,
    /// The liquid's mass, kg.
    pub liquid_mass: f64,
}

impl MetricsRow {
    /// Kinetic plus potential energy, J.
    pub fn energy(&self) -> f64 {
        self.kinetic + self.potential
    }

    /// The CSV line (without newline), numbers in the shortest form that reads back exactly.
    pub fn to_line(&self) -> String {
        let (body, particle) = match &self.leak {
            Some((b, id)) => (b.as_str(), id.to_string()),
            None => ("", String::new()),
        };
        format!(
            "{},{},{:e},{:e},{:e},{:e},{body},{particle},{},{:e},{},{},{},{:e}",
            self.frame,
            self.time,
            self.kinetic,
            self.potential,
            self.energy(),
            self.leak_depth,
            self.lcp_unsolved,
            self.lcp_residual,
            self.particles,
            self.emitted,
            self.removed,
            self.liquid_mass
        )
    }
}

fn parse_row(cols: &[&str]) -> Option<MetricsRow> {
    let leak = if cols[6].is_empty() {
        None
    } else {
        Some((cols[6].to_string(), cols[7].parse().ok()?))
    };
    Some(MetricsRow {
        frame: cols[0].parse().ok()?,
        time: cols[1].parse().ok()?,
        kinetic: cols[2].parse().ok()?,
        potential: cols[3].parse().ok()?,
        leak_depth: cols[5].parse().ok()?,
        leak,
        lcp_unsolved: cols[8].parse().ok()?,
        lcp_residual: cols[9].parse().ok()?,
        particles: cols[10].parse().ok()?,
        emitted: cols[11].parse().ok()?,
        removed: cols[12].parse().ok()?,
        liquid_mass: cols[13].parse().ok()?,
    })
}

/// Parse the file's text (header checked); rows that do not parse are an error naming the line.
#[cfg_attr(not(test), allow(dead_code))]
pub fn parse(text: &str) -> std::result::Result<Vec<MetricsRow>, String> {
    csv::parse(text, HEADER, parse_row)
}

/// Read the run's `run_metrics.csv`; a run written before the file existed has no rows.
pub fn read(run: &RunDir) -> Result<Vec<MetricsRow>> {
    csv::read(&run.run_metrics(), HEADER, parse_row)
}

/// The largest rise of the energy above frame 0's over the rows, as a fraction of frame 0's
/// magnitude (0 when it never rises; `None` without rows).
pub fn largest_energy_rise(rows: &[MetricsRow]) -> Option<f64> {
    let e0 = rows.first()?.energy();
    let scale = e0.abs().max(f64::MIN_POSITIVE);
    Some(
        rows.iter()
            .map(|r| (r.energy() - e0) / scale)
            .fold(0.0, f64::max),
    )
}

/// Keeps `run_metrics.csv` current: every frame appends its row in one write.
#[derive(Debug)]
pub struct MetricsWriter {
    table: AppendTable,
}

impl MetricsWriter {
    /// A writer for the run's `run_metrics.csv` (written with the first frame).
    pub fn new(run: &RunDir) -> MetricsWriter {
        MetricsWriter {
            table: AppendTable::new(run.run_metrics(), HEADER),
        }
    }

    /// The writer of a resumed run: the file cut back to the `len` bytes a checkpoint recorded.
    pub fn resume(run: &RunDir, len: u64) -> Result<MetricsWriter> {
        Ok(MetricsWriter {
            table: AppendTable::resume(run.run_metrics(), HEADER, len)?,
        })
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.table.len()
    }

    /// Length and CRC-32 of what is written so far (what the manifest records).
    pub fn sum(&self) -> super::checksum::FileSum {
        self.table.sum()
    }

    /// Whether nothing has been written yet.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Append the row of a frame.
    pub fn write_frame(&mut self, row: &MetricsRow) -> Result<()> {
        self.table.append(&format!("{}\n", row.to_line()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(frame: u32, kinetic: f64, potential: f64, leak: Option<(&str, u32)>) -> MetricsRow {
        MetricsRow {
            frame,
            time: frame as f64 / 30.0,
            kinetic,
            potential,
            leak_depth: if leak.is_some() { 1.25e-4 } else { 0.0 },
            leak: leak.map(|(b, i)| (b.to_string(), i)),
            lcp_unsolved: frame % 3,
            lcp_residual: 1.5e-12 * frame as f64,
            particles: 1000 + 10 * frame as u64,
            emitted: 30 * frame as u64,
            removed: 20 * frame as u64,
            liquid_mass: 1.0 + 0.01 * frame as f64,
        }
    }

    #[test]
    fn rows_round_trip_through_the_run_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        assert!(read(&run).unwrap().is_empty());
        let rows = [
            row(0, 0.0, 2.0, None),
            row(1, 0.5, 1.75, Some(("block", 17))),
            row(2, 0.1, 1.2, None),
        ];
        let mut w = MetricsWriter::new(&run);
        for r in &rows {
            w.write_frame(r).unwrap();
        }
        let back = read(&run).unwrap();
        assert_eq!(back, rows);
        // Frame 1 rose by 0.25 J above 2 J: 12.5%.
        assert_eq!(largest_energy_rise(&back), Some(0.125));
        assert_eq!(largest_energy_rise(&back[2..]), Some(0.0));
        assert_eq!(largest_energy_rise(&[]), None);
        std::fs::write(run.run_metrics(), format!("{HEADER}\n1,2\n")).unwrap();
        let e = read(&run).unwrap_err().to_string();
        assert!(e.contains("run_metrics.csv: line 2"), "{e}");
    }
}
