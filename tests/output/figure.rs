//! `sphrigid figure` on a small run made by the binary: a liquid block beside a tilted box that
//! falls freely. The pictures decode with the expected sizes, show liquid in viridis and the
//! body in its colour where they are, the motion CSV holds the exact tilt and free fall, and bad
//! input exits 2 with a message naming what is wrong.
use crate::common;
use sphrigid::internals::colormap::is_viridis;
use sphrigid::internals::plot;
use sphrigid::internals::strip::{self, BACKGROUND, COLORBAR_W, GAP, View};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const SCENE: &str = r#"
[time]
fps = 30
frames = 6
[container]
min = [0, 0, 0]
max = [0.3, 0.2, 0.05]
[[liquid]]
min = [0, 0, 0]
max = [0.08, 0.12, 0.05]
spacing = 0.01
[[body]]
name = "block"
shape = { type = "box", size = [0.04, 0.08, 0.04] }
position = [0.2, 0.1, 0.025]
orientation = { axis = [0, 0, 1], degrees = 30 }
"#;

/// Run `scene` once into a fresh directory under the test temp dir; returns the run directory.
fn make_run(name: &str, scene: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("figure_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene_path = dir.join("scene.toml");
    std::fs::write(&scene_path, scene).unwrap();
    let run = dir.join("run");
    let r = common::sphrigid(&[
        "run",
        scene_path.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    run
}

/// The block run, made once for all tests of this file.
fn block_run() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| make_run("block", SCENE))
}

/// Run `sphrigid figure` with `args` after the run directory, into a fresh `out`.
fn figure(run: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    let _ = std::fs::remove_dir_all(out);
    let mut all = vec!["figure", run.to_str().unwrap(), "-o", out.to_str().unwrap()];
    all.extend_from_slice(args);
    common::sphrigid(&all)
}

struct Image {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Image {
    fn at(&self, x: f64, y: f64) -> [u8; 3] {
        let (x, y) = (x.floor() as usize, y.floor() as usize);
        assert!(
            x < self.width as usize && y < self.height as usize,
            "({x}, {y}) outside"
        );
        let i = (y * self.width as usize + x) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

fn decode(path: &Path) -> Image {
    let f = std::io::BufReader::new(std::fs::File::open(path).expect("the PNG exists"));
    let mut r = png::Decoder::new(f).read_info().expect("a PNG header");
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).expect("the PNG decodes");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    Image {
        width: info.width,
        height: info.height,
        rgb: buf,
    }
}

/// The rigid_states.csv row of the block at `frame`: x, y.
fn block_centre(run: &Path, frame: u32) -> [f64; 2] {
    let text = std::fs::read_to_string(run.join("rigid_states.csv")).unwrap();
    let rows = sphrigid::output::rigid_states::parse(&text).unwrap();
    let r = rows.iter().find(|r| r.frame == frame).unwrap();
    [r.values[0], r.values[1]]
}

#[test]
fn panels_show_liquid_in_viridis_the_body_in_its_colour_and_background_elsewhere() {
    let run = block_run();
    let out = run.with_file_name("fig_default");
    let r = figure(run, &out, &[]);
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // Default: 5 frames evenly spaced over 0..=6, one line per file written.
    let frames = [0u32, 2, 3, 5, 6];
    let mut expected: Vec<String> = vec!["frames.png".into()];
    expected.extend(frames.iter().map(|i| format!("frame_{i:05}.png")));
    expected.extend(["block_tilt.png", "block_position.png", "block_motion.csv"].map(String::from));
    assert_eq!(stdout.lines().count(), expected.len(), "{stdout}");
    for (line, name) in stdout.lines().zip(&expected) {
        assert!(
            line.starts_with(out.join(name).to_str().unwrap()),
            "{line} vs {name}"
        );
        assert!(out.join(name).is_file());
    }

    let view = View::new([0.0, 0.0], [0.3, 0.2]);
    let (pw, ph) = view.panel_size();
    let strip_img = decode(&out.join("frames.png"));
    assert_eq!(
        (strip_img.width, strip_img.height),
        (5 * pw + 4 * GAP + COLORBAR_W, ph)
    );
    let panel = decode(&out.join("frame_00002.png"));
    assert_eq!((panel.width, panel.height), (pw + COLORBAR_W, ph));

    // Every liquid particle inside the container shows a viridis colour at its centre, and
    // more than one: the liquid moves at different speeds.
    let particles = common::read_fluid_ply(&run.join("fluid/fluid_00002.ply"));
    let mut colours = std::collections::BTreeSet::new();
    let mut checked = 0;
    for (v, _) in &particles {
        let (x, y) = (v[0] as f64, v[1] as f64);
        if !(0.0..0.3).contains(&x) || !(0.0..0.2).contains(&y) {
            continue;
        }
        let p = view.to_panel(x, y);
        let c = panel.at(p[0], p[1]);
        assert!(is_viridis(c, 1.5), "particle at ({x}, {y}) shows {c:?}");
        colours.insert(c);
        checked += 1;
    }
    assert!(checked > 400, "{checked} particles checked");
    assert!(colours.len() > 5, "{} colours", colours.len());

    // The body's centre has the body's colour, in the panel and in the strip (second panel).
    let c = block_centre(run, 2);
    let p = view.to_panel(c[0], c[1]);
    assert_eq!(panel.at(p[0], p[1]), strip::body_color(0));
    assert_eq!(
        strip_img.at(p[0] + (pw + GAP) as f64, p[1]),
        strip::body_color(0)
    );
    // Empty places are background: above the liquid, right of and above the body.
    for (x, y) in [(0.12, 0.18), (0.28, 0.18), (0.2, 0.185), (0.28, 0.1)] {
        let p = view.to_panel(x, y);
        assert_eq!(panel.at(p[0], p[1]), BACKGROUND, "({x}, {y})");
    }
    // The body is not drawn where it is not: at frame 0 it stands higher than at frame 2.
    let first = decode(&out.join("frame_00000.png"));
    let c0 = block_centre(run, 0);
    let p0 = view.to_panel(c0[0], c0[1]);
    assert_eq!(first.at(p0[0], p0[1]), strip::body_color(0));
    let below = view.to_panel(c0[0], c0[1] - 0.06);
    assert_eq!(first.at(below[0], below[1]), BACKGROUND);
}

#[test]
fn motion_csv_holds_the_tilt_and_the_free_fall_before_landing_and_the_plots_decode() {
    let run = block_run();
    let out = run.with_file_name("fig_motion");
    let r = figure(run, &out, &["--body", "block", "--frames", "0:6:3"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(out.join("block_motion.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("frame,time,tilt_deg,x,y,z"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 7, "one row per frame 0..=6");
    for (k, row) in rows.iter().enumerate() {
        let (frame, t, tilt, x, y, z) = (row[0], row[1], row[2], row[3], row[4], row[5]);
        assert_eq!(frame, k as f64);
        assert!((t - k as f64 / 30.0).abs() < 1e-12);
        // The tilted block's lowest corner (0.0446 m below its centre) reaches the floor at
        // t = 0.106 s; until then it falls freely, untouched by the liquid.
        if t > 0.1 {
            continue;
        }
        assert!((tilt - 30.0).abs() < 0.01, "frame {k}: tilt {tilt}");
        assert!(
            (y - (0.1 - 9.81 * t * t / 2.0)).abs() < 1e-6,
            "frame {k}: y {y}"
        );
        assert!((x - 0.2).abs() < 1e-12 && (z - 0.025).abs() < 1e-12);
    }
    for name in ["block_tilt.png", "block_position.png"] {
        let img = decode(&out.join(name));
        assert_eq!(
            (img.width, img.height),
            (plot::WIDTH, plot::HEIGHT),
            "{name}"
        );
        let ink = img
            .rgb
            .chunks_exact(3)
            .filter(|c| *c != [255, 255, 255])
            .count();
        assert!(ink > 5_000, "{name}: {ink} drawn pixels");
    }
    // --frames 0:6:3 draws frames 0, 3 and 6 and no others.
    let (pw, ph) = View::new([0.0, 0.0], [0.3, 0.2]).panel_size();
    let s = decode(&out.join("frames.png"));
    assert_eq!((s.width, s.height), (3 * pw + 2 * GAP + COLORBAR_W, ph));
    let mut pngs: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("frame_"))
        .collect();
    pngs.sort();
    assert_eq!(
        pngs,
        ["frame_00000.png", "frame_00003.png", "frame_00006.png"]
    );
}

fn assert_input_error(r: &std::process::Output, must_name: &[&str]) {
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for word in must_name.iter().chain(&["fix:"]) {
        assert!(
            err.contains(word),
            "the message should name {word:?}: {err}"
        );
    }
}

#[test]
fn bad_inputs_exit_2_naming_the_path_or_argument() {
    let run = block_run();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    let missing = tmp.path().join("no_such_run");
    let r = common::sphrigid(&["figure", missing.to_str().unwrap(), "-o", o]);
    assert_input_error(&r, &[missing.to_str().unwrap(), "no such run directory"]);
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let r = common::sphrigid(&["figure", empty.to_str().unwrap(), "-o", o]);
    assert_input_error(&r, &["manifest.json", "cannot read the manifest"]);
    std::fs::write(empty.join("manifest.json"), "{\"frames\": 3}").unwrap();
    let r = common::sphrigid(&["figure", empty.to_str().unwrap(), "-o", o]);
    assert_input_error(&r, &["manifest.json", "not a sphrigid manifest"]);

    let r = figure(run, &out, &["--body", "wheel"]);
    assert_input_error(&r, &["--body wheel", "block"]);
    let r = figure(run, &out, &["--frames", "0,99"]);
    assert_input_error(&r, &["--frames '0,99'", "no frame 99", "0 to 6"]);
    let r = figure(run, &out, &["--frames", "0:x"]);
    assert_input_error(&r, &["--frames '0:x'", "'x' is not a frame index"]);
    assert!(!out.exists(), "nothing is written for bad input");

    // An output directory that cannot be created: its parent is a file.
    let file = tmp.path().join("a_file");
    std::fs::write(&file, "x").unwrap();
    let bad_out = file.join("figs");
    let r = common::sphrigid(&[
        "figure",
        run.to_str().unwrap(),
        "-o",
        bad_out.to_str().unwrap(),
    ]);
    assert_input_error(&r, &[bad_out.to_str().unwrap(), "-o DIR"]);

    // A frame file that went missing is named.
    let broken = tmp.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::copy(run.join("manifest.json"), broken.join("manifest.json")).unwrap();
    let r = common::sphrigid(&["figure", broken.to_str().unwrap(), "-o", o]);
    assert_input_error(&r, &["fluid_00000.ply", "cannot read the frame"]);
    std::fs::create_dir(broken.join("fluid")).unwrap();
    for f in std::fs::read_dir(run.join("fluid")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), broken.join("fluid").join(f.file_name())).unwrap();
    }
    let r = common::sphrigid(&["figure", broken.to_str().unwrap(), "-o", o]);
    assert_input_error(&r, &["block_00000.ply", "cannot read the body frame"]);
}

#[test]
fn a_run_without_bodies_gets_frames_only_and_no_body_option() {
    let scene = SCENE
        .split("[[body]]")
        .next()
        .unwrap()
        .replace("frames = 6", "frames = 2");
    let run = make_run("liquid_only", &scene);
    let out = run.with_file_name("fig");
    let r = figure(&run, &out, &[]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "frame_00000.png",
            "frame_00001.png",
            "frame_00002.png",
            "frames.png"
        ]
    );
    // No body colour anywhere in the strip.
    let s = decode(&out.join("frames.png"));
    assert!(!s.rgb.chunks_exact(3).any(|c| c == strip::body_color(0)));
    let r = figure(&run, &out, &["--body", "block"]);
    assert_input_error(&r, &["--body block", "has no bodies"]);
}

/// A column 4 particles wide and 8 tall collapsing in a tank, 6 frames.
const COLUMN: &str = r#"
[time]
fps = 60
frames = 6
[container]
min = [-0.01, 0, 0]
max = [0.19, 0.12, 0.03]
[[liquid]]
min = [-0.01, 0, 0]
max = [0.03, 0.08, 0.03]
spacing = 0.01
"#;

/// The rows of a CSV written by `sphrigid figure`, header checked and dropped.
fn csv_rows(path: &Path, header: &str) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header), "{}", path.display());
    lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect()
}

