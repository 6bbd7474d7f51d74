//! The sweep directory of `sphrigid sweep` and `collect`: [`SweepDir`] names every file in it,
//! and this module writes and reads them.
//!
//! | file | contents |
//! |---|---|
//! | `jobs.txt` | one `sphrigid run ...` line per run, runnable from the directory |
//! | `sweep.json` | the scene, the keys, the values and the run names ([`SweepSpec`]) |
//! | `sweep.slurm` | a Slurm job-array script that runs line `SLURM_ARRAY_TASK_ID + 1` of `jobs.txt` |
//! | `runs/<name>/` | each run's directory (see [`super::RunDir`]) |
//! | `logs/` | the runs' logs (`--jobs` and Slurm) |
//! | `sweep.csv` | one row per run, written by `collect` |
use super::run_dir::RunDir;
use super::write::{create_dir, write_atomic};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The folder of the runs, relative to the sweep directory.
pub const RUNS_DIR: &str = "runs";
/// The folder of the logs, relative to the sweep directory.
pub const LOGS_DIR: &str = "logs";

/// A sweep's directory: where each of its files lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepDir {
    dir: PathBuf,
}

impl SweepDir {
    /// The sweep directory `dir` (nothing is created or checked).
    pub fn new(dir: &Path) -> SweepDir {
        SweepDir {
            dir: dir.to_path_buf(),
        }
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// `DIR/jobs.txt`.
    pub fn jobs(&self) -> PathBuf {
        self.dir.join("jobs.txt")
    }

    /// `DIR/sweep.json`.
    pub fn spec(&self) -> PathBuf {
        self.dir.join("sweep.json")
    }

    /// `DIR/sweep.slurm`.
    pub fn slurm(&self) -> PathBuf {
        self.dir.join("sweep.slurm")
    }

    /// `DIR/sweep.csv`.
    pub fn csv(&self) -> PathBuf {
        self.dir.join("sweep.csv")
    }

    /// `DIR/logs/`.
    pub fn logs_dir(&self) -> PathBuf {
        self.dir.join(LOGS_DIR)
    }

    /// `DIR/logs/<name>.log`, the log of a run started by `--jobs`.
    pub fn log(&self, name: &str) -> PathBuf {
        self.logs_dir().join(format!("{name}.log"))
    }

    /// The output directory of run `name`, relative to the sweep directory (as `jobs.txt`
    /// gives it).
    pub fn run_name(name: &str) -> String {
        format!("{RUNS_DIR}/{name}")
    }

    /// The run directory of run `name`.
    pub fn run(&self, name: &str) -> RunDir {
        RunDir::new(&self.dir.join(Self::run_name(name)))
    }
}

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRun {
    /// Its name, readable from its values (`sigma-0.5_spacing-0.02`).
    pub name: String,
    /// Its value of each key, in the order of [`SweepSpec::keys`], as typed.
    pub values: Vec<String>,
    /// Its output directory, relative to the sweep directory.
    pub out: String,
}

/// `sweep.json`: what a sweep runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepSpec {
    /// The scene file, as the job lines give it.
    pub scene: String,
    /// The varied keys, dotted paths as `--set` takes them.
    pub keys: Vec<String>,
    /// The values of each key, as typed.
    pub values: Vec<Vec<String>>,
    /// `--frames` given to every run, if any.
    pub frames: Option<u32>,
    /// `--backend` given to every run, if any.
    pub backend: Option<String>,
    /// The runs, in the order of the job lines (the Cartesian product, the last key fastest).
    pub runs: Vec<SweepRun>,
}

impl SweepSpec {
    /// The arguments after `sphrigid` that run `run` (from the sweep directory).
    pub fn run_args(&self, run: &SweepRun) -> Vec<String> {
        let mut args = vec!["run".to_string(), self.scene.clone()];
        for (k, v) in self.keys.iter().zip(&run.values) {
            args.push("--set".into());
            args.push(format!("{k}={v}"));
        }
        if let Some(f) = self.frames {
            args.extend(["--frames".to_string(), f.to_string()]);
        }
        if let Some(b) = &self.backend {
            args.extend(["--backend".to_string(), b.clone()]);
        }
        // --resume: a job run again (a Slurm task resubmitted after a kill or a time limit)
        // continues its run from the checkpoint, and one already finished ends at once.
        args.extend(
            ["--quiet", "--resume", "--out"]
                .map(String::from)
                .into_iter()
                .chain([run.out.clone()]),
        );
        args
    }

