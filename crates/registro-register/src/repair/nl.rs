//! Dutch: je/jij/jou/jullie ↔ u, jouw ↔ uw; an inverted verb before the pronoun takes the u-form's -t ("Heb je" →
//! "Hebt u", "Kun je" → "Kunt u") and loses it going back.
use super::{capitalise_if, table, Ctx, Edit};

const PRON: &[(&str, &str)] = &[
    ("jij", "u"),
    ("je", "u"),
    ("jou", "u"),
    ("jullie", "u"),
    ("jouw", "uw"),
    ("jezelf", "uzelf"),
    ("alsjeblieft", "alstublieft"),
    ("asjeblieft", "alstublieft"),
    ("asjeblief", "alstublieft"),
    ("ajb", "aub"),
];
/// Inverted 2sg (no -t) → u-form, for the irregular ones; the rest add -t.
const VERB: &[(&str, &str)] = &[
    ("kun", "kunt"),
    ("kan", "kunt"),
    ("ga", "gaat"),
    ("sta", "staat"),
    ("zie", "ziet"),
    ("doe", "doet"),
    ("ben", "bent"),
    ("heb", "hebt"),
    ("wil", "wilt"),
    ("zal", "zult"),
    ("zul", "zult"),
];

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, t, w) in c.wrong_tokens() {
        if c.to_formal {
            let Some(to) = table(PRON, w, true) else { continue };
            out.push(c.edit(i, capitalise_if(t, to)));
            if matches!(w, "je" | "jij") && i > 0 && verb_first(c, i - 1) {
                let v = c.norm(i - 1);
                let to = table(VERB, v, true).map(str::to_string).unwrap_or_else(|| {
                    if v.ends_with('t') || v.ends_with('d') {
                        v.to_string()
                    } else {
                        format!("{v}t")
                    }
                });
                out.push(c.edit_cased(i - 1, &to));
            }
        } else {
            let to = if w == "uw" {
                "jouw"
            } else if w == "uzelf" {
                "jezelf"
            } else if matches!(w, "alstublieft" | "astublieft") {
                "alsjeblieft"
            } else if w == "aub" {
                "ajb"
            } else {
                "je"
            };
            out.push(c.edit(i, capitalise_if(t, to)));
            if w == "u" && i > 0 && verb_first(c, i - 1) {
                let v = c.norm(i - 1);
                let to = table(VERB, v, false).map(str::to_string).unwrap_or_else(|| {
                    v.strip_suffix('t')
                        .filter(|s| !s.ends_with('t') && s.chars().count() > 1)
                        .unwrap_or(v)
                        .to_string()
                });
                out.push(c.edit_cased(i - 1, &to));
            }
        }
    }
    out
}

/// The token opens a question ("Heb je…") or follows a question word ("Waar woon je…"): an inverted finite verb.
fn verb_first(c: &Ctx<'_>, v: usize) -> bool {
    let t = &c.toks[v];
    t.sent_start
        || v > 0
            && matches!(
                c.norm(v - 1),
                "wat" | "waar" | "hoe" | "wanneer" | "waarom" | "welke" | "wie" | "hoeveel"
            )
}
