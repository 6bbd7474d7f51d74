//! A seeded fuzz of scene text: the shipped scenes mutated (values, deletions, truncation,
//! garbage, huge blocks, arrays of the wrong length), each run through `check` and, when it
//! passes and is small, a one-frame `run`, under an address-space limit. Every case must end
//! with exit 0, 1 or 2 (no signal, no panic, no abort) within 20 s, and write no NaN.
mod common;
use sphrigid::rng::XorShift;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The seed of the case stream: case `i` is the same on every machine.
const SEED: u64 = 21;
/// The longest a case's command may take.
const LIMIT: Duration = Duration::from_secs(20);
/// The address space each command may take (prlimit --as), bytes.
const ADDRESS_SPACE: u64 = 6 << 30;
/// Runs only cases whose points times substeps stay below this (a short run).
const RUN_WORK: f64 = 3e6;

const VALUES: &[&str] = &[
    "0",
    "-1",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "-inf",
    "1e-300",
    "1e9",
    "4294967296",
    "\"x\"",
    "0.5",
    "1e-4",
    "100000",
    "-0.0",
    "2",
    "[]",
    "[1, 2]",
    "true",
];

fn pick<'a, T>(rng: &mut XorShift, items: &'a [T]) -> &'a T {
    &items[(rng.next_u64() % items.len() as u64) as usize]
}

/// Byte spans of the numbers in `text` (after `=`, `[`, `,` or a space).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = (b[i].is_ascii_digit() || b[i] == b'-')
            && (i == 0 || matches!(b[i - 1], b' ' | b'=' | b'[' | b','));
        if starts {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"+-.".contains(&b[i])) {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// One mutation of `text`.
fn mutate_once(rng: &mut XorShift, text: &[u8]) -> Vec<u8> {
    let s = String::from_utf8_lossy(text).into_owned();
    let lines: Vec<&str> = s.lines().collect();
    match rng.next_u64() % 7 {
        0 => {
            let spans = numbers(&s);
            if spans.is_empty() {
                return text.to_vec();
            }
            let (a, b) = *pick(rng, &spans);
            let v = if rng.unit() < 0.3 {
                let x: f64 = s[a..b].parse().unwrap_or(1.0);
                format!("{:e}", x * 10f64.powi((rng.next_u64() % 9) as i32 - 4))
            } else {
                pick(rng, VALUES).to_string()
            };
            format!("{}{v}{}", &s[..a], &s[b..]).into_bytes()
        }
        1 if !lines.is_empty() => {
            let k = (rng.next_u64() % lines.len() as u64) as usize;
            let mut l = lines.clone();
            l.remove(k);
            (l.join("\n") + "\n").into_bytes()
        }
        2 => text[..(rng.next_u64() % (text.len() as u64 + 1)) as usize].to_vec(),
        3 => {
            let at = (rng.next_u64() % (text.len() as u64 + 1)) as usize;
            let junk: Vec<u8> = (0..1 + rng.next_u64() % 12)
                .map(|_| *pick(rng, b"[]{}=\".,#\n\xff\xfe\x00azZ09-e ".as_slice()))
                .collect();
            [&text[..at], &junk[..], &text[at..]].concat()
        }
        4 => {
            // A table repeated: [[liquid]] or [[body]] many times over.
            let head = if rng.unit() < 0.5 {
                "[[liquid]]"
            } else {
                "[[body]]"
            };
            let Some(start) = s.find(head) else {
                return text.to_vec();
            };
            let end = s[start + head.len()..]
                .find("\n[")
                .map_or(s.len(), |e| start + head.len() + e + 1);
            let block = &s[start..end];
            let times = *pick(rng, [2usize, 10, 300, 3000].as_slice());
            let mut out = s.clone();
            out.push('\n');
            for _ in 0..times {
                out.push_str(block);
                out.push('\n');
            }
            out.into_bytes()
        }
        5 => {
            // An array one entry longer or shorter.
            let arrays: Vec<usize> = s.match_indices('[').map(|(i, _)| i).collect();
            let Some(&a) = (!arrays.is_empty()).then(|| pick(rng, &arrays)) else {
                return text.to_vec();
            };
            let Some(close) = s[a..].find(']').map(|c| a + c) else {
                return text.to_vec();
            };
            let inner = &s[a + 1..close];
            let new = if rng.unit() < 0.5 {
                format!("{inner}, 1")
            } else {
                inner
                    .rsplit_once(',')
                    .map_or(String::new(), |(x, _)| x.to_string())
            };
            format!("{}[{new}]{}", &s[..a], &s[close + 1..]).into_bytes()
        }
        _ if !lines.is_empty() => {
            let k = (rng.next_u64() % lines.len() as u64) as usize;
            let mut l = lines.clone();
            l.insert(k, lines[k]);
            (l.join("\n") + "\n").into_bytes()
        }
        _ => text.to_vec(),
    }
}

/// Case `i` of the stream: a shipped scene and one to three mutations.
fn case(scenes: &[(String, String)], i: u64) -> (String, Vec<u8>) {
    let mut rng = XorShift::new(SEED ^ (i.wrapping_mul(0x1000_0001) + 1));
    let (name, text) = pick(&mut rng, scenes);
    let mut bytes = text.clone().into_bytes();
    for _ in 0..1 + rng.next_u64() % 3 {
        bytes = mutate_once(&mut rng, &bytes);
    }
    (name.clone(), bytes)
}

/// Run the binary with `args` under the address-space limit; the exit code, stdout, stderr
/// and wall time. A command past [`LIMIT`] is killed and reported as code `None`.
fn limited(args: &[&str]) -> (Option<i32>, String, String, Duration) {
    let bin = env!("CARGO_BIN_EXE_sphrigid");
    let mut cmd = if Path::new("/usr/bin/prlimit").exists() {
        let mut c = Command::new("/usr/bin/prlimit");
        c.arg(format!("--as={ADDRESS_SPACE}")).arg("--").arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let t0 = Instant::now();
    let mut child = cmd
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Drain the pipes on threads, so a chatty child never blocks on a full pipe.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let ho = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut so, &mut s);
        s
    });
    let he = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut se, &mut s);
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        if t0.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = t0.elapsed();
    let (out, err) = (ho.join().unwrap(), he.join().unwrap());
    let code = status.and_then(|s| {
        use std::os::unix::process::ExitStatusExt;
        s.code().or_else(|| s.signal().map(|sig| 128 + sig))
    });
    (code, out, err, took)
}

