//! `registro translate`: English → DE/ES/FR/HI/IT/JA in a requested register through the control layer, stored
//! as a run; `registro bench translate`: the ablation over a CoCoA-MT / IWSLT-style folder (M-Acc with counts,
//! BLEU/chrF per control step) and the register analyzer's accuracy.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use registro_core::bench::ablation;
use registro_core::translate::{self as tr, Controls, Gender, Lang, Options, Register, SystemKind, TranslateRequest, Verdict};

use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// Target language
    #[arg(long, value_enum)]
    lang: Lang,
    /// Requested register (respectful: Japanese keigo)
    #[arg(long, value_enum, default_value_t = Options::default().register)]
    register: Register,
    /// Model id (see `registro models list`) or a .gguf path [default: $REGISTRO_DEFAULT_MODEL, else the default model]
    #[arg(long)]
    model: Option<String>,
    #[command(flatten)]
    backend: super::backend::BackendArgs,
    /// Read English segments from this file (one per line; default: the arguments, else stdin); a .xlf/.xliff,
    /// .srt, .vtt, .po, .docx, .md or .html file is translated as a document and written back in its format to
    /// --output
    #[arg(long)]
    input: Option<PathBuf>,
    /// Write the translations here, one per line (with --contrastive: formal<TAB>informal per line), or the
    /// translated document when --input is one
    #[arg(long)]
    output: Option<PathBuf>,
    /// Document format of --input and --output (xliff, srt, vtt, po, docx, md, html) [default: from the
    /// extension]
    #[arg(long)]
    format: Option<String>,
    /// Candidates per segment for reranking
    #[arg(long, default_value_t = Options::default().n_best)]
    n_best: usize,
    /// Control steps: prompt,fewshot,constrain,rerank,consensus,repair | all | none (generic translation)
    /// [default: all]
    #[arg(long)]
    controls: Option<Controls>,
    /// controlled: the control layer; pivot (MTFC): generic translation, then the rule formalizer
    #[arg(long, value_enum, default_value_t = Options::default().system)]
    system: SystemKind,
    /// Translate in both registers side by side (stored as two runs, formal and informal)
    #[arg(long)]
    contrastive: bool,
    /// Grammatical gender of the addressee
    #[arg(long, value_enum)]
    gender: Option<Gender>,
    #[command(flatten)]
    examples: ExampleArgs,
    /// Glossary whose terms each segment must use (boosted) or avoid (banned), per register: .tsv/.csv/.tbx
    /// (see `registro qa --termbase`)
    #[arg(long)]
    termbase: Option<PathBuf>,
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
    /// Text to translate
    text: Vec<String>,
}

