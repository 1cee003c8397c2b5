//! French tu ↔ vous.
use super::{swap_ending, table, Ctx, Edit};

const POSSESSIVES: &[(&str, &str)] = &[
    ("ton", "votre"), ("ta", "votre"), ("tes", "vos"), ("tien", "vôtre"), ("tienne", "vôtre"), ("tiens", "vôtres"),
    ("tiennes", "vôtres"),
];
/// 2sg ↔ 2pl irregular verbs (indicative and imperative).
const VERBS: &[(&str, &str)] = &[
    ("as", "avez"), ("es", "êtes"), ("vas", "allez"), ("fais", "faites"), ("dis", "dites"), ("peux", "pouvez"),
    ("veux", "voulez"), ("sais", "savez"), ("dois", "devez"), ("vois", "voyez"), ("crois", "croyez"),
    ("prends", "prenez"), ("viens", "venez"), ("tiens", "tenez"), ("comprends", "comprenez"), ("bois", "buvez"),
    ("lis", "lisez"), ("écris", "écrivez"), ("connais", "connaissez"), ("mets", "mettez"), ("pars", "partez"),
    ("sors", "sortez"), ("dors", "dormez"), ("vis", "vivez"), ("suis", "suivez"), ("reçois", "recevez"),
    ("finis", "finissez"), ("choisis", "choisissez"), ("réfléchis", "réfléchissez"), ("va", "allez"),
    ("sois", "soyez"), ("aie", "ayez"), ("sache", "sachez"), ("fis", "fîtes"), ("étais", "étiez"), ("avais", "aviez"),
];
const PREPOSITIONS: &[&str] = &["pour", "avec", "chez", "à", "de", "sans", "que", "et", "toi", "comme", "sur", "par", "entre", "contre", "vers", "après", "avant"];

fn to_2pl(w: &str) -> Option<String> {
    const E: &[(&str, &str)] = &[("rais", "riez"), ("ais", "iez"), ("ras", "rez"), ("es", "ez"), ("e", "ez")];
    table(VERBS, w, true).map(str::to_string).or_else(|| swap_ending(w, E))
}

fn to_2sg(w: &str, imperative: bool) -> Option<String> {
    if imperative && w == "allez" {
        return Some("va".into());
    }
    if let Some(v) = table(VERBS, w, false) {
        return Some(v.to_string());
    }
    const E: &[(&str, &str)] = &[("riez", "rais"), ("iez", "ais"), ("rez", "ras"), ("ez", "es")];
    let v = swap_ending(w, E)?;
    // The -er imperative drops its -s: "Profite", not "Profites".
    Some(if imperative && v.ends_with("es") && !v.ends_with("ras") { v[..v.len() - 1].to_string() } else { v })
}

fn starts_with_vowel(w: &str) -> bool {
    w.starts_with(['a', 'e', 'i', 'o', 'u', 'h', 'é', 'è', 'ê', 'à', 'â', 'î', 'ô', 'y'])
}

/// The conjugated verb belonging to the pronoun at `i`: after it (skipping ne/clitics) or before it (inversion).
fn verb_of(c: &Ctx<'_>, i: usize) -> Option<usize> {
    if c.toks.get(i)?.hyphen_before {
        return i.checked_sub(1);
    }
    let mut j = i + 1;
    while j < c.toks.len() && matches!(c.norm(j), "ne" | "n'" | "me" | "m'" | "le" | "l'" | "la" | "les" | "lui" | "leur" | "y" | "en" | "te" | "t'" | "vous" | "nous" | "se" | "s'") {
        j += 1;
    }
    (j < c.toks.len()).then_some(j)
}

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, t, w) in c.wrong_tokens() {
        if c.to_formal {
            match w {
                "tu" => {
                    out.push(c.edit_cased(i, "vous"));
                    if let Some(v) = verb_of(c, i) {
                        if let Some(f) = to_2pl(c.norm(v)) {
                            out.push(c.edit_cased(v, &f));
                        }
                    }
                }
                "te" | "t'" | "t" => {
                    // "t'aime" → "vous aime": the elided form needs its space back.
                    out.push(c.edit_cased(i, if w == "te" { "vous" } else { "vous " }));
                    if c.text[t.end..].starts_with(' ') && w != "te" {
                        out.last_mut().unwrap().to = "vous".into();
                    }
                }
                "toi" => out.push(c.edit_cased(i, "vous")),
                _ => {
                    if let Some(p) = table(POSSESSIVES, w, true) {
                        out.push(c.edit_cased(i, p));
                    } else if t.sent_start {
                        if let Some(f) = to_2pl(w) {
                            out.push(c.edit_cased(i, &f));
                        }
                    }
                }
            }
        } else {
            match w {
                "vous" => {
                    let prev = i.checked_sub(1).map(|j| c.norm(j)).unwrap_or("");
                    let verb = verb_of(c, i);
                    let subject = t.hyphen_before || verb.is_some_and(|v| c.norm(v).ends_with("ez") || table(VERBS, c.norm(v), false).is_some() || c.norm(v).ends_with("iez"));
                    if t.hyphen_before || (subject && !PREPOSITIONS.contains(&prev)) {
                        out.push(c.edit_cased(i, "tu"));
                        if let Some(v) = verb {
                            if let Some(f) = to_2sg(c.norm(v), false) {
                                out.push(c.edit_cased(v, &f));
                            }
                        }
                    } else if PREPOSITIONS.contains(&prev) || i + 1 >= c.toks.len() || c.text[t.end..].trim_start().starts_with([',', '.', '!', '?', '-']) {
                        out.push(c.edit_cased(i, "toi"));
                    } else if c.toks.get(i + 1).is_some_and(|n| starts_with_vowel(&n.norm)) && c.text[t.end..].starts_with(' ') {
                        let n = &c.toks[i + 1];
                        out.push(Edit { start: t.start, end: n.start, from: c.text[t.start..n.start].into(), to: super::capitalise_if(t, "t'") });
                    } else {
                        out.push(c.edit_cased(i, "te"));
                    }
                }
                "votre" => {
                    // Gender of the noun is unknown without a lexicon; "ton" is also used before vowels.
                    let next = c.toks.get(i + 1).map(|n| n.norm.as_str()).unwrap_or("");
                    const FEM: &[&str] = &["tion", "sion", "ité", "ure", "ette", "elle", "ence", "ance", "ie", "ée", "ise", "ade", "ine", "eur"];
                    let fem = FEM.iter().any(|f| next.ends_with(f)) && !next.ends_with("eur") && !starts_with_vowel(next);
                    out.push(c.edit_cased(i, if fem { "ta" } else { "ton" }));
                }
                "vos" => out.push(c.edit_cased(i, "tes")),
                "vôtre" => out.push(c.edit_cased(i, "tien")),
                "vôtres" => out.push(c.edit_cased(i, "tiens")),
                _ if t.sent_start => {
                    if let Some(f) = to_2sg(w, true) {
                        out.push(c.edit_cased(i, &f));
                    }
                }
                _ => {}
            }
        }
    }
    out
}
