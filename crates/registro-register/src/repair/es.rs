//! Spanish tú ↔ usted.
use super::{swap_ending, table, Ctx, Edit};

const WORDS: &[(&str, &str)] = &[
    ("tú", "usted"), ("ti", "usted"), ("contigo", "con usted"), ("tu", "su"), ("tus", "sus"), ("tuyo", "suyo"),
    ("tuya", "suya"), ("tuyos", "suyos"), ("tuyas", "suyas"),
];
/// 2sg ↔ 3sg irregular forms (including imperatives: informal imperative ↔ formal subjunctive).
const VERBS: &[(&str, &str)] = &[
    ("eres", "es"), ("has", "ha"), ("vas", "va"), ("estás", "está"), ("estas", "está"), ("das", "da"), ("fuiste", "fue"),
    ("hiciste", "hizo"), ("tuviste", "tuvo"), ("dijiste", "dijo"), ("estuviste", "estuvo"), ("pudiste", "pudo"),
    ("viste", "vio"), ("diste", "dio"), ("pusiste", "puso"), ("quisiste", "quiso"), ("supiste", "supo"),
    ("viniste", "vino"), ("trajiste", "trajo"), ("sabes", "sabe"), ("ves", "ve"), ("oíste", "oyó"), ("leíste", "leyó"),
    ("mira", "mire"), ("dime", "dígame"), ("cuéntame", "cuénteme"), ("oye", "oiga"), ("ten", "tenga"), ("ven", "venga"),
    ("haz", "haga"), ("pon", "ponga"), ("sal", "salga"), ("di", "diga"), ("sé", "sea"), ("ve", "vaya"),
    ("cuídate", "cuídese"), ("diviértete", "diviértase"), ("mantente", "manténgase"), ("asegúrate", "asegúrese"),
    ("disfruta", "disfrute"), ("imagínate", "imagínese"), ("fíjate", "fíjese"), ("piensa", "piense"),
    ("escucha", "escuche"), ("espera", "espere"), ("perdona", "perdone"), ("disculpa", "disculpe"),
];

/// Regular 2sg → 3sg by ending, longest first.
const ENDINGS: &[(&str, &str)] = &[
    ("rías", "ría"), ("ieras", "iera"), ("aras", "ara"), ("ieses", "iese"), ("ases", "ase"), ("abas", "aba"),
    ("ías", "ía"), ("rás", "rá"), ("aste", "ó"), ("iste", "ió"), ("arte", "arle"), ("erte", "erle"), ("irte", "irle"),
    ("ándote", "ándole"), ("iéndote", "iéndole"), ("as", "a"), ("es", "e"),
];

fn to_3sg(w: &str) -> Option<String> {
    table(VERBS, w, true)
        .map(str::to_string)
        .or_else(|| crate::lang::es::imperative_other_person(w))
        .or_else(|| swap_ending(w, ENDINGS))
}

fn to_2sg(w: &str) -> Option<String> {
    const BACK: &[(&str, &str)] = &[
        ("ría", "rías"), ("iera", "ieras"), ("ara", "aras"), ("iese", "ieses"), ("ase", "ases"), ("aba", "abas"),
        ("ía", "ías"), ("rá", "rás"), ("ió", "iste"), ("ó", "aste"), ("arle", "arte"), ("erle", "erte"), ("irle", "irte"),
        ("arse", "arte"), ("erse", "erte"), ("irse", "irte"), ("ándole", "ándote"), ("iéndole", "iéndote"), ("a", "as"),
        ("e", "es"),
    ];
    table(VERBS, w, false)
        .map(str::to_string)
        .or_else(|| crate::lang::es::imperative_other_person(w))
        .or_else(|| swap_ending(w, BACK))
}

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    let wrong_verb_after = |i: usize| c.is_wrong(i + 1) && !matches!(c.norm(i + 1), "tu" | "tus" | "su" | "sus" | "usted");
    for (i, t) in c.toks.iter().enumerate() {
        let w = t.norm.as_str();
        if !c.to_formal && w == "se" && c.is_wrong(i + 1) {
            out.push(c.edit_cased(i, "te"));
            continue;
        }
        if !c.is_wrong(i) {
            continue;
        }
        if c.to_formal {
            if w == "te" {
                // Reflexive before the addressee's own verb ("te acuerdas" → "se acuerda"), else "le".
                out.push(c.edit_cased(i, if wrong_verb_after(i) { "se" } else { "le" }));
            } else if let Some(p) = table(WORDS, w, true) {
                out.push(c.edit_cased(i, p));
            } else if let Some(v) = to_3sg(w) {
                out.push(c.edit_cased(i, &v));
            }
        } else if w == "usted" {
            // After a preposition the disjunctive form is "ti".
            let prep = i > 0 && matches!(c.norm(i - 1), "a" | "para" | "de" | "por" | "sin" | "en" | "sobre" | "que");
            if i > 0 && c.norm(i - 1) == "con" {
                out.push(Edit { start: c.toks[i - 1].start, end: t.end, from: c.text[c.toks[i - 1].start..t.end].into(), to: super::capitalise_if(&c.toks[i - 1], "contigo") });
            } else {
                out.push(c.edit_cased(i, if prep { "ti" } else { "tú" }));
            }
        } else if w == "le" || w == "se" {
            out.push(c.edit_cased(i, "te"));
        } else if let Some(p) = table(WORDS, w, false) {
            out.push(c.edit_cased(i, p));
        } else if let Some(v) = to_2sg(w) {
            out.push(c.edit_cased(i, &v));
        }
    }
    out
}
