//! `registro eval`: sacrebleu-compatible scoring (BLEU, chrF, TER), CoCoA-MT M-Acc, style metrics and paired
//! significance tests; every hypothesis file becomes a stored `eval` run. `registro bench eval` times it against
//! the sacrebleu CLI.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use registro_core::eval::registro_metrics::evaluate::{Significance, SystemReport};
use registro_core::eval::{
    discover_submissions_capped, load_files, run_eval_request, EvalFiles, EvalRequest, DEFAULT_PAIRED_AR, DEFAULT_PAIRED_BS,
};

use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// Hypothesis (system output) files, one segment per line
    #[arg(long = "hyp", short = 'i', num_args = 1.., value_name = "FILE")]
    hyps: Vec<PathBuf>,
    /// Reference files (several = multi-reference)
    #[arg(long = "ref", short = 'r', num_args = 1.., value_name = "FILE")]
    refs: Vec<PathBuf>,
    /// Source file (needed by self-BLEU, LeD, Levenshtein, edit types, length buckets)
    #[arg(long, value_name = "FILE")]
    src: Option<PathBuf>,
    /// A CoCoA-MT / IWSLT-style folder: `<test>.{formal,informal}[.annotated].<lang>` references plus
    /// `<system>.{formal,informal}.<lang>` submissions, each scored against the reference of its register
    #[arg(long, value_name = "DIR", conflicts_with_all = ["hyps", "refs"])]
    submissions: Option<PathBuf>,
    /// Target language (ISO 639-1); picks M-Acc matching and the default tokenizer
    #[arg(long, short = 'l')]
    lang: Option<String>,
    /// Comma-separated: bleu, chrf, chrf++, ter, m-acc, self-bleu, led, levenshtein, distinct, length-ratio,
    /// length-buckets, edit-types, and Pang & Gimpel's acc, sim, pp, gm (models chosen by --lang; sim and gm need
    /// --src) [default: bleu,chrf,ter (+m-acc with annotated references)]
    #[arg(long, short = 'm')]
    metrics: Option<String>,
    /// Annotated formal reference (`[F]…[/F]` phrases) for M-Acc
    #[arg(long, value_name = "FILE")]
    formal_annotated: Option<PathBuf>,
    /// Annotated informal reference for M-Acc
    #[arg(long, value_name = "FILE")]
    informal_annotated: Option<PathBuf>,
    /// Requested register of the hypotheses (default: from file names like `x.formal.de`, else formal)
    #[arg(long)]
    register: Option<String>,
    /// Paired bootstrap resampling against the first system [default samples: 1000]
    #[arg(long, value_name = "N", num_args = 0..=1, conflicts_with = "paired_ar")]
    paired_bs: Option<Option<usize>>,
    /// Paired approximate randomization against the first system [default trials: 10000]
    #[arg(long, value_name = "N", num_args = 0..=1)]
    paired_ar: Option<Option<usize>>,
    /// Random seed of the significance tests (sacrebleu's default)
    #[arg(long, env = "SACREBLEU_SEED", default_value_t = EvalRequest::default().seed)]
    seed: u64,
    /// Include per-sentence scores in the output
    #[arg(long)]
    sentences: bool,
    /// System name per hypothesis file (default: the file name)
    #[arg(long)]
    name: Vec<String>,
    /// Project the runs are stored in (created if missing)
    #[arg(long, default_value = "default")]
    project: String,
    /// Score only; store nothing
    #[arg(long)]
    no_store: bool,
    /// BLEU tokenizer: 13a, intl, char, none, ja-mecab [default: 13a; ja-mecab for --lang ja]
    #[arg(long, short = 't')]
    tokenize: Option<String>,
    /// Case-insensitive BLEU and chrF
    #[arg(long, short = 'c')]
    lowercase: bool,
    /// BLEU smoothing: exp, floor[:v], add-k[:v], none [default: exp]
    #[arg(long, short = 's')]
    smooth: Option<String>,
    /// Decimals printed
    #[arg(long, short = 'w', default_value_t = 4)]
    width: usize,
    /// Refuse input files larger than this many MiB [default: $REGISTRO_MAX_INPUT_MB, else 512]
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    max_input_mb: Option<u64>,
}

