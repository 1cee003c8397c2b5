//! German: du/dich/dir/dein… and 2nd-person-singular verbs vs. capitalised Sie/Ihnen/Ihr….
use super::{any, push};
use crate::tokens::{neighbour, Tok};
use crate::{Marker, MarkerKind::*, Register::*};

pub const DU_PRONOUNS: &[&str] = &["du", "dich", "dir", "euch"];
pub const DU_POSSESSIVES: &[&str] = &[
    "dein", "deine", "deinem", "deinen", "deiner", "deines", "deins", "euer", "eure", "eurem", "euren", "eurer", "eures",
];
pub const SIE_POSSESSIVES: &[&str] = &["ihr", "ihre", "ihrem", "ihren", "ihrer", "ihres"];
/// 2sg forms of frequent verbs, recognised even without an adjacent `du` ("Weißt, was ich meine?" is rare, but
/// "Hast du" with a dropped subject after repair is not).
const DU_VERBS: &[&str] = &[
    "bist", "hast", "weißt", "kannst", "musst", "willst", "sollst", "darfst", "magst", "wirst", "warst", "hattest",
    "würdest", "könntest", "solltest", "möchtest", "müsstest", "wärst", "wärest", "wüsstest", "hättest", "durftest",
    "konntest", "wolltest", "musstest", "gehst", "siehst", "kommst", "machst", "denkst", "glaubst", "findest", "meinst",
    "liest", "isst", "fährst", "schaust", "kennst", "brauchst", "sagst", "spielst", "hörst", "kaufst", "weisst",
];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        if any(DU_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
            // The verb next to "du" carries the 2sg ending: mark it too so repair and highlighting see it.
            for d in [-1isize, 1] {
                if let Some(v) = neighbour(toks, i, d) {
                    if w == "du" && v.norm.ends_with("st") && (!v.capitalised() || v.sent_start) {
                        push(&mut out, text, v, Informal, Verb, true);
                    }
                }
            }
        } else if any(DU_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if any(DU_VERBS, w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if t.text == "Ihnen" {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if t.text == "Sie" {
            push(&mut out, text, t, Formal, Pronoun, !t.sent_start || sie_is_addressee(toks, i));
        } else if t.capitalised() && any(SIE_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, !t.sent_start);
        }
    }
    out
}

/// A sentence-initial "Sie" is the addressee when it is a polite imperative ("Sie müssen…" is ambiguous, but
/// "Schauen Sie", "Haben Sie" put Sie second, so this only handles "Sie" followed by a verb and a later Ihnen/Ihr).
fn sie_is_addressee(toks: &[Tok<'_>], i: usize) -> bool {
    toks[i + 1..]
        .iter()
        .take_while(|t| !t.sent_start)
        .any(|t| t.text == "Ihnen" || (!t.sent_start && t.capitalised() && any(SIE_POSSESSIVES, &t.norm)))
}
