//! `registro report`: the Dashboard's comparison written to a folder; `registro bench dashboard`: how long a
//! comparison of many runs takes.
use std::path::PathBuf;

use anyhow::{Context, Result};
use registro_core::report::{self, CompareOptions, CompareRequest, PairedTest};
use registro_store::Store;

use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// Run ids to compare, comma-separated (see `registro runs list`)
    #[arg(long, value_delimiter = ',', required = true)]
    runs: Vec<i64>,
    /// Baseline run for significance markers (default: the first run)
    #[arg(long)]
    baseline: Option<i64>,
    /// Reference set to score against (default: the one named after each run's register, else all plain ones)
    #[arg(long)]
    reference: Option<String>,
    /// Output folder for tables (CSV/JSON/LaTeX/Markdown), charts and report.html
    #[arg(long)]
    out: PathBuf,
    /// Bootstrap resamples for CIs and significance (0 = none)
    #[arg(long, default_value_t = CompareOptions::default().bootstrap)]
    bootstrap: usize,
    /// Significance test for BLEU/chrF/TER (bs = paired bootstrap, ar = approximate randomization)
    #[arg(long, value_enum, default_value_t = CompareOptions::default().test)]
    test: PairedTest,
    #[arg(long, default_value_t = CompareOptions::default().seed)]
    seed: u64,
    /// Chart formats, comma-separated: svg, png
    #[arg(long, value_delimiter = ',', default_value = "svg,png")]
    formats: Vec<String>,
    /// Include the human evaluation (ratings stored for these runs)
    #[arg(long)]
    human: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let store = Store::open_or_default(ctx.db.as_deref())?;
    let formats = args
        .formats
        .iter()
        .map(|f| report::ImageFormat::parse(f.trim()).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    let req = CompareRequest { runs: args.runs.clone(), baseline: args.baseline, reference: args.reference.clone() };
    let opts = CompareOptions {
        bootstrap: args.bootstrap,
        seed: args.seed,
        test: args.test,
        render_svg: false,
        ..Default::default()
    };
    let prep = report::prepare(report::load(&store, &req)?)?;
    let cmp = report::compare(&prep, &opts)?;
    let human = if args.human { Some(report::human_summary(&store, &prep)?) } else { None };
    let files = report::write_report(&cmp, human.as_ref(), &args.out, &formats)?;
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "comparison": cmp, "human": human, "files": files }))?);
        return Ok(());
    }
    for t in cmp.tables.iter().chain(human.iter().flat_map(|h| h.tables.iter())) {
        println!("{}", t.to_text());
    }
    println!("wrote {} files to {}", files.files.len(), files.dir.display());
    Ok(())
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Number of runs to compare
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Segments per run
    #[arg(long, default_value_t = 600)]
    segments: usize,
    /// Bootstrap resamples
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Timed repetitions of the comparison (after loading)
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Use these stored runs instead of synthetic ones
    #[arg(long, value_delimiter = ',')]
    run_ids: Vec<i64>,
}

/// Builds a store with `runs` synthetic systems over one test set (sentences built from the IWSLT source when the
/// shared data is there, else generated), then times load, prepare and compare separately.
pub fn bench(ctx: &Ctx, args: BenchArgs) -> Result<()> {
    let mut tmp_dir = None;
    let (mut store, ids) = if args.run_ids.is_empty() {
        let tmp = tempdir()?;
        let mut store = Store::open(tmp.join("bench.db"))?;
        tmp_dir = Some(tmp);
        let ids = registro_core::bench::bench_fixture(&mut store, args.runs, args.segments)?;
        (store, ids)
    } else {
        (Store::open_or_default(ctx.db.as_deref())?, args.run_ids.clone())
    };
    let t = registro_core::bench::time_dashboard(&mut store, &ids, args.bootstrap, args.repeat)?;
    if let Some(dir) = &tmp_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    // Timings on a shared machine mean little without the load they were taken under.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if ctx.json {
        println!("{}", serde_json::json!({ "timings": t, "loadavg": load, "cores": cores }));
        return Ok(());
    }
    println!(
        "dashboard bench: {} runs × {} segments, bootstrap {} ({} tables, {} charts; as the app asks: charts drawn and tables over every segment pair built when shown)",
        t.runs, t.segments, t.bootstrap, t.tables, t.charts
    );
    println!("  statistics stored at import (every run, as eval/import do): {:.1} ms", t.statistics_at_import_ms);
    println!(
        "  first request: load {:.1} ms + prepare {:.1} ms + compare {:.1} ms = {:.1} ms (goal < 2000 ms)",
        t.load_ms, t.prepare_ms, t.first_compare_ms, t.first_request_ms
    );
    for (k, v) in &t.first_breakdown_ms {
        println!("    {k:<24}{v:8.1} ms");
    }
    println!("  then, when the page shows them: tables left pending [{}] {:.1} ms; every chart to SVG {:.1} ms", t.pending_tables.join(", "), t.first_pending_tables_ms, t.charts_svg_ms);
    println!("  reopen the same runs (load + prepare): {:.1} ms", t.reopen_ms);
    println!(
        "  compare (tables+charts, once loaded): median {:.1} ms, min {:.1} ms, max {:.1} ms over {} runs",
        t.compare_ms_median,
        t.compare_ms[0],
        t.compare_ms[t.compare_ms.len() - 1],
        t.compare_ms.len()
    );
    for (k, v) in &t.breakdown_ms {
        println!("    {k:<24}{v:8.1} ms");
    }
    println!("  compare again, nothing cleared: {:.1} ms", t.compare_again_ms);
    println!("  compare with a new seed (every system resampled): {:.1} ms", t.compare_new_seed_ms);
    println!("  load average (1/5/15 min): {} on {cores} cores", load.join(" "));
    Ok(())
}

fn tempdir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("registro-bench-dashboard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}
