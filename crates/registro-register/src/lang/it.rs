//! Italian: tu/ti/te/tuo… and 2sg verbs vs. Lei/La/Le/Suo… and 3sg verbs. Lower-case suo/sua also mean
//! his/her, so they are weak; capitalised Lei/La/Le mid-sentence are the courtesy form.
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

const TU_PRONOUNS: &[&str] = &["tu", "ti", "te", "voi", "vi"];
const TU_POSSESSIVES: &[&str] = &["tuo", "tua", "tuoi", "tue", "vostro", "vostra", "vostri", "vostre"];
const LEI_POSSESSIVES: &[&str] = &["suo", "sua", "suoi", "sue"];
pub const TU_VERBS: &[&str] = &[
    "sei", "hai", "sai", "puoi", "vuoi", "devi", "pensi", "vai", "fai", "dici", "stai", "credi", "conosci", "capisci",
    "ricordi", "vivi", "giochi", "trascorri", "guardi", "ascolti", "preferisci", "piace", "eri", "avevi", "sapevi",
    "potevi", "volevi", "facevi", "andavi", "stavi", "dai", "senti", "leggi", "abiti", "lavori", "ami", "compri",
    "usi", "provi", "vedi", "hai", "scusa", "dimmi", "fammi", "guarda", "senti", "pensaci", "goditi", "divertiti",
];
const NOT_TU_VERB: &[&str] = &["piace", "vi", "senti"];
/// 2sg indicative forms that are also the Lei imperative/subjunctive ("pensi al suo iPhone").
const AMBIGUOUS_TU: &[&str] = &["pensi", "guardi", "compri", "ami", "usi", "provi", "lavori", "abiti", "ascolti", "ricordi", "senti"];
pub const LEI_VERBS: &[&str] = &[
    "ha", "sa", "può", "vuole", "deve", "pensa", "va", "fa", "dice", "sta", "crede", "conosce", "capisce", "ricorda",
    "vive", "gioca", "trascorre", "guarda", "ascolta", "preferisce", "dà", "sente", "legge", "abita", "lavora", "ama", "compra", "usa", "prova", "vede", "scusi",
    "mi dica", "goda", "vada", "lasci", "senta", "guardi", "pensi", "si",
];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        let next_lower = toks.get(i + 1).is_some_and(|n| !n.capitalised() && !n.sent_start);
        let prev = i.checked_sub(1).map(|j| toks[j].norm.as_str()).filter(|_| !t.sent_start);
        let after_preposition = prev.is_some_and(|p| matches!(p, "di" | "de" | "in" | "a" | "da" | "su" | "con" | "per" | "e"));
        if any(AMBIGUOUS_TU, w) {
            // "ne pensi", "non pensi", "tu pensi" are the 2sg indicative, not the Lei imperative.
            let strong = prev.is_some_and(|p| matches!(p, "ne" | "non" | "tu" | "ci" | "lo" | "la" | "li" | "mi"));
            push(&mut out, text, t, Informal, Verb, strong);
        } else if any(TU_PRONOUNS, w) && !matches!(w, "voi" | "vi") {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TU_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if (any(TU_VERBS, w) && !any(NOT_TU_VERB, w)) || is_tu_verb_form(w) || is_imperfect_2sg(w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if t.text == "Lei" && !t.sent_start || matches!(t.text, "La" | "Le" | "Suo" | "Sua" | "Suoi" | "Sue" | "Glielo") && !t.sent_start && next_lower && !after_preposition {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if t.text == "Le" && toks.get(i + 1).is_some_and(|n| matches!(n.norm.as_str(), "piace" | "piacciono" | "piaceva" | "piacerebbe" | "interessa" | "sembra" | "va" | "è")) {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if t.text == "Lei" {
            push(&mut out, text, t, Formal, Pronoun, false);
        } else if any(LEI_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, false);
        } else if any(LEI_VERBS, w) && !matches!(w, "si" | "pensi" | "guardi") {
            push(&mut out, text, t, Formal, Verb, false);
        } else if in_question(text, toks, i) && (w.ends_with("rebbe") || w.ends_with("ava") || w.ends_with("eva") || w.ends_with("iva")) {
            push(&mut out, text, t, Formal, Verb, false);
        }
    }
    out
}

/// Imperfect 2sg (-avi/-evi) outside a few nouns.
fn is_imperfect_2sg(w: &str) -> bool {
    (w.ends_with("avi") || w.ends_with("evi")) && w.chars().count() > 4 && !matches!(w, "chiavi" | "navi" | "gravi" | "bravi" | "schiavi" | "brevi" | "lievi" | "nevi" | "allievi")
}

/// Conditional 2sg (-resti) and infinitive + ti (divertirti, chiederti) are unambiguous enough.
fn is_tu_verb_form(w: &str) -> bool {
    let n = w.chars().count();
    (w.ends_with("resti") && n > 6 && !matches!(w, "interesti" | "foresti"))
        || ((w.ends_with("arti") || w.ends_with("irti") || w.ends_with("erti")) && n > 6
            && !matches!(w, "aperti" | "esperti" | "coperti" | "offerti" | "certi" | "inerti" | "scoperti" | "deserti" | "concerti" | "quarti" | "scarti" | "sofferti" | "sorti"))
}

/// The token's sentence ends with a question mark.
fn in_question(text: &str, toks: &[Tok<'_>], i: usize) -> bool {
    let end = toks[i + 1..].iter().find(|t| t.sent_start).map(|t| t.start).unwrap_or(text.len());
    text[toks[i].end..end].contains('?')
}
