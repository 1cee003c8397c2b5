//! Reranking rewrite candidates: formality ↑, meaning preservation ↑ (chrF against the input, the best-correlating
//! meaning metric in Briakou et al. 2021) and fluency (perplexity ↓), combined as a weighted geometric mean so a
//! candidate must be good on every axis. Each axis is first mapped to (0, 1]; the weights are part of the result so
//! the UI and the JSON output can show exactly how a candidate won.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Weights {
    pub formality: f64,
    pub meaning: f64,
    pub fluency: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights { formality: 1.0, meaning: 1.0, fluency: 1.0 }
    }
}

impl std::str::FromStr for Weights {
    type Err = String;
    /// `formality,meaning,fluency`, e.g. `1,2,0.5`.
    fn from_str(s: &str) -> Result<Self, String> {
        let v: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse::<f64>().map_err(|_| format!("weight {x:?} is not a number")))
            .collect::<Result<_, _>>()?;
        match v[..] {
            [f, m, l] if v.iter().all(|x| *x >= 0.0) && f + m + l > 0.0 => Ok(Weights { formality: f, meaning: m, fluency: l }),
            _ => Err(format!("expected three non-negative weights formality,meaning,fluency; got {s:?}")),
        }
    }
}

/// Floor for every normalised axis: a zero would make the geometric mean zero regardless of the other axes.
const FLOOR: f64 = 0.01;

/// PT16 scale −3 … 3 → (0, 1].
pub fn formality_unit(score: f32) -> f64 {
    ((score as f64 + 3.0) / 6.0).clamp(FLOOR, 1.0)
}

/// chrF 0 … 100 → (0, 1].
pub fn meaning_unit(chrf: f64) -> f64 {
    (chrf / 100.0).clamp(FLOOR, 1.0)
}

/// Perplexity 1 … 1000+ → 1 … 0.01 on a log scale (ppl 10 → 0.67, 100 → 0.33).
pub fn fluency_unit(ppl: f64) -> f64 {
    (1.0 - ppl.max(1.0).ln() / 1000f64.ln()).clamp(FLOOR, 1.0)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Scores {
    /// Formality on the PT16 scale.
    pub formality: f32,
    /// chrF against the input.
    pub meaning: f64,
    /// Perplexity under the fluency model, when one is available.
    pub perplexity: Option<f64>,
    /// The weighted geometric mean of the normalised axes (perplexity left out when absent).
    pub gm: f64,
}

impl Scores {
    pub fn new(formality: f32, meaning: f64, perplexity: Option<f64>, w: &Weights) -> Self {
        let mut num = w.formality * formality_unit(formality).ln() + w.meaning * meaning_unit(meaning).ln();
        let mut den = w.formality + w.meaning;
        if let Some(p) = perplexity {
            num += w.fluency * fluency_unit(p).ln();
            den += w.fluency;
        }
        let gm = if den > 0.0 { (num / den).exp() } else { 0.0 };
        Scores { formality, meaning, perplexity, gm }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Candidate {
    pub text: String,
    /// How it was produced: `rules`, `roundtrip`, `llm#1`, …
    pub origin: String,
    pub scores: Scores,
}

/// Sorts best first (GM, then formality) and drops exact duplicates, keeping the first origin seen.
pub fn rerank(cands: &mut Vec<Candidate>) {
    let mut seen = std::collections::HashSet::new();
    cands.retain(|c| !c.text.trim().is_empty() && seen.insert(c.text.trim().to_string()));
    cands.sort_by(|a, b| {
        b.scores.gm.total_cmp(&a.scores.gm).then(b.scores.formality.total_cmp(&a.scores.formality))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gm_rewards_balance_and_respects_weights() {
        let w = Weights::default();
        // Very formal but meaning lost vs. moderately formal with meaning kept.
        let lost = Scores::new(2.5, 10.0, None, &w);
        let kept = Scores::new(1.0, 70.0, None, &w);
        assert!(kept.gm > lost.gm);
        let formality_only = Weights { formality: 1.0, meaning: 0.0, fluency: 0.0 };
        assert!(Scores::new(2.5, 10.0, None, &formality_only).gm > Scores::new(1.0, 70.0, None, &formality_only).gm);
        // Perplexity counts when present: a disfluent candidate loses.
        assert!(Scores::new(1.0, 70.0, Some(20.0), &w).gm > Scores::new(1.0, 70.0, Some(900.0), &w).gm);
        assert!("1,2".parse::<Weights>().is_err() && "1,2,x".parse::<Weights>().is_err());
    }

    #[test]
    fn rerank_sorts_and_dedups() {
        let w = Weights::default();
        let mut c = vec![
            Candidate { text: "a".into(), origin: "llm#1".into(), scores: Scores::new(0.0, 50.0, None, &w) },
            Candidate { text: "b".into(), origin: "llm#2".into(), scores: Scores::new(2.0, 60.0, None, &w) },
            Candidate { text: "b ".into(), origin: "llm#3".into(), scores: Scores::new(2.0, 60.0, None, &w) },
        ];
        rerank(&mut c);
        assert_eq!(c.iter().map(|c| c.origin.as_str()).collect::<Vec<_>>(), vec!["llm#2", "llm#1"]);
    }
}