#[test]
fn the_front_csv_holds_each_frames_leading_edge_and_the_reference_is_compared() {
    let run = make_run("column", COLUMN);
    let out = run.with_file_name("fig_front");
    let reference = run.with_file_name("reference.csv");
    std::fs::write(&reference, "# measured\nT,Z\n0.5,1.1\n1.0,1.3\n9.0,9.0\n").unwrap();
    let r = figure(
        &run,
        &out,
        &[
            "--front",
            "0.04",
            "--time-shift",
            "0.2",
            "--reference",
            reference.to_str().unwrap(),
        ],
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let rows = csv_rows(&out.join("front.csv"), "frame,time,T,Z");
    assert_eq!(rows.len(), 7, "one row per frame 0..=6");
    let manifest = common::read_manifest(&run);
    let scale = (2.0 * 9.81 / 0.04f64).sqrt();
    for (k, row) in rows.iter().enumerate() {
        let (frame, t, big_t, z) = (row[0], row[1], row[2], row[3]);
        assert_eq!(frame, k as f64);
        let time = manifest["frames"][k]["time"].as_f64().unwrap();
        assert!((t - time).abs() < 1e-9, "frame {k}: time {t} vs {time}");
        assert!(
            (big_t - (time * scale + 0.2)).abs() < 1e-5,
            "frame {k}: T {big_t}"
        );
        // The farthest particle of at least 0.3 of the rest density, from the wall at -0.01.
        let ply = run.join(format!("fluid/fluid_{k:05}.ply"));
        let edge = common::read_fluid_ply(&ply)
            .iter()
            .filter(|(v, _)| v[6] >= 300.0)
            .map(|(v, _)| v[0] as f64 + 0.01)
            .fold(f64::MIN, f64::max);
        assert!(
            (z - edge / 0.04).abs() < 1e-5,
            "frame {k}: Z {z} vs {}",
            edge / 0.04
        );
    }
    // The column spreads: the front moves out from its starting edge (Z = 1 less a radius).
    assert!(
        rows[0][3] < 1.0 && rows[6][3] > rows[0][3] + 0.2,
        "{rows:?}"
    );
    // The measured points inside the run's span of T are compared, the one outside is not.
    let cmp = csv_rows(&out.join("front_reference.csv"), "T,Z_measured,Z,error");
    assert_eq!(cmp.len(), 2, "{cmp:?}");
    for c in &cmp {
        let i = rows.iter().position(|r| r[2] >= c[0]).unwrap();
        let (a, b) = (&rows[i - 1], &rows[i]);
        let z = a[3] + (b[3] - a[3]) * (c[0] - a[2]) / (b[2] - a[2]);
        assert!(
            (c[2] - z).abs() < 1e-5 && (c[3] - (z / c[1] - 1.0)).abs() < 1e-5,
            "{c:?}"
        );
    }
    let img = decode(&out.join("front.png"));
    assert_eq!((img.width, img.height), (plot::WIDTH, plot::HEIGHT));
    for colour in [[31, 119, 180], [214, 39, 40]] {
        let n = img.rgb.chunks_exact(3).filter(|c| *c == colour).count();
        assert!(n > 300, "{colour:?}: {n} pixels");
    }
    // --velocity: the mean of the frame's particle velocities at every frame.
    let vout = run.with_file_name("fig_velocity");
    let r = figure(&run, &vout, &["--velocity", "--frames", "0"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let rows = csv_rows(&vout.join("velocity.csv"), "frame,time,vx,vy,vz");
    assert_eq!(rows.len(), 7);
    for (k, row) in rows.iter().enumerate() {
        let ply = common::read_fluid_ply(&run.join(format!("fluid/fluid_{k:05}.ply")));
        let n = ply.len() as f64;
        let mean = |c: usize| ply.iter().map(|(v, _)| v[3 + c] as f64).sum::<f64>() / n;
        let means = [mean(0), mean(1), mean(2)];
        assert!(
            row[2..]
                .iter()
                .zip(&means)
                .all(|(a, b)| (a - b).abs() < 1e-8),
            "frame {k}: {row:?} vs {means:?}"
        );
    }
    // The column spreads along +x: from rest, its mean vx grows.
    assert!(rows[0][2].abs() < 1e-6 && rows[6][2] > 0.05, "{rows:?}");
    let img = decode(&vout.join("velocity.png"));
    assert_eq!((img.width, img.height), (plot::WIDTH, plot::HEIGHT));
    // Bad input: no column width, a reference without --front, a list past the run.
    let r = figure(&run, &out, &["--front", "0"]);
    assert_input_error(&r, &["--front 0", "positive"]);
    let r = figure(&run, &out, &["--reference", reference.to_str().unwrap()]);
    assert_input_error(&r, &["--reference needs --front"]);
    let r = figure(
        &run,
        &out,
        &["--front", "0.04", "--reference", "no_such.csv"],
    );
    assert_input_error(&r, &["no_such.csv", "cannot read it"]);
    let r = figure(&run, &out, &["--profile", "2:99"]);
    assert_input_error(&r, &["--profile '2:99'", "no frame 99"]);
}

#[test]
fn the_profile_csv_holds_each_rows_mean_height_and_pressure_over_the_frames() {
    // A still tank 8 x 10 x 2 particles at 1 cm with k = 100, 10 frames.
    let scene = r#"
[time]
fps = 50
frames = 10
[container]
min = [0, 0, 0]
max = [0.08, 0.15, 0.02]
[[liquid]]
min = [0, 0, 0]
max = [0.08, 0.1, 0.02]
spacing = 0.01
stiffness = 100
viscosity = { sigma = 2 }
"#;
    let run = make_run("tank", scene);
    let out = run.with_file_name("fig_profile");
    let r = figure(&run, &out, &["--profile", "5:10"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let rows = csv_rows(
        &out.join("profile.csv"),
        "row,height_m,depth_m,pressure_pa,hydrostatic_pa",
    );
    // The same from the frames: in each frame the particles ranked by height, 16 (8 x 2, the
    // floor's area over the spacing squared) to a row, the pressure k (density - 1000) over the
    // particles two spacings or more from the side walls.
    let (mut y, mut p, mut np) = ([0.0f64; 10], [0.0f64; 10], [0usize; 10]);
    for k in 5..=10 {
        let mut ply = common::read_fluid_ply(&run.join(format!("fluid/fluid_{k:05}.ply")));
        assert_eq!(ply.len(), 160);
        ply.sort_by(|a, b| a.0[1].total_cmp(&b.0[1]));
        for (rank, (v, _)) in ply.iter().enumerate() {
            let r = rank / 16;
            y[r] += v[1] as f64 / 16.0 / 6.0;
            if v[0] as f64 > 0.02 && (v[0] as f64) < 0.06 {
                p[r] += 100.0 * (v[6] as f64 - 1000.0);
                np[r] += 1;
            }
        }
    }
    assert_eq!(rows.len(), 10);
    for row in &rows {
        let r = row[0] as usize;
        let pressure = p[r] / np[r] as f64;
        assert!((row[1] - y[r]).abs() < 1e-5, "{row:?} vs height {}", y[r]);
        assert!((row[2] - (y[9] - y[r])).abs() < 1e-5, "{row:?}");
        assert!(
            (row[3] - pressure).abs() < 1e-2,
            "{row:?} vs pressure {pressure}"
        );
        assert!((row[4] - 1000.0 * 9.81 * row[2]).abs() < 1e-2, "{row:?}");
    }
    // The pressure grows with depth: the floor row's is the highest.
    assert!(rows[0][3] > rows[rows.len() / 2][3], "{rows:?}");
    let img = decode(&out.join("profile.png"));
    assert_eq!((img.width, img.height), (plot::WIDTH, plot::HEIGHT));
}
