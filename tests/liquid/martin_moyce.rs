//! Collapse of a liquid column against Martin & Moyce (1952), n^2 = 2: the surge front Z = x/a
//! over T = t sqrt(2g/a) stays within 10% of the measured front for T in [1.5, 3.3], and its
//! speed dZ/dT over T in [2, 3] within 10% of the measured speed, and the surge's tip stays
//! water (kernel sums of at least 0.6 of rest over its last 3 spacings). The same measure on
//! two other columns of published data: Martin & Moyce's 1.125 in column against its own
//! curve, and Koshizuka & Oka's (1996) 0.146 m column in a tank 4 columns long.
use crate::common;
use sphrigid::sim::Simulation;

const A: f64 = 0.05715;
const G: f64 = 9.81;
/// Shift of the time origin between the experiment and the simulation, in units of T: the
/// experiment's gate took time to clear, so its early points lag. The same at every resolution.
const T_SHIFT: f64 = 0.2;

/// The measured (T, Z) points of a CSV of `tests/data` (or `shared/reference`), comment lines
/// and the header skipped.
fn read_points(text: &str) -> Vec<(f64, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('T'))
        .filter_map(|l| l.split_once(','))
        .map(|(t, z)| (t.trim().parse().unwrap(), z.trim().parse().unwrap()))
        .collect()
}

/// Martin & Moyce's 2.25 in column (the shared reference, or the test's copy of it).
fn measured() -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/reference/martin_moyce_1952.csv"
    ))
    .or_else(|_| {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/martin_moyce_1952.csv"
        ))
    })
    .expect("the Martin & Moyce data is readable");
    read_points(&text)
}

/// A column-collapse experiment: its measured front, the column width it was measured on (m),
/// the tank's length in column widths, and the windows of T compared (the front) and fitted
/// (the front's speed).
struct Experiment {
    name: &'static str,
    points: Vec<(f64, f64)>,
    a: f64,
    tank: f64,
    window: (f64, f64),
    speed_window: (f64, f64),
}

impl Experiment {
    /// Martin & Moyce's 2.25 in column, T in [1.5, 3.3], the speed over [2, 3].
    fn martin_moyce() -> Experiment {
        Experiment {
            name: "Martin & Moyce 2.25 in",
            points: measured(),
            a: A,
            tank: 7.0,
            window: (1.5, 3.3),
            speed_window: (2.0, 3.0),
        }
    }

    /// Martin & Moyce's 1.125 in column against its own curve, T in [1.5, 4] (its points lie
    /// farther apart; later the surge is under 1 cm deep, see the test), the
    /// speed over [2, 4], in a tank long enough that the front never reaches its end wall.
    fn martin_moyce_small() -> Experiment {
        Experiment {
            name: "Martin & Moyce 1.125 in",
            points: read_points(include_str!("../data/martin_moyce_1952_1125in.csv")),
            a: A / 2.0,
            tank: 9.0,
            window: (1.5, 4.0),
            speed_window: (2.0, 4.0),
        }
    }

    /// Koshizuka & Oka's 0.146 m column in a tank 4 columns long, every point after the start
    /// (T in [0.3, 3.1]), the speed over [1.5, 3.1].
    fn koshizuka_oka() -> Experiment {
        Experiment {
            name: "Koshizuka & Oka 0.146 m",
            points: read_points(include_str!("../data/koshizuka_oka_1996.csv")),
            a: 0.146,
            tank: 4.0,
            window: (0.3, 3.1),
            speed_window: (1.5, 3.1),
        }
    }

    /// The measured Z at `t`, linear between the measured points (None outside them).
    fn at(&self, t: f64) -> Option<f64> {
        self.points.windows(2).find_map(|w| {
            let ((t0, z0), (t1, z1)) = (w[0], w[1]);
            (t0..=t1)
                .contains(&t)
                .then(|| z0 + (z1 - z0) * (t - t0) / (t1 - t0))
        })
    }
}

