//! What `--resume` checks before it writes anything: every frame file up to the checkpoint's
//! frame and every table against the sizes and CRC-32s the manifest recorded ([`check`]). A
//! missing, truncated or changed file is named, with the fix, as an input error (exit 2).
//! Manifests written before sums were recorded are accepted: their frames are checked for
//! presence and a non-zero size only.
use super::checksum::{Damage, FileSum, crc_of_prefix};
use super::manifest::ResumeRecord;
use super::run_dir::{
    BODY_LOADS, GAUGES, JOINT_ERRORS, RIGID_STATES, RUN_METRICS, RunDir, WALL_LOADS,
};
use crate::{Error, Result};
use std::collections::BTreeMap;

/// The sums of each frame's files, by frame index, as the resumed manifest lists them.
pub type FrameSums = BTreeMap<u32, BTreeMap<String, FileSum>>;

/// The size and CRC-32 of the file `name` of `run` as it is on disk, or what is wrong with it
/// (absent or empty) when there is no sum to check it against.
fn sum_on_disk(run: &RunDir, name: &str) -> std::result::Result<FileSum, Damage> {
    let path = run.join(name);
    let file = std::fs::File::open(&path).map_err(|_| Damage::Missing)?;
    let bytes = file.metadata().map_err(|_| Damage::Missing)?.len();
    if bytes == 0 {
        return Err(Damage::Truncated { bytes: 0 });
    }
    let crc32 = crc_of_prefix(file, bytes).ok_or(Damage::Changed)?;
    Ok(FileSum { bytes, crc32 })
}

/// Check the files of the earlier run in `run` that a resume from the checkpoint at frame
/// `frame` keeps: fluid and body frames 0 to `frame` (bodies named `bodies`) against `record`
/// (the earlier manifest), and the tables up to the lengths the checkpoint recorded
/// (`tables`: `rigid_states.csv`, `joint_errors.csv`, `run_metrics.csv`; `gauges.csv`,
/// `body_loads.csv` and `wall_loads.csv` up to what the manifest recorded of them). Returns every kept
/// frame's sums (read from disk where the manifest had none); any damage is an input error
/// that lists the damaged files and says what to do (`rerun`: the command that starts over).
pub fn check(
    run: &RunDir,
    record: &ResumeRecord,
    frame: u32,
    bodies: &[String],
    tables: [u64; 3],
    rerun: &str,
) -> Result<FrameSums> {
    let mut damaged: Vec<(String, Damage)> = Vec::new();
    let mut first_bad: Option<u32> = None;
    let mut unsummed = 0usize;
    let listed: BTreeMap<u32, _> = record.frames.iter().map(|f| (f.index, f)).collect();
    let mut out = FrameSums::new();
    for index in 0..=frame {
        let mut names = vec![RunDir::fluid_frame_name(index)];
        names.extend(bodies.iter().map(|b| RunDir::body_frame_name(b, index)));
        let recorded = listed.get(&index).map(|f| &f.checksums);
        let mut sums = BTreeMap::new();
        for name in names {
            let result = match recorded.and_then(|r| r.get(&name)) {
                Some(sum) => sum.check(&run.join(&name), false).map(|()| *sum),
                None => {
                    unsummed += 1;
                    sum_on_disk(run, &name)
                }
            };
            match result {
                Ok(sum) => {
                    sums.insert(name, sum);
                }
                Err(d) => {
                    first_bad.get_or_insert(index);
                    damaged.push((name, d));
                }
            }
        }
        out.insert(index, sums);
    }
    for (name, len) in [RIGID_STATES, JOINT_ERRORS, RUN_METRICS]
        .into_iter()
        .zip(tables)
    {
        if len == 0 {
            continue;
        }
        let path = run.join(name);
        let result = match record.tables.get(name) {
            Some(sum) => sum.check(&path, true),
            None => match std::fs::metadata(&path) {
                Err(_) => Err(Damage::Missing),
                Ok(m) if m.len() < len => Err(Damage::Truncated { bytes: m.len() }),
                Ok(_) => Ok(()),
            },
        };
        if let Err(d) = result {
            damaged.push((name.to_string(), d));
        }
    }
    // The gauges' and the loads' tables are cut at the checkpoint's step or frame, not at a
    // recorded length: what the manifest recorded of them must still be there.
    for name in [GAUGES, BODY_LOADS, WALL_LOADS] {
        if let Some(sum) = record.tables.get(name)
            && let Err(d) = sum.check(&run.join(name), true)
        {
            damaged.push((name.to_string(), d));
        }
    }
    if damaged.is_empty() {
        if unsummed > 0 && record.frames.iter().all(|f| f.checksums.is_empty()) {
            eprintln!(
                "note: {}: the manifest has no checksums (written by an older sphrigid): the earlier frames were checked for presence only",
                run.path().display()
            );
        }
        return Ok(out);
    }
    Err(Error::input(damage_message(
        run, &damaged, first_bad, frame, rerun,
    )))
}

