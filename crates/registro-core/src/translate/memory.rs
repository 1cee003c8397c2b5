//! The translation memory: the approved segments of a project's translate runs, per target language and register,
//! looked up by source similarity (fuzzy matches ≥ 75%, as CAT tools show them). A match in another register
//! would put the wrong address form back into the document, so the register is part of the key: a segment's own
//! register, the run's unless that sentence was overridden. Besides the review grid's matches, [`Examples`] are
//! what a new translation in the project is shown: each segment's match as a few-shot exchange before it.

use std::collections::HashMap;

use anyhow::Context;
use registro_metrics::distance::{levenshtein, levenshtein_exceeds};
use registro_register::{Lang, Register};
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
    /// The approved segments of `project` into `lang` in `register`, leaving out run `except` (the one under
    /// review). A sentence whose register was overridden in its run counts in its own register: a formal run's
    /// informal sentence is in the informal memory. The register's own runs come first, newest first.
    pub fn load(store: &Store, project: i64, lang: &str, register: &str, except: Option<RunId>) -> anyhow::Result<Memory> {
        let mut units = Vec::new();
        let mut overrides: HashMap<RunId, serde_json::Value> = HashMap::new();
        let others = [Register::Formal, Register::Informal, Register::Respectful].map(Register::as_str);
        let run_registers = std::iter::once(register).chain(others.into_iter().filter(|r| *r != register));
        for run_register in run_registers {
            for (run, idx, source, target) in store.approved_translations(project, lang, run_register, MAX_UNITS)? {
                if Some(run) == except || source.trim().is_empty() || target.trim().is_empty() {
                    continue;
                }
                if !overrides.contains_key(&run) {
                    let params = store.run(run)?.params;
                    overrides.insert(run, params.get("register_overrides").cloned().unwrap_or_default());
                }
                let own = overrides[&run].get(idx.to_string()).and_then(|v| v.as_str()).unwrap_or(run_register);
                if own == register && units.len() < MAX_UNITS {
                    units.push((normalise(&source), source, target, run));
                }
            }
        }
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

/// A run's translation-memory examples: the best approved match (in the segment's own register) of each
/// segment's source, looked up once when the run starts. The control layer shows a segment's match to the model
/// as a user/assistant exchange right before it, after the document's shared prefix (`prompt::build_with`).
#[derive(Clone, Debug, Default)]
pub struct Examples {
    by_register: HashMap<Register, HashMap<String, TmMatch>>,
}

impl Examples {
    /// The matches of `sources` (each in its register) among the approved segments of `project` into `lang`,
    /// leaving out run `except` (a run being resumed). One memory is loaded per register in use.
    pub fn lookup(store: &Store, project: i64, lang: Lang, sources: &[String], registers: &[Register], except: Option<RunId>) -> anyhow::Result<Examples> {
        anyhow::ensure!(registers.len() == sources.len(), "{} registers for {} segments", registers.len(), sources.len());
        let mut memories: HashMap<Register, Memory> = HashMap::new();
        let mut by_register: HashMap<Register, HashMap<String, TmMatch>> = HashMap::new();
        let mut looked_up: std::collections::HashSet<(Register, &str)> = Default::default();
        for (source, &register) in sources.iter().zip(registers) {
            if source.trim().is_empty() || !looked_up.insert((register, source.as_str())) {
                continue;
            }
            if !memories.contains_key(&register) {
                let m = Memory::load(store, project, lang.code(), register.as_str(), except)
                    .with_context(|| format!("loading the project's translation memory ({} {})", lang.code(), register.as_str()))?;
                memories.insert(register, m);
            }
            if let Some(hit) = memories[&register].best_match(source) {
                by_register.entry(register).or_default().insert(source.clone(), hit);
            }
        }
        Ok(Examples { by_register })
    }

    /// The approved pair to show before `source` translated in `register`.
    pub fn get(&self, register: Register, source: &str) -> Option<&TmMatch> {
        self.by_register.get(&register)?.get(source)
    }

    /// How many of the segments get an example (what a run's params record as `memory_examples`).
    pub fn count(&self, sources: &[String], registers: &[Register]) -> usize {
        sources.iter().zip(registers).filter(|(s, r)| self.get(**r, s).is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.by_register.is_empty()
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
