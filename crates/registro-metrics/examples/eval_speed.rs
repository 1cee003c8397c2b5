//! Times `evaluate()` (BLEU+chrF+TER, paired bootstrap 1000) on the 10 IWSLT 2022 EN-DE submissions, without
//! the CLI or the store: `cargo run --release -p registro-metrics --example eval_speed -- <iwslt2022-umd/en-de>`.

use std::sync::Arc;

use registro_metrics::evaluate::{evaluate, EvalConfig, SigTest, SystemInput, TestSet};
use registro_metrics::macc::Register;
use registro_metrics::text::read_lines_like_sacrebleu;

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("folder"));
    let read = |f: String| {
        read_lines_like_sacrebleu(
            &std::fs::read_to_string(dir.join(&f)).unwrap_or_else(|e| panic!("{f}: {e}")),
        )
    };
    let t = std::time::Instant::now();
    let mut systems = Vec::new();
    for (reg, r) in [
        (Register::Formal, "formal"),
        (Register::Informal, "informal"),
    ] {
        let ts = Arc::new(TestSet {
            key: r.into(),
            refs: vec![(
                r.into(),
                read(format!("formality-control.test.en-de.{r}.de")),
            )],
            ..Default::default()
        });
        for k in 1..=5 {
            let name = format!("formality-control-{k}.{r}.de");
            systems.push(SystemInput {
                lines: read(name.clone()),
                name,
                register: Some(reg),
                test_set: ts.clone(),
            });
        }
    }
    println!("read files: {:.3} s", t.elapsed().as_secs_f64());
    use registro_metrics::evaluate::MetricName::*;
    for (label, metrics, sig) in [
        ("BLEU", vec![Bleu], None),
        ("chrF", vec![Chrf], None),
        ("TER", vec![Ter], None),
        ("BLEU+chrF+TER", vec![Bleu, Chrf, Ter], None),
        (
            "BLEU+chrF+TER, paired bootstrap 1000",
            vec![Bleu, Chrf, Ter],
            Some(SigTest::Bootstrap(1000)),
        ),
    ] {
        let t = std::time::Instant::now();
        let cfg = EvalConfig {
            metrics,
            significance: sig,
            ..EvalConfig::default()
        };
        let reports = evaluate(&systems, &cfg).unwrap();
        println!(
            "{label}: {} systems in {:.3} s",
            reports.len(),
            t.elapsed().as_secs_f64()
        );
    }
}
