//! Lexical difference (LeD) between pairs of systems, for the heatmap of a comparison of many runs: 200 systems
//! are 19,900 pairs. Each segment's outputs become word sets once, as bit sets over that segment's own
//! vocabulary (all systems' words in it), so a pair's segment costs a few ANDs and bit counts instead of a
//! merge of two sorted word lists; segments are read on every core, pairs split across them.

use std::collections::HashMap;

use registro_metrics::metric::par_map;

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
