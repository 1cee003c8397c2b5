//! `registro report`: the Dashboard's comparison written to a folder; `registro bench dashboard`: how long a
//! comparison of many runs takes.
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use registro_core::report::{self, CompareOptions, CompareRequest, SigTest};
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
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Significance test for BLEU/chrF/TER: bs (paired bootstrap) or ar (approximate randomization)
    #[arg(long, default_value = "bs")]
    test: String,
    #[arg(long, default_value_t = 12345)]
    seed: u64,
    /// Chart formats, comma-separated: svg, png
    #[arg(long, value_delimiter = ',', default_value = "svg,png")]
    formats: Vec<String>,
    /// Include the human evaluation (ratings stored for these runs)
    #[arg(long)]
    human: bool,
}

fn parse_test(s: &str) -> Result<SigTest> {
    match s {
        "bs" | "bootstrap" => Ok(SigTest::Bootstrap),
        "ar" | "randomization" => Ok(SigTest::Randomization),
        o => bail!("unknown --test {o:?}: expected bs or ar"),
    }
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
        test: parse_test(&args.test)?,
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
    let (store, ids) = if args.run_ids.is_empty() {
        let tmp = tempdir()?;
        let mut store = Store::open(tmp.join("bench.db"))?;
        tmp_dir = Some(tmp);
        let ids = registro_core::report::bench_fixture(&mut store, args.runs, args.segments)?;
        (store, ids)
    } else {
        (Store::open_or_default(ctx.db.as_deref())?, args.run_ids.clone())
    };
    let req = CompareRequest { runs: ids.clone(), baseline: None, reference: None };
    let opts = CompareOptions { bootstrap: args.bootstrap, ..Default::default() };

    let t = Instant::now();
    let data = report::load(&store, &req)?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let prep = report::prepare(data)?;
    let prepare_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..args.repeat.max(1) {
        // Each repetition is a first comparison: nothing cached from the one before.
        prep.clear_caches();
        let t = Instant::now();
        let cmp = report::compare(&prep, &opts)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(cmp);
    }
    // The app's next comparison of the same runs (other α, test or resamples; a baseline seen before).
    let t = Instant::now();
    report::compare(&prep, &opts)?;
    let again_ms = t.elapsed().as_secs_f64() * 1e3;
    let cmp = last.context("no repetition ran")?;
    if let Some(dir) = &tmp_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let first_click = load_ms + prepare_ms + times[0];
    println!(
        "dashboard bench: {} runs × {} segments, bootstrap {} ({} tables, {} charts rendered to SVG)",
        ids.len(),
        prep.data.segments(),
        args.bootstrap,
        cmp.tables.len(),
        cmp.charts.len()
    );
    println!("  load from store      {load_ms:8.1} ms");
    println!("  prepare (per segment){prepare_ms:8.1} ms");
    println!(
        "  compare (tables+charts, once loaded): median {median:.1} ms, min {:.1} ms, max {:.1} ms over {} runs (goal < 200 ms)",
        times[0],
        times[times.len() - 1],
        times.len()
    );
    for (k, v) in &cmp.timings_ms {
        println!("    {k:<24}{v:8.1} ms");
    }
    println!("  compare again, same baseline (edit types cached): {again_ms:.1} ms");
    println!("  first request total (load + prepare + compare): {first_click:.1} ms");
    // Timings on a shared machine mean little without the load they were taken under.
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let load: Vec<&str> = load.split_whitespace().take(3).collect();
        println!("  load average (1/5/15 min): {} on {} cores", load.join(" "), std::thread::available_parallelism().map_or(1, |n| n.get()));
    }
    if ctx.json {
        println!(
            "{}",
            serde_json::json!({"runs": ids.len(), "segments": prep.data.segments(), "load_ms": load_ms, "prepare_ms": prepare_ms,
                "compare_ms_median": median, "compare_ms": times, "compare_again_ms": again_ms, "timings_ms": cmp.timings_ms})
        );
    }
    Ok(())
}

fn tempdir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("registro-bench-dashboard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}