/// How each segment is shown examples and checked for meaning: the same options for `translate` and `bench
/// translate`, so a bench measures what a translation runs.
#[derive(clap::Args)]
struct ExampleArgs {
    /// Retrieve few-shot examples per sentence instead of once per document (no shared prefix: slower)
    #[arg(long)]
    shots_per_sentence: bool,
    /// Examples retrieved for each sentence and shown in its own turn, beside the document's shared ones (the
    /// shared prefix stays cached and the document is still decoded in batches)
    #[arg(long, default_value_t = Options::default().sentence_examples)]
    sentence_examples: usize,
    /// Skip the cross-lingual meaning check (EmbeddingGemma-300M, used when installed: `registro models fetch
    /// embeddinggemma-300m`)
    #[arg(long)]
    no_meaning_check: bool,
    /// Skip the second opinion: reading back in English, with the same model, the translation of a sentence that
    /// has a negation or "you" and "me" acting on one another (one more generation for those sentences)
    #[arg(long)]
    no_back_translation: bool,
    /// Translate without the shipped example translations (lower quality; recorded in the run). Without this
    /// flag a language whose examples are missing is an error, never a silent quality drop
    #[arg(long)]
    no_examples: bool,
    /// Where the document's shared examples come from: `fixed` (the same for every document of the language and
    /// register, so the prefix they form is computed once per model) or `retrieved` (by the document's words)
    /// [default: retrieved]
    #[arg(long, value_enum)]
    document_examples: Option<DocumentExamples>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DocumentExamples {
    Fixed,
    Retrieved,
}

impl ExampleArgs {
    /// `--document-examples`, else core's default.
    fn fixed_document_examples(&self) -> bool {
        self.document_examples.map_or(Options::default().fixed_document_examples, |d| d == DocumentExamples::Fixed)
    }
}

fn read_input(a: &Args) -> anyhow::Result<Vec<String>> {
    let text = if let Some(p) = &a.input {
        std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?
    } else if !a.text.is_empty() {
        a.text.join(" ")
    } else {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("reading stdin")?;
        s
    };
    let lines: Vec<String> = text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect();
    anyhow::ensure!(lines.iter().any(|l| !l.trim().is_empty()), "nothing to translate (empty input)");
    Ok(lines)
}

/// The request the flags ask for, core's defaults wherever a flag is not given: the same type the window's form
/// fills, and what the run stores. Reads no file and loads nothing (the termbase is loaded after the check).
fn request(a: &Args) -> TranslateRequest {
    let d = TranslateRequest::new(a.lang, a.register);
    TranslateRequest {
        options: Options {
            controls: a.controls.clone().unwrap_or_else(|| d.options.controls.clone()),
            system: a.system.clone(),
            n_best: a.n_best,
            gender: a.gender,
            shots_per_sentence: a.examples.shots_per_sentence,
            sentence_examples: a.examples.sentence_examples,
            fixed_document_examples: a.examples.fixed_document_examples(),
            back_translation: !a.examples.no_back_translation,
            ..d.options
        },
        model: a.model.clone().unwrap_or(d.model),
        examples: !a.examples.no_examples,
        meaning_check: !a.examples.no_meaning_check,
        contrastive: a.contrastive,
    }
}

fn print_segment(s: &tr::SegmentOut) {
    println!("{}", s.text);
    let markers: Vec<String> = s.analysis.markers.iter().map(|m| format!("{}({})", m.text, m.register.as_str())).collect();
    let mut note = format!("  [{}] {}", s.analysis.label.as_str(), markers.join(" "));
    if let Some(b) = &s.before_repair {
        note.push_str(&format!("  repaired from: {b}"));
    }
    if let Some(r) = &s.flag_reason {
        note.push_str(&format!("  ⚑ FLAGGED: {r}"));
    }
    if let Some(b) = &s.back_translation {
        note.push_str(&format!("  read back: {b:?}"));
    }
    eprintln!("{note}");
}

/// The name a plain-text input is stored under: its file name, or "standard input".
fn input_name(a: &Args) -> String {
    a.input
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or_else(|| "standard input".to_string(), |n| n.to_string_lossy().into_owned())
}

fn write_lines(path: &std::path::Path, lines: impl Iterator<Item = String>) -> anyhow::Result<()> {
    let mut text = lines.collect::<Vec<_>>().join("\n");
    text.push('\n');
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

pub fn run(ctx: &Ctx, a: Args) -> anyhow::Result<()> {
    let mut req = request(&a);
    // Refused before anything is read or loaded, by the rule the window obeys too.
    req.validate()?;
    if a.dry_run {
        println!("{}", serde_json::to_string_pretty(&req)?);
        return Ok(());
    }
    let is_document = a.input.as_ref().is_some_and(|p| registro_core::documents::is_document(p, a.format.as_deref()));
    let sources = if is_document { Vec::new() } else { read_input(&a)? };
    req.options.termbase = a.termbase.as_deref().map(|p| registro_core::qa::load_termbase(p, a.lang)).transpose()?;
    let opts = req.options.clone();
    // The examples first: a missing pool fails in a second, not after a model load.
    let pool = req.pool()?;
    let mut gen = tr::open_generator(Some(&req.model), a.backend.config())?;
    let mut t = tr::Translator::new(gen.as_mut(), pool).with_meaning_check(req.meaning()?);
    let cancel = crate::term::cancel_on_ctrl_c();
    let bar = crate::term::Bar::new(ctx.json, "segments");
    if let Some(input) = a.input.as_ref().filter(|p| registro_core::documents::is_document(p, a.format.as_deref())) {
        return translate_document(ctx, &a, input, &mut t, &opts, bar, &cancel);
    }
    if a.contrastive {
        let (run_ids, pairs) = if a.no_store {
            (Vec::new(), tr::translate_contrastive(&mut t, &sources, &opts, cancel.flag())?)
        } else {
            let mut store = registro_store::Store::open_or_default(ctx.db.as_deref())?;
            let project = tr::project_id(&store, &a.project)?;
            let document = tr::store_source_lines(&mut store, project, &input_name(&a), a.lang, &sources)?;
            let target = tr::RunTarget { project_id: project, document_id: Some(document) };
            tr::translate_contrastive_and_store(&mut store, &target, &mut t, &sources, &opts, &mut bar.sink(), &cancel)?
        };
        drop(bar);
        if let Some(p) = &a.output {
            write_lines(p, pairs.iter().map(|p| format!("{}\t{}", p.formal.text, p.informal.text)))?;
        }
        if ctx.json {
            println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "run_ids": run_ids, "pairs": pairs }))?);
        } else {
            for p in &pairs {
                println!("{}\n  formal:   {}{}\n  informal: {}{}", p.formal.source, p.formal.text, flag_mark(&p.formal), p.informal.text, flag_mark(&p.informal));
            }
            if !run_ids.is_empty() {
                let ids: Vec<String> = run_ids.iter().map(|id| id.to_string()).collect();
                eprintln!("stored as runs {}{}", ids.join(" (formal) and "), if run_ids.len() == 2 { " (informal)" } else { " (cancelled before the informal pass)" });
            }
        }
        return Ok(());
    }
    let (run_id, segs) = if a.no_store {
        (None, t.translate(&sources, &opts, cancel.flag(), &mut |_| Ok(()))?)
    } else {
        let mut store = registro_store::Store::open_or_default(ctx.db.as_deref())?;
        let project = tr::project_id(&store, &a.project)?;
        let document = tr::store_source_lines(&mut store, project, &input_name(&a), a.lang, &sources)?;
        let target = tr::RunTarget { project_id: project, document_id: Some(document) };
        let (id, segs) = tr::translate_and_store(&mut store, &target, &mut t, &sources, None, &opts, &mut bar.sink(), &cancel)?;
        (Some(id), segs)
    };
    drop(bar);
    if cancel.is_cancelled() {
        eprintln!("cancelled: {} of {} segments finished{}", segs.len(), sources.len(), run_id.map_or(String::new(), |id| format!(" and kept in run {id}")));
    }
    if let Some(p) = &a.output {
        write_lines(p, segs.iter().map(|s| s.text.clone()))?;
    }
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "run_id": run_id, "segments": segs }))?);
    } else {
        for s in &segs {
            print_segment(s);
        }
        let flagged = segs.iter().filter(|s| s.flagged).count();
        // A segment's `seconds` is when it was done, counted from the start of the run (segments are decoded
        // together), so the run took the largest of them; summing them counted the same seconds many times.
        let secs = segs.iter().map(|s| s.seconds).fold(0.0, f64::max);
        eprintln!(
            "{} segments, {} {}, {} flagged, {:.2} s/segment, system {}{}",
            segs.len(),
            segs.iter().filter(|s| s.verdict == Verdict::Ok).count(),
            opts.register.as_str(),
            flagged,
            secs / segs.len().max(1) as f64,
            opts.system_name(),
            run_id.map_or(String::new(), |id| format!(" (run {id})"))
        );
    }
    Ok(())
}

