//! TER on very long segments: sacrebleu's beam search keeps its numbers, but the matrix holds only the beam, so a
//! 30k-word pair (a missing line break, a whole book on one line) is scored in megabytes, not an abort after
//! gigabytes.

use registro_metrics::{Metric, Ter};

/// Words drawn from a 2,000-word vocabulary by a fixed LCG: repeated words give the shift search real candidates.
fn words(n: usize, seed: u64) -> Vec<String> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!("w{}", (x >> 33) % 2000)
        })
        .collect()
}

/// Peak resident memory of this process in MiB (Linux), the figure that explodes with a full matrix.
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

#[test]
fn thirty_thousand_word_segment_scores_in_bounded_memory() {
    let reference = words(30_000, 7);
    // Every tenth word replaced by a word the reference never uses: exactly 3,000 substitutions, which no shift
    // can save, so TER is 10.
    let hyp: Vec<String> = reference
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i % 10 == 9 {
                format!("oov{i}")
            } else {
                w.clone()
            }
        })
        .collect();
    let ter = Ter::default();
    let score = ter.sentence_score(&hyp.join(" "), &[&reference.join(" ")]);
    assert!((score - 10.0).abs() < 1e-9, "TER {score}, expected 10");

    // Lengths 2:1 apart: still scored, and no better than the 15k deletions it needs at least.
    let half = reference[..15_000].join(" ");
    let stats = ter.segment_stats(&reference.join(" "), &ter.prepare_refs(&[&half]));
    assert_eq!(stats[1], 15_000.0);
    assert!(
        stats[0] >= 15_000.0 && stats[0] <= 30_000.0,
        "edits {}",
        stats[0]
    );

    // A full 30k × 30k matrix is 14 GB; the banded one is about 25 MB.
    if let Some(peak) = peak_rss_mib() {
        assert!(
            peak < 1024,
            "peak RSS {peak} MiB while scoring 30k-word segments"
        );
    }
}
