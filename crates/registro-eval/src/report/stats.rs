//! The Dashboard's per-run statistics, computed when a run is stored (scored by `eval`, imported, translated over
//! a test set with references) instead of at the first comparison: BLEU/chrF/TER sufficient statistics, M-Acc
//! labels, formality, edit distances (prepare's tables) and the default bootstrap resamples of each (1000 samples,
//! sacrebleu's seed). A comparison of stored runs then only aggregates them. What a comparison needs and does not
//! find (another reference set, another seed, a Registro version that scores differently) it still computes and
//! stores, once.

use anyhow::Result;
use registro_metrics::significance::DEFAULT_SEED;
use registro_store::{RunId, Store};

use super::compare::{finite_mean, CompareOptions};
use super::data::{load, CompareRequest};
use super::prepare::{prepare_stored, store_computed};
use super::resampled::{resampled, Stat};
use crate::progress::{CancelToken, Progress, ProgressFn};

/// Test sets longer than this are left to the first comparison: a Dashboard of a million segments is not what
/// anyone opens, and `eval` of such a file must stay bounded by its own statistics.
pub const MAX_SEGMENTS: usize = 200_000;

/// What [`store_run_statistics`] did for each run.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct StoredStatistics {
    pub stored: Vec<RunId>,
    /// Runs left to the first comparison, with why (no document or references, too long, cancelled, …).
    pub skipped: Vec<(RunId, String)>,
}

/// Computes and stores the Dashboard's statistics of each of `runs`, one run at a time (memory holds one run's
/// texts and tables), telling `progress` which. A run that cannot be compared (no document, no references, no
/// outputs) or whose statistics fail is skipped with the reason; the runs themselves are never touched.
pub fn store_run_statistics(store: &mut Store, runs: &[RunId], cancel: &CancelToken, progress: ProgressFn) -> StoredStatistics {
    let mut out = StoredStatistics::default();
    let total = runs.len() as u64;
    let defaults = CompareOptions::default();
    debug_assert_eq!(defaults.seed, DEFAULT_SEED);
    for (k, &id) in runs.iter().enumerate() {
        if cancel.is_cancelled() {
            out.skipped.extend(runs[k..].iter().map(|&r| (r, "cancelled".to_string())));
            break;
        }
        progress(Progress { done: k as u64, total, message: format!("Dashboard statistics of run {id}") });
        match store_one(store, id, defaults.bootstrap, defaults.seed) {
            Ok(None) => out.stored.push(id),
            Ok(Some(why)) => out.skipped.push((id, why)),
            Err(e) => out.skipped.push((id, format!("{e:#}"))),
        }
    }
    progress(Progress { done: total, total, message: format!("Dashboard statistics of {} run(s) stored", out.stored.len()) });
    out
}

/// `Some(reason)` when the run is skipped.
fn store_one(store: &mut Store, id: RunId, samples: usize, seed: u64) -> Result<Option<String>> {
    let run = store.run(id)?;
    let Some(doc) = run.document_id else { return Ok(Some("no document".into())) };
    let document = store.document(doc)?;
    // What `load` scores a run against by default: its register's reference or every plain one.
    if document.reference_names.iter().all(|r| r.contains(".annotated")) {
        return Ok(Some("no references to score against".into()));
    }
    if document.segments as usize > MAX_SEGMENTS {
        return Ok(Some(format!("{} segments: computed at its first comparison", document.segments)));
    }
    let data = load(store, &CompareRequest { runs: vec![id], baseline: None, reference: None })?;
    let prep = prepare_stored(data, store)?;
    let mut wanted = vec![(0, Stat::Bleu), (0, Stat::Chrf), (0, Stat::Ter)];
    if prep.systems[0].macc.is_some() {
        wanted.push((0, Stat::Macc));
    }
    // A comparison resamples the mean formality only where it has one.
    if finite_mean(&prep.systems[0].formality).is_some() {
        wanted.push((0, Stat::Formality));
    }
    if prep.data.segments() > 1 {
        resampled(&prep, &wanted, samples, seed);
    }
    store_computed(&prep, store)?;
    Ok(None)
}
