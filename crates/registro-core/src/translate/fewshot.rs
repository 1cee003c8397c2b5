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

    /// The default pool: the shared CoCoA-MT (IWSLT 2023 for KO/VI) training data, if present; for Russian, which
    /// neither data set covers, the hand-written pairs of [`RU_PAIRS`].
    pub fn default_for(lang: Lang) -> Option<Pool> {
        if lang == Lang::Ru {
            return Some(Pool::from_pairs(lang, RU_PAIRS.iter().enumerate().map(|(i, (s, f, inf))| Pair {
                domain: "registro-ru".into(),
                line: i,
                source: s.to_string(),
                formal: f.to_string(),
                informal: inf.to_string(),
                formal_feminine: None,
                informal_feminine: None,
                formal_annotated: None,
                informal_annotated: None,
            }).collect()));
        }
        data::cocoa_train_dir(lang).and_then(|d| Pool::load(&d, lang).ok())
    }

    fn from_pairs(lang: Lang, pairs: Vec<Pair>) -> Pool {
        let words = pairs.iter().map(|p| words(&p.source)).collect();
        Pool { lang, pairs, words }
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// (source, reference) for up to `n` pairs spread over the pool, formal and informal references alternating.
    pub fn reference_pairs(&self, n: usize) -> impl Iterator<Item = (&str, &str)> + '_ {
        let step = (self.pairs.len() / n.max(1)).max(1);
        self.pairs.iter().step_by(step).take(n).enumerate().map(|(i, p)| {
            (p.source.as_str(), if i % 2 == 0 { p.formal.as_str() } else { p.informal.as_str() })
        })
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

/// Russian few-shot pairs (source, formal вы, informal ты), written for Registro by its developers (no data set has
/// EN→RU formality references); conversational like CoCoA-MT's telephony and topical-chat domains.
pub const RU_PAIRS: &[(&str, &str, &str)] = &[
    ("Do you have time tomorrow?", "У вас есть время завтра?", "У тебя есть время завтра?"),
    ("What is your favourite movie?", "Какой ваш любимый фильм?", "Какой твой любимый фильм?"),
    ("Have you ever been to Moscow?", "Вы когда-нибудь были в Москве?", "Ты когда-нибудь был в Москве?"),
    ("Can you send me the documents by Friday?", "Не могли бы вы прислать мне документы до пятницы?", "Можешь прислать мне документы до пятницы?"),
    ("Thank you for your help, I really appreciate it.", "Спасибо вам за помощь, я очень это ценю.", "Спасибо тебе за помощь, я очень это ценю."),
    ("Do you know where the station is?", "Вы знаете, где вокзал?", "Ты знаешь, где вокзал?"),
    ("What do you think about this book?", "Что вы думаете об этой книге?", "Что ты думаешь об этой книге?"),
    ("Please call me when you arrive.", "Пожалуйста, позвоните мне, когда приедете.", "Пожалуйста, позвони мне, когда приедешь."),
    ("I heard you like to play football.", "Я слышал, что вы любите играть в футбол.", "Я слышал, что ты любишь играть в футбол."),
    ("Where do you want me to send the package?", "Куда вам отправить посылку?", "Куда тебе отправить посылку?"),
];
