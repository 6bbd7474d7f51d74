//! Parameter studies: the Cartesian product of `--vary KEY=V1,V2,...` over a scene, each
//! combination checked and named ([`plan`]), and the summary of the runs once they are done
//! ([`collect`]). The files themselves (jobs.txt, sweep.json, sweep.slurm, sweep.csv) are
//! written and read by `output::sweep_files`; running the jobs is left to GNU parallel, Slurm
//! or `sphrigid sweep --jobs`.
pub(crate) mod collect;

use crate::output::sweep_files::{SweepDir, SweepRun, SweepSpec};
use crate::scene::{self, LoadedScene};
use crate::{Error, Result};
use std::path::Path;

/// One `--vary KEY=V1,V2,...`, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Vary {
    /// The dotted path, as `--set` takes it.
    pub key: String,
    /// The values, as typed.
    pub values: Vec<String>,
}

/// The fix every `--vary` syntax error ends with.
const VARY_FIX: &str = "fix: write --vary KEY=V1,V2,... with a dotted scene path and at least one value, for example --vary liquid.0.viscosity.sigma=0.5,20";

impl Vary {
    /// Parse `liquid.0.viscosity.sigma=0.5,20,200` given for the scene file `scene` (which
    /// errors name). Values are split at commas outside brackets and quotes, so
    /// `--vary 'gravity=[0,-9.81,0],[0,-1.62,0]'` gives two arrays.
    pub fn parse(text: &str, scene: &Path) -> Result<Vary> {
        let fail = |why: &str| {
            Error::input(format!(
                "{}: --vary {text}: {why}; {VARY_FIX}",
                scene.display()
            ))
        };
        let (key, list) = text.split_once('=').ok_or_else(|| fail("no '='"))?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|p| p.trim().is_empty()) {
            return Err(fail(&format!("the key '{key}' is not a dotted path")));
        }
        let values = split_values(list);
        if values.iter().all(|v| v.is_empty()) {
            return Err(fail(&format!("the list of values for {key} is empty")));
        }
        if values.iter().any(|v| v.is_empty()) {
            return Err(fail(&format!(
                "the list of values for {key} has an empty entry"
            )));
        }
        for (i, v) in values.iter().enumerate() {
            if values[..i].contains(v) {
                return Err(fail(&format!("{key} lists the value {v} twice")));
            }
        }
        Ok(Vary {
            key: key.to_string(),
            values,
        })
    }
}

/// Split at commas that are outside brackets, braces and quotes; entries are trimmed.
fn split_values(list: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for c in list.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

/// The short label of each key in run names: its last path part, or as many trailing parts
/// as it takes to tell keys apart (`sigma`, or `0.viscosity.sigma` beside `1.viscosity.sigma`).
pub fn labels(keys: &[String]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = keys.iter().map(|k| k.split('.').collect()).collect();
    let suffix = |p: &[&str], n: usize| p[p.len().saturating_sub(n)..].join(".");
    (0..keys.len())
        .map(|i| {
            let mut n = 1;
            while n < parts[i].len()
                && (0..keys.len()).any(|j| j != i && suffix(&parts[j], n) == suffix(&parts[i], n))
            {
                n += 1;
            }
            suffix(&parts[i], n)
        })
        .collect()
}

/// A value as it appears in a run name: letters, digits, `.`, `+` and `-` kept, anything
/// else (brackets, spaces, quotes, commas) turned into `-`, runs of them into one.
pub fn name_value(v: &str) -> String {
    let mut out = String::new();
    for c in v.chars() {
        if c.is_ascii_alphanumeric() || ".+".contains(c) || (c == '-' && !out.ends_with('-')) {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "x".into()
    } else {
        out.into()
    }
}

/// Every combination of the values, the last key varying fastest.
pub fn combinations(varies: &[Vary]) -> Vec<Vec<String>> {
    varies.iter().fold(vec![Vec::new()], |acc, v| {
        acc.iter()
            .flat_map(|prefix| {
                v.values.iter().map(move |x| {
                    let mut c = prefix.clone();
                    c.push(x.clone());
                    c
                })
            })
            .collect()
    })
}

/// The run names of `combos`: `label-value` joined by `_`, e.g. `sigma-0.5_spacing-0.02`; a
/// name that two combinations would share gets its index appended (`_n3`).
pub fn run_names(keys: &[String], combos: &[Vec<String>]) -> Vec<String> {
    let labels = labels(keys);
    let names: Vec<String> = combos
        .iter()
        .map(|c| {
            labels
                .iter()
                .zip(c)
                .map(|(l, v)| format!("{l}-{}", name_value(v)))
                .collect::<Vec<_>>()
                .join("_")
        })
        .collect();
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if names.iter().filter(|m| *m == n).count() > 1 {
                format!("{n}_n{i}")
            } else {
                n.clone()
            }
        })
        .collect()
}

