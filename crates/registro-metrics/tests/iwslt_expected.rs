//! Reproduces `shared/data/iwslt2022-umd/expected.json` (sacrebleu 2.6.0 + the CoCoA-MT scorer's rule) for all
//! 20 UMD system files of IWSLT 2022's formality track.

use std::path::PathBuf;

use registro_metrics::text::read_lines_like_sacrebleu;
use registro_metrics::*;
use serde_json::Value;

mod common;

fn data_dir() -> Option<PathBuf> {
    common::shared_data("iwslt2022-umd", "expected.json")
}

fn lines(p: &PathBuf) -> Vec<String> {
    read_lines_like_sacrebleu(
        &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn assert4(what: &str, got: f64, want: &Value) {
    let want = want.as_f64().unwrap();
    assert!(
        (round4(got) - want).abs() < 1e-9,
        "{what}: got {got} (rounded {}), expected {want}",
        round4(got)
    );
}

struct Case {
    exp: Value,
    dir: PathBuf,
    lang: String,
}

fn cases() -> Vec<Case> {
    let Some(dir) = data_dir() else { return vec![] };
    let exp: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    exp["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let lang = r["lang"].as_str().unwrap().to_string();
            Case {
                exp: r.clone(),
                dir: dir.join(format!("en-{lang}")),
                lang,
            }
        })
        .collect()
}

impl Case {
    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    fn reference(&self, register: &str) -> Vec<String> {
        lines(&self.file(&format!(
            "formality-control.test.en-{}.{register}.{}",
            self.lang, self.lang
        )))
    }
    fn hyps(&self) -> Vec<String> {
        lines(&self.file(self.exp["system"].as_str().unwrap()))
    }
    fn register(&self) -> &str {
        self.exp["requested_register"].as_str().unwrap()
    }
    fn system(&self) -> &str {
        self.exp["system"].as_str().unwrap()
    }
}

/// The corpus score of `hyps` against `refs` by `metric`, and the prepared references (for the signature).
fn corpus_score(metric: &dyn Metric, hyps: &[String], refs: &[Vec<String>]) -> (f64, PreparedRefs) {
    let prep = prepare_refs(metric, refs).unwrap();
    let score = metric.score(&corpus_stats(metric, hyps, &prep).unwrap().sum());
    (score, prep)
}

#[test]
fn corpus_bleu_chrf_ter_match_sacrebleu() {
    for c in cases() {
        let sys = c.system();
        let hyps = c.hyps();
        let refs = vec![c.reference(c.register())];
        let bleu = Bleu::default();
        let prep = prepare_refs(&bleu, &refs).unwrap();
        let stats = corpus_stats(&bleu, &hyps, &prep).unwrap();
        let score = bleu.compute(&stats.sum());
        assert4(&format!("{sys} BLEU"), score.score, &c.exp["bleu"]);
        let d = &c.exp["bleu_detail"];
        let ints = |v: &Value| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(score.counts, ints(&d["counts"]), "{sys} counts");
        assert_eq!(score.totals, ints(&d["totals"]), "{sys} totals");
        assert_eq!(
            score.sys_len,
            d["sys_len"].as_u64().unwrap(),
            "{sys} sys_len"
        );
        assert_eq!(
            score.ref_len,
            d["ref_len"].as_u64().unwrap(),
            "{sys} ref_len"
        );
        assert_eq!(
            signature(&bleu, &prep.nrefs, &Default::default()),
            c.exp["bleu_signature"].as_str().unwrap()
        );

        let (chrf, ter) = (Chrf::default(), Ter::default());
        for (metric, name, key) in [(&chrf as &dyn Metric, "chrF", "chrf"), (&ter, "TER", "ter")] {
            let (s, prep) = corpus_score(metric, &hyps, &refs);
            assert4(&format!("{sys} {name}"), s, &c.exp[key]);
            assert_eq!(
                signature(metric, &prep.nrefs, &Default::default()),
                c.exp[format!("{key}_signature")].as_str().unwrap(),
                "{sys} {name} signature"
            );
        }
    }
}

#[test]
fn multi_reference_bleu_matches_sacrebleu() {
    for c in cases() {
        let hyps = c.hyps();
        let refs = vec![c.reference("formal"), c.reference("informal")];
        let (s, _) = corpus_score(&Bleu::default(), &hyps, &refs);
        assert4(
            &format!("{} multi-ref BLEU", c.exp["system"]),
            s,
            &c.exp["multi_ref_bleu_formal_plus_informal"],
        );
    }
}

#[test]
fn sentence_bleu_and_chrf_match_sacrebleu() {
    for c in cases() {
        let hyps = c.hyps();
        let refs = c.reference(c.register());
        let bleu = Bleu::sentence();
        let chrf = Chrf::default();
        for i in 0..20 {
            let b = bleu.sentence_score(&hyps[i], &[&refs[i]]).score;
            assert4(
                &format!("{} line {} sentence BLEU", c.exp["system"], i + 1),
                b,
                &c.exp["sentence_bleu_first20"][i],
            );
            let f = chrf.sentence_score(&hyps[i], &[&refs[i]]);
            assert4(
                &format!("{} line {} sentence chrF", c.exp["system"], i + 1),
                f,
                &c.exp["sentence_chrf_first20"][i],
            );
        }
    }
}

#[test]
fn matched_accuracy_matches_cocoa_scorer() {
    use registro_metrics::macc::{MatchedAccuracy, Register};
    for c in cases() {
        let hyps = c.hyps();
        let f = lines(&c.file(&format!(
            "formality-control.test.en-{}.formal.annotated.{}",
            c.lang, c.lang
        )));
        let i = lines(&c.file(&format!(
            "formality-control.test.en-{}.informal.annotated.{}",
            c.lang, c.lang
        )));
        let reg: Register = c.register().parse().unwrap();
        let (res, labels) = MatchedAccuracy::new(reg, &c.lang)
            .evaluate(&hyps, &f, &i)
            .unwrap();
        let want = &c.exp["m_acc"];
        let sys = c.system();
        assert_eq!(labels.len(), hyps.len());
        for (k, got) in [
            ("FORMAL", res.counts.formal),
            ("INFORMAL", res.counts.informal),
            ("NEUTRAL", res.counts.neutral),
            ("OTHER", res.counts.other),
        ] {
            assert_eq!(got, want["counts"][k].as_u64().unwrap(), "{sys} {k}");
        }
        for (k, got) in [("formal", res.formal), ("informal", res.informal)] {
            assert!((got - want[k].as_f64().unwrap()).abs() < 1e-12, "{sys} {k} accuracy");
        }
    }
}