/// The request the flags make; what a flag leaves unset is core's default, as in the window.
fn request(a: &Args) -> EvalRequest {
    let d = EvalRequest::default();
    EvalRequest {
        metrics: a.metrics.iter().flat_map(|m| m.split(',')).map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect(),
        tokenize: a.tokenize.clone(),
        lowercase: a.lowercase,
        smooth: a.smooth.clone().unwrap_or(d.smooth),
        seed: a.seed,
        paired_bs: a.paired_bs.map(|n| n.unwrap_or(DEFAULT_PAIRED_BS)),
        paired_ar: a.paired_ar.map(|n| n.unwrap_or(DEFAULT_PAIRED_AR)),
    }
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    let loaded = if let Some(dir) = &a.submissions {
        discover_submissions_capped(dir, a.lang.as_deref(), a.max_input_mb)?
    } else {
        if a.refs.is_empty() && a.src.is_none() {
            bail!("give --ref FILE… (or --src for reference-free metrics), or --submissions DIR");
        }
        let register = a
            .register
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(anyhow::Error::msg)?;
        load_files(&EvalFiles {
            hyps: a.hyps.clone(),
            refs: a.refs.clone(),
            src: a.src.clone(),
            formal_annotated: a.formal_annotated.clone(),
            informal_annotated: a.informal_annotated.clone(),
            register,
            names: a.name.clone(),
            max_input_mb: a.max_input_mb,
        })?
    };
    let lang = a.lang.clone().or(loaded.lang.clone()).unwrap_or_default();

    let mut store = if a.no_store {
        None
    } else {
        Some(registro_core::projects::open_store(ctx.db.as_deref())?)
    };
    let cancel = crate::term::cancel_on_ctrl_c();
    let bar = crate::term::Bar::new(ctx.json, "systems");
    let outcome = run_eval_request(store.as_mut(), &a.project, &loaded, &lang, &request(&a), &cancel, &mut bar.sink())?;
    drop(bar);
    let mut reports = outcome.reports;
    if !a.sentences {
        for r in &mut reports {
            r.sentences = None;
        }
    }
    if ctx.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            report: &'a SystemReport,
            #[serde(skip_serializing_if = "Option::is_none")]
            run_id: Option<i64>,
        }
        let v: Vec<Out> = reports
            .iter()
            .enumerate()
            .map(|(i, r)| Out {
                report: r,
                run_id: outcome.run_ids.get(i).copied(),
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", table(&reports, a.width));
        if !outcome.run_ids.is_empty() {
            let ids: Vec<String> = outcome.run_ids.iter().map(|i| i.to_string()).collect();
            println!(
                "\nstored {} eval run(s) in project {:?}: {}",
                ids.len(),
                a.project,
                ids.join(", ")
            );
        }
    }
    Ok(())
}

/// A matched accuracy's interval as `[low, high]`, clipped to 0–100 (sacrebleu's mean ± half-width would read
/// past 100 near the top); BLEU, chrF and TER keep sacrebleu's `(mean ± half)` form.
fn acc_cell(base: String, s: &Option<Significance>, w: usize) -> String {
    let Some(s) = s else { return base };
    let mut out = base;
    if let (Some(m), Some(ci)) = (s.mean, s.ci) {
        let (lo, hi) = registro_core::eval::registro_metrics::clip_interval(m, ci, (0.0, 100.0));
        out += &format!(" [{lo:.w$}, {hi:.w$}]");
    }
    if let Some(p) = s.p_value {
        out += &format!(" (p = {p:.4}){}", if p <= 0.05 { "*" } else { "" });
    }
    out
}

fn sig_cell(base: String, s: &Option<Significance>, w: usize) -> String {
    let Some(s) = s else { return base };
    let mut out = base;
    if let (Some(m), Some(ci)) = (s.mean, s.ci) {
        out += &format!(" ({m:.w$} ± {ci:.w$})");
    }
    if let Some(p) = s.p_value {
        out += &format!(" (p = {p:.4}){}", if p <= 0.05 { "*" } else { "" });
    }
    out
}

