//! The scene's `output`: where a run writes (`output = "dir"`, as before) or, as a table,
//! where and what it writes besides the frames (`[output] dir = "..."`, `surface = true`).
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::PathBuf;

/// Where a run writes and whether it builds the liquid's surface with every frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OutputSpec {
    /// Output directory; `out/<scene file stem>` when absent. `--out` overrides it.
    pub dir: Option<PathBuf>,
    /// Build `surface/surface_NNNNN.ply` as each frame is written (`sphrigid run --surface`).
    pub surface: bool,
}

/// The table form of `output`.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct OutputTable {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dir: Option<PathBuf>,
    #[serde(default)]
    surface: bool,
}

impl OutputSpec {
    /// Whether nothing is set (the key is then left out of the scene echo).
    pub fn is_default(&self) -> bool {
        *self == OutputSpec::default()
    }
}

impl Serialize for OutputSpec {
    /// A plain directory (or nothing) serialises as the string it was, so that scenes and
    /// checkpoints of earlier versions keep their hash; with `surface` on, as a table.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (&self.dir, self.surface) {
            (Some(dir), false) => dir.serialize(s),
            _ => OutputTable {
                dir: self.dir.clone(),
                surface: self.surface,
            }
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for OutputSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = OutputSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a directory (output = \"runs/x\") or a table with dir and surface")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OutputSpec, E> {
                Ok(OutputSpec {
                    dir: Some(PathBuf::from(v)),
                    surface: false,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<OutputSpec, A::Error> {
                let t = OutputTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(OutputSpec {
                    dir: t.dir,
                    surface: t.surface,
                })
            }
        }
        d.deserialize_any(Either)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Serialize)]
    struct Holder {
        #[serde(default, skip_serializing_if = "OutputSpec::is_default")]
        output: OutputSpec,
    }

    fn parse(text: &str) -> Result<OutputSpec, String> {
        toml::from_str::<Holder>(text)
            .map(|h| h.output)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_string_or_a_table() {
        assert_eq!(
            parse("output = \"runs/a\"").unwrap(),
            OutputSpec {
                dir: Some("runs/a".into()),
                surface: false
            }
        );
        assert_eq!(
            parse("[output]\nsurface = true").unwrap(),
            OutputSpec {
                dir: None,
                surface: true
            }
        );
        assert_eq!(parse("").unwrap(), OutputSpec::default());
        let e = parse("[output]\nsurfce = true").unwrap_err();
        assert!(e.contains("surfce") && e.contains("surface"), "{e}");
        assert!(parse("output = 3").is_err());
    }

    #[test]
    fn a_plain_directory_echoes_as_before() {
        let h = Holder {
            output: parse("output = \"runs/a\"").unwrap(),
        };
        assert_eq!(
            serde_json::to_value(&h).unwrap(),
            serde_json::json!({"output": "runs/a"})
        );
        let h = Holder {
            output: parse("[output]\ndir = \"runs/a\"\nsurface = true").unwrap(),
        };
        let v = serde_json::to_value(&h).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"output": {"dir": "runs/a", "surface": true}})
        );
        let back: Holder = serde_json::from_value(v).unwrap();
        assert!(back.output.surface);
    }
}
