//! Edge cases, with expected values printed by sacrebleu 2.6.0's Python API.

use registro_metrics::*;

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn corpus(m: &dyn Metric, hyps: &[&str], refs: &[&str]) -> f64 {
    let prep = prepare_refs(m, &[s(refs)]).unwrap();
    m.score(&corpus_stats(m, &s(hyps), &prep).unwrap().sum())
}

fn metrics() -> Vec<Box<dyn Metric>> {
    let tok = |t: Tokenizer| {
        Box::new(Bleu {
            tokenizer: t,
            ..Bleu::default()
        }) as Box<dyn Metric>
    };
    vec![
        tok(Tokenizer::V13a),
        tok(Tokenizer::Intl),
        tok(Tokenizer::Char),
        Box::new(Chrf::default()),
        Box::new(Chrf::plus_plus()),
        Box::new(Ter::default()),
    ]
}

/// Corpus scores for BLEU(13a), BLEU(intl), BLEU(char), chrF2, chrF2++, TER, then sentence BLEU of line 1.
fn check(hyps: &[&str], refs: &[&str], want: [f64; 7]) {
    for (m, w) in metrics().iter().zip(want) {
        let got = corpus(m.as_ref(), hyps, refs);
        assert!(
            (got - w).abs() < 1e-9,
            "{} on {hyps:?}: got {got}, sacrebleu {w}",
            m.name()
        );
    }
    let sb = Bleu::sentence().sentence_score(hyps[0], &[refs[0]]).score;
    assert!(
        (sb - want[6]).abs() < 1e-9,
        "sentence BLEU on {hyps:?}: got {sb}, sacrebleu {}",
        want[6]
    );
}

#[test]
fn empty_hypothesis_line() {
    check(
        &["", "Das ist gut."],
        &["Das ist gut.", "Ja."],
        [
            9.688464563433238,
            9.688464563433238,
            3.696719741302181,
            5.376344086021506,
            6.801692865779926,
            150.0,
            0.0,
        ],
    );
}

#[test]
fn zero_matches() {
    check(
        &["xyz qqq"],
        &["Das ist gut."],
        [0.0, 0.0, 0.0, 0.0, 0.0, 100.0, 0.0],
    );
}

#[test]
fn unicode_punctuation() {
    check(
        &["„Gut“, sagte er… – ja!"],
        &["„Gut“, sagte sie… – nein!"],
        [
            27.77619034011791,
            46.713797772819994,
            53.68321652485595,
            51.129821770472375,
            51.48684440243508,
            40.0,
            27.77619034011791,
        ],
    );
}

#[test]
fn cjk_without_spaces() {
    // 13a sees one token per sentence; char tokenization and chrF see the characters.
    check(
        &["今日は良い天気ですね。"],
        &["今日はいい天気ですね。"],
        [
            0.0,
            0.0,
            70.16879391277372,
            60.627705627705616,
            51.96660482374767,
            100.0,
            0.0,
        ],
    );
}

#[test]
fn empty_hypothesis_and_reference() {
    check(&[""], &[""], [0.0; 7]);
}

#[test]
fn unequal_line_counts_are_a_clear_error() {
    let b = Bleu::default();
    let prep = prepare_refs(&b, &[s(&["a", "b"])]).unwrap();
    let err = corpus_stats(&b, &s(&["a"]), &prep).unwrap_err().to_string();
    assert_eq!(
        err,
        "hypothesis lines vs reference lines: expected 2 lines, got 1"
    );
    let err = prepare_refs(&b, &[s(&["a", "b"]), s(&["a"])])
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("reference stream 2"), "{err}");
}

#[test]
fn signatures_follow_sacrebleu() {
    let b = Bleu {
        tokenizer: Tokenizer::Intl,
        lowercase: true,
        smooth: Smooth::Floor(0.1),
        ..Bleu::default()
    };
    let rs = SigResampling {
        bs: Some(1000),
        seed: Some("12345".into()),
        ..Default::default()
    };
    assert_eq!(
        signature(&b, &NRefs::Fixed(2), &rs),
        "nrefs:2|bs:1000|seed:12345|case:lc|eff:no|tok:intl|smooth:floor[0.10]|version:2.6.0"
    );
    assert_eq!(
        signature(&Chrf::plus_plus(), &NRefs::Variable, &Default::default()),
        "nrefs:var|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0"
    );
}

#[test]
fn empty_corpus_is_an_error_not_a_panic() {
    let b = Bleu::default();
    let prep = prepare_refs(&b, &[vec![]]).unwrap();
    let err = corpus_stats(&b, &[], &prep).unwrap_err().to_string();
    assert!(err.contains("no segments to score"), "{err}");
}