/// A sacrebleu-like report: one line per metric for a single system, else a table plus signatures.
pub fn table(reports: &[SystemReport], w: usize) -> String {
    let mut out = String::new();
    if reports.len() == 1
        && reports[0]
            .bleu
            .as_ref()
            .is_none_or(|b| b.significance.is_none())
    {
        let r = &reports[0];
        if let Some(b) = &r.bleu {
            out += &format!("BLEU|{} = {:.w$} {}\n", b.signature, b.score, b.verbose);
        }
        // Metrics added to the metric table at run time print like the built-in ones.
        for s in [&r.chrf, &r.chrf_pp, &r.ter].into_iter().flatten().chain(r.metrics.values()) {
            out += &format!("{}|{} = {:.w$}\n", s.name, s.signature, s.score);
        }
        out += &extras(r, w);
        return out;
    }
    let mut header = vec!["System".to_string()];
    let first = &reports[0];
    let several_sets = reports.iter().any(|r| r.test_set != first.test_set);
    if several_sets {
        header.push("Reference".into());
    }
    let has = |f: &dyn Fn(&SystemReport) -> bool| reports.iter().any(f);
    if has(&|r| r.bleu.is_some()) {
        header.push("BLEU".into());
    }
    for (get, name) in [
        (
            &(|r: &SystemReport| r.chrf.clone()) as &dyn Fn(&SystemReport) -> _,
            "chrF",
        ),
        (&|r: &SystemReport| r.chrf_pp.clone(), "chrF++"),
        (&|r: &SystemReport| r.ter.clone(), "TER"),
    ] {
        if has(&|r| get(r).is_some()) {
            header.push(
                first
                    .chrf
                    .as_ref()
                    .filter(|_| name == "chrF")
                    .map_or(name.to_string(), |c| c.name.clone()),
            );
        }
    }
    // Metrics added to the metric table at run time, each a column under its label.
    let registered: Vec<String> = reports.iter().flat_map(|r| r.metrics.keys().cloned()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    for k in &registered {
        header.push(reports.iter().find_map(|r| r.metrics.get(k)).map_or(k.clone(), |s| s.name.clone()));
    }
    if has(&|r| r.m_acc.is_some()) {
        header.push("M-Acc (F/I/N/O)".into());
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut sigs: Vec<(String, String)> = Vec::new();
    for r in reports {
        let base = [
            r.bleu.as_ref().and_then(|b| b.significance.as_ref()),
            r.chrf.as_ref().and_then(|b| b.significance.as_ref()),
        ]
        .into_iter()
        .flatten()
        .next()
        .is_some_and(|s| s.is_baseline);
        let mut row = vec![if base {
            format!("Baseline: {}", r.system)
        } else {
            r.system.clone()
        }];
        if several_sets {
            row.push(r.test_set.clone());
        }
        if let Some(b) = &r.bleu {
            row.push(sig_cell(format!("{:.w$}", b.score), &b.significance, w));
            push_sig(&mut sigs, "BLEU", &b.signature);
        }
        for s in [&r.chrf, &r.chrf_pp, &r.ter].into_iter().flatten() {
            row.push(sig_cell(format!("{:.w$}", s.score), &s.significance, w));
            push_sig(&mut sigs, &s.name, &s.signature);
        }
        for k in &registered {
            match r.metrics.get(k) {
                Some(s) => {
                    row.push(sig_cell(format!("{:.w$}", s.score), &s.significance, w));
                    push_sig(&mut sigs, &s.name, &s.signature);
                }
                None => row.push(String::new()),
            }
        }
        if let Some(m) = &r.m_acc {
            let c = &m.result.counts;
            let cell = format!(
                "{:.w$} {} ({}/{}/{}/{})",
                m.score,
                m.register_name(),
                c.formal,
                c.informal,
                c.neutral,
                c.other
            );
            row.push(acc_cell(cell, &m.significance, w));
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|k| {
            rows.iter()
                .map(|r| r.get(k).map_or(0, |c| c.chars().count()))
                .chain([header[k].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let fmt_row = |cells: &[String]| -> String {
        cells
            .iter()
            .enumerate()
            .map(|(k, c)| format!("{:<width$}", c, width = widths[k]))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
            + "\n"
    };
    out += &fmt_row(&header);
    out += &(widths
        .iter()
        .map(|&n| "-".repeat(n))
        .collect::<Vec<_>>()
        .join("  ")
        + "\n");
    for r in &rows {
        out += &fmt_row(r);
    }
    for r in reports {
        let x = extras_short(r, w);
        if !x.is_empty() {
            out += &format!("{}: {x}\n", r.system);
        }
    }
    if reports.iter().any(|r| {
        r.bleu
            .as_ref()
            .and_then(|b| b.significance.as_ref())
            .is_some()
    }) {
        out +=
            "\np-values: paired test against the baseline of each reference set; * = p <= 0.05\n";
    }
    if reports.iter().any(|r| r.m_acc.as_ref().is_some_and(|m| m.significance.is_some())) {
        out += "M-Acc [low, high]: 95% bootstrap CI (sacrebleu's resample mean ± half the 2.5–97.5 percentile range), clipped to 0–100\n";
    }
    out += "\nMetric signatures\n";
    for (n, s) in sigs {
        out += &format!(" - {n:<8} {s}\n");
    }
    out
}

fn push_sig(sigs: &mut Vec<(String, String)>, name: &str, sig: &str) {
    if !sigs.iter().any(|(n, s)| n == name && s == sig) {
        sigs.push((name.to_string(), sig.to_string()));
    }
}

fn extras(r: &SystemReport, w: usize) -> String {
    let mut out = String::new();
    if let Some(m) = &r.m_acc {
        let c = &m.result.counts;
        out += &format!(
            "M-Acc ({}) = {:.w$}  FORMAL {} · INFORMAL {} · NEUTRAL {} · OTHER {}\n",
            m.register_name(),
            m.score,
            c.formal,
            c.informal,
            c.neutral,
            c.other
        );
    }
    let x = extras_short(r, w);
    if !x.is_empty() {
        out += &x;
        out += "\n";
    }
    out
}

fn extras_short(r: &SystemReport, w: usize) -> String {
    let Some(st) = &r.style else {
        return String::new();
    };
    let mut parts = Vec::new();
    for (n, v) in [
        ("self-BLEU", st.self_bleu),
        ("LeD", st.led),
        ("Distinct-1", st.distinct_1),
        ("Distinct-2", st.distinct_2),
        ("length ratio", st.length_ratio),
    ] {
        if let Some(v) = v {
            parts.push(format!("{n} = {v:.w$}"));
        }
    }
    if let Some(d) = &st.char_levenshtein {
        parts.push(format!(
            "char Levenshtein mean {:.2} median {:.1} p75 {:.1} max {:.0}",
            d.mean, d.median, d.p75, d.max
        ));
    }
    if let Some(b) = &st.length_buckets {
        let cells: Vec<String> = b
            .iter()
            .map(|x| {
                format!(
                    "{}-{}: {:.2} ({})",
                    x.min_len,
                    x.max_len.map_or("∞".into(), |m| m.to_string()),
                    x.bleu,
                    x.segments
                )
            })
            .collect();
        parts.push(format!("BLEU by source length [{}]", cells.join(", ")));
    }
    if let Some(e) = &st.edit_types {
        let cells: Vec<String> = e.iter().map(|(k, v)| format!("{k} {v}")).collect();
        parts.push(format!("edit types [{}]", cells.join(", ")));
    }
    if let Some(m) = &st.model {
        let f = |v: Option<f64>, w: usize| v.map_or("n/a".to_string(), |v| format!("{v:.w$}"));
        parts.push(format!(
            "Pang & Gimpel: Acc = {} Sim = {} (chrF/100 {}) PP = {} GM = {} [{}]",
            f(m.acc, 3),
            f(m.sim, 3),
            f(m.sim_chrf, 3),
            f(m.pp, 1),
            f(m.gm, 2),
            m.signature
        ));
    }
    parts.join("; ")
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// IWSLT 2022 EN-DE submissions folder [default: $REGISTRO_SHARED_DATA/iwslt2022-umd/en-de]
    #[arg(long)]
    data: Option<PathBuf>,
    /// Python interpreter with sacrebleu installed
    #[arg(long, default_value = "python3")]
    python: String,
    /// Bootstrap samples
    #[arg(long, default_value_t = 1000)]
    samples: usize,
}

pub fn bench(ctx: &Ctx, a: BenchArgs) -> Result<()> {
    let dir = match a.data.clone() {
        Some(d) => d,
        None => registro_core::shared_data_dir()
            .map(|d| d.join("iwslt2022-umd/en-de"))
            .context("no IWSLT 2022 submissions folder: pass --data DIR or set REGISTRO_SHARED_DATA")?,
    };
    if !ctx.json {
        println!(
            "Scoring the 10 IWSLT 2022 EN-DE UMD submissions (5 formal, 5 informal) with BLEU+chrF+TER and paired bootstrap ({} samples)",
            a.samples
        );
    }
    let c = registro_core::bench::compare_with_sacrebleu(&dir, &a.python, a.samples)?;
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&c)?);
        return Ok(());
    }
    println!("registro eval (incl. storing 10 runs): {:>8.3} s", c.registro_seconds);
    println!("sacrebleu CLI (2 invocations):         {:>8.3} s", c.sacrebleu_seconds);
    println!("speed-up:                              {:>8.1}x", c.sacrebleu_seconds / c.registro_seconds);
    if c.rows == 0 || c.compared == 0 {
        println!("scores identical: could not compare ({} sacrebleu rows parsed, {} values matched up)", c.rows, c.compared);
    } else if c.mismatches.is_empty() {
        println!("scores identical: yes ({} printed values compared at 4 decimals: score, bootstrap mean, 95% CI, p)", c.compared);
    } else {
        println!("scores identical: NO ({} of {} differ)", c.mismatches.len(), c.compared);
        for m in &c.mismatches {
            println!("  {m}");
        }
    }
    Ok(())
}
