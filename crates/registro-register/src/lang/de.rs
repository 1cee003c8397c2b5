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

/// 2pl forms ("ihr", informal to several people): only the 2nd person plural ends this way.
const IHR_VERBS: &[&str] = &[
    "habt", "seid", "könnt", "wollt", "wisst", "müsst", "dürft", "sollt", "mögt", "werdet", "hattet", "wart", "wärt",
    "hättet", "würdet", "könntet", "solltet", "müsstet", "wolltet", "durftet", "möchtet",
];
/// Words before which "ihr" opens a clause as its subject ("Wenn ihr wollt", "Was macht ihr"): subordinators and
/// question words.
const CLAUSE_OPENERS: &[&str] = &[
    "wenn", "dass", "ob", "weil", "als", "falls", "wie", "was", "wo", "wann", "warum", "wieso", "weshalb", "wohin",
    "woher", "wer", "und", "aber", "oder",
];
/// Words that open a sentence before "mir"/"mich" without being a verb ("Auch mir…", "Bitte mich nicht…").
const NOT_V1: &[&str] = &[
    "bitte", "auch", "dann", "nur", "jetzt", "und", "oder", "aber", "also", "so", "da", "hier", "dort", "heute", "morgen",
    "gestern", "mir", "dir", "mich", "dich", "uns", "euch", "ihm", "ihr", "ihnen", "es", "das", "was", "wer", "wie",
    "wo", "warum", "wenn", "ob", "weil", "dass", "danke", "nein", "ja", "ok", "okay", "hallo", "hey", "leider", "sonst",
    "schon", "noch", "nicht", "gern", "gerne", "klar", "natürlich", "genau", "vielleicht", "zu", "mit", "bei", "von",
    "nach", "für", "ohne", "gegen", "wegen", "trotz", "laut", "dank", "außer", "seit", "ab",
];

/// "ihr" as the subject of a 2pl verb: right after a sentence-initial verb or one after a question word ("Kommt ihr
/// morgen?", "Was macht ihr?"), or opening a clause before a verb in -t/-d ("Ihr seid toll", "Wenn ihr wollt").
/// Elsewhere "ihr" is "her" (dative) or "their"/"her" (possessive, before a noun).
fn ihr_is_subject(toks: &[Tok<'_>], i: usize) -> bool {
    let prev = i.checked_sub(1).map(|j| &toks[j]).filter(|_| !toks[i].sent_start);
    let next = toks.get(i + 1).filter(|n| !n.sent_start);
    // Inside a sentence the addressee's "ihr" is written small; a capital "Ihr" there is the polite possessive
    // ("Was ist Ihr idealer Beruf?").
    if !toks[i].sent_start && toks[i].capitalised() {
        return false;
    }
    let verb_before = prev.is_some_and(|p| {
        let opens = p.sent_start || i >= 2 && any(CLAUSE_OPENERS, &toks[i - 2].norm) && !p.capitalised();
        opens && p.norm.ends_with('t') && p.norm.chars().count() >= 3 && !any(NOT_V1, &p.norm) && p.norm != "ist"
    }) && next.is_none_or(|n| !n.capitalised());
    let opens_clause = toks[i].sent_start || prev.is_some_and(|p| any(CLAUSE_OPENERS, &p.norm));
    let verb_after = opens_clause
        && next.is_some_and(|n| !n.capitalised() && (n.norm.ends_with('t') || n.norm.ends_with('d')) && n.norm.chars().count() >= 3);
    verb_before || verb_after
}

/// A sentence opened by a verb followed by "mir"/"mich"/"uns": German puts the finite verb second, so a word
/// before these object pronouns at the very start is a verb in first position — an imperative or a question without
/// its pronoun ("Schick mir die Datei", "Ruf mich an"). The polite form names "Sie" there ("Schicken Sie mir"), and
/// an infinitive in -en ("Bitte mir schicken") is neither, so both are left out.
fn du_imperative(toks: &[Tok<'_>], i: usize) -> bool {
    let t = &toks[i];
    t.sent_start
        && t.norm.chars().count() >= 2
        && t.norm.chars().all(char::is_alphabetic)
        && !t.norm.ends_with("en")
        && !any(NOT_V1, &t.norm)
        && !any(DU_PRONOUNS, &t.norm)
        && toks.get(i + 1).is_some_and(|n| !n.sent_start && matches!(n.norm.as_str(), "mir" | "mich" | "uns"))
}

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        if w == "ihr" && ihr_is_subject(toks, i) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(IHR_VERBS, w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if du_imperative(toks, i) {
            push(&mut out, text, t, Informal, Imperative, false);
        } else if w == "du" && exclamation(toks, i) {
            // "Du meine Güte!", "Du lieber Himmel!": an exclamation, said to nobody, in either register.
        } else if any(DU_PRONOUNS, w) {
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

/// "Du meine Güte", "Du lieber Himmel", "Du liebe Zeit": "du" in a fixed exclamation addresses nobody.
pub(crate) fn exclamation(toks: &[Tok<'_>], i: usize) -> bool {
    let next: Vec<&str> = toks.iter().skip(i + 1).take(2).filter(|t| !t.sent_start).map(|t| t.norm.as_str()).collect();
    matches!(next.as_slice(), ["meine", "güte"] | ["lieber", "himmel"] | ["liebe", "zeit"] | ["meine", "zeit"] | ["lieber", "gott"])
}