#[test]
fn model_providers_feed_acc_sim_pp_and_gm() {
    use registro_metrics::evaluate::{evaluate_with, EvalConfig, MetricName, SystemInput, TestSet};
    use registro_metrics::macc::Register;
    use registro_metrics::style::*;
    struct F;
    impl FormalityScorer for F {
        fn name(&self) -> String {
            "f".into()
        }
        fn formality(&self, t: &[String]) -> Result<Vec<f64>, ProviderError> {
            Ok(t.iter()
                .map(|x| if x.contains("Sie") { 0.9 } else { 0.1 })
                .collect())
        }
    }
    struct S;
    impl SimilarityScorer for S {
        fn name(&self) -> String {
            "s".into()
        }
        fn similarity(&self, a: &[String], _: &[String]) -> Result<Vec<f64>, ProviderError> {
            Ok(vec![0.9; a.len()])
        }
    }
    let ts = std::sync::Arc::new(TestSet {
        key: "t".into(),
        refs: vec![("r".into(), s(&["Haben Sie Zeit?", "Gut."]))],
        source: Some(s(&["Do you have time?", "Good."])),
        ..Default::default()
    });
    let sys = SystemInput {
        name: "a".into(),
        lines: s(&["Haben Sie Zeit?", "Hast du Zeit?"]),
        register: Some(Register::Formal),
        test_set: ts,
    };
    let cfg = EvalConfig {
        metrics: vec![MetricName::Bleu],
        ..EvalConfig::default()
    };
    let r = evaluate_with(
        &[sys],
        &cfg,
        &Providers {
            formality: Some(&F),
            similarity: Some(&S),
            fluency: Some(&ConstantPerplexity("p", 30.0)),
        },
    )
    .unwrap();
    let m = r[0].style.as_ref().unwrap().model.as_ref().unwrap();
    assert_eq!(m.acc, Some(0.5));
    assert_eq!(m.gm, Some(gm(0.5, 0.9, 30.0, GmThresholds::default())));
    assert_eq!(m.gm, Some(0.0), "Acc 50% is under t1 = 63, so GM is 0");
}

/// `registro eval --metrics acc,sim,pp,gm`: the names parse, a missing scorer is named, a scorer that cannot tell
/// (NaN) is left out of Acc, chrF stands in as Sim without a model, and GM is the paper's on a worked example.
#[test]
fn pang_gimpel_metrics_by_name_with_a_worked_example() {
    use registro_metrics::evaluate::{evaluate_with, EvalConfig, MetricName, SystemInput, TestSet};
    use registro_metrics::macc::Register;
    use registro_metrics::style::*;
    let metrics: Vec<MetricName> = "acc,sim,pp,gm".split(',').map(|m| m.parse().unwrap()).collect();
    assert_eq!(metrics, [MetricName::Acc, MetricName::Sim, MetricName::Pp, MetricName::Gm]);
    struct Analyzer;
    impl FormalityScorer for Analyzer {
        fn name(&self) -> String {
            "analyzer".into()
        }
        fn formality(&self, t: &[String]) -> Result<Vec<f64>, ProviderError> {
            // Sie: formal; du: informal; neither: cannot tell.
            Ok(t.iter().map(|x| if x.contains("Sie") { 1.0 } else if x.contains("du") { 0.0 } else { f64::NAN }).collect())
        }
    }
    let ts = std::sync::Arc::new(TestSet {
        key: "t".into(),
        source: Some(s(&["Do you have time?", "Good.", "Can you come?"])),
        ..Default::default()
    });
    let sys = SystemInput {
        name: "a".into(),
        lines: s(&["Haben Sie Zeit?", "Gut.", "Kommen Sie?"]),
        register: Some(Register::Formal),
        test_set: ts,
    };
    let cfg = EvalConfig { metrics: metrics.clone(), ..EvalConfig::default() };
    let e = evaluate_with(std::slice::from_ref(&sys), &cfg, &Providers::default()).unwrap_err().to_string();
    assert!(e.contains("formality scorer (acc)") && e.contains("similarity scorer (sim)") && e.contains("language model (pp)"), "{e}");
    let p = Providers { formality: Some(&Analyzer), similarity: Some(&ChrfSimilarity), fluency: Some(&ConstantPerplexity("lm", 10.0)) };
    let r = evaluate_with(&[sys], &cfg, &p).unwrap();
    let m = r[0].style.as_ref().unwrap().model.as_ref().unwrap();
    assert_eq!(m.acc, Some(1.0), "the neutral 'Gut.' is neither right nor wrong: 2 of 2 decided");
    let sim = m.sim.unwrap();
    assert_eq!(m.sim_chrf, Some(sim), "chrF as the similarity scorer is chrF to the input");
    assert!(sim > 0.0 && sim < 0.5, "German output against English input shares few characters: {sim}");
    assert_eq!(m.signature, "acc:analyzer|sim:chrF|pp:lm|t:63,71,97,-37");
    // Worked example of the paper's GM at t = (63, 71, 97, −37): Acc 0.9, Sim 0.8 and PP 10 (too low: the
    // [PP − t4] side binds) give ∛(27 · 9 · min(87, 47)) = ∛11421 ≈ 22.52; PP 40 gives ∛(27 · 9 · 57) ≈ 24.02.
    let t = GmThresholds::default();
    assert!((gm(0.9, 0.8, 10.0, t) - 22.5201).abs() < 1e-3, "{}", gm(0.9, 0.8, 10.0, t));
    assert!((gm(0.9, 0.8, 40.0, t) - 24.0156).abs() < 1e-3, "{}", gm(0.9, 0.8, 40.0, t));
    assert_eq!(gm(0.9, 0.8, 100.0, t), 0.0, "PP over t3 = 97 zeroes GM");
}

/// A language model that gives every text the same perplexity.
struct ConstantPerplexity(&'static str, f64);

impl registro_metrics::style::FluencyScorer for ConstantPerplexity {
    fn name(&self) -> String {
        self.0.into()
    }
    fn perplexity(&self, a: &[String]) -> Result<Vec<f64>, registro_metrics::style::ProviderError> {
        Ok(vec![self.1; a.len()])
    }
}
