//! The translation memory: the approved segments of a project's translate runs, per target language and register,
//! looked up by source similarity (fuzzy matches ≥ 75%, as CAT tools show them). A match in another register
//! would put the wrong address form back into the document, so the register is part of the key.

use registro_metrics::distance::{levenshtein, levenshtein_exceeds};
use registro_store::{RunId, Store};
use serde::Serialize;

/// Below this similarity a stored translation is more rewriting than reuse.
pub const FUZZY_THRESHOLD: f64 = 0.75;
/// The newest approved segments looked at: enough for a translator's projects, bounded for a lookup per segment.
pub const MAX_UNITS: usize = 20_000;

/// The best approved translation of a similar source.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct TmMatch {
    /// 75–100: character similarity of the sources (100 = the same sentence).
    pub similarity: u8,
    pub source: String,
    pub target: String,
    pub run_id: RunId,
}

pub struct Memory {
    /// (normalised source as chars, source, target, run)
    units: Vec<(Vec<char>, String, String, RunId)>,
}

fn normalise(s: &str) -> Vec<char> {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase().chars().collect()
}

impl Memory {
    /// The approved segments of `project` into `lang` in `register`, leaving out run `except` (the one under review).
    pub fn load(store: &Store, project: i64, lang: &str, register: &str, except: Option<RunId>) -> anyhow::Result<Memory> {
        let units = store
            .approved_translations(project, lang, register, MAX_UNITS)?
            .into_iter()
            .filter(|(run, _, source, target)| Some(*run) != except && !source.trim().is_empty() && !target.trim().is_empty())
            .map(|(run, _, source, target)| (normalise(&source), source, target, run))
            .collect();
        Ok(Memory { units })
    }

    pub fn empty() -> Memory {
        Memory { units: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// The most similar approved unit with similarity ≥ [`FUZZY_THRESHOLD`] (the newest among equals).
    pub fn best_match(&self, source: &str) -> Option<TmMatch> {
        let q = normalise(source);
        if q.is_empty() {
            return None;
        }
        let mut best: Option<(usize, usize)> = None; // (distance, unit index)
        for (i, (u, ..)) in self.units.iter().enumerate() {
            let longest = q.len().max(u.len());
            // similarity = 1 - d / longest ≥ threshold  ⇔  d ≤ (1 - threshold) · longest
            let budget = ((1.0 - FUZZY_THRESHOLD) * longest as f64).floor() as usize;
            let budget = best.map_or(budget, |(d, _)| budget.min(d.saturating_sub(1)));
            if best.is_some_and(|(d, _)| d == 0) || levenshtein_exceeds(&q, u, budget) {
                continue;
            }
            best = Some((levenshtein(&q, u), i));
        }
        best.map(|(d, i)| {
            let (u, source, target, run) = &self.units[i];
            let longest = q.len().max(u.len()) as f64;
            TmMatch {
                similarity: ((1.0 - d as f64 / longest) * 100.0).floor() as u8,
                source: source.clone(),
                target: target.clone(),
                run_id: *run,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(units: &[(&str, &str)]) -> Memory {
        Memory { units: units.iter().enumerate().map(|(i, (s, t))| (normalise(s), s.to_string(), t.to_string(), i as RunId)).collect() }
    }

    #[test]
    fn fuzzy_matches_are_scored_like_a_cat_tool_and_cut_at_75() {
        let m = memory(&[("Please sign the last page.", "Bitte unterschreiben Sie die letzte Seite."), ("Read the terms.", "Lesen Sie die Bedingungen.")]);
        let exact = m.best_match("please  sign the last page.").unwrap();
        assert_eq!((exact.similarity, exact.run_id), (100, 0), "case and spacing do not count");
        let fuzzy = m.best_match("Please sign the first page.").unwrap();
        assert!((75..100).contains(&fuzzy.similarity), "{fuzzy:?}");
        assert_eq!(fuzzy.target, "Bitte unterschreiben Sie die letzte Seite.");
        assert_eq!(m.best_match("Send the invoice to our office today."), None, "nothing under 75%");
        assert_eq!(m.best_match(""), None);
    }
}
