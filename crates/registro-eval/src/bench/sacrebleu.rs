//! `registro bench eval`: the metric engine against the sacrebleu CLI on the IWSLT 2022 EN-DE UMD submissions —
//! the same files scored by both (BLEU, chrF, TER with paired bootstrap), every printed value compared at 4
//! decimals, and both timed. Needs a Python with sacrebleu installed.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::eval::{discover_submissions, eval_config, run_eval_with, EvalRequest};
use crate::progress::CancelToken;
use registro_metrics::style::Providers;

/// What the comparison found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SacrebleuComparison {
    /// Registro scoring the 10 systems and storing them as runs (in a scratch store).
    pub registro_seconds: f64,
    /// The two sacrebleu invocations (one per register).
    pub sacrebleu_seconds: f64,
    /// sacrebleu table rows parsed.
    pub rows: usize,
    /// Printed values compared (score, bootstrap mean, 95% CI, p).
    pub compared: usize,
    pub mismatches: Vec<String>,
}

/// Scores `dir` (an IWSLT 2022 EN-DE submissions folder) with Registro and with `python -m sacrebleu`, `samples`
/// bootstrap resamples each, and compares every value sacrebleu prints.
pub fn compare_with_sacrebleu(dir: &Path, python: &str, samples: usize) -> Result<SacrebleuComparison> {
    if !dir.is_dir() {
        bail!("{}: not found; pass --data DIR or set REGISTRO_SHARED_DATA", dir.display());
    }
    let tmp = tempdir()?;
    let t = Instant::now();
    let mut store = registro_store::Store::open(tmp.join("bench.db"))?;
    let loaded = discover_submissions(dir, Some("de"))?;
    let settings = EvalRequest { metrics: vec!["bleu".into(), "chrf".into(), "ter".into()], paired_bs: Some(samples), ..Default::default() };
    let cfg = eval_config("de", &loaded, &settings)?;
    // BLEU, chrF and TER only: no model-based scorer.
    let outcome = run_eval_with(Some(&mut store), "bench", &loaded, &cfg, &Providers::default(), &CancelToken::new(), &mut |_| {})?;
    let registro_seconds = t.elapsed().as_secs_f64();
    drop(store);
    let _ = std::fs::remove_dir_all(&tmp);
    let reports = serde_json::to_value(&outcome.reports)?;

    let n = samples.to_string();
    let mut sacrebleu_seconds = 0.0;
    let mut parsed: Parsed = Vec::new();
    for reg in ["formal", "informal"] {
        // Relative names, so that sacrebleu's system names are the file names registro uses.
        let reference = format!("formality-control.test.en-de.{reg}.de");
        let systems: Vec<String> = (1..=5).map(|k| format!("formality-control-{k}.{reg}.de")).collect();
        let t = Instant::now();
        let out = Command::new(python)
            .current_dir(dir)
            .args(["-m", "sacrebleu"])
            .arg(&reference)
            .arg("-i")
            .args(&systems)
            .args(["-m", "bleu", "chrf", "ter", "--paired-bs", "--paired-bs-n", &n, "-w", "4", "-f", "text"])
            .env("NO_COLOR", "1")
            .output()
            .with_context(|| format!("running {python} -m sacrebleu"))?;
        sacrebleu_seconds += t.elapsed().as_secs_f64();
        if !out.status.success() {
            bail!("sacrebleu failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        parsed.extend(parse_sacrebleu_table(&String::from_utf8_lossy(&out.stdout)));
    }

    let mut compared = 0;
    let mut mismatches = Vec::new();
    for (name, cells) in &parsed {
        let Some(r) = reports.as_array().and_then(|v| v.iter().find(|r| r["system"] == name.as_str())) else {
            mismatches.push(format!("{name}: missing in registro output"));
            continue;
        };
        for (k, key) in ["bleu", "chrf", "ter"].iter().enumerate() {
            let m = &r[*key];
            let s = &m["significance"];
            let ours = [m["score"].as_f64(), s["mean"].as_f64(), s["ci"].as_f64(), s["p_value"].as_f64()];
            for (j, what) in ["score", "mean", "ci", "p"].iter().enumerate() {
                let (Some(theirs), Some(mine)) = (cells.get(k).and_then(|c| c[j]), ours[j]) else {
                    continue;
                };
                compared += 1;
                if format!("{mine:.4}") != format!("{theirs:.4}") {
                    mismatches.push(format!("{name} {key} {what}: registro {mine:.4} vs sacrebleu {theirs:.4}"));
                }
            }
        }
    }
    Ok(SacrebleuComparison { registro_seconds, sacrebleu_seconds, rows: parsed.len(), compared, mismatches })
}

fn tempdir() -> Result<std::path::PathBuf> {
    let tmp = std::env::temp_dir().join(format!("registro-bench-eval-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    Ok(tmp)
}

/// Score cells of sacrebleu's `-f text` table: per system, per metric (score, mean, ci, p).
type Parsed = Vec<(String, Vec<[Option<f64>; 4]>)>;

fn parse_sacrebleu_table(text: &str) -> Parsed {
    let mut out: Parsed = Vec::new();
    for line in text.lines() {
        if !line.contains('│') {
            continue;
        }
        let cells: Vec<String> = line
            .split('│')
            .map(|c| strip_ansi(c).trim().to_string())
            .collect();
        let cells: Vec<&String> = cells.iter().filter(|c| !c.is_empty()).collect();
        if cells.is_empty() || cells[0] == "System" {
            continue;
        }
        let nums = |c: &str| -> Vec<f64> {
            c.replace(['(', ')', '±', '*', '='], " ")
                .split_whitespace()
                .filter_map(|t| t.parse::<f64>().ok())
                .collect()
        };
        if cells[0].starts_with("(p") {
            // Continuation line holding the p-values.
            if let Some(last) = out.last_mut() {
                for (k, c) in cells.iter().enumerate() {
                    if let (Some(m), Some(&p)) = (last.1.get_mut(k), nums(c).first()) {
                        m[3] = Some(p);
                    }
                }
            }
            continue;
        }
        let name = cells[0].trim_start_matches("Baseline:").trim().to_string();
        let metrics = cells[1..].iter().map(|c| {
            let n = nums(c);
            [
                n.first().copied(),
                n.get(1).copied(),
                n.get(2).copied(),
                None,
            ]
        });
        out.push((name, metrics.collect()));
    }
    out
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sacrebleu_paired_table() {
        let t = "╒═══╤═══╕\n│                                  System │     BLEU (μ ± 95% CI)      │     chrF2 (μ ± 95% CI)     │\n\
                 │ Baseline: formality-control-1.formal.de │ 36.9983 (36.9980 ± 0.8795) │ 58.6509 (58.6714 ± 1.1087) │\n\
                 │           formality-control-2.formal.de │ 22.0900 (22.0635 ± 0.7863) │ 46.1923 (46.1719 ± 0.5182) │\n\
                 │                                         │        (p = 0.0909)        │        (p = 0.0909)        │\n";
        let p = parse_sacrebleu_table(t);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].0, "formality-control-1.formal.de");
        assert_eq!(
            p[0].1[0],
            [Some(36.9983), Some(36.9980), Some(0.8795), None]
        );
        assert_eq!(
            p[1].1[1],
            [Some(46.1923), Some(46.1719), Some(0.5182), Some(0.0909)]
        );
    }
}
