//! `registro rewrite`: informal → formal rewriting (rules, round-trip MT, LLM) with scores and labelled edits;
//! `registro rewrite eval DIR` on an XFORMAL-layout folder; `registro rewrite train-scorer`; and
//! `registro bench rules`.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use registro_core::rewrite::{self as rw, Lang, Method, Options, RewriteRequest, ScorerChoice, Weights};

use super::Ctx;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    sub: Option<Sub>,
    #[command(flatten)]
    opts: RewriteOpts,
    /// Text to rewrite (default: --input, else stdin), one sentence per line
    text: Vec<String>,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Rewrite the `informal` file of an XFORMAL/GYAFC-layout folder and score it against `formal.ref0..3`
    Eval {
        dir: PathBuf,
        #[command(flatten)]
        opts: RewriteOpts,
    },
    /// Retrain the formality scorers on PT16 and write their weights files
    TrainScorer {
        /// Folder with PT16's train.csv and tune.csv (the `pt16` folder of the test data that REGISTRO_SHARED_DATA names); nothing is looked up by default
        #[arg(long)]
        data: PathBuf,
        /// Where to write surface.json and lexical.json (`crates/registro-rewrite/data/scorer` in a checkout updates
        /// the weights compiled into Registro)
        #[arg(long)]
        out: PathBuf,
        /// Also train the embedding variant with this sentence-embedding model (e.g. all-minilm-l6-v2)
        #[arg(long)]
        embeddings: Option<String>,
    },
    /// Print the formality score of each input line
    Score {
        #[command(flatten)]
        opts: RewriteOpts,
        text: Vec<String>,
    },
}

#[derive(clap::Args, Clone)]
struct RewriteOpts {
    /// Language of the text
    #[arg(long, value_enum, default_value_t = Options::default().lang)]
    lang: Lang,
    /// Rewriting method
    #[arg(long, value_enum, default_value_t = Options::default().method)]
    method: Method,
    /// LLM paraphrases per sentence besides the minimal edit (0 = none; 1 = one greedy answer; more are sampled)
    #[arg(long, default_value_t = Options::default().n)]
    n: usize,
    /// With --method llm, also offer a round trip through another language as a candidate
    #[arg(long)]
    roundtrip: bool,
    /// A word the rewrite must keep (repeatable); a candidate without it is flagged and ranked last
    #[arg(long = "keep", value_name = "WORD")]
    keep: Vec<String>,
    /// Model id for roundtrip / llm (see `registro models list`); with rules it only scores fluency (perplexity)
    #[arg(long)]
    model: Option<String>,
    /// Read sentences from this file (one per line)
    #[arg(long)]
    input: Option<PathBuf>,
    /// Write the chosen rewrites here (one per line)
    #[arg(long)]
    output: Option<PathBuf>,
    /// Weights of the joint score formality,meaning,fluency[,consensus] (default: the tuned ones)
    #[arg(long, value_parser = parse_weights)]
    weights: Option<Weights>,
    /// Formality scorer: surface | lexical | embedding (MiniLM) | a trained weights .json | xlmr:<model id or folder>
    /// [default: surface]
    #[arg(long, value_parser = parse_scorer)]
    scorer: Option<ScorerChoice>,
    /// Skip perplexity scoring (faster LLM runs)
    #[arg(long)]
    no_fluency: bool,
    /// Project the run is stored in (created when missing)
    #[arg(long, default_value = "default")]
    project: String,
    /// Do not store the run
    #[arg(long)]
    no_store: bool,
    /// Check the request and print it as the run would store it (its parameters' `request`), then stop: nothing
    /// is read, loaded or stored
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    backend: super::backend::BackendArgs,
}

impl RewriteOpts {
    /// `--scorer`, else core's default.
    fn scorer(&self) -> ScorerChoice {
        self.scorer.clone().unwrap_or_else(|| RewriteRequest::default().scorer)
    }
}

fn parse_weights(s: &str) -> Result<Weights, String> {
    s.parse()
}
fn parse_scorer(s: &str) -> Result<ScorerChoice, String> {
    s.parse()
}

fn read_input(o: &RewriteOpts, text: &[String]) -> anyhow::Result<Vec<String>> {
    if let Some(p) = &o.input {
        return rw::read_sentences(p);
    }
    if !text.is_empty() {
        return Ok(text.join(" ").lines().map(str::to_string).collect());
    }
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).context("reading stdin")?;
    Ok(s.lines().map(str::to_string).collect())
}

fn open_neural(o: &RewriteOpts, req: &mut RewriteRequest) -> anyhow::Result<Option<Box<dyn rw::Neural>>> {
    let (neural, model) = rw::open_neural(o.method, o.model.as_deref(), o.backend.config())?;
    req.model = model;
    Ok(neural)
}

