//! Choosing among rewrite candidates: formality ↑, meaning preservation ↑ (chrF against the input, the
//! best-correlating meaning metric in Briakou et al. 2021, averaged with embedding similarity where an embedding
//! model is loaded), fluency (perplexity ↓) and consensus (minimum Bayes risk: the mean chrF to the other
//! candidates, so the choice leans to what several methods agree on), combined as a weighted geometric mean so a
//! candidate must be good on every axis. Each axis is first mapped to (0, 1]; the weights are part of the result so
//! the UI and the JSON output can show exactly how a candidate won. A candidate with a content problem (see
//! [`crate::content`]) is ranked after every candidate without one, whatever its score.

use serde::{Deserialize, Serialize};

use crate::content::ContentFlag;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Weights {
    pub formality: f64,
    pub meaning: f64,
    pub fluency: f64,
    /// Weight of the consensus (MBR) term; runs stored before it existed had none.
    #[serde(default)]
    pub consensus: f64,
}

impl Default for Weights {
    /// Tuned on `data/rewrite-dev/en-tune` (rules + minimal edit + one paraphrase from Qwen2.5-Coder-1.5B, the
    /// surface scorer): agreement carries most of the choice — the minimal edit usually sits between the rules'
    /// output and the paraphrase, and it is the one people's rewrites resemble — while formality, meaning and fluency
    /// break ties and keep a fluent, formal candidate ahead of a garbled one. Multi-BLEU on en-tune 70.3 with
    /// these weights against 67.5 with all four at 1 (`data/rewrite-dev/README.md` has the grid and the commands).
    fn default() -> Self {
        Weights { formality: 1.0, meaning: 0.5, fluency: 0.5, consensus: 6.0 }
    }
}