/// The leading edge of the liquid: the largest x of a particle that is part of the bulk (kernel
/// sum at least 30% of the rest value), so that a lone splashed particle does not count.
fn front(sim: &Simulation) -> f64 {
    let rho0 = sim.liquid.params().rho0;
    let p = sim.particles();
    (0..p.len())
        .filter(|&i| p.rho[i] >= 0.3 * rho0)
        .map(|i| p.pos[i].x as f64)
        .fold(0.0, f64::max)
}

/// The mean kernel sum, over rest, of the bulk particles within 3 spacings of the front: how
/// much the surge's tip is still water rather than spray (reported).
fn tip_density(sim: &Simulation, front: f64) -> f64 {
    let (rho0, s) = (sim.liquid.params().rho0, sim.liquid.params().spacing as f64);
    let p = sim.particles();
    let tip: Vec<f64> = (0..p.len())
        .filter(|&i| p.rho[i] >= 0.3 * rho0 && p.pos[i].x as f64 > front - 3.0 * s)
        .map(|i| (p.rho[i] / rho0) as f64)
        .collect();
    tip.iter().sum::<f64>() / tip.len() as f64
}

/// The least-squares slope of `(x, y)` points.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    sxy / points.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>()
}

/// A dam break to measure: the experiment, particles across its column, whether the walls push
/// (`[container] ghost_pressure`) and the time shift in units of T.
struct Run {
    exp: Experiment,
    n: u32,
    ghost: bool,
    shift: f64,
}

impl Run {
    /// The default parameters' run (ghost pressure on) of the 2.25 in column at `n` particles
    /// across.
    fn default_at(n: u32) -> Run {
        Run {
            exp: Experiment::martin_moyce(),
            n,
            ghost: true,
            shift: T_SHIFT,
        }
    }
}

/// Simulate a column of width a and height 2a in a thin tank (the experiment's length) at `n`
/// particles across a, and return (T, simulated Z, measured Z, tip density) at every measured
/// point in the window.
fn collapse(run: &Run) -> Vec<(f64, f64, f64, f64)> {
    let exp = &run.exp;
    let a = exp.a;
    let s = a / run.n as f64;
    let ghost = run.ghost;
    let scene = common::scene(&format!(
        r#"
        [time]
        fps = 1000
        [container]
        min = [0, 0, 0]
        max = [{length}, {height}, {depth}]
        ghost_pressure = {ghost}
        [[liquid]]
        min = [0, 0, 0]
        max = [{a}, {h}, {depth}]
        spacing = {s}
        "#,
        length = exp.tank * a,
        height = 0.16 * (a / A),
        depth = 7.0 * s,
        h = 2.0 * a,
    ));
    let mut sim = Simulation::new(&scene.scene);
    let t_scale = (2.0 * G / a).sqrt();
    let mut out = Vec::new();
    for &(t_meas, z_meas) in &exp.points {
        if !(exp.window.0..=exp.window.1).contains(&t_meas) {
            continue;
        }
        let t_sim = (t_meas - run.shift) / t_scale;
        while sim.time < t_sim {
            sim.step().unwrap();
        }
        let x = front(&sim);
        out.push((t_meas, x / a, z_meas, tip_density(&sim, x)));
    }
    out
}

/// Run `run`, print its front, and assert the front within 10% of the measured one, its
/// speed within 10% of the measured speed and its tip at least 0.6 of rest density.
fn check(run: &Run) {
    check_rows(run, &collapse(run));
}

