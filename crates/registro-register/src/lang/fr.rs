//! French: tu/te/t'/toi/ton/ta/tes vs. vous/votre/vos, and imperatives (2pl -ez vs. 2sg). French names its
//! subject, so person shows in a pronoun everywhere except the imperative; there the enclitic pronoun joined by
//! a hyphen ("Envoie-moi", "Prends-le", "Vas-y") marks the verb as an imperative, and its ending gives the person.
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

const TU_PRONOUNS: &[&str] = &["tu", "te", "t'", "toi", "t"];
const TU_POSSESSIVES: &[&str] = &["ton", "ta", "tes", "tien", "tienne", "tiens", "tiennes"];
const VOUS_POSSESSIVES: &[&str] = &["votre", "vos", "vôtre", "vôtres"];
const NOT_IMPERATIVE: &[&str] = &["chez", "assez", "nez", "rez"];
/// Pronouns that follow an imperative, joined by a hyphen.
const ENCLITICS: &[&str] = &["moi", "toi", "le", "la", "les", "lui", "leur", "nous", "y", "en"];
/// 2pl imperatives that do not end in -ez.
const VOUS_IMPERATIVES: &[&str] = &["dites", "faites"];
/// Words joined by a hyphen to one of the enclitics that are not verbs ("sur-le-champ", "arc-en-ciel").
const NOT_VERB_BEFORE_ENCLITIC: &[&str] = &["sur", "arc", "vis", "pot", "sous", "sans", "entre", "chez"];

/// The imperative joined to `next` by a hyphen, if `w` is one: its register. 1pl forms ("Allons-y", "Sommes-nous")
/// and 3rd-person inversions (their pronouns il/elle/on are not enclitics here) are not the addressee.
fn imperative_before_enclitic(w: &str, next: &Tok<'_>) -> Option<crate::Register> {
    if !next.hyphen_before || !any(ENCLITICS, &next.norm) || any(NOT_VERB_BEFORE_ENCLITIC, w) {
        return None;
    }
    if w.ends_with("ez") || any(VOUS_IMPERATIVES, w) {
        return Some(Formal);
    }
    if w.ends_with("ons") || w.ends_with("mes") || w.chars().count() < 2 {
        return None;
    }
    // 2sg imperatives end in -e, -s, -x or -a (envoie, prends, dis, veux, va).
    w.ends_with(['e', 's', 'x', 'a']).then_some(Informal)
}

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        // Not after a hyphen itself: in "Donne-le-moi" the verb is "Donne", not "le".
        let imperative = if t.hyphen_before { None } else { toks.get(i + 1).and_then(|n| imperative_before_enclitic(w, n)) };
        if let Some(register) = imperative {
            push(&mut out, text, t, register, Imperative, true);
        } else if any(TU_PRONOUNS, w) && !(w == "t" && t.hyphen_before) {
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
