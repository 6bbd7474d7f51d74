//! `--set KEY=VALUE`: overriding any scene value by its dotted path.
use super::locate::{KeyPath, PathPart};
use crate::{Error, Result};

/// One `--set` override, parsed.
#[derive(Debug, Clone)]
pub struct Override {
    /// Where the value goes.
    pub path: KeyPath,
    /// The value, parsed as TOML (a bare word that is no TOML value is taken as a string).
    pub value: toml::Value,
    /// The text as the user typed it.
    pub text: String,
}

impl Override {
    /// Parse `liquid.0.viscosity.sigma=0.5`.
    pub fn parse(text: &str) -> Result<Override> {
        let max = crate::bounded_read::MAX_SET_BYTES;
        if text.len() > max {
            let key: String = text
                .split('=')
                .next()
                .unwrap_or("")
                .chars()
                .take(60)
                .collect();
            return Err(Error::input(format!(
                "--set {key}=...: is {}; a --set argument may be at most {}; fix: put long values in the scene file",
                crate::bounded_read::size(text.len() as u64),
                crate::bounded_read::size(max as u64)
            )));
        }
        let (key, raw) = text.split_once('=').ok_or_else(|| {
            Error::input(format!(
                "--set {text}: expected KEY=VALUE; fix: write it as, for example, --set liquid.0.viscosity.sigma=0.5"
            ))
        })?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|p| p.is_empty()) {
            return Err(Error::input(format!(
                "--set {text}: the key '{key}' is not a dotted path; fix: give a path such as time.frames or liquid.0.spacing"
            )));
        }
        let raw = raw.trim();
        let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
            Ok(mut t) => t.remove("v").expect("the table holds the key just parsed"),
            // TOML has no float past 1.8e308: `1e400` is a number to Rust (infinite), which the
            // scene's checks then name, not a string.
            Err(_) => match raw.parse::<f64>() {
                Ok(x) => toml::Value::Float(x),
                Err(_) => toml::Value::String(raw.to_string()),
            },
        };
        Ok(Override {
            path: KeyPath::parse_dotted(key),
            value,
            text: text.to_string(),
        })
    }

    /// Put the value into the scene's table, creating tables on the way as needed.
    pub fn apply(&self, root: &mut toml::Table) -> Result<()> {
        let fail = |why: String| {
            let fix = if why.contains("fix:") {
                ""
            } else {
                "; fix: give the dotted path of a scene key (docs/src/guide/scene-files.md), \
                 e.g. liquid.0.spacing"
            };
            Error::input(format!("--set {}: {why}{fix}", self.text))
        };
        let parts = &self.path.0;
        let mut cur: &mut toml::Value = {
            let PathPart::Key(first) = &parts[0] else {
                return Err(fail("a path starts with a key, not an index".into()));
            };
            if parts.len() == 1 {
                root.insert(first.clone(), self.value.clone());
                return Ok(());
            }
            root.entry(first.clone())
                .or_insert_with(|| toml::Value::Table(Default::default()))
        };
        for (n, part) in parts.iter().enumerate().skip(1) {
            let last = n == parts.len() - 1;
            let so_far = KeyPath(parts[..n].to_vec());
            cur = match (part, cur) {
                (PathPart::Key(k), toml::Value::Table(t)) => {
                    if last {
                        t.insert(k.clone(), self.value.clone());
                        return Ok(());
                    }
                    t.entry(k.clone())
                        .or_insert_with(|| toml::Value::Table(Default::default()))
                }
                (PathPart::Index(i), toml::Value::Array(a)) => {
                    let len = a.len();
                    let slot = a.get_mut(*i).ok_or_else(|| {
                        fail(format!(
                            "{so_far} has {len} entries, so index {i} does not exist"
                        ))
                    })?;
                    if last {
                        *slot = self.value.clone();
                        return Ok(());
                    }
                    slot
                }
                (PathPart::Index(i), _) => {
                    return Err(fail(format!(
                        "{so_far} is not an array, so [{i}] does not apply"
                    )));
                }
                (PathPart::Key(k), _) => {
                    return Err(fail(format!(
                        "{so_far} is not a table, so .{k} does not apply"
                    )));
                }
            };
        }
        Ok(())
    }
}