/// The error of a resume refused over `damaged` files.
fn damage_message(
    run: &RunDir,
    damaged: &[(String, Damage)],
    first_bad: Option<u32>,
    frame: u32,
    rerun: &str,
) -> String {
    const SHOWN: usize = 8;
    let mut list: Vec<String> = damaged
        .iter()
        .take(SHOWN)
        .map(|(n, d)| format!("{n} ({d})"))
        .collect();
    if damaged.len() > SHOWN {
        list.push(format!("and {} more", damaged.len() - SHOWN));
    }
    let frames = first_bad.map_or(String::new(), |n| {
        format!(
            " The first damaged frame is {n}; the checkpoint (frame {frame}) can only continue a run whose earlier frames are all whole."
        )
    });
    format!(
        "{}: --resume: {} of the earlier run's files {} damaged: {}; nothing was written.{frames} fix: restore those files from a copy and resume again, or start the run over: {rerun}",
        run.path().display(),
        damaged.len(),
        if damaged.len() == 1 { "is" } else { "are" },
        list.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::manifest::ResumeFrame;

    #[test]
    fn damaged_frames_and_tables_are_named_and_intact_ones_pass() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        std::fs::create_dir_all(run.fluid_dir()).unwrap();
        let mut record = ResumeRecord::default();
        for i in 0..3u32 {
            let bytes = format!("frame {i}").into_bytes();
            std::fs::write(run.fluid_frame(i), &bytes).unwrap();
            record.frames.push(ResumeFrame {
                index: i,
                checksums: BTreeMap::from([(RunDir::fluid_frame_name(i), FileSum::of(&bytes))]),
            });
        }
        std::fs::write(run.run_metrics(), b"h\n1\n2\n").unwrap();
        record
            .tables
            .insert(RUN_METRICS.into(), FileSum::of(b"h\n1\n"));
        let sums = check(&run, &record, 2, &[], [0, 0, 4], "RERUN").unwrap();
        assert_eq!(sums.len(), 3);
        std::fs::write(run.fluid_frame(1), b"frame 9").unwrap();
        std::fs::write(run.fluid_frame(2), b"fr").unwrap();
        std::fs::write(run.run_metrics(), b"h\n7\n2\n").unwrap();
        let e = check(&run, &record, 2, &[], [0, 0, 4], "RERUN").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        for want in [
            "3 of the earlier run's files are damaged",
            "fluid/fluid_00001.ply (changed (checksum mismatch))",
            "fluid/fluid_00002.ply (truncated to 2 bytes)",
            "run_metrics.csv (changed",
            "The first damaged frame is 1;",
            "fix:",
            "RERUN",
        ] {
            assert!(msg.contains(want), "{want}: {msg}");
        }
        // Only frames up to the checkpoint's count.
        std::fs::write(run.run_metrics(), b"h\n1\n2\n").unwrap();
        std::fs::write(run.fluid_frame(1), b"frame 1").unwrap();
        assert!(check(&run, &record, 1, &[], [0, 0, 4], "RERUN").is_ok());
        // An older manifest without sums: presence only.
        for f in &mut record.frames {
            f.checksums.clear();
        }
        record.tables.clear();
        assert!(check(&run, &record, 2, &[], [0, 0, 4], "RERUN").is_ok());
        std::fs::remove_file(run.fluid_frame(1)).unwrap();
        let msg = check(&run, &record, 2, &[], [0, 0, 4], "RERUN")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("fluid/fluid_00001.ply (missing)"), "{msg}");
    }
}