impl std::str::FromStr for Weights {
    type Err = String;
    /// `formality,meaning,fluency[,consensus]`, e.g. `1,2,0.5` or `1,2,0.5,1`.
    fn from_str(s: &str) -> Result<Self, String> {
        let v: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse::<f64>().map_err(|_| format!("weight {x:?} is not a number")))
            .collect::<Result<_, _>>()?;
        let ok = v.iter().all(|x| x.is_finite() && *x >= 0.0) && v.iter().sum::<f64>() > 0.0;
        match v[..] {
            [f, m, l] if ok => Ok(Weights { formality: f, meaning: m, fluency: l, consensus: Weights::default().consensus }),
            [f, m, l, c] if ok => Ok(Weights { formality: f, meaning: m, fluency: l, consensus: c }),
            _ => Err(format!("expected three or four non-negative weights formality,meaning,fluency[,consensus]; got {s:?}")),
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

/// Cosine similarity −1 … 1 → (0, 1] (sentence embeddings of paraphrases sit well above 0).
pub fn similarity_unit(cos: f64) -> f64 {
    cos.clamp(FLOOR, 1.0)
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Scores {
    /// Formality on the PT16 scale.
    pub formality: f32,
    /// chrF against the input.
    pub meaning: f64,
    /// Cosine similarity of sentence embeddings of the candidate and the input, when an embedding model is loaded.
    #[serde(default)]
    pub similarity: Option<f64>,
    /// Perplexity under the fluency model, when one is available.
    pub perplexity: Option<f64>,
    /// Mean chrF (0 … 100) to the other candidates of the sentence, when there were at least three.
    #[serde(default)]
    pub consensus: Option<f64>,
    /// Content the candidate drops or invents; any flag ranks it after every unflagged candidate.
    #[serde(default)]
    pub flags: Vec<ContentFlag>,
    /// The weighted geometric mean of the normalised axes (absent axes left out).
    pub gm: f64,
}

impl Scores {
    pub fn new(formality: f32, meaning: f64, perplexity: Option<f64>, w: &Weights) -> Self {
        Scores { formality, meaning, perplexity, ..Default::default() }.weighed(w)
    }

    /// Recomputes `gm` from the axes present.
    pub fn weighed(mut self, w: &Weights) -> Self {
        let meaning = match self.similarity {
            Some(s) => (meaning_unit(self.meaning) * similarity_unit(s)).sqrt(),
            None => meaning_unit(self.meaning),
        };
        let mut num = w.formality * formality_unit(self.formality).ln() + w.meaning * meaning.ln();
        let mut den = w.formality + w.meaning;
        if let Some(p) = self.perplexity {
            num += w.fluency * fluency_unit(p).ln();
            den += w.fluency;
        }
        if let Some(c) = self.consensus {
            num += w.consensus * meaning_unit(c).ln();
            den += w.consensus;
        }
        self.gm = if den > 0.0 { (num / den).exp() } else { 0.0 };
        self
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Candidate {
    pub text: String,
    /// How it was produced: `rules`, `roundtrip`, `llm-minimal`, `llm-paraphrase#1`, …
    pub origin: String,
    /// Other methods that produced exactly the same text (merged into this candidate).
    #[serde(default)]
    pub also: Vec<String>,
    pub scores: Scores,
}

/// Drops empty candidates and merges exact duplicates into the first one seen (its `also` lists the others).
pub fn dedup(cands: &mut Vec<Candidate>) {
    let mut kept: Vec<Candidate> = Vec::with_capacity(cands.len());
    for c in cands.drain(..) {
        if c.text.trim().is_empty() {
            continue;
        }
        match kept.iter_mut().find(|k| k.text.trim() == c.text.trim()) {
            Some(k) => k.also.push(c.origin),
            None => kept.push(c),
        }
    }
    *cands = kept;
}

/// Drops empty candidates and exact duplicates, keeping the first origin seen, then sorts best first: unflagged
/// before flagged, then GM, then formality.
pub fn rerank(cands: &mut Vec<Candidate>) {
    dedup(cands);
    cands.sort_by(|a, b| {
        a.scores.flags.is_empty().cmp(&b.scores.flags.is_empty()).reverse()
            .then(b.scores.gm.total_cmp(&a.scores.gm))
            .then(b.scores.formality.total_cmp(&a.scores.formality))
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
        let formality_only = Weights { formality: 1.0, meaning: 0.0, fluency: 0.0, consensus: 0.0 };
        assert!(Scores::new(2.5, 10.0, None, &formality_only).gm > Scores::new(1.0, 70.0, None, &formality_only).gm);
        // Perplexity counts when present: a disfluent candidate loses.
        assert!(Scores::new(1.0, 70.0, Some(20.0), &w).gm > Scores::new(1.0, 70.0, Some(900.0), &w).gm);
        assert!("1,2".parse::<Weights>().is_err() && "1,2,x".parse::<Weights>().is_err());
    }

    #[test]
    fn rerank_sorts_and_dedups() {
        let w = Weights::default();
        let mut c = vec![
            Candidate { text: "a".into(), origin: "llm#1".into(), also: vec![], scores: Scores::new(0.0, 50.0, None, &w) },
            Candidate { text: "b".into(), origin: "llm#2".into(), also: vec![], scores: Scores::new(2.0, 60.0, None, &w) },
            Candidate { text: "b ".into(), origin: "llm#3".into(), also: vec![], scores: Scores::new(2.0, 60.0, None, &w) },
        ];
        rerank(&mut c);
        assert_eq!(c.iter().map(|c| c.origin.as_str()).collect::<Vec<_>>(), vec!["llm#2", "llm#1"]);
        assert_eq!(c[0].also, vec!["llm#3"]);
        // A content flag ranks a candidate last whatever its score.
        let mut c = vec![
            Candidate { text: "a".into(), origin: "rules".into(), also: vec![], scores: Scores::new(0.0, 50.0, None, &w) },
            Candidate {
                text: "b".into(),
                origin: "llm-minimal".into(),
                also: vec![],
                scores: Scores { flags: vec![ContentFlag { issue: crate::content::ContentIssue::Number, detail: "5 missing".into() }], ..Scores::new(2.5, 90.0, None, &w) },
            },
        ];
        rerank(&mut c);
        assert_eq!(c[0].origin, "rules");
    }
}