    /// The line of `jobs.txt` for `run`: `sphrigid` and [`Self::run_args`], quoted for sh.
    pub fn job_line(&self, run: &SweepRun) -> String {
        std::iter::once("sphrigid".to_string())
            .chain(self.run_args(run).iter().map(|a| shell_quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The text of `jobs.txt`.
    pub fn jobs_text(&self) -> String {
        self.runs.iter().map(|r| self.job_line(r) + "\n").collect()
    }
}

/// `s` as one word for sh: unchanged when it is made of safe characters, else single-quoted.
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=+:,@%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The text of `sweep.slurm` for `runs` job lines: a job array whose task `i` runs line
/// `i + 1` of `jobs.txt` from the sweep directory (where `sbatch sweep.slurm` was typed).
pub fn slurm_script(runs: usize) -> String {
    format!(
        r#"#!/bin/bash
# A Slurm job array over jobs.txt, written by `sphrigid sweep`: submit it from this directory
# with `sbatch sweep.slurm`; task i runs line i + 1 of jobs.txt. `sphrigid` must be on PATH.
#SBATCH --job-name=sphrigid-sweep
#SBATCH --array=0-{last}
#SBATCH --output=logs/%x_%A_%a.log
#SBATCH --cpus-per-task=4
set -euo pipefail
cd "${{SLURM_SUBMIT_DIR:-$(dirname "$0")}}"
task="${{SLURM_ARRAY_TASK_ID:?run this script as a Slurm job array (sbatch sweep.slurm)}}"
line="$(sed -n "$((task + 1))p" jobs.txt)"
if [ -z "$line" ]; then
  echo "sweep.slurm: jobs.txt has no line $((task + 1)) for task $task" >&2
  exit 2
fi
echo "task $task: $line" >&2
eval "$line"
"#,
        last = runs.saturating_sub(1)
    )
}

/// Write `jobs.txt`, `sweep.json` and `sweep.slurm` (and create `logs/`) in `dir`. A directory
/// that already holds a different sweep is refused, so its runs are never mixed with another's.
pub fn write(dir: &SweepDir, spec: &SweepSpec) -> Result<()> {
    if dir.spec().exists() {
        let same = read_spec(dir).is_ok_and(|old| old == *spec);
        if !same {
            return Err(Error::input(format!(
                "{}: the directory already holds another sweep; fix: give a new --out, or remove it first",
                dir.spec().display()
            )));
        }
    }
    create_dir(&dir.logs_dir())?;
    let json = serde_json::to_vec_pretty(spec).expect("a sweep serialises");
    write_atomic(&dir.spec(), &json)?;
    write_atomic(&dir.jobs(), spec.jobs_text().as_bytes())?;
    write_atomic(&dir.slurm(), slurm_script(spec.runs.len()).as_bytes())
}

/// Read `DIR/sweep.json`; a missing or unreadable one is an input error naming it.
pub fn read_spec(dir: &SweepDir) -> Result<SweepSpec> {
    let path = dir.spec();
    let fail = |why: String| {
        Error::input(format!(
            "{}: {why}; fix: give the --out directory of a `sphrigid sweep` (the one holding sweep.json)",
            path.display()
        ))
    };
    let text = crate::bounded_read::read_text_with(&path, &crate::bounded_read::SWEEP_FILE, |e| {
        fail(format!("cannot read it ({e})"))
    })?;
    let spec: SweepSpec =
        serde_json::from_str(&text).map_err(|e| fail(format!("not a sweep file ({e})")))?;
    if spec.values.len() != spec.keys.len()
        || spec.runs.iter().any(|r| r.values.len() != spec.keys.len())
    {
        return Err(fail("its runs do not give one value per key".into()));
    }
    Ok(spec)
}

/// One field of a CSV row, quoted when it holds a comma, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Write `DIR/sweep.csv`: the header and the rows, fields quoted as needed.
pub fn write_table(dir: &SweepDir, header: &[String], rows: &[Vec<String>]) -> Result<()> {
    let line = |fields: &[String]| {
        fields
            .iter()
            .map(|f| csv_field(f))
            .collect::<Vec<_>>()
            .join(",")
            + "\n"
    };
    let mut text = line(header);
    for r in rows {
        text.push_str(&line(r));
    }
    write_atomic(&dir.csv(), text.as_bytes())
}

/// Parse CSV text as [`write_table`] writes it: the header and the rows, quotes removed.
#[cfg_attr(not(test), allow(dead_code))]
pub fn parse_table(text: &str) -> std::result::Result<(Vec<String>, Vec<Vec<String>>), String> {
    let mut records = Vec::new();
    let (mut field, mut record) = (String::new(), Vec::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    let mut it = records.into_iter();
    let header = it.next().ok_or("the table is empty")?;
    let rows: Vec<Vec<String>> = it.collect();
    if let Some((i, _)) = rows
        .iter()
        .enumerate()
        .find(|(_, r)| r.len() != header.len())
    {
        return Err(format!("line {}: not {} fields", i + 2, header.len()));
    }
    Ok((header, rows))
}

/// Read `DIR/sweep.csv` back as its header and rows.
#[cfg_attr(not(test), allow(dead_code))]
pub fn read_table(dir: &SweepDir) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let path = dir.csv();
    let text = crate::bounded_read::read_text(&path, &crate::bounded_read::SWEEP_FILE)?;
    parse_table(&text).map_err(|e| {
        Error::input(format!(
            "{}: {e}; fix: run `sphrigid collect` again to rewrite it",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SweepSpec {
        SweepSpec {
            scene: "/s/my scene.toml".into(),
            keys: vec!["liquid.0.viscosity.sigma".into(), "gravity".into()],
            values: vec![vec!["0.5".into()], vec!["[0, -9.81, 0]".into()]],
            frames: Some(3),
            backend: Some("cpu".into()),
            runs: vec![SweepRun {
                name: "sigma-0.5_gravity-0-9.81-0".into(),
                values: vec!["0.5".into(), "[0, -9.81, 0]".into()],
                out: SweepDir::run_name("sigma-0.5_gravity-0-9.81-0"),
            }],
        }
    }

    #[test]
    fn job_lines_quote_what_sh_would_split() {
        let s = spec();
        assert_eq!(
            s.job_line(&s.runs[0]),
            "sphrigid run '/s/my scene.toml' --set liquid.0.viscosity.sigma=0.5 \
             --set 'gravity=[0, -9.81, 0]' --frames 3 --backend cpu --quiet --resume \
             --out runs/sigma-0.5_gravity-0-9.81-0"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn the_files_round_trip_and_another_sweep_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = SweepDir::new(tmp.path());
        let s = spec();
        write(&dir, &s).unwrap();
        assert_eq!(read_spec(&dir).unwrap(), s);
        // Writing the same sweep again is harmless; a different one is refused.
        write(&dir, &s).unwrap();
        let mut other = s.clone();
        other.frames = Some(4);
        let e = write(&dir, &other).unwrap_err().to_string();
        assert!(e.contains("sweep.json") && e.contains("fix:"), "{e}");
        assert_eq!(read_spec(&dir).unwrap(), s);
        let slurm = std::fs::read_to_string(dir.slurm()).unwrap();
        assert!(slurm.contains("#SBATCH --array=0-0\n"), "{slurm}");
        assert!(dir.logs_dir().is_dir());
    }

    #[test]
    fn tables_round_trip_with_quoted_fields() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = SweepDir::new(tmp.path());
        let header: Vec<String> = ["name", "gravity", "note"].map(String::from).into();
        let rows = vec![
            ["a", "[0, -9.81, 0]", "say \"hi\""]
                .map(String::from)
                .into(),
            ["b", "", "x"].map(String::from).into(),
        ];
        write_table(&dir, &header, &rows).unwrap();
        assert_eq!(read_table(&dir).unwrap(), (header, rows));
        assert!(parse_table("a,b\n1\n").unwrap_err().contains("line 2"));
    }
}
