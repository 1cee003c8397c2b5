//! Lexical difference (LeD) between pairs of systems, for the heatmap of a comparison of many runs: 200 systems
//! are 19,900 pairs. Each segment's outputs become word sets once, as bit sets over that segment's own
//! vocabulary (all systems' words in it), so a pair's segment costs a few ANDs and bit counts instead of a
//! merge of two sorted word lists; segments are read on every core, pairs split across them.

use std::collections::HashMap;

use registro_metrics::metric::par_map;
use registro_store::{fingerprint, RunId, SegmentTable};

use super::computed::Computed;

/// The metric engine's LeD word set of an output: lower-cased, 13a-tokenized (`style::lexical_difference`).
fn words(output: &str) -> Vec<String> {
    registro_metrics::tokenize::tokenize_13a(&output.to_lowercase()).split_whitespace().map(str::to_lowercase).collect()
}

/// One segment's word sets: `words` u64 per system (the systems asked for, in order), and each set's size.
struct SegmentSets {
    words: usize,
    bits: Vec<u64>,
    sizes: Vec<u32>,
}

fn segment_sets(outputs: &[&[String]], systems: &[usize], i: usize) -> SegmentSets {
    let mut vocab: HashMap<String, usize> = HashMap::new();
    let ids: Vec<Vec<usize>> = systems
        .iter()
        .map(|&s| {
            words(&outputs[s][i])
                .into_iter()
                .map(|w| {
                    let next = vocab.len();
                    *vocab.entry(w).or_insert(next)
                })
                .collect()
        })
        .collect();
    let words = vocab.len().div_ceil(64).max(1);
    let mut bits = vec![0u64; words * systems.len()];
    let mut sizes = Vec::with_capacity(systems.len());
    for (k, ids) in ids.iter().enumerate() {
        let set = &mut bits[k * words..(k + 1) * words];
        for &id in ids {
            set[id / 64] |= 1 << (id % 64);
        }
        sizes.push(set.iter().map(|w| w.count_ones()).sum());
    }
    SegmentSets { words, bits, sizes }
}

/// One segment's lexical difference from the two word sets' common and total distinct words: 1 − Jaccard.
/// Identical outputs are 0; outputs with no word in common are 1.
fn difference(common: usize, union: usize) -> f64 {
    if union == 0 {
        0.0
    } else {
        1.0 - common as f64 / union as f64
    }
}

/// Mean LeD in percent of each pair `(a, b)` of `outputs` (indices into it) over the first `n` segments, divided by
/// `div`, the segments' [`difference`]s summed in order.
pub(crate) fn led_pairs(outputs: &[&[String]], pairs: &[(usize, usize)], n: usize, div: usize) -> Vec<f64> {
    if pairs.is_empty() {
        return Vec::new();
    }
    let mut systems: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    systems.sort_unstable();
    systems.dedup();
    let slot: HashMap<usize, usize> = systems.iter().enumerate().map(|(k, &s)| (s, k)).collect();
    let sets = par_map(n, |i| segment_sets(outputs, &systems, i));
    let pair_slots: Vec<(usize, usize)> = pairs.iter().map(|(a, b)| (slot[a], slot[b])).collect();
    par_map(pair_slots.len(), |p| {
        let (a, b) = pair_slots[p];
        // `Sum for f64` starts from −0.0; the segments are added in order.
        let mut sum = -0.0f64;
        for s in &sets {
            let w = s.words;
            let (x, y) = (&s.bits[a * w..(a + 1) * w], &s.bits[b * w..(b + 1) * w]);
            let common = x.iter().zip(y).map(|(u, v)| (u & v).count_ones()).sum::<u32>() as usize;
            let union = s.sizes[a] as usize + s.sizes[b] as usize - common;
            sum += difference(common, union);
        }
        100.0 * sum / div as f64
    })
}

/// The LeD of the pairs of systems a comparison has shown, by system index. Pairs are computed when a chart asks
/// for them — 200 systems are 19,900 pairs, and the heatmap shows a few dozen — and stored per pair, under the
/// lower run id, with the fingerprint of both outputs: a value only depends on the two runs' texts.
pub(crate) struct LedCache {
    runs: Vec<RunId>,
    /// Fingerprint of each system's outputs.
    out_fps: Vec<String>,
    /// Read from the store when the comparison was prepared; they survive [`LedCache::clear_computed`].
    stored: HashMap<(usize, usize), f64>,
    /// Computed in this process; `true` once handed to the store by [`LedCache::to_store`].
    computed: Computed<(usize, usize), f64>,
}

