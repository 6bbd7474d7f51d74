//! A seeded fuzz of scene text: the shipped scenes mutated (values, deletions, truncation,
//! garbage, huge blocks, arrays of the wrong length, values that drive a derived quantity to an
//! extreme, bodies moved onto each other or into a wall), each run through `check` and, when it
//! passes and is small, a one-frame `run`, under an address-space limit. Every case must end
//! with exit 0, 1 or 2 (no signal, no panic, no abort) within 30 s and write no NaN, and a
//! refusal (exit 2) must name the file and the place (a line, a key or a byte). Every 25th
//! case is a special file instead (a device, a FIFO, a directory, a sparse 3 GiB file, a
//! symlink loop, 40 MB of comments), which `check`, `run` and `lcp solve` must each refuse
//! with exit 2 naming it.
use crate::common;
use sphrigid::rng::XorShift;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The seed of the case stream: case `i` is the same on every machine.
const SEED: u64 = 21;
/// The longest a case's command may take.
const LIMIT: Duration = Duration::from_secs(30);
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
    "-1e12",
    "1e20",
    "-1e30",
    "1e-9",
];

/// Keys whose values drive derived quantities (steps per frame, settling steps, particles).
const DRIVERS: &[(&str, &[&str])] = &[
    (
        "gravity",
        &[
            "[0, -1e12, 0]",
            "[0, -1e20, 0]",
            "[0, -1e30, 0]",
            "[1e15, 0, 0]",
        ],
    ),
    ("spacing", &["1e-5", "1e-9", "2.5"]),
    ("fps", &["1e-3", "1e6"]),
    ("stiffness", &["1e10", "1e-12"]),
    ("kernel_radius", &["7.9", "1.01"]),
    ("duration", &["1e9", "1e-9"]),
    ("size", &["[1e4, 1e4, 1e4]", "[1e-4, 1e-4, 1e-4]"]),
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
    match rng.next_u64() % 9 {
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
        6 if !lines.is_empty() => {
            let k = (rng.next_u64() % lines.len() as u64) as usize;
            let mut l = lines.clone();
            l.insert(k, lines[k]);
            (l.join("\n") + "\n").into_bytes()
        }
        7 => {
            // A value that drives a derived quantity to an extreme.
            let (key, values) = *pick(rng, DRIVERS);
            let at: Vec<usize> = s
                .match_indices(key)
                .map(|(i, _)| i)
                .filter(|&i| s[i + key.len()..].trim_start().starts_with('='))
                .collect();
            let Some(&a) = (!at.is_empty()).then(|| pick(rng, &at)) else {
                return text.to_vec();
            };
            let line_end = s[a..].find('\n').map_or(s.len(), |e| a + e);
            let v = pick(rng, values);
            format!("{}{key} = {v}{}", &s[..a], &s[line_end..]).into_bytes()
        }
        8 => {
            // A body moved onto another body, into the floor or into a wall.
            let at: Vec<usize> = s
                .match_indices("position")
                .map(|(i, _)| i)
                .filter(|&i| s[i + 8..].trim_start().starts_with('='))
                .collect();
            let Some(&a) = (!at.is_empty()).then(|| pick(rng, &at)) else {
                return text.to_vec();
            };
            let line_end = s[a..].find('\n').map_or(s.len(), |e| a + e);
            let v = if rng.unit() < 0.5 && at.len() > 1 {
                // Another table's position: the two overlap wholly.
                let &b = pick(rng, &at);
                let b_end = s[b..].find('\n').map_or(s.len(), |e| b + e);
                s[b..b_end]["position".len()..].trim_start()[1..]
                    .trim()
                    .to_string()
            } else {
                let x = |r: &mut XorShift| *pick(r, [0.0, 0.005, -0.01, 0.3].as_slice());
                format!("[{}, {}, {}]", x(rng), x(rng), x(rng))
            };
            format!("{}position = {v}{}", &s[..a], &s[line_end..]).into_bytes()
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

/// Points times the steps up to the first frame (settling and one frame's substeps) of a
/// checked scene, from `check`'s summary.
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
    // Settling before time 0 runs its steps before the first frame.
    let settling = out
        .lines()
        .find(|l| l.trim_start().starts_with("settling "))
        .and_then(|l| l.trim_start()["settling".len()..].split_whitespace().next())
        .and_then(|w| w.parse::<f64>().ok())
        .unwrap_or(0.0);
    (particles + body_points) * (substeps + settling)
}

/// Every this many cases, one names a file that is not a scene: a device, a FIFO, a
/// directory, a huge file, a symlink loop.
const SPECIAL_EVERY: u64 = 25;

/// Special file `k` of the stream given to `check` and `run` (and `lcp solve`): each must be
/// refused with exit 2 naming the path, without reading it whole or waiting on it.
fn special_file(dir: &Path, k: u64) {
    let path = match k % 8 {
        0 => PathBuf::from("/dev/zero"),
        1 => PathBuf::from("/dev/urandom"),
        2 => {
            let p = dir.join(format!("fifo{k}.toml"));
            let made = Command::new("mkfifo").arg(&p).status();
            assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", p.display());
            p
        }
        3 => {
            let p = dir.join(format!("folder{k}.toml"));
            std::fs::create_dir_all(&p).unwrap();
            p
        }
        4 => {
            // A sparse file of 3 GiB: reading it whole would pass the address-space limit.
            let p = dir.join(format!("sparse{k}.toml"));
            let f = std::fs::File::create(&p).unwrap();
            f.set_len(3 << 30).unwrap();
            p
        }
        5 => PathBuf::from("/dev/null"),
        6 => {
            let p = dir.join(format!("loop{k}.toml"));
            let _ = std::fs::remove_file(&p);
            std::os::unix::fs::symlink(&p, &p).unwrap();
            p
        }
        _ => {
            // 40 MB of valid TOML comments: a scene file far past any real one.
            let p = dir.join(format!("huge{k}.toml"));
            std::fs::write(&p, "# a comment line of a scene file\n".repeat(1 << 20)).unwrap();
            p
        }
    };
    let f = path.to_str().unwrap();
    let out = dir.join(format!("special{k}"));
    for args in [
        vec!["check", f, "--max-memory", "1G"],
        vec![
            "run",
            f,
            "--frames",
            "1",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        vec!["lcp", "solve", f],
    ] {
        let (code, _, err, took) = limited(&args);
        assert_eq!(
            code,
            Some(2),
            "special file {k} ({f}): `{}` ended with {code:?} after {took:?}\nstderr: {err}",
            args.join(" ")
        );
        assert!(
            err.contains("error:") && err.contains(f) && !err.contains("panicked"),
            "special file {k} ({f}): `{}` does not name the file: {err}",
            args.join(" ")
        );
    }
    if path.starts_with(dir) {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_dir(&path);
    }
}

/// Whether a refusal names `case.toml` and, right after it, the place: a line (`:12:`), a
/// key (`: liquid[0].spacing: `, `: body[1] 'name': `), a default or `--set` value, or a byte.
fn names_a_place(err: &str) -> bool {
    let Some(at) = err.find("case.toml") else {
        return false;
    };
    let rest = &err[at + "case.toml".len()..];
    if rest.starts_with(':') && rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
        return true;
    }
    if rest.starts_with(" (value from a default or --set): ") || rest.starts_with(": byte ") {
        return true;
    }
    let Some(key) = rest.strip_prefix(": ") else {
        return false;
    };
    let word = key
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_[].".contains(c)))
        .map_or(key, |e| &key[..e]);
    !word.is_empty() && (key[word.len()..].starts_with(": ") || key[word.len()..].starts_with(" '"))
}

/// What became of one case.
enum Outcome {
    /// `check` refused the scene (exit 2).
    Refused,
    /// The scene was checked and run for a frame.
    Ran,
    /// A special file, or a scene checked but too large to run here.
    Other,
}

/// Case `i`, written to `folder/case.toml`, through `check` and (when small) a one-frame run.
fn one_case(scenes: &[(String, String)], folder: &Path, i: u64) -> Outcome {
    let file: PathBuf = folder.join("case.toml");
    if i % SPECIAL_EVERY == SPECIAL_EVERY - 1 {
        special_file(folder, i / SPECIAL_EVERY);
        return Outcome::Other;
    }
    let (name, bytes) = case(scenes, i);
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
        assert!(
            err.contains("error:") && names_a_place(&err),
            "case {i} (from {name}): the refusal does not name the file and the place: {err}\nscene:\n{}",
            shown()
        );
        return Outcome::Refused;
    }
    if work(&out) > RUN_WORK {
        return Outcome::Other;
    }
    let run_dir = folder.join(format!("run{i}"));
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
    Outcome::Ran
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
    // Cases run on one worker per core, each in a folder of its own; case i is the same
    // whichever worker takes it.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let next = AtomicU64::new(0);
    let ran = AtomicU64::new(0);
    let refused = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (scenes, next, ran, refused) = (&scenes, &next, &ran, &refused);
            let folder = dir.path().join(format!("worker{w}"));
            scope.spawn(move || {
                std::fs::create_dir_all(&folder).unwrap();
                // Mesh paths in the scenes are relative to the scene file.
                std::os::unix::fs::symlink(root.join("scenes/meshes"), folder.join("meshes"))
                    .unwrap();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cases {
                        break;
                    }
                    match one_case(scenes, &folder, i) {
                        Outcome::Refused => refused.fetch_add(1, Ordering::Relaxed),
                        Outcome::Ran => ran.fetch_add(1, Ordering::Relaxed),
                        Outcome::Other => 0,
                    };
                }
            });
        }
    });
    let (ran, refused) = (ran.into_inner(), refused.into_inner());
    // The stream exercises both sides: scenes refused, and scenes run.
    assert!(refused > 0 && ran > 0, "refused {refused}, ran {ran}");
}

#[test]
fn the_first_80_mutated_scenes_end_cleanly() {
    fuzz(80);
}

#[test]
#[ignore = "validation tier: cargo test -- --include-ignored"]
fn two_thousand_mutated_scenes_and_special_files_end_cleanly() {
    fuzz(2000);
}
