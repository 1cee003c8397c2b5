//! Paired bootstrap and approximate randomization reproduce sacrebleu 2.6.0's `PairedTest` (numpy 2.4, seed
//! 12345) on the IWSLT 2022 EN-DE formal systems 1 (baseline), 5 and 4.

use std::path::PathBuf;

use registro_metrics::significance::{paired_ar, paired_bootstrap, TestResult, DEFAULT_SEED};
use registro_metrics::text::read_lines_like_sacrebleu;
use registro_metrics::*;

mod common;

fn dir() -> Option<PathBuf> {
    common::shared_data("iwslt2022-umd/en-de", "")
}

fn read(d: &std::path::Path, f: &str) -> Vec<String> {
    read_lines_like_sacrebleu(&std::fs::read_to_string(d.join(f)).unwrap())
}

type Want = [(f64, Option<f64>, f64, f64); 3];

fn check(name: &str, got: &[TestResult], want: &Want) {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g.score - w.0).abs() < 1e-9,
            "{name} system {k} score {} vs {}",
            g.score,
            w.0
        );
        assert_eq!(g.p_value, w.1, "{name} system {k} p-value");
        assert!(
            (g.mean.unwrap() - w.2).abs() < 1e-9,
            "{name} system {k} mean {} vs {}",
            g.mean.unwrap(),
            w.2
        );
        assert!(
            (g.ci.unwrap() - w.3).abs() < 1e-9,
            "{name} system {k} ci {} vs {}",
            g.ci.unwrap(),
            w.3
        );
    }
}

fn systems(d: &std::path::Path, m: &dyn Metric) -> Vec<SegmentStats> {
    let refs = prepare_refs(m, &[read(d, "formality-control.test.en-de.formal.de")]).unwrap();
    [
        "formality-control-1.formal.de",
        "formality-control-5.formal.de",
        "formality-control-4.formal.de",
    ]
    .iter()
    .map(|f| corpus_stats(m, &read(d, f), &refs).unwrap())
    .collect()
}

/// Runs `test` with each metric of `cases` on [`systems`] and checks its results against sacrebleu's.
fn equals_sacrebleu(
    d: &std::path::Path,
    name: &str,
    cases: Vec<(Box<dyn Metric>, Want)>,
    test: impl Fn(&dyn Metric, &[SegmentStats]) -> Result<Vec<TestResult>, MetricError>,
) {
    for (m, want) in cases {
        let s = systems(d, m.as_ref());
        let got = test(m.as_ref(), &s).unwrap();
        check(&format!("{name} {}", m.name()), &got, &want);
    }
}

#[test]
fn paired_bootstrap_equals_sacrebleu() {
    let Some(d) = dir() else { return };
    let cases: Vec<(Box<dyn Metric>, Want)> = vec![
        (
            Box::new(Bleu::default()),
            [
                (
                    36.998297202336246,
                    None,
                    36.99553510323535,
                    1.5313289658967086,
                ),
                (
                    36.610312114221315,
                    Some(0.12087912087912088),
                    36.60189615197688,
                    1.4798362042058564,
                ),
                (
                    38.55210261890177,
                    Some(0.005994005994005994),
                    38.552198741169846,
                    1.4314263400793266,
                ),
            ],
        ),
        (
            Box::new(Chrf::default()),
            [
                (
                    58.65085902303936,
                    None,
                    58.644622802734375,
                    0.9811668395996094,
                ),
                (
                    58.45390883875753,
                    Some(0.15384615384615385),
                    58.4507942199707,
                    1.0576114654541016,
                ),
                (
                    60.92348799521288,
                    Some(0.000999000999000999),
                    60.92337417602539,
                    1.0302867889404297,
                ),
            ],
        ),
        (
            Box::new(Ter::default()),
            [
                (
                    50.07361361033862,
                    None,
                    50.06887435913086,
                    1.4313278198242188,
                ),
                (
                    50.130868640602,
                    Some(0.34465534465534464),
                    50.137847900390625,
                    1.4542198181152344,
                ),
                (
                    47.922460330443315,
                    Some(0.000999000999000999),
                    47.933021545410156,
                    1.4118022918701172,
                ),
            ],
        ),
    ];
    equals_sacrebleu(&d, "paired-bs", cases, |m, s| paired_bootstrap(m, &s[0], &[&s[1], &s[2]], 1000, DEFAULT_SEED));
}

#[test]
fn approximate_randomization_equals_sacrebleu() {
    let Some(d) = dir() else { return };
    // sacrebleu PairedTest(test_type='ar', n_samples=2000, n_ar_confidence=200)
    let cases: Vec<(Box<dyn Metric>, Want)> = vec![
        (
            Box::new(Bleu::default()),
            [
                (
                    36.998297202336246,
                    None,
                    37.02322097820276,
                    1.453803740698575,
                ),
                (
                    36.610312114221315,
                    Some(0.2958520739630185),
                    36.567020302545366,
                    1.4947480263571364,
                ),
                (
                    38.55210261890177,
                    Some(0.017491254372813594),
                    38.478912735999856,
                    1.3634147961121528,
                ),
            ],
        ),
        (
            Box::new(Chrf::default()),
            [
                (
                    58.65085902303936,
                    None,
                    58.68361282348633,
                    0.9984474182128906,
                ),
                (
                    58.45390883875753,
                    Some(0.4307846076961519),
                    58.42384719848633,
                    1.0285072326660156,
                ),
                (
                    60.92348799521288,
                    Some(0.0004997501249375312),
                    60.87859344482422,
                    0.9373188018798828,
                ),
            ],
        ),
        (
            Box::new(Ter::default()),
            [
                (
                    50.07361361033862,
                    None,
                    50.02922058105469,
                    1.2958450317382812,
                ),
                (
                    50.130868640602,
                    Some(0.8620689655172413),
                    50.176658630371094,
                    1.39373779296875,
                ),
                (
                    47.922460330443315,
                    Some(0.0009995002498750624),
                    47.96719741821289,
                    1.404775619506836,
                ),
            ],
        ),
    ];
    equals_sacrebleu(&d, "paired-ar", cases, |m, s| paired_ar(m, &s[0], &[&s[1], &s[2]], 2000, 200, DEFAULT_SEED));
}