fn translate_document(ctx: &Ctx, a: &Args, input: &std::path::Path, t: &mut tr::Translator<'_>, opts: &Options, bar: crate::term::Bar, cancel: &registro_core::progress::CancelToken) -> anyhow::Result<()> {
    anyhow::ensure!(!a.contrastive, "--contrastive takes plain text input, not a document");
    let output = a.output.as_ref().context("a document needs --output (the translated file, in the same format)")?;
    let mut store = if a.no_store { None } else { Some(registro_store::Store::open_or_default(ctx.db.as_deref())?) };
    let store_arg = match store.as_mut() {
        Some(s) => {
            let project = tr::project_id(s, &a.project)?;
            Some((s, project))
        }
        None => None,
    };
    // JSON prints every segment at the end, so it keeps them; text prints each one as soon as the segments before
    // it are printed (they finish out of order within a window), holding only those that arrived early.
    let mut kept: Vec<tr::SegmentOut> = Vec::new();
    let mut early: std::collections::BTreeMap<usize, tr::SegmentOut> = Default::default();
    let mut next = 0usize;
    let json = ctx.json;
    let mut on_segment = |seg: &tr::SegmentOut| {
        if json {
            kept.push(seg.clone());
            return;
        }
        early.insert(seg.index, seg.clone());
        while let Some(s) = early.remove(&next) {
            print_segment(&s);
            next += 1;
        }
    };
    let r = registro_core::documents::translate_file(store_arg, t, input, output, a.format.as_deref(), opts, &mut bar.sink(), cancel, &mut on_segment)?;
    drop(bar);
    if ctx.json {
        kept.sort_by_key(|s| s.index);
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "run_id": r.run_id, "document_id": r.document_id, "output": r.output, "segments": kept }))?);
    } else {
        // After a cancel, the segments finished beyond the first gap.
        for s in early.values() {
            print_segment(s);
        }
        eprintln!(
            "{} of {} sentences translated, {} flagged; wrote {}{}",
            r.translated,
            r.sentences,
            r.flagged,
            output.display(),
            r.run_id.map_or(String::new(), |id| format!(" (run {id})"))
        );
    }
    Ok(())
}