/// Pairs are unordered: (lower index, higher index).
fn ordered(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

impl LedCache {
    /// `stored(run, key, fingerprint)`: the value the store holds under that (unversioned) key, if any.
    pub(crate) fn new(runs: Vec<RunId>, out_fps: Vec<String>, stored: impl Fn(RunId, &str, &str) -> Option<f64>) -> Self {
        let mut cache = LedCache { runs, out_fps, stored: HashMap::new(), computed: Computed::default() };
        let k = cache.runs.len();
        for a in 0..k {
            for b in a + 1..k {
                let (run, key, fp) = cache.pair_key(a, b);
                if let Some(v) = stored(run, &key, &fp) {
                    cache.stored.insert((a, b), v);
                }
            }
        }
        cache
    }

    /// Where the pair's value is stored: (run, key, fingerprint of both outputs).
    fn pair_key(&self, a: usize, b: usize) -> (RunId, String, String) {
        let (lo, hi) = if self.runs[a] <= self.runs[b] { (a, b) } else { (b, a) };
        (self.runs[lo], format!("led|with:{}", self.runs[hi]), fingerprint([self.out_fps[lo].as_str(), self.out_fps[hi].as_str()]))
    }

    fn get(&self, a: usize, b: usize) -> Option<f64> {
        let key = ordered(a, b);
        self.stored.get(&key).copied().or_else(|| self.computed.get(&key))
    }

    /// LeD between every two of `systems` (`None` on the diagonal), computing the pairs never seen in one pass;
    /// `outputs[i]`: system i's outputs over the `n` segments.
    pub(crate) fn matrix(&self, outputs: &[&[String]], systems: &[usize], n: usize) -> Vec<Vec<Option<f64>>> {
        let mut missing = Vec::new();
        for (x, &a) in systems.iter().enumerate() {
            for &b in &systems[x + 1..] {
                if a != b && self.get(a, b).is_none() {
                    missing.push(ordered(a, b));
                }
            }
        }
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            let values = led_pairs(outputs, &missing, n, n.max(1));
            self.computed.insert_all(missing.into_iter().zip(values));
        }
        systems.iter().map(|&a| systems.iter().map(|&b| if a == b { None } else { self.get(a, b) }).collect()).collect()
    }

    /// The values computed since the last call, as store rows (unversioned keys); they are marked stored.
    pub(crate) fn to_store(&self) -> Vec<(RunId, String, String, SegmentTable)> {
        self.computed.take_unstored(|(a, b), v| {
            let (run, key, fp) = self.pair_key(a, b);
            Some((run, key, fp, SegmentTable { width: 1, values: vec![*v] }))
        })
    }

    /// Forgets what this process computed (for benchmarks that time a first comparison).
    pub(crate) fn clear_computed(&self) {
        self.computed.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LeD of two sorted, deduplicated word-id sets by merging them: the definition the bit sets must match.
    fn lexical_difference(a: &[u32], b: &[u32]) -> f64 {
        let (mut i, mut j, mut common) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    common += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        difference(common, a.len() + b.len() - common)
    }

    #[test]
    fn led_is_one_minus_jaccard() {
        assert_eq!(lexical_difference(&[1, 2, 3], &[1, 2, 3]), 0.0);
        assert_eq!(lexical_difference(&[1, 2], &[3, 4]), 1.0);
        // {1,2,3} vs {2,3,4}: common 2, union 4 ⇒ 0.5.
        assert!((lexical_difference(&[1, 2, 3], &[2, 3, 4]) - 0.5).abs() < 1e-12);
        assert_eq!(lexical_difference(&[], &[]), 0.0);
    }

    /// The bit sets give what merging sorted word-id lists gives, including empty outputs, repeated words and
    /// segments with more than 64 distinct words.
    #[test]
    fn bit_sets_equal_the_merge_of_sorted_word_lists() {
        let long: String = (0..150).map(|w| format!("w{w} ")).collect();
        let a: Vec<String> = vec!["Das ist gut.".into(), "".into(), long.clone(), "Ja, ja, ja!".into(), "Hallo Welt".into()];
        let b: Vec<String> = vec!["Das ist sehr gut.".into(), "".into(), long[..400].to_string(), "ja".into(), "".into()];
        let c: Vec<String> = vec!["Völlig anders.".into(), "etwas".into(), "w3 w140 x".into(), "Ja ja".into(), "hallo welt".into()];
        let outputs: Vec<&[String]> = vec![&a, &b, &c];
        let pairs = [(0, 1), (0, 2), (1, 2), (2, 0)];
        let got = led_pairs(&outputs, &pairs, 5, 5);
        let mut vocab: HashMap<String, u32> = HashMap::new();
        let mut set = |o: &str| {
            let mut ids: Vec<u32> = words(o)
                .into_iter()
                .map(|w| {
                    let next = vocab.len() as u32;
                    *vocab.entry(w).or_insert(next)
                })
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let sets: Vec<Vec<Vec<u32>>> = outputs.iter().map(|o| o.iter().map(|s| set(s)).collect()).collect();
        for (p, &(x, y)) in pairs.iter().enumerate() {
            let sum: f64 = (0..5).map(|i| lexical_difference(&sets[x][i], &sets[y][i])).sum();
            assert_eq!(got[p], 100.0 * sum / 5.0, "pair {x}-{y}");
        }
        assert!(got[0] > 0.0 && got[0] < got[1], "{got:?}");
    }
}
