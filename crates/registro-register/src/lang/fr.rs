//! French: tu/te/t'/toi/ton/ta/tes vs. vous/votre/vos, and imperatives (2pl -ez vs. 2sg).
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

const TU_PRONOUNS: &[&str] = &["tu", "te", "t'", "toi", "t"];
const TU_POSSESSIVES: &[&str] = &["ton", "ta", "tes", "tien", "tienne", "tiens", "tiennes"];
const VOUS_POSSESSIVES: &[&str] = &["votre", "vos", "vôtre", "vôtres"];
const NOT_IMPERATIVE: &[&str] = &["chez", "assez", "nez", "rez"];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for t in toks.iter() {
        let w = t.norm.as_str();
        if any(TU_PRONOUNS, w) && !(w == "t" && t.hyphen_before) {
            // "a-t-il": the euphonic t is not a pronoun.
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TU_POSSESSIVES, w) && !(w == "tiens" && t.sent_start) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if w == "vous" {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if any(VOUS_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, true);
        } else if t.sent_start && w.ends_with("ez") && w.chars().count() > 3 && !any(NOT_IMPERATIVE, w) {
            push(&mut out, text, t, Formal, Imperative, true);
        }
    }
    out
}