fn flag_mark(s: &tr::SegmentOut) -> String {
    s.flag_reason.as_ref().map_or(String::new(), |r| format!("  ⚑ {r}"))
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BenchWhat {
    Ablation,
    Analyzer,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// What to measure: the control-layer ablation (needs a model) or the register analyzer's accuracy (no model)
    #[arg(value_enum, default_value_t = BenchWhat::Ablation)]
    what: BenchWhat,
    /// CoCoA-MT / IWSLT-style folder (default: the CoCoA-MT training folder of --lang, held-out part)
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Target language(s), comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "de")]
    lang: Vec<Lang>,
    /// Model id or .gguf path [default: $REGISTRO_DEFAULT_MODEL, else the default model]
    #[arg(long)]
    model: Option<String>,
    #[command(flatten)]
    backend: super::backend::BackendArgs,
    /// Sources to translate (a subset spread over the folder; CPU time)
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Systems: comma-separated control sets (`none`, `prompt+fewshot`, `all`, …) and `pivot`; default: the
    /// cumulative ablation generic → +prompt → +fewshot → +constrain → +rerank → +repair, and pivot
    #[arg(long)]
    systems: Option<String>,
    #[arg(long, default_value_t = Options::default().n_best)]
    n_best: usize,
    #[arg(long, default_value_t = Options::default().shots)]
    shots: usize,
    /// Japanese: translate the formal side in the respectful register (sonkeigo/kenjōgo); its M-Acc is still
    /// against the polite references, the analyzer column says whether the honorifics are there
    #[arg(long)]
    respectful: bool,
    #[command(flatten)]
    examples: ExampleArgs,
    /// Choose each sentence's own examples by meaning (EmbeddingGemma) instead of word overlap (lower BLEU on the
    /// development split; kept to compare)
    #[arg(long)]
    meaning_retrieval: bool,
    /// A cap on any one segment's tokens (each segment's own budget comes from its length and the model's tokens
    /// per character of the target language)
    #[arg(long, default_value_t = Options::default().max_tokens)]
    max_tokens: usize,
    /// Use all sources of a training folder, not only its held-out part
    #[arg(long)]
    all_sources: bool,
    /// The old path for comparison: segments decoded one at a time, every segment's n-best search (no early exit)
    #[arg(long)]
    sequential: bool,
    /// The path before continuous batching, for comparison: greedy segments in fixed batches that shrink as rows
    /// finish, a batch's free rows never refilled
    #[arg(long)]
    fixed_batches: bool,
    /// Leave out the plain llama.cpp loop (greedy, one-line register instruction) measured beside the systems
    #[arg(long)]
    no_llama_cpp: bool,
}