/// The number after `label` on a line of `check`'s summary.
fn summary_number(out: &str, label: &str) -> f64 {
    out.lines()
        .filter(|l| l.trim_start().starts_with(label))
        .map(|l| {
            l.trim_start()[label.len()..]
                .split_whitespace()
                .next()
                .and_then(|w| w.parse::<f64>().ok())
                .unwrap_or(0.0)
        })
        .sum()
}

/// Points times substeps of a checked scene, from `check`'s summary.
fn work(out: &str) -> f64 {
    let particles = summary_number(out, "particles");
    let body_points: f64 = out
        .lines()
        .filter(|l| l.trim_start().starts_with("body "))
        .filter_map(|l| {
            let before = &l[..l.find(" particles (")?];
            before.rsplit(' ').next()?.parse::<f64>().ok()
        })
        .sum();
    let substeps = out
        .lines()
        .find(|l| l.trim_start().starts_with("step "))
        .and_then(|l| {
            let before = &l[..l.find(" per frame")?];
            before.rsplit(' ').next()?.parse::<f64>().ok()
        })
        .unwrap_or(f64::INFINITY);
    (particles + body_points) * substeps
}

fn fuzz(cases: u64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut scenes: Vec<(String, String)> = std::fs::read_dir(root.join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    scenes.sort();
    let dir = tempfile::tempdir().unwrap();
    // Mesh paths in the scenes are relative to the scene file.
    std::os::unix::fs::symlink(root.join("scenes/meshes"), dir.path().join("meshes")).unwrap();
    let file: PathBuf = dir.path().join("case.toml");
    let mut ran = 0;
    let mut refused = 0;
    for i in 0..cases {
        let (name, bytes) = case(&scenes, i);
        std::fs::write(&file, &bytes).unwrap();
        let shown = || String::from_utf8_lossy(&bytes[..bytes.len().min(3000)]).into_owned();
        let f = file.to_str().unwrap();
        let (code, out, err, took) = limited(&["check", f, "--max-memory", "1G"]);
        assert!(
            matches!(code, Some(0 | 2)),
            "case {i} (from {name}): check ended with {code:?} after {took:?}\nstderr: {err}\nscene:\n{}",
            shown()
        );
        assert!(!err.contains("panicked"), "case {i}: {err}");
        if code == Some(2) {
            refused += 1;
            assert!(err.contains("error:"), "case {i}: {err}");
            continue;
        }
        if work(&out) > RUN_WORK {
            continue;
        }
        let run_dir = dir.path().join(format!("run{i}"));
        let (code, _, err, took) = limited(&[
            "run",
            f,
            "--frames",
            "1",
            "--backend",
            "cpu",
            "--quiet",
            "--max-memory",
            "1G",
            "--out",
            run_dir.to_str().unwrap(),
        ]);
        assert!(
            matches!(code, Some(0..=2)),
            "case {i} (from {name}): run ended with {code:?} after {took:?}\nstderr: {err}\nscene:\n{}",
            shown()
        );
        assert!(!err.contains("panicked"), "case {i}: {err}");
        if let Some(bad) = common::scan::non_finite_under(&run_dir) {
            panic!("case {i} (from {name}) wrote {bad}\nscene:\n{}", shown());
        }
        let _ = std::fs::remove_dir_all(&run_dir);
        ran += 1;
    }
    // The stream exercises both sides: scenes refused, and scenes run.
    assert!(refused > 0 && ran > 0, "refused {refused}, ran {ran}");
}

#[test]
fn the_first_80_mutated_scenes_end_cleanly() {
    fuzz(80);
}

#[test]
#[ignore = "validation tier: cargo test -- --include-ignored"]
fn a_thousand_mutated_scenes_end_cleanly() {
    fuzz(1000);
}
