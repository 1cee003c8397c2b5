//! Each system's bootstrap-resampled scores, kept per system so a comparison only resamples what it has never
//! seen. A system's resampled scores depend on its own per-segment statistics and the shared resample indices
//! (test-set size, sample count, seed) alone — sacrebleu's paired bootstrap draws one set of indices for every
//! system — so adding a run to a comparison, removing one or changing the baseline resamples nothing else.
//! Scores computed when a run was scored (the default 1000 samples, seed 12345) or by an earlier comparison are
//! read from the store with the statistics they come from; a comparison stores the ones it computed.

use std::collections::HashMap;
use std::sync::Arc;

use registro_metrics::significance::Resampled;
use registro_store::{RunId, SegmentTable};

use super::computed::Computed;
use super::prepare::Prepared;
use super::significance::Resamples;

/// What is resampled per system: a corpus metric, M-Acc for the run's register, or the mean formality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Stat {
    Bleu,
    Chrf,
    Ter,
    Macc,
    Formality,
}

impl Stat {
    pub(crate) const ALL: [Stat; 5] = [Stat::Bleu, Stat::Chrf, Stat::Ter, Stat::Macc, Stat::Formality];

    /// The statistics table a resampled score is computed from is stored under a key starting with this.
    fn table_prefix(self) -> &'static str {
        match self {
            Stat::Bleu => "bleu|",
            Stat::Chrf => "chrf|",
            Stat::Ter => "ter|",
            Stat::Macc => "m-acc|",
            Stat::Formality => "formality|",
        }
    }
}

/// (system index, statistic, samples, seed).
type Key = (usize, Stat, usize, u64);

/// Where a system's statistics table is stored: its run, the table's (versioned) key and the fingerprint of the
/// texts it was computed from. Resampled scores are stored next to it under a key naming the sample count and
/// seed, with the same fingerprint, so a changed output or reference invalidates both.
#[derive(Clone, Debug)]
pub(crate) struct TableRef {
    pub run: RunId,
    pub key: String,
    pub fp: String,
}

fn resampled_key(samples: usize, seed: u64, table_key: &str) -> String {
    format!("boot|{samples}|{seed}|{table_key}")
}

/// The resampled scores a [`Prepared`] comparison holds.
#[derive(Default)]
pub(crate) struct ResampledCache {
    /// Where each system's statistics tables live, for storing what is computed.
    tables: HashMap<(usize, Stat), TableRef>,
    /// Read from the store: they survive [`Prepared::clear_caches`], as they would a restart.
    stored: HashMap<Key, Arc<Vec<f64>>>,
    /// Computed in this process; `true` once handed to the store by [`Self::to_store`].
    computed: Computed<Key, Arc<Vec<f64>>>,
}

impl ResampledCache {
    /// The cache of a comparison whose system `i` has its statistics tables at `tables[i]` (the versioned key and
    /// fingerprint of every table prepare read or computed), with the resampled scores `stored` (a run's tables
    /// as the store returned them) holds for them.
    pub(crate) fn new(
        tables: Vec<Vec<TableRef>>,
        stored: &HashMap<RunId, HashMap<String, (String, SegmentTable)>>,
    ) -> Self {
        let mut cache = ResampledCache::default();
        for (i, refs) in tables.into_iter().enumerate() {
            for t in refs {
                let Some(stat) = Stat::ALL.into_iter().find(|s| t.key.starts_with(s.table_prefix())) else { continue };
                for (key, (fp, table)) in stored.get(&t.run).into_iter().flatten() {
                    let Some(rest) = key.strip_prefix("boot|") else { continue };
                    let mut parts = rest.splitn(3, '|');
                    let (Some(samples), Some(seed), Some(table_key)) = (parts.next(), parts.next(), parts.next()) else { continue };
                    let (Ok(samples), Ok(seed)) = (samples.parse::<usize>(), seed.parse::<u64>()) else { continue };
                    // A table of the wrong size (a damaged or forged store) is recomputed like any miss.
                    if table_key == t.key && *fp == t.fp && table.width == 1 && table.values.len() == samples {
                        cache.stored.insert((i, stat, samples, seed), Arc::new(table.values.clone()));
                    }
                }
                cache.tables.insert((i, stat), t);
            }
        }
        cache
    }

    fn get(&self, key: &Key) -> Option<Arc<Vec<f64>>> {
        if let Some(v) = self.stored.get(key) {
            return Some(v.clone());
        }
        self.computed.get(key)
    }

    pub(crate) fn clear_computed(&self) {
        self.computed.clear();
    }