pub fn bench(ctx: &Ctx, a: BenchArgs) -> anyhow::Result<()> {
    let langs = a.lang.clone();
    anyhow::ensure!(!a.respectful || langs.iter().all(|l| l.has_respectful()), "--respectful: the respectful register exists for Japanese only (--lang ja)");
    if a.what == BenchWhat::Analyzer {
        return bench_analyzer(ctx, &langs, a.dir.as_deref());
    }
    if a.sequential {
        // Read by the engine when it opens: one row per decoding call, as before batching.
        std::env::set_var("REGISTRO_BATCH_ROWS", "1");
    }
    if a.fixed_batches {
        std::env::set_var("REGISTRO_FIXED_BATCHES", "1");
    }
    let backend = a.backend.config();
    let llama_cpp = match (&backend, a.no_llama_cpp) {
        (None, false) => Some(registro_core::models::resolve_llm(&a.model.clone().unwrap_or_else(registro_core::models::default_model))?.main),
        _ => None,
    };
    let t_load = std::time::Instant::now();
    let mut gen = tr::open_generator(a.model.as_deref(), backend)?;
    let load_secs = t_load.elapsed().as_secs_f64();
    let mut reports = Vec::new();
    for lang in langs {
        let (dir, held_out) = match &a.dir {
            Some(d) => (d.clone(), !a.all_sources && d.to_string_lossy().contains("/train")),
            None => (tr::analyzer::data::examples_dir(lang).context("pass --dir")?, !a.all_sources),
        };
        let o = ablation::AblationOptions {
            dir,
            lang,
            held_out,
            contrastive_only: false,
            limit: Some(a.limit),
            systems: match &a.systems {
                Some(s) => ablation::parse_systems(s)?,
                None => ablation::default_systems(),
            },
            n_best: a.n_best,
            max_tokens: a.max_tokens,
            shots: a.shots,
            respectful: a.respectful,
            sequential: a.sequential,
            shots_per_sentence: a.examples.shots_per_sentence,
            sentence_examples: a.examples.sentence_examples,
            llama_cpp: llama_cpp.clone(),
            load_secs,
            meaning_check: !a.examples.no_meaning_check,
            meaning_retrieval: a.meaning_retrieval,
            fixed_document_examples: a.examples.fixed_document_examples(),
            back_translation: !a.examples.no_back_translation,
        };
        let cancel = crate::term::cancel_on_ctrl_c();
        let bar = crate::term::Bar::new(ctx.json, "translations");
        let r = ablation::run(gen.as_mut(), tr::Pool::for_run(lang, !a.examples.no_examples)?, &o, &mut bar.sink(), cancel.flag())?;
        drop(bar);
        if !ctx.json {
            println!("{}", ablation::table(&r));
        }
        reports.push(r);
    }
    if !ctx.json {
        println!("peak RSS {} ({})", registro_engine::bench::process_memory_mib("VmHWM").map_or("unknown".into(), |m| format!("{m} MiB")), if a.sequential {
            "sequential path"
        } else if a.fixed_batches {
            "fixed batches, early exit"
        } else {
            "continuous batching, early exit"
        });
    }
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    }
    Ok(())
}

fn bench_analyzer(ctx: &Ctx, langs: &[Lang], dir: Option<&std::path::Path>) -> anyhow::Result<()> {
    use registro_core::translate::analyzer::{data, eval};
    let mut rows = Vec::new();
    for &lang in langs {
        let dir = match dir {
            Some(d) => d.to_path_buf(),
            None if data::example_set(lang).is_none() => {
                eprintln!("skipped {}: its examples are compiled in; pass --dir (e.g. data/ru-dev)", lang.code());
                continue;
            }
            None => data::examples_dir(lang)?,
        };
        let pairs = data::load_dir(&dir, lang)?;
        let all = eval::accuracy(lang, &pairs);
        let (pool, held) = data::split(pairs.clone());
        let (p, h) = (eval::accuracy(lang, &pool), eval::accuracy(lang, &held));
        let rep = eval::repair_stats(lang, &pairs);
        if !ctx.json {
            println!(
                "{}: analyzer accuracy {:.4} ({}/{} contrastive pairs; pool {:.4}, held-out {:.4}) | repair: round trip {:.3}, labelled as asked →I {:.3} →F {:.3}, equals other reference →I {:.3} →F {:.3}",
                lang.code(), all.accuracy(), all.correct, all.pairs, p.accuracy(), h.accuracy(),
                rep.round_trip_formal as f64 / rep.pairs as f64, rep.label_to_informal as f64 / rep.pairs as f64, rep.label_to_formal as f64 / rep.pairs as f64,
                rep.exact_to_informal as f64 / rep.pairs as f64, rep.exact_to_formal as f64 / rep.pairs as f64
            );
        }
        rows.push(serde_json::json!({ "lang": lang, "accuracy": all.accuracy(), "correct": all.correct, "pairs": all.pairs, "pool": p.accuracy(), "held_out": h.accuracy(), "repair": rep }));
    }
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    }
    Ok(())
}
