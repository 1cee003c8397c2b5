//! Few-shot contrastive examples from the CoCoA-MT training pool (never its held-out part), retrieved by word
//! overlap with the source. Each example shows the wanted reference with its register markers in [brackets] and
//! the reference in the other register to avoid.
use std::collections::HashSet;
use std::path::Path;

use registro_register::data::{self, Pair};
use registro_register::{analyze, Lang, Register};

use super::Gender;

#[derive(Clone, Debug, serde::Serialize)]
pub struct Shot {
    pub source: String,
    pub wanted: String,
    pub wanted_marked: String,
    pub avoid_marked: String,
}

pub struct Pool {
    lang: Lang,
    pairs: Vec<Pair>,
    words: Vec<HashSet<String>>,
}

const STOP: &[&str] = &[
    "the", "a", "an", "and", "or", "to", "of", "in", "on", "is", "it", "that", "this", "i", "my", "me", "we", "for",
    "with", "was", "be", "at", "so", "but", "as", "are", "have", "just", "like", "yeah", "oh",
];

fn words(s: &str) -> HashSet<String> {
    s.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.to_lowercase())
        .filter(|w| !w.is_empty() && !STOP.contains(&w.as_str()))
        .collect()
}

/// `text` with the analyzer's markers wrapped in [brackets].
pub fn mark(lang: Lang, text: &str) -> String {
    let a = analyze(lang, text);
    let mut out = String::new();
    let mut pos = 0;
    for m in &a.markers {
        if m.start < pos {
            continue;
        }
        out.push_str(&text[pos..m.start]);
        out.push('[');
        out.push_str(&m.text);
        out.push(']');
        pos = m.end;
    }
    out.push_str(&text[pos..]);
    out
}

impl Pool {
    /// The pool part of a CoCoA-MT training folder; only pairs whose two references differ are useful.
    pub fn load(dir: &Path, lang: Lang) -> anyhow::Result<Pool> {
        let (pool, _held) = data::split(data::load_dir(dir, lang)?);
        let pairs: Vec<Pair> = pool.into_iter().filter(|p| p.contrastive()).collect();
        let words = pairs.iter().map(|p| words(&p.source)).collect();
        Ok(Pool { lang, pairs, words })
    }

    /// The default pool: the shared CoCoA-MT training data, if present.
    pub fn default_for(lang: Lang) -> Option<Pool> {
        data::cocoa_train_dir(lang).and_then(|d| Pool::load(&d, lang).ok())
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The `k` pool pairs most similar to `query` (Jaccard overlap of content words), shortest first on ties so
    /// the prefix stays small.
    pub fn retrieve(&self, query: &str, k: usize, register: Register, gender: Option<Gender>) -> Vec<Shot> {
        let q = words(query);
        let mut scored: Vec<(f64, usize)> = self
            .words
            .iter()
            .enumerate()
            .filter(|(i, _)| self.pairs[*i].source.len() < 220)
            .map(|(i, w)| {
                let inter = w.intersection(&q).count() as f64;
                let union = (w.len() + q.len()) as f64 - inter;
                (if union > 0.0 { inter / union } else { 0.0 }, i)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(self.pairs[a.1].source.len().cmp(&self.pairs[b.1].source.len())));
        scored
            .into_iter()
            .take(k)
            .map(|(_, i)| {
                let p = &self.pairs[i];
                let fem = gender == Some(Gender::Feminine);
                let formal = if fem { p.formal_feminine.as_ref().unwrap_or(&p.formal) } else { &p.formal };
                let informal = if fem { p.informal_feminine.as_ref().unwrap_or(&p.informal) } else { &p.informal };
                let (wanted, avoid) = if register.is_formal_side() { (formal, informal) } else { (informal, formal) };
                Shot {
                    source: p.source.clone(),
                    wanted: wanted.clone(),
                    wanted_marked: mark(self.lang, wanted),
                    avoid_marked: mark(self.lang, avoid),
                }
            })
            .collect()
    }
}
