//! Finding where a key stands in the scene text, so that errors can name its line.
use toml::de::{DeTable, DeValue};

/// One step of a path into the scene: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathPart {
    /// A key of a table.
    Key(String),
    /// An index into an array (of tables or of values).
    Index(usize),
}

/// A dotted path, displayed as `liquid[0].spacing`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyPath(pub Vec<PathPart>);

impl KeyPath {
    /// Parse `liquid.0.spacing` (numbers are array indices).
    pub fn parse_dotted(dotted: &str) -> KeyPath {
        KeyPath(
            dotted
                .split('.')
                .map(|p| match p.parse::<usize>() {
                    Ok(i) => PathPart::Index(i),
                    Err(_) => PathPart::Key(p.to_string()),
                })
                .collect(),
        )
    }

    /// A path from literal parts.
    pub fn new() -> KeyPath {
        KeyPath(Vec::new())
    }

    /// This path extended by a key.
    pub fn key(&self, k: &str) -> KeyPath {
        let mut v = self.0.clone();
        v.push(PathPart::Key(k.to_string()));
        KeyPath(v)
    }

    /// This path extended by an index.
    pub fn index(&self, i: usize) -> KeyPath {
        let mut v = self.0.clone();
        v.push(PathPart::Index(i));
        KeyPath(v)
    }
}

impl std::fmt::Display for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (n, part) in self.0.iter().enumerate() {
            match part {
                PathPart::Key(k) if n == 0 => write!(f, "{k}")?,
                PathPart::Key(k) => write!(f, ".{k}")?,
                PathPart::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// 1-based line and column of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |p| offset - p - 1) + 1;
    (line, col)
}

/// The 1-based line where the value at `path` is written, if the text holds it.
pub fn line_of(text: &str, path: &KeyPath) -> Option<usize> {
    let root = DeTable::parse(text).ok()?;
    let mut span = root.span();
    let mut table: Option<&DeTable> = Some(root.get_ref());
    let mut array: Option<&[toml::Spanned<DeValue>]> = None;
    for part in &path.0 {
        let value: &toml::Spanned<DeValue> = match part {
            PathPart::Key(k) => {
                let t = table?;
                t.iter()
                    .find(|(key, _)| key.get_ref().as_ref() == k.as_str())?
                    .1
            }
            PathPart::Index(i) => array?.get(*i)?,
        };
        span = value.span();
        table = None;
        array = None;
        match value.get_ref() {
            DeValue::Table(t) => table = Some(t),
            DeValue::Array(a) => array = Some(a),
            _ => {}
        }
    }
    Some(line_col(text, span.start).0)
}

/// The path of the deepest key whose key or value covers byte `offset` of `text`.
pub fn path_at(text: &str, offset: usize) -> Option<KeyPath> {
    fn walk_table(t: &DeTable, offset: usize, path: KeyPath) -> Option<KeyPath> {
        for (k, v) in t.iter() {
            let here = path.key(k.get_ref());
            if k.span().contains(&offset) {
                return Some(here);
            }
            // A table's own span covers only its header, so search inside it regardless.
            if let Some(found) = walk_value(v.get_ref(), offset, here.clone()) {
                return Some(found);
            }
            if v.span().contains(&offset) {
                return Some(here);
            }
        }
        None
    }
    fn walk_value(v: &DeValue, offset: usize, path: KeyPath) -> Option<KeyPath> {
        match v {
            DeValue::Table(t) => walk_table(t, offset, path),
            DeValue::Array(a) => a.iter().enumerate().find_map(|(i, e)| {
                let here = path.index(i);
                walk_value(e.get_ref(), offset, here.clone())
                    .or_else(|| e.span().contains(&offset).then_some(here))
            }),
            _ => None,
        }
    }
    let root = DeTable::parse(text).ok()?;
    walk_table(root.get_ref(), offset, KeyPath::new()).filter(|p| !p.0.is_empty())
}
