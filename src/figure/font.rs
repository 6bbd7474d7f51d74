//! The bitmap font of figure text: the public-domain 8x8 glyphs of the `font8x8` crate.
use font8x8::legacy::{BASIC_LEGACY, LATIN_LEGACY};

/// Width and height of one glyph cell, px (before scaling).
pub const CELL: u32 = 8;

/// The 8 rows of a character's glyph, top row first; bit `i` of a row is column `i` from the
/// left. Characters outside ASCII and Latin-1 are drawn as '?'.
pub fn glyph(c: char) -> [u8; 8] {
    let code = c as usize;
    match code {
        0x20..=0x7e => BASIC_LEGACY[code],
        0xa0..=0xff => LATIN_LEGACY[code - 0xa0],
        _ => BASIC_LEGACY['?' as usize],
    }
}

/// Whether pixel (`col`, `row`) of a glyph cell is inked.
pub fn inked(glyph: &[u8; 8], col: u32, row: u32) -> bool {
    col < CELL && row < CELL && (glyph[row as usize] >> col) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_is_blank_and_letters_and_degree_have_ink() {
        assert!(glyph(' ').iter().all(|&r| r == 0));
        for c in ['A', 'm', '0', '9', '°', '/', '.'] {
            assert!(glyph(c).iter().any(|&r| r != 0), "{c} has no ink");
        }
        assert_eq!(glyph('\u{2603}'), glyph('?'));
        // '|' is a vertical bar: one column inked in the rows that have ink.
        let bar = glyph('|');
        let rows: Vec<u8> = bar.iter().copied().filter(|&r| r != 0).collect();
        assert!(
            rows.len() >= 5 && rows.iter().all(|&r| r == rows[0]),
            "{bar:?}"
        );
        assert!(!inked(&bar, CELL, 0), "outside the cell is never inked");
    }
}
