//! JSON problem files, so that a failing step can be dumped and replayed with
//! `sphrigid lcp solve`.
//!
//! Dense form: `{"M": [[...], ...], "q": [...], "lo": [...], "hi": [...], "friction": [...]}`
//! with M row-major; `lo`, `hi` and `friction` are optional, `null` in lo/hi is an infinite
//! bound, `friction[i]` is null or the normal row whose value scales row i's bounds.
//!
//! Structured form: `{"bodies": [6x6 inverse mass, ...], "particles": [1/m, ...],
//! "rows": [{"q": .., "particle": k, "n": [3], "bodies": [{"body": b, "j": [6]}],
//! "lo": .., "hi": .., "friction": j}, ...]}`; in a row only `q` is required (lo 0, hi inf).
use super::matrix::DenseMatrix;
use super::problem::DenseProblem;
use super::structured::{BodyTerm, ParticleTerm, StructuredProblem, StructuredRow};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A problem read from a file, in either form.
#[derive(Debug, Clone, PartialEq)]
pub enum ProblemFile {
    /// `{"M": ..., "q": ...}`.
    Dense(DenseProblem),
    /// `{"bodies": ..., "particles": ..., "rows": ...}`.
    Structured(StructuredProblem),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DenseJson {
    #[serde(rename = "M")]
    m: Vec<Vec<f64>>,
    q: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lo: Option<Vec<Option<f64>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hi: Option<Vec<Option<f64>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    friction: Option<Vec<Option<usize>>>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyJson {
    body: usize,
    j: [f64; 6],
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowJson {
    q: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    particle: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    n: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    bodies: Vec<BodyJson>,
    #[serde(default = "zero")]
    lo: Option<f64>,
    #[serde(default)]
    hi: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    friction: Option<usize>,
}

fn zero() -> Option<f64> {
    Some(0.0)
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StructuredJson {
    bodies: Vec<[[f64; 6]; 6]>,
    #[serde(default)]
    particles: Vec<f64>,
    rows: Vec<RowJson>,
}

/// Read and check a problem file; errors name the file and the place.
pub fn load(path: &Path) -> Result<ProblemFile> {
    let text = crate::bounded_read::read_text(path, &crate::bounded_read::LCP_PROBLEM)?;
    parse(&text, &path.display().to_string())
}

/// Parse and check problem JSON; `origin` names the source in error messages.
pub fn parse(text: &str, origin: &str) -> Result<ProblemFile> {
    let bad = |msg: String| Error::Input(format!("{origin}: {msg}"));
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
    let Some(obj) = value.as_object() else {
        return Err(bad(
            "expected a JSON object with \"M\" and \"q\", or \"rows\"".into(),
        ));
    };
    if let Some(at) = null_number(&value, "", true) {
        return Err(bad(format!(
            "{at} is null: the problem holds a non-finite number (JSON writes NaN and infinity \
             as null), so it has no solution; fix: this is the problem's fault, not the \
             solver's: a run's failed_lcp file with nulls comes from an unstable step (raise \
             time.substeps or lower the stiffness)"
        )));
    }
    if obj.contains_key("M") {
        let d: DenseJson = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        dense_from_json(d).map_err(bad).map(ProblemFile::Dense)
    } else if obj.contains_key("rows") {
        let s: StructuredJson = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        structured_from_json(s)
            .map_err(bad)
            .map(ProblemFile::Structured)
    } else {
        Err(bad(
            "neither a dense problem (keys \"M\", \"q\") nor a structured one (key \"rows\")"
                .into(),
        ))
    }
}

/// The path of the first `null` that stands where a number must (`rows[3].q`): null is an
/// infinite bound in `lo` and `hi`, and "none" for `friction`, `particle` and `n`; anywhere
/// else it is a NaN or an infinity that JSON could not write. `may_be_null` says whether
/// `value` itself is in such a place.
fn null_number(value: &serde_json::Value, at: &str, may_be_null: bool) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::Null if !may_be_null => Some(at.to_string()),
        Value::Array(a) => {
            // The entries of lo, hi and friction (dense form) may be null too.
            let leaf = ["lo", "hi", "friction"].contains(&at);
            a.iter()
                .enumerate()
                .find_map(|(i, v)| null_number(v, &format!("{at}[{i}]"), leaf))
        }
        Value::Object(o) => o.iter().find_map(|(k, v)| {
            let optional = ["lo", "hi", "friction", "particle", "n"].contains(&k.as_str());
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            null_number(v, &path, optional)
        }),
        _ => None,
    }
}

fn dense_from_json(d: DenseJson) -> std::result::Result<DenseProblem, String> {
    let n = d.q.len();
    if d.m.len() != n {
        return Err(format!("M has {} rows but q has {n} entries", d.m.len()));
    }
    for (i, r) in d.m.iter().enumerate() {
        if r.len() != n {
            return Err(format!("M[{i}] has {} entries, expected {n}", r.len()));
        }
    }
    let bound = |v: Option<Vec<Option<f64>>>, name: &str, default: f64, inf: f64| match v {
        None => Ok(vec![default; n]),
        Some(v) if v.len() != n => Err(format!("{name} has {} entries, expected {n}", v.len())),
        Some(v) => Ok(v.into_iter().map(|x| x.unwrap_or(inf)).collect()),
    };
    let lo = bound(d.lo, "lo", 0.0, f64::NEG_INFINITY)?;
    let hi = bound(d.hi, "hi", f64::INFINITY, f64::INFINITY)?;
    let friction = match d.friction {
        None => vec![None; n],
        Some(f) if f.len() != n => {
            return Err(format!("friction has {} entries, expected {n}", f.len()));
        }
        Some(f) => f,
    };
    let p = DenseProblem {
        m: DenseMatrix::from_rows(&d.m),
        q: d.q,
        lo,
        hi,
        friction,
    };
    p.validate()?;
    Ok(p)
}

fn structured_from_json(s: StructuredJson) -> std::result::Result<StructuredProblem, String> {
    let mut p = StructuredProblem {
        body_inv_mass: s
            .bodies
            .iter()
            .map(|b| {
                let mut w = [0.0; 36];
                for (r, row) in b.iter().enumerate() {
                    w[r * 6..r * 6 + 6].copy_from_slice(row);
                }
                w
            })
            .collect(),
        particle_inv_mass: s.particles,
        rows: Vec::with_capacity(s.rows.len()),
    };
    for (i, r) in s.rows.into_iter().enumerate() {
        let particle = match (r.particle, r.n) {
            (Some(k), Some(n)) => Some(ParticleTerm { particle: k, n }),
            (None, None) => None,
            _ => return Err(format!("rows[{i}]: \"particle\" and \"n\" go together")),
        };
        if r.bodies.len() > 2 {
            return Err(format!("rows[{i}]: at most two bodies a row"));
        }
        let mut bodies = [None, None];
        for (k, b) in r.bodies.into_iter().enumerate() {
            bodies[k] = Some(BodyTerm {
                body: b.body,
                j: b.j,
            });
        }
        p.rows.push(StructuredRow {
            particle,
            bodies,
            q: r.q,
            lo: r.lo.unwrap_or(f64::NEG_INFINITY),
            hi: r.hi.unwrap_or(f64::INFINITY),
            friction: r.friction,
        });
    }
    p.validate()?;
    Ok(p)
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The JSON text of a problem (infinite bounds written as null).
pub fn to_json(problem: &ProblemFile) -> String {
    let out = match problem {
        ProblemFile::Dense(d) => serde_json::to_string(&DenseJson {
            m: d.m.to_rows(),
            q: d.q.clone(),
            lo: Some(d.lo.iter().map(|&x| finite(x)).collect()),
            hi: Some(d.hi.iter().map(|&x| finite(x)).collect()),
            friction: d
                .friction
                .iter()
                .any(Option::is_some)
                .then(|| d.friction.clone()),
        }),
        ProblemFile::Structured(s) => serde_json::to_string(&StructuredJson {
            bodies: s
                .body_inv_mass
                .iter()
                .map(|w| std::array::from_fn(|r| std::array::from_fn(|c| w[r * 6 + c])))
                .collect(),
            particles: s.particle_inv_mass.clone(),
            rows: s
                .rows
                .iter()
                .map(|r| RowJson {
                    q: r.q,
                    particle: r.particle.map(|t| t.particle),
                    n: r.particle.map(|t| t.n),
                    bodies: r
                        .body_terms()
                        .map(|t| BodyJson {
                            body: t.body,
                            j: t.j,
                        })
                        .collect(),
                    lo: finite(r.lo),
                    hi: finite(r.hi),
                    friction: r.friction,
                })
                .collect(),
        }),
    };
    out.expect("problem JSON serialises")
}

/// Write a problem file (to a temporary name, then renamed into place).
pub fn save(path: &Path, problem: &ProblemFile) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, to_json(problem)).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_with_a_nan_reads_back_as_the_problems_fault() {
        let p = StructuredProblem {
            body_inv_mass: Vec::new(),
            particle_inv_mass: vec![1.0],
            rows: vec![StructuredRow {
                particle: Some(ParticleTerm {
                    particle: 0,
                    n: [0.0, 1.0, 0.0],
                }),
                bodies: [None, None],
                q: f64::NAN,
                lo: 0.0,
                hi: f64::INFINITY,
                friction: None,
            }],
        };
        let text = to_json(&ProblemFile::Structured(p.clone()));
        let e = parse(&text, "f.json").unwrap_err().to_string();
        assert!(e.contains("rows[0].q is null"), "{e}");
        assert!(e.contains("problem's fault") && e.contains("fix:"), "{e}");
        // Finite, it reads back whole: null in hi is the infinite bound.
        let good = StructuredProblem {
            rows: vec![StructuredRow {
                q: -1.0,
                ..p.rows[0].clone()
            }],
            ..p
        };
        let text = to_json(&ProblemFile::Structured(good.clone()));
        assert_eq!(
            parse(&text, "f.json").unwrap(),
            ProblemFile::Structured(good)
        );
        let dense = r#"{"M": [[1.0]], "q": [null]}"#;
        let e = parse(dense, "d.json").unwrap_err().to_string();
        assert!(e.contains("q[0] is null"), "{e}");
        let bounds = r#"{"M": [[1.0]], "q": [-1.0], "lo": [null], "hi": [null]}"#;
        assert!(parse(bounds, "d.json").is_ok());
    }
}