/// The request the flags ask for, core's defaults wherever a flag is not given: the same type the window's form
/// fills, and what the run stores. Checked before any model loads.
fn request(o: &RewriteOpts, sentences: Vec<String>) -> anyhow::Result<RewriteRequest> {
    let d = RewriteRequest::new(o.lang, o.method);
    let req = RewriteRequest {
        sentences,
        options: Options {
            n: o.n,
            weights: o.weights.unwrap_or(d.options.weights),
            fluency: !o.no_fluency,
            roundtrip: o.roundtrip,
            keep: o.keep.clone(),
            ..d.options
        },
        model: o.model.clone(),
        scorer: o.scorer(),
        project: (!o.no_store).then(|| o.project.clone()),
        document_id: None,
    };
    req.validate()?;
    Ok(req)
}

fn open_store(ctx: &Ctx, o: &RewriteOpts) -> anyhow::Result<Option<registro_store::Store>> {
    if o.no_store {
        return Ok(None);
    }
    Ok(Some(registro_store::Store::open_or_default(ctx.db.as_deref())?))
}

pub fn run(ctx: &Ctx, args: Args) -> anyhow::Result<()> {
    match args.sub {
        None => rewrite(ctx, &args.opts, &args.text),
        Some(Sub::Eval { dir, opts }) => eval(ctx, &opts, &dir),
        Some(Sub::TrainScorer { data, out, embeddings }) => train(ctx, &data, &out, embeddings.as_deref()),
        Some(Sub::Score { opts, text }) => score(ctx, &opts, &text),
    }
}

fn rewrite(ctx: &Ctx, o: &RewriteOpts, text: &[String]) -> anyhow::Result<()> {
    if o.dry_run {
        println!("{}", serde_json::to_string_pretty(&request(o, Vec::new())?)?);
        return Ok(());
    }
    let sentences = read_input(o, text)?;
    let mut store = open_store(ctx, o)?;
    let mut req = request(o, sentences)?;
    let mut neural = open_neural(o, &mut req)?;
    let cancel = crate::term::cancel_on_ctrl_c();
    let bar = crate::term::Bar::new(ctx.json, "sentences");
    let out = rw::rewrite(store.as_mut(), &req, neural.as_mut().map(|n| &mut **n as &mut dyn rw::Neural), &cancel, &mut bar.sink())?;
    drop(bar);
    if cancel.is_cancelled() {
        eprintln!("cancelled: {} sentences finished{}", out.sentences.len(), out.run_id.map_or(String::new(), |id| format!(" and kept in run {id}")));
    }
    if let Some(p) = &o.output {
        let mut text = out.best_texts().join("\n");
        text.push('\n');
        std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?;
    }
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    for s in &out.sentences {
        let Some(best) = s.candidates.first() else { continue };
        let c = &best.candidate;
        println!("{}", c.text);
        // The words are registro_rewrite::verdict's; the window shows the same.
        let edits: Vec<String> = best.pieces.iter().filter_map(|p| p.label.as_ref().map(|l| format!("{:?} → {:?} ({l})", p.old, p.new))).collect();
        eprintln!("  formality {:+.2} → {:+.2}", s.formality_before, c.scores.formality);
        eprintln!("  {}", best.verdict.summary);
        for f in &best.verdict.flags {
            eprintln!("  flag: {f}");
        }
        if !edits.is_empty() {
            eprintln!("  edits: {}", edits.join("; "));
        }
        for other in &s.candidates[1..] {
            eprintln!("  also: {} — {} ({})", other.candidate.text, other.verdict.method, other.verdict.headline);
        }
    }
    let m = &out.summary;
    eprintln!(
        "{} sentences: formality {:+.2} → {:+.2}, chrF to input {:.1}, joint score {:.0}/100, {:.4} s/sentence{}{}",
        m.sentences, m.formality_before, m.formality_after, m.chrf_to_input, m.gm * 100.0, m.seconds_per_sentence,
        m.perplexity.map_or(String::new(), |p| format!(", perplexity {p:.1}")),
        out.run_id.map_or(String::new(), |id| format!(" (run {id})"))
    );
    Ok(())
}

