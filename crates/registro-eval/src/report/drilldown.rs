//! Segment drill-down between two systems: segments sorted by the difference of a sentence-level metric, each
//! with source, references and both outputs, their tokens marked as matching the reference, improving (matched
//! n-gram only the second system has) or worsening (matched n-gram only the first has) — MT-ComparEval's view —
//! and the register markers the analyzer finds.

use std::collections::HashSet;

use anyhow::{bail, Context, Result};
use registro_store::RunId;
use serde::{Deserialize, Serialize};

use super::prepare::{Prepared, SentenceMetric};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum DrillSort {
    /// Where B beats A most first.
    #[default]
    Improved,
    /// Where B loses to A most first.
    Worsened,
    /// Largest difference either way first.
    Absolute,
    /// Document order.
    Index,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct DrillOptions {
    pub a: RunId,
    pub b: RunId,
    #[serde(default = "default_metric")]
    #[ts(optional = nullable)]
    pub metric: SentenceMetric,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub sort: DrillSort,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub offset: usize,
    #[serde(default = "default_limit")]
    #[ts(optional = nullable)]
    pub limit: usize,
}

fn default_metric() -> SentenceMetric {
    SentenceMetric::BLEU
}
fn default_limit() -> usize {
    20
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum TokenClass {
    Plain,
    Match,
    Improving,
    Worsening,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct Token {
    pub text: String,
    /// Offsets in Unicode scalar values, like the register markers'.
    pub char_start: usize,
    pub char_end: usize,
    pub class: TokenClass,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct OutputView {
    pub run_id: RunId,
    pub label: String,
    pub text: String,
    pub score: f64,
    pub tokens: Vec<Token>,
    pub markers: Vec<registro_register::Marker>,
    /// Register the analyzer reads in the output (`formal`, `informal`, `mixed`, `neutral`…), if the language
    /// is supported.
    pub register: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct DrillSegment {
    pub index: usize,
    pub source: String,
    pub references: Vec<(String, String)>,
    pub a: OutputView,
    pub b: OutputView,
    /// `b − a`, oriented so that positive means B is better (TER is negated).
    pub diff: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct DrillPage {
    pub metric: SentenceMetric,
    pub metric_label: String,
    pub total: usize,
    pub improved: usize,
    pub worsened: usize,
    pub segments: Vec<DrillSegment>,
}

fn tokens_with_offsets(text: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut cur = String::new();
    let mut count = 0;
    for (ci, ch) in text.chars().enumerate() {
        if ch.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((std::mem::take(&mut cur), s, ci));
            }
        } else {
            if start.is_none() {
                start = Some(ci);
            }
            cur.push(ch);
        }
        count = ci + 1;
    }
    if let Some(s) = start {
        out.push((cur, s, count));
    }
    out
}

/// Lowercased words without surrounding punctuation, so "Sie," matches "Sie".
fn norm(t: &str) -> String {
    t.trim_matches(|c: char| c.is_ascii_punctuation() || "¿¡«»„“”‚‘’…".contains(c)).to_lowercase()
}

fn ngrams(words: &[String], max_n: usize) -> HashSet<Vec<String>> {
    let mut set = HashSet::new();
    for n in 1..=max_n {
        for w in words.windows(n) {
            set.insert(w.to_vec());
        }
    }
    set
}

/// Classifies each token of `text`: part of an n-gram (n ≤ 4) found in a reference ⇒ matching; if that n-gram is
/// also absent from `other`, it is `gain` (improving for B, worsening for A).
fn classify(text: &str, refs: &HashSet<Vec<String>>, other: &HashSet<Vec<String>>, gain: TokenClass) -> Vec<Token> {
    let toks = tokens_with_offsets(text);
    let words: Vec<String> = toks.iter().map(|t| norm(&t.0)).collect();
    let mut class = vec![TokenClass::Plain; toks.len()];
    for n in (1..=4).rev() {
        if words.len() < n {
            continue;
        }
        for i in 0..=words.len() - n {
            let g = &words[i..i + n];
            if g.iter().any(|w| w.is_empty()) || !refs.contains(g) {
                continue;
            }
            let c = if other.contains(g) { TokenClass::Match } else { gain };
            for slot in &mut class[i..i + n] {
                // A gained n-gram wins over a plain match; longer n-grams were visited first.
                if *slot == TokenClass::Plain || (c == gain && *slot == TokenClass::Match) {
                    *slot = c;
                }
            }
        }
    }
    toks.into_iter().zip(class).map(|((text, s, e), class)| Token { text, char_start: s, char_end: e, class }).collect()
}

pub fn drilldown(prep: &Prepared, opts: &DrillOptions) -> Result<DrillPage> {
    let data = &prep.data;
    let find = |id: RunId| {
        data.systems.iter().position(|s| s.run.id == id).with_context(|| format!("run {id} is not in this comparison"))
    };
    let (a, b) = (find(opts.a)?, find(opts.b)?);
    if a == b {
        bail!("pick two different runs to drill down (got {} twice)", opts.a);
    }
    let missing = || format!("this comparison has no sentence scores of {:?}", opts.metric.key());
    let sa = prep.systems[a].sentence.get(&opts.metric).with_context(missing)?;
    let sb = prep.systems[b].sentence.get(&opts.metric).with_context(missing)?;
    // "Improved" is the better side's: for formality between informal runs, a lower score.
    let direction = opts.metric.direction([a, b].map(|i| data.systems[i].run.register.as_deref()));
    let sign = if direction.higher_is_better == Some(false) { -1.0 } else { 1.0 };
    let n = data.segments();
    let diff: Vec<f64> = (0..n).map(|i| sign * (sb[i] - sa[i])).map(|d| if d.is_finite() { d } else { 0.0 }).collect();
    let mut order: Vec<usize> = (0..n).collect();
    match opts.sort {
        DrillSort::Improved => order.sort_by(|&x, &y| diff[y].total_cmp(&diff[x])),
        DrillSort::Worsened => order.sort_by(|&x, &y| diff[x].total_cmp(&diff[y])),
        DrillSort::Absolute => order.sort_by(|&x, &y| diff[y].abs().total_cmp(&diff[x].abs())),
        DrillSort::Index => {}
    }
    let lang: Option<registro_register::Lang> = data.target_lang.parse().ok();
    let view = |sys: usize, i: usize, refs: &HashSet<Vec<String>>, other: &HashSet<Vec<String>>, gain: TokenClass, score: f64| {
        let s = &data.systems[sys];
        let text = s.outputs[i].clone();
        let analysis = lang.map(|l| registro_register::analyze(l, &text));
        OutputView {
            run_id: s.run.id,
            label: s.label.clone(),
            score,
            tokens: classify(&text, refs, other, gain),
            markers: analysis.as_ref().map(|a| a.markers.clone()).unwrap_or_default(),
            register: analysis.map(|a| a.label.as_str().to_string()),
            text,
        }
    };
    let segments = order
        .iter()
        .skip(opts.offset)
        .take(opts.limit.clamp(1, 500))
        .map(|&i| {
            let mut references: Vec<(String, String)> = Vec::new();
            for s in [a, b] {
                for (name, stream) in data.systems[s].ref_names.iter().zip(&data.systems[s].refs) {
                    if !references.iter().any(|(n, _)| n == name) {
                        references.push((name.clone(), stream[i].clone()));
                    }
                }
            }
            let mut ref_grams = HashSet::new();
            for (_, r) in &references {
                let w: Vec<String> = tokens_with_offsets(r).iter().map(|t| norm(&t.0)).collect();
                ref_grams.extend(ngrams(&w, 4));
            }
            let words = |t: &str| -> Vec<String> { tokens_with_offsets(t).iter().map(|x| norm(&x.0)).collect() };
            let ga = ngrams(&words(&data.systems[a].outputs[i]), 4);
            let gb = ngrams(&words(&data.systems[b].outputs[i]), 4);
            DrillSegment {
                index: i,
                source: data.sources[i].clone(),
                references,
                a: view(a, i, &ref_grams, &gb, TokenClass::Worsening, sa[i]),
                b: view(b, i, &ref_grams, &ga, TokenClass::Improving, sb[i]),
                diff: diff[i],
            }
        })
        .collect();
    let follows_register = opts.metric.descriptor().is_some_and(|d| d.better == registro_metrics::Better::Register);
    Ok(DrillPage {
        metric: opts.metric.clone(),
        metric_label: match direction.higher_is_better {
            // Without a better side, "improved" only means "higher".
            None => format!("{} (higher first: {})", opts.metric.label(), direction.reason),
            Some(_) if follows_register => format!("{} ({})", opts.metric.label(), direction.label()),
            Some(false) => format!("{} (lower is better)", opts.metric.label()),
            Some(true) => opts.metric.label(),
        },
        total: n,
        improved: diff.iter().filter(|d| **d > 0.0).count(),
        worsened: diff.iter().filter(|d| **d < 0.0).count(),
        segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_in_chars() {
        let t = tokens_with_offsets("Können Sie  mir");
        assert_eq!(t[0], ("Können".to_string(), 0, 6));
        assert_eq!(t[1], ("Sie".to_string(), 7, 10));
        assert_eq!(t[2], ("mir".to_string(), 12, 15));
    }

    #[test]
    fn improving_tokens_are_matched_ngrams_the_other_system_lacks() {
        let refs = ngrams(&["können".into(), "sie".into(), "mir".into(), "helfen".into()], 4);
        let other = ngrams(&["kannst".into(), "du".into(), "mir".into(), "helfen".into()], 4);
        let toks = classify("Können Sie mir helfen?", &refs, &other, TokenClass::Improving);
        let classes: Vec<TokenClass> = toks.iter().map(|t| t.class).collect();
        // "Können Sie mir helfen" is a reference 4-gram the other output lacks: every token is improving.
        assert_eq!(classes, vec![TokenClass::Improving; 4]);
        let toks = classify("Kannst du mir helfen?", &refs, &ngrams(&["können".into(), "sie".into(), "mir".into(), "helfen".into()], 4), TokenClass::Worsening);
        let classes: Vec<TokenClass> = toks.iter().map(|t| t.class).collect();
        assert_eq!(classes, vec![TokenClass::Plain, TokenClass::Plain, TokenClass::Match, TokenClass::Match]);
    }
}
