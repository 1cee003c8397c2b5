//! Marker rules, one module per language.
pub mod de;
pub mod es;
pub mod fr;
pub mod hi;
pub mod it;
pub mod ja;
pub mod ko;
pub mod learned;
pub mod nl;
pub mod pt;
pub mod ru;
pub mod vi;

use crate::tokens::Tok;
use crate::{marker, Marker, MarkerKind, Register};

pub(crate) fn push(out: &mut Vec<Marker>, text: &str, t: &Tok<'_>, r: Register, k: MarkerKind, strong: bool) {
    out.push(marker(text, t.start, t.end, r, k, strong));
}

pub(crate) fn any(words: &[&str], w: &str) -> bool {
    words.contains(&w)
}