fn eval(ctx: &Ctx, o: &RewriteOpts, dir: &std::path::Path) -> anyhow::Result<()> {
    let mut store = open_store(ctx, o)?;
    let mut req = request(o, Vec::new())?;
    let mut neural = open_neural(o, &mut req)?;
    let cancel = crate::term::cancel_on_ctrl_c();
    let bar = crate::term::Bar::new(ctx.json, "sentences");
    let r = rw::evaluate_xformal(store.as_mut(), dir, req, neural.as_mut().map(|n| &mut **n as &mut dyn rw::Neural), &cancel, &mut bar.sink())?;
    drop(bar);
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    let e = &r.evaluation;
    println!("{} ({} segments, {} references), method {}", r.folder, e.segments, e.references, o.method.name());
    println!("  {}", e.bleu_signature);
    println!("  {:<18} {:>10} {:>9} {:>10} {:>6} {:>6} {:>7} {:>7} {:>8}", "step", "multi-BLEU", "self-BLEU", "chrF(input)", "form.", "Acc", "Sim", "PP", "P&G GM");
    let opt = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |x| format!("{x:.p$}"));
    for s in &r.steps {
        let e = &s.evaluation;
        println!(
            "  {:<18} {:>10.2} {:>9.2} {:>10.2} {:>+6.2} {:>6.3} {:>7.3} {:>7} {:>8}",
            s.step, e.multi_bleu, e.self_bleu, e.chrf_to_input, e.formality, e.acc, e.sim, opt(e.perplexity, 1), opt(e.pg_gm, 2)
        );
    }
    println!("  formality of the input {:+.3}; Sim = {}", e.input_formality, e.sim_measure);
    println!("  s/sentence      {:.4}", r.summary.seconds_per_sentence);
    if let Some(id) = r.run_id {
        println!("  stored as run {id}");
    }
    Ok(())
}

fn train(ctx: &Ctx, data: &std::path::Path, out: &std::path::Path, embeddings: Option<&str>) -> anyhow::Result<()> {
    let models = rw::train_scorers(data, out, embeddings)?;
    if ctx.json {
        let v: Vec<_> = models.iter().map(|m| serde_json::json!({"variant": m.variant, "lambda": m.lambda, "report": m.report})).collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    for m in &models {
        println!(
            "{:8} λ={:<5} Spearman on PT16 tune {:.4} (Pearson {:.4}; train {:.4}) → {}/{}.json",
            m.variant.name(), m.lambda, m.report.tune_spearman, m.report.tune_pearson, m.report.train_spearman, out.display(), m.variant.name()
        );
    }
    Ok(())
}

fn score(ctx: &Ctx, o: &RewriteOpts, text: &[String]) -> anyhow::Result<()> {
    let mut s = rw::load_formality(&o.scorer())?;
    for line in read_input(o, text)? {
        let f = s.formality(&line, o.lang).map_err(anyhow::Error::msg)?;
        if ctx.json {
            println!("{}", serde_json::json!({"text": line, "formality": f}));
        } else {
            println!("{f:+.3}\t{line}");
        }
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Language of the corpus
    #[arg(long, value_enum, default_value_t = Lang::En)]
    lang: Lang,
    /// Corpus: a text file (one sentence a line) or a PT16 csv; default PT16 train when found, else built-in
    /// chat sentences
    #[arg(long)]
    input: Option<PathBuf>,
    /// Minimum measuring time in seconds
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
}

pub fn bench(ctx: &Ctx, args: BenchArgs) -> anyhow::Result<()> {
    let (corpus, name) = match &args.input {
        Some(p) if p.extension().is_some_and(|e| e == "csv") => {
            (registro_rewrite_pt16(p)?, p.display().to_string())
        }
        Some(p) => (rw::read_sentences(p)?, p.display().to_string()),
        None => {
            let p = registro_core::shared_data_dir().map(|d| d.join("pt16/train.csv"));
            if let Some(p) = p.filter(|p| p.exists() && args.lang == Lang::En) {
                (registro_rewrite_pt16(&p)?, p.display().to_string())
            } else {
                (rw::bench::sample_corpus(args.lang), "built-in chat sentences".to_string())
            }
        }
    };
    let t = rw::bench::throughput(&corpus, args.lang, std::time::Duration::from_secs_f64(args.seconds));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if ctx.json {
        println!("{}", serde_json::json!({"corpus": name, "throughput": t, "loadavg": load, "cpus": cpus, "threads": 1, "debug_build": cfg!(debug_assertions)}));
        return Ok(());
    }
    println!("rules formalizer ({}), corpus {name} ({} sentences), 1 thread", args.lang, corpus.len());
    println!("  {:.0} sentences/s, {:.2} MB/s, {} sentences in {:.2} s, {} edits", t.sentences_per_s, t.mb_per_s, t.sentences, t.seconds, t.edits);
    println!("  load average {} on {cpus} CPUs{}", load.join(" "), if cfg!(debug_assertions) { " (debug build: use --release for the real figure)" } else { "" });
    println!("  goal ≥ 100000 sentences/s: {}", if t.sentences_per_s >= 100_000.0 { "met" } else { "NOT met" });
    Ok(())
}

fn registro_rewrite_pt16(p: &std::path::Path) -> anyhow::Result<Vec<String>> {
    Ok(registro_core::rewrite::load_pt16(p)?.into_iter().map(|e| e.text).collect())
}