/// The `--set` arguments of one combination.
pub fn sets(keys: &[String], values: &[String]) -> Vec<String> {
    keys.iter()
        .zip(values)
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// What `sphrigid sweep` was asked for.
#[derive(Debug, Clone)]
pub struct SweepRequest<'a> {
    /// The scene file as typed.
    pub scene: &'a Path,
    /// The varied keys and their values.
    pub varies: &'a [Vary],
    /// `--frames`, given to every run.
    pub frames: Option<u32>,
    /// `--backend`, given to every run.
    pub backend: Option<String>,
}

/// Check every combination of the sweep with `check` after the scene's own checks (as
/// `sphrigid check` does) and return the sweep's spec. The first bad combination is an input
/// error that names it (its number and run name) and carries the scene's message (file, key,
/// fix). The job lines name the scene by its absolute path, so they run from the sweep
/// directory.
pub fn plan(
    req: &SweepRequest,
    check: &mut dyn FnMut(&LoadedScene) -> Result<()>,
) -> Result<SweepSpec> {
    if req.varies.is_empty() {
        return Err(Error::input(format!(
            "{}: sphrigid sweep has nothing to vary; {VARY_FIX}",
            req.scene.display()
        )));
    }
    let keys: Vec<String> = req.varies.iter().map(|v| v.key.clone()).collect();
    for (i, k) in keys.iter().enumerate() {
        if keys[..i].contains(k) {
            return Err(Error::input(format!(
                "{}: --vary {k}: the key is varied twice; fix: give each key once, with all its values",
                req.scene.display()
            )));
        }
    }
    let text = scene::read(req.scene)?;
    let combos = combinations(req.varies);
    let names = run_names(&keys, &combos);
    for (i, (combo, name)) in combos.iter().zip(&names).enumerate() {
        let sets = sets(&keys, combo);
        scene::parse(text.clone(), req.scene, &sets)
            .and_then(|loaded| check(&loaded))
            .map_err(|e| match e {
                Error::Input(m) => Error::input(format!(
                    "sweep combination {} of {} ({name}): {m}",
                    i + 1,
                    combos.len()
                )),
                other => other,
            })?;
    }
    let scene = std::path::absolute(req.scene).map_err(|e| Error::io(req.scene, e))?;
    Ok(SweepSpec {
        scene: scene.display().to_string(),
        keys,
        values: req.varies.iter().map(|v| v.values.clone()).collect(),
        frames: req.frames,
        backend: req.backend.clone(),
        runs: combos
            .into_iter()
            .zip(names)
            .map(|(values, name)| SweepRun {
                out: SweepDir::run_name(&name),
                name,
                values,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_split_outside_brackets() {
        let s = Path::new("x.toml");
        let v = Vary::parse("gravity=[0,-9.81,0], [0,-1.62,0]", s).unwrap();
        assert_eq!(v.key, "gravity");
        assert_eq!(v.values, ["[0,-9.81,0]", "[0,-1.62,0]"]);
        let v = Vary::parse("coupling.method=lcp,\"pen,alty\"", s).unwrap();
        assert_eq!(v.values, ["lcp", "\"pen,alty\""]);
        for bad in [
            "sigma",
            "=1,2",
            "a..b=1",
            "time.frames=",
            "time.frames=1,,2",
            "x=1,1",
        ] {
            let e = Vary::parse(bad, s).unwrap_err().to_string();
            assert!(
                e.starts_with("x.toml: --vary ") && e.contains("fix:") && e.contains(bad),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn combinations_are_the_product_last_key_fastest() {
        let v = [
            Vary::parse("a.sigma=1,2", Path::new("x.toml")).unwrap(),
            Vary::parse("b=x,y,z", Path::new("x.toml")).unwrap(),
        ];
        let c = combinations(&v);
        assert_eq!(c.len(), 6);
        assert_eq!(c[0], ["1", "x"]);
        assert_eq!(c[1], ["1", "y"]);
        assert_eq!(c[5], ["2", "z"]);
        let keys = vec!["a.sigma".to_string(), "b".to_string()];
        assert_eq!(run_names(&keys, &c)[1], "sigma-1_b-y");
    }

    #[test]
    fn names_tell_keys_and_values_apart() {
        let keys: Vec<String> = [
            "liquid.0.viscosity.sigma",
            "liquid.1.viscosity.sigma",
            "time.substeps",
        ]
        .map(String::from)
        .into();
        assert_eq!(
            labels(&keys),
            ["0.viscosity.sigma", "1.viscosity.sigma", "substeps"]
        );
        assert_eq!(name_value("[0, -9.81, 0]"), "0-9.81-0");
        assert_eq!(name_value("\"lcp\""), "lcp");
        assert_eq!(name_value("1e-3"), "1e-3");
        let keys = vec!["g".to_string()];
        let combos = vec![vec!["a b".to_string()], vec!["a-b".to_string()]];
        assert_eq!(run_names(&keys, &combos), ["g-a-b_n0", "g-a-b_n1"]);
    }
}