    /// What was computed here and not handed to the store yet (where its statistics table is a stored one), as
    /// rows for the store; each is handed over once.
    pub(crate) fn to_store(&self) -> Vec<(RunId, String, String, SegmentTable)> {
        self.computed.take_unstored(|(i, stat, samples, seed), values| {
            let t = self.tables.get(&(i, stat))?;
            let table = SegmentTable { width: 1, values: values.to_vec() };
            Some((t.run, resampled_key(samples, seed, &t.key), t.fp.clone(), table))
        })
    }
}

/// The values whose resampled mean is the formality row's CI: a segment the scorer could not score counts 0.
pub(crate) fn formality_values(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| if x.is_finite() { *x } else { 0.0 }).collect()
}

/// The resampled scores of `wanted` (system, statistic) under `samples` resamples with `seed`, one per entry in
/// order (`None` where the system has no such statistic, e.g. M-Acc without a register). Only what neither the
/// store nor an earlier comparison gave is computed, in one pass over one index draw.
pub(crate) fn resampled(prep: &Prepared, wanted: &[(usize, Stat)], samples: usize, seed: u64) -> Vec<Option<Arc<Vec<f64>>>> {
    let cache = &prep.resampled;
    let n = prep.data.segments();
    let mut out: Vec<Option<Arc<Vec<f64>>>> = wanted.iter().map(|&(i, s)| cache.get(&(i, s, samples, seed))).collect();
    let formality: HashMap<usize, Vec<f64>> = wanted
        .iter()
        .zip(&out)
        .filter(|((_, s), v)| *s == Stat::Formality && v.is_none())
        .map(|((i, _), _)| (*i, formality_values(&prep.systems[*i].formality)))
        .collect();
    let mut jobs: Vec<Resampled> = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    for (w, &(i, stat)) in wanted.iter().enumerate() {
        if out[w].is_some() {
            continue;
        }
        let sys = &prep.systems[i];
        let job = match stat {
            Stat::Bleu => Some(Resampled::Metric(&prep.bleu_metric, &sys.bleu.stats)),
            Stat::Chrf => Some(Resampled::Metric(&prep.chrf_metric, &sys.chrf.stats)),
            Stat::Ter => Some(Resampled::Metric(&prep.ter_metric, &sys.ter.stats)),
            Stat::Macc => match (&prep.macc_metrics[i], &sys.macc) {
                (Some(m), Some((s, _))) => Some(Resampled::Metric(m as &dyn registro_metrics::Metric, &s.stats)),
                _ => None,
            },
            Stat::Formality => Some(Resampled::Mean(&formality[&i])),
        };
        if let Some(job) = job {
            jobs.push(job);
            at.push(w);
        }
    }
    if jobs.is_empty() || n == 0 || samples == 0 {
        return out;
    }
    let scores = Resamples::new(samples, seed).many(&jobs);
    let mut fresh = Vec::new();
    for (w, s) in at.into_iter().zip(scores) {
        let s = Arc::new(s);
        let (i, stat) = wanted[w];
        fresh.push(((i, stat, samples, seed), s.clone()));
        out[w] = Some(s);
    }
    cache.computed.insert_all(fresh);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use registro_store::Store;

    use super::*;
    use crate::bench::bench_fixture;
    use crate::report::{compare, load, prepare_stored, store_computed, CompareOptions, CompareRequest};

    fn open(store: &mut Store, runs: &[RunId]) -> Prepared {
        let data = load(store, &CompareRequest { runs: runs.to_vec(), ..Default::default() }).unwrap();
        prepare_stored(data, store).unwrap()
    }

    /// Adding a run to the compared selection resamples that run only; the others' scores are read back.
    #[test]
    fn adding_a_run_resamples_only_that_run() {
        let mut store = Store::open_in_memory().unwrap();
        let ids = bench_fixture(&mut store, 3, 40).unwrap();
        let opts = CompareOptions { bootstrap: 200, seed: 3, render_svg: false, ..Default::default() };
        let systems = |keys: Vec<Key>| keys.into_iter().map(|k| k.0).collect::<BTreeSet<_>>();

        let two = open(&mut store, &ids[..2]);
        compare(&two, &opts).unwrap();
        assert_eq!(systems(two.resampled.computed.keys()), BTreeSet::from([0, 1]));
        store_computed(&two, &mut store).unwrap();

        let three = open(&mut store, &ids);
        let read: BTreeSet<usize> = three.resampled.stored.keys().map(|k| k.0).collect();
        assert_eq!(read, BTreeSet::from([0, 1]));
        let with_three = compare(&three, &opts).unwrap();
        assert_eq!(systems(three.resampled.computed.keys()), BTreeSet::from([2]), "only the added run");
        // The same numbers as resampling all three afresh.
        let fresh = crate::report::prepare(load(&store, &CompareRequest { runs: ids.clone(), ..Default::default() }).unwrap()).unwrap();
        assert_eq!(compare(&fresh, &opts).unwrap().tables, with_three.tables);
    }
}
