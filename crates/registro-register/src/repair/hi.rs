//! Hindi तुम ↔ आप.
use super::{table, Ctx, Edit};

const WORDS: &[(&str, &str)] = &[
    ("तुम", "आप"), ("तू", "आप"), ("तुम्हें", "आपको"), ("तुम्हेंं", "आपको"), ("तुमको", "आपको"), ("तुझे", "आपको"),
    ("तुमने", "आपने"), ("तूने", "आपने"), ("तुमसे", "आपसे"), ("तुझसे", "आपसे"), ("तुम्हारा", "आपका"), ("तेरा", "आपका"),
    ("तुम्हारी", "आपकी"), ("तेरी", "आपकी"), ("तुम्हारे", "आपके"), ("तेरे", "आपके"),
];
/// Imperatives and futures: तुम form ↔ आप form.
const VERBS: &[(&str, &str)] = &[
    ("करो", "कीजिए"), ("दो", "दीजिए"), ("लो", "लीजिए"), ("पियो", "पीजिए"), ("जाओ", "जाइए"), ("आओ", "आइए"),
    ("बताओ", "बताइए"), ("सुनो", "सुनिए"), ("देखो", "देखिए"), ("रुको", "रुकिए"), ("चलो", "चलिए"), ("बैठो", "बैठिए"),
    ("सोचो", "सोचिए"), ("रहो", "रहिए"), ("हो", "हैं"), ("थे", "थे"),
];

fn to_aap(w: &str) -> Option<String> {
    table(WORDS, w, true).or_else(|| table(VERBS, w, true)).map(str::to_string).or_else(|| {
        const E: &[(&str, &str)] = &[("ओगे", "एँगे"), ("ोगे", "ेंगे"), ("ओगी", "एँगी"), ("ोगी", "ेंगी"), ("ओ", "इए"), ("ो", "िए")];
        E.iter().find_map(|(a, b)| w.strip_suffix(a).filter(|s| !s.is_empty()).map(|s| format!("{s}{b}")))
    })
}

fn to_tum(w: &str) -> Option<String> {
    table(WORDS, w, false).or_else(|| table(VERBS, w, false)).map(str::to_string).or_else(|| {
        const E: &[(&str, &str)] = &[("एँगे", "ओगे"), ("ेंगे", "ोगे"), ("इए", "ओ"), ("िए", "ो"), ("िये", "ो"), ("एँ", "ओ"), ("ें", "ो")];
        E.iter().find_map(|(a, b)| w.strip_suffix(a).filter(|s| !s.is_empty()).map(|s| format!("{s}{b}")))
    })
}

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut addressee_clause = false;
    for (i, t) in c.toks.iter().enumerate() {
        let w = t.norm.as_str();
        if t.sent_start {
            addressee_clause = false;
        }
        let clause_final = c.toks.get(i + 1).is_none_or(|n| n.sent_start);
        if c.is_wrong(i) && (w != "हो" || clause_final) {
            addressee_clause = true;
            if let Some(to) = if c.to_formal { to_aap(w) } else { to_tum(w) } {
                out.push(c.edit(i, to));
            }
        } else if addressee_clause {
            // The copula agrees with the addressee: "तुम कैसे हो" ↔ "आप कैसे हैं"; also the -ते हो/-ते हैं forms.
            if c.to_formal && w == "हो" && clause_final {
                out.push(c.edit(i, "हैं"));
            } else if !c.to_formal && w == "हैं" && clause_final {
                out.push(c.edit(i, "हो"));
            }
        }
    }
    out
}