/// [`check`] on rows already simulated.
fn check_rows(run: &Run, rows: &[(f64, f64, f64, f64)]) {
    let label = format!(
        "{}, a = {} m at a/{}, ghost pressure {}",
        run.exp.name, run.exp.a, run.n, run.ghost
    );
    assert!(
        rows.len() >= 5,
        "the window holds {} measured points",
        rows.len()
    );
    let (mut worst, mut sum, mut tip_min) = (0.0f64, 0.0, f64::MAX);
    for (t, z, zm, tip) in rows {
        let err = (z - zm) / zm;
        eprintln!(
            "{label}: T = {t:.2}  Z = {z:.3}  measured {zm:.2}  error {:+.1}%  tip density {tip:.2}",
            100.0 * err
        );
        worst = worst.max(err.abs());
        sum += err;
        tip_min = tip_min.min(*tip);
    }
    // The front's speed over its window (T in [2, 3] for the 2.25 in column): the time shift
    // does not change it.
    let (t0, t1) = run.exp.speed_window;
    let mid: Vec<_> = rows.iter().filter(|r| (t0..=t1).contains(&r.0)).collect();
    let speed = slope(&mid.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
    let measured = slope(&mid.iter().map(|r| (r.0, r.2)).collect::<Vec<_>>());
    let off = speed / measured - 1.0;
    eprintln!(
        "{label}, shift {}: mean error {:+.1}%, worst {:.1}%; dZ/dT over T in [{t0}, {t1}] {speed:.3}, measured {measured:.3} ({:+.1}%); tip density at least {tip_min:.2}",
        run.shift,
        100.0 * sum / rows.len() as f64,
        100.0 * worst,
        100.0 * off
    );
    assert!(
        worst < 0.10,
        "at {label} the front is off by up to {:.1}%",
        100.0 * worst
    );
    assert!(
        mid.len() >= 4 && off.abs() < 0.10,
        "at {label} the front's speed dZ/dT = {speed:.3} is {:+.1}% off the measured {measured:.3}",
        100.0 * off
    );
    assert!(
        tip_min >= 0.6,
        "at {label} the surge's tip thins to {tip_min:.2} of rest"
    );
}

#[test]
fn surge_front_matches_martin_moyce_at_16_particles_across() {
    check(&Run::default_at(16));
}

#[test]
fn surge_front_matches_martin_moyce_at_24_particles_across() {
    check(&Run::default_at(24));
}

/// Without the walls' ghost pressure (`[container] ghost_pressure = false`, the default before
/// issue 19): the same limits at a/16 and a/24.
#[test]
#[ignore = "validation tier (without ghost pressure): cargo test -- --include-ignored"]
fn surge_front_without_ghost_pressure() {
    for n in [16, 24] {
        check(&Run {
            ghost: false,
            ..Run::default_at(n)
        });
    }
}

#[test]
#[ignore = "validation tier (the convergence study): cargo test -- --include-ignored"]
fn surge_front_at_32_and_40_particles_across() {
    check(&Run::default_at(32));
    check(&Run::default_at(40));
}

/// With the default parameters (the walls' ghost pressure on: no detached floor row for the
/// surge to slide on) and a time shift of 0.1: the 2.25 in and 1.125 in columns of the same
/// experiment (Martin & Moyce found the same Z(T) for both) at a/16 and a/24.
#[test]
#[ignore = "validation tier (the ghost-pressure study): cargo test -- --include-ignored"]
fn surge_front_with_ghost_pressure_and_a_time_shift_of_0_1() {
    for a in [A, A / 2.0] {
        for n in [16, 24] {
            check(&Run {
                exp: Experiment {
                    a,
                    ..Experiment::martin_moyce()
                },
                n,
                ghost: true,
                shift: 0.1,
            });
        }
    }
}

/// Martin & Moyce's 1.125 in column against its own measured curve at 16 and 24 particles
/// across, with the default parameters and the same time shift as the 2.25 in column: the
/// same limits as the 2.25 in column over T in [1.5, 4]. The later points (T = 4.6 to 5.3)
/// are printed, not compared: the surge is then under 1 cm deep on average (2a/Z), where the
/// experiment's floor friction and surface tension, absent from the model, hold it back more.
#[test]
#[ignore = "validation tier (other columns): cargo test -- --include-ignored"]
fn surge_front_of_the_1_125_in_column() {
    for n in [16, 24] {
        let run = Run {
            exp: Experiment::martin_moyce_small(),
            n,
            ghost: true,
            shift: T_SHIFT,
        };
        let whole = collapse(&Run {
            exp: Experiment {
                window: (run.exp.window.0, 5.4),
                ..Experiment::martin_moyce_small()
            },
            ..run
        });
        let (early, late): (Vec<_>, Vec<_>) = whole.iter().partition(|r| r.0 <= run.exp.window.1);
        for (t, z, zm, _) in late {
            eprintln!(
                "Martin & Moyce 1.125 in at a/{n}, later: T = {t:.2}  Z = {z:.3}  measured {zm:.2}  ({:+.1}%)",
                100.0 * (z / zm - 1.0)
            );
        }
        check_rows(&run, &early);
    }
}

/// Koshizuka & Oka's 0.146 m column (1996) in a tank 4 columns long, at 16 and 24 particles
/// across, the default parameters and the 2.25 in column's time shift. The two experiments
/// of the same n^2 = 2 collapse disagree with each other: Koshizuka & Oka's front is ahead of
/// Martin & Moyce's until T = 2 and up to 10% behind it later (its speed over T in [1.5, 3.1]
/// is 1.08 against Martin & Moyce's 1.39 over [2, 3]). So the front is reported against
/// Koshizuka & Oka's points and asserted to lie within the band between the two experiments,
/// widened by 5% (the 2.25 in column's own tolerance is 10%), over T in [0.7, 3.1], and the
/// tip to stay water (at least 0.6 of rest).
#[test]
#[ignore = "validation tier (other columns): cargo test -- --include-ignored"]
fn surge_front_of_koshizuka_and_oka_lies_between_the_experiments() {
    let mm = Experiment::martin_moyce();
    for n in [16, 24] {
        let run = Run {
            exp: Experiment::koshizuka_oka(),
            n,
            ghost: true,
            shift: T_SHIFT,
        };
        let rows = collapse(&run);
        assert!(rows.len() >= 8, "the window holds {} points", rows.len());
        let (mut sum, mut worst) = (0.0f64, 0.0f64);
        for &(t, z, zk, tip) in &rows {
            let err = z / zk - 1.0;
            (sum, worst) = (sum + err, worst.max(err.abs()));
            let zm = mm.at(t);
            eprintln!(
                "Koshizuka & Oka at a/{n}: T = {t:.2}  Z = {z:.3}  measured {zk:.2} ({:+.1}%)  Martin & Moyce {}  tip density {tip:.2}",
                100.0 * err,
                zm.map_or("-".into(), |z| format!("{z:.2}"))
            );
            assert!(
                tip >= 0.6,
                "at a/{n}, T = {t:.2} the tip thins to {tip:.2} of rest"
            );
            if t < 0.7 {
                continue;
            }
            let zm = zm.expect("Martin & Moyce measured T = 0.41 to 3.33");
            let (lo, hi) = (zk.min(zm) * 0.95, zk.max(zm) * 1.05);
            assert!(
                (lo..=hi).contains(&z),
                "at a/{n}, T = {t:.2} the front Z = {z:.3} lies outside the experiments' band [{lo:.3}, {hi:.3}]"
            );
        }
        let (t0, t1) = run.exp.speed_window;
        let mid: Vec<_> = rows.iter().filter(|r| (t0..=t1).contains(&r.0)).collect();
        let speed = slope(&mid.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
        let measured = slope(&mid.iter().map(|r| (r.0, r.2)).collect::<Vec<_>>());
        eprintln!(
            "Koshizuka & Oka at a/{n}, shift {T_SHIFT}: mean error {:+.1}%, worst {:.1}%; dZ/dT over T in [{t0}, {t1}] {speed:.3}, measured {measured:.3} ({:+.1}%)",
            100.0 * sum / rows.len() as f64,
            100.0 * worst,
            100.0 * (speed / measured - 1.0)
        );
    }
}
