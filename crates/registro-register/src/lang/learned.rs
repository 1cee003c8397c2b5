//! Words CoCoA-MT's annotators marked as register phrases (regenerate with `--example lexgen`, which reads only the
//! pool part of the training data). They fill gaps of the hand rules, mostly 2nd/3rd-person verb forms, and are
//! weak markers: a learned "guarda" is also "he keeps".
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::tokens::Tok;
use crate::{marker, Lang, Marker, MarkerKind, Register};

fn table(lang: Lang) -> Option<&'static HashMap<&'static str, Register>> {
    static T: OnceLock<HashMap<Lang, HashMap<&'static str, Register>>> = OnceLock::new();
    T.get_or_init(|| {
        let files = [
            (Lang::De, include_str!("learned/de.tsv")),
            (Lang::Es, include_str!("learned/es.tsv")),
            (Lang::Fr, include_str!("learned/fr.tsv")),
            (Lang::Hi, include_str!("learned/hi.tsv")),
            (Lang::It, include_str!("learned/it.tsv")),
        ];
        files
            .into_iter()
            .map(|(l, f)| {
                let m = f
                    .lines()
                    .filter_map(|line| {
                        let (w, r) = line.split_once('\t')?;
                        Some((w, if r == "formal" { Register::Formal } else { Register::Informal }))
                    })
                    .collect();
                (l, m)
            })
            .collect()
    })
    .get(&lang)
}

pub(crate) fn add_markers(lang: Lang, text: &str, toks: &[Tok<'_>], out: &mut Vec<Marker>) {
    let Some(t) = table(lang) else { return };
    for (i, tok) in toks.iter().enumerate() {
        if out.iter().any(|m| m.start < tok.end && tok.start < m.end) {
            continue;
        }
        // "Du meine Güte!" addresses nobody (see `de::exclamation`).
        if lang == Lang::De && tok.norm == "du" && super::de::exclamation(toks, i) {
            continue;
        }
        if let Some(&r) = t.get(tok.norm.as_str()) {
            // An Italian -are imperative ("diventa", "cerca") is also the 3sg indicative; after a relative or a
            // subject ("Bruce Wayne che diventa Batman") it is the latter.
            let prev = i.checked_sub(1).map(|j| toks[j].norm.as_str()).filter(|_| !tok.sent_start);
            if lang == Lang::It && r == Register::Informal && tok.norm.ends_with('a')
                && prev.is_some_and(|p| matches!(p, "che" | "chi" | "non" | "lui" | "lei" | "mentre" | "quando" | "se" | "dove" | "cosa" | "si"))
            {
                continue;
            }
            out.push(marker(text, tok.start, tok.end, r, MarkerKind::Verb, false));
        }
    }
}
