//! Hindi: तू/तुम/तुम्हारा/तुम्हें and -ओ verb forms vs. आप/आपका/आपको and -िए/-ें forms.
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

const TUM_PRONOUNS: &[&str] = &[
    "तू", "तुम", "तुम्हें", "तुम्हेंं", "तुमने", "तुमसे", "तुमको", "तुझे", "तुझको", "तुझसे", "तूने", "तुम्हीं",
];
const TUM_POSSESSIVES: &[&str] = &["तुम्हारा", "तुम्हारी", "तुम्हारे", "तेरा", "तेरी", "तेरे"];
const AAP_PRONOUNS: &[&str] = &["आप", "आपको", "आपने", "आपसे", "आपमें", "आपही", "आपकों"];
const AAP_POSSESSIVES: &[&str] = &["आपका", "आपकी", "आपके"];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for t in toks.iter() {
        let w = t.norm.as_str();
        if any(TUM_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TUM_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if any(AAP_PRONOUNS, w) {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if any(AAP_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, true);
        } else if is_o_form(w) {
            push(&mut out, text, t, Informal, Verb, false);
        } else if is_iye_form(w) {
            push(&mut out, text, t, Formal, Imperative, false);
        }
    }
    out
}

/// -ओ/-ो imperatives and -ोगे futures (करो, जाओ, बताओ, करोगे) address तुम.
fn is_o_form(w: &str) -> bool {
    let n = w.chars().count();
    n >= 2
        && (w.ends_with("ओ") || w.ends_with("ोगे") || w.ends_with("ओगे") || w.ends_with("ोगी") || w.ends_with("ओगी")
            || (w.ends_with('ो') && !matches!(w, "को" | "दो" | "सो" | "जो" | "तो" | "वो" | "यो" | "हो" | "लोगों" | "दोनों")))
        && !w.ends_with("ों")
}

/// -िए/-इए polite imperatives (जाइए, बताइए, कीजिए) and -िएगा address आप.
fn is_iye_form(w: &str) -> bool {
    w.ends_with("इए") || w.ends_with("िए") && w != "लिए" && w != "किए" && w != "दिए" && w != "चाहिए" && w != "गए"
        || w.ends_with("िएगा") || w.ends_with("इएगा") || w.ends_with("िये") && w != "लिये" && w != "चाहिये" && w != "किये" && w != "दिये"
}
