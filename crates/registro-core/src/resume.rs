//! Finishing an unfinished run (failed, cancelled, interrupted by a crash) with the parameters it was started
//! with: only the segments without an output are produced, so no segment ends with two outputs and the ones done
//! stay as they were. Rewrite and translate runs over a stored document can be resumed; the rest say why not.

use anyhow::{bail, ensure, Context, Result};
use registro_store::{NewMetric, Run, RunId, RunStatus, Store, Task};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::progress::{CancelToken, Progress, ProgressFn};
use crate::projects::catch_run_panic;
use crate::run_state::RunState;
use crate::translate::SegmentOut;

/// Why `run` cannot be resumed, or `None` when it can (its missing segments may still be none).
pub fn resume_blocker(run: &Run) -> Option<String> {
    match run.task {
        Task::Rewrite | Task::Translate => {}
        Task::Eval | Task::Import => {
            return Some(format!("{} runs are stored in one step, not segment by segment: run it again", run.task))
        }
    }
    if run.document_id.is_none() {
        return Some("its input was not a stored document, so its source text was not kept: run it again".into());
    }
    if run.task == Task::Rewrite && run.params.get("scorer_choice").is_none() {
        return Some("it was stored before Registro recorded its formality scorer: run it again".into());
    }
    None
}

/// What a resume did.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ResumeOutcome {
    pub run: Run,
    /// How many segments this resume produced.
    pub produced: usize,
    /// How the run stands now.
    pub state: RunState,
}

/// What a resume reports as it goes: the run's state (starting, saying what it is doing, then running n of m of
/// the whole run) and, for a translation, each segment as it is stored (its index in the document).
pub struct Watch<'a> {
    pub state: &'a mut dyn FnMut(RunState),
    pub segment: &'a mut dyn FnMut(&SegmentOut),
}

/// Produces the missing segments of run `id` and ends it `done` (or `cancelled` / `failed` like a fresh run).
/// `progress` counts the segments this resume produces (done of the missing ones), one event per segment.
pub fn resume_run(store: &mut Store, id: RunId, progress: ProgressFn, cancel: &CancelToken) -> Result<ResumeOutcome> {
    let mut missing_total = None;
    let mut before = 0;
    let mut on_state = |s: RunState| {
        let total = *missing_total.get_or_insert_with(|| {
            before = s.done;
            s.total - s.done
        });
        if s.phase == crate::run_state::RunPhase::Running {
            let message = s.doing.clone().unwrap_or_else(|| s.label.clone());
            progress(Progress { done: s.done.saturating_sub(before), total, message })
        }
    };
    resume_run_watched(store, id, Watch { state: &mut on_state, segment: &mut |_| {} }, cancel)
}

/// [`resume_run`], reporting the run's [`RunState`] as it changes and each translated segment as it is stored.
pub fn resume_run_watched(store: &mut Store, id: RunId, watch: Watch<'_>, cancel: &CancelToken) -> Result<ResumeOutcome> {
    let run = store.run(id)?;
    if let Some(why) = resume_blocker(&run) {
        bail!("run {id} cannot be resumed: {why}");
    }
    let missing = store.missing_segments(id)?;
    if missing.is_empty() && run.status == RunStatus::Done {
        return Ok(ResumeOutcome { state: RunState::of_run(&run), run, produced: 0 });
    }
    let doc = run.document_id.unwrap_or_default();
    let sources = store.segment_texts(doc)?;
    ensure!(
        sources.len() as i64 == run.total_segments,
        "run {id} has {} segments but its document {doc} now has {}: it cannot be resumed",
        run.total_segments,
        sources.len()
    );
    // Refuses a run that is still executing here or in another process; marks it running in this one.
    store.resume_run(id)?;
    let total = run.total_segments.max(0) as u64;
    let before = total - missing.len() as u64;
    (watch.state)(RunState::starting(id, before, total, "resuming"));
    let result = catch_run_panic(store, id, |store| {
        let left = Left { run: &run, sources: &sources, missing: &missing, before, total };
        let produced = match run.task {
            Task::Rewrite => rewrite(store, &left, watch.state, cancel),
            _ => translate(store, &left, watch.state, watch.segment, cancel),
        };
        let (status, err) = match &produced {
            Err(e) => (RunStatus::Failed, Some(format!("{e:#}"))),
            Ok(_) if store.missing_segments(id)?.is_empty() => (RunStatus::Done, None),
            Ok(_) if cancel.is_cancelled() => (RunStatus::Cancelled, None),
            Ok(_) => (RunStatus::Failed, Some("resumed, but some segments are still missing".to_string())),
        };
        store.finish_run(id, status, err.as_deref())?;
        produced
    });
    let produced = result?;
    let run = store.run(id)?;
    let state = RunState::of_run(&run);
    (watch.state)(state.clone());
    Ok(ResumeOutcome { run, produced, state })
}

fn param<T: DeserializeOwned>(run: &Run, key: &str) -> Result<T> {
    let v = run.params.get(key).cloned().with_context(|| format!("run {} has no {key:?} parameter to resume with", run.id))?;
    serde_json::from_value(v).with_context(|| format!("run {}: parameter {key:?}", run.id))
}

/// What is left of a run to produce: the segments `missing` of its document's `sources`.
struct Left<'a> {
    run: &'a Run,
    sources: &'a [String],
    missing: &'a [i64],
    /// Segments stored before this resume, of `total`.
    before: u64,
    total: u64,
}

fn rewrite(store: &mut Store, left: &Left, state: &mut dyn FnMut(RunState), cancel: &CancelToken) -> Result<usize> {
    let Left { run, sources, missing, before, total } = *left;
    use crate::rewrite::{self as rw, Lang, Method, Options, RewriteRequest, ScorerChoice};
    let code = run.source_lang.as_deref().unwrap_or_default();
    let lang = Lang::ALL.into_iter().find(|l| l.code() == code).with_context(|| format!("run {}: unknown language {code:?}", run.id))?;
    let method: Method = param(run, "method")?;
    let options = Options {
        n: param(run, "n")?,
        weights: param(run, "weights")?,
        fluency: param(run, "fluency")?,
        // Runs stored before these options existed had neither.
        roundtrip: param(run, "roundtrip").unwrap_or(false),
        keep: param(run, "keep").unwrap_or_default(),
        ..Options::new(lang, method)
    };
    let scorer: ScorerChoice = param(run, "scorer_choice")?;
    state(RunState::starting(run.id, before, total, "loading the formality scorer"));
    let mut formality = rw::load_formality(&scorer)?;
    if let Some(model) = run.model_id.as_deref() {
        let loading = match crate::translate::remote::parse_id(model) {
            Some((_, url)) => format!("connecting to the server {url}"),
            None => format!("loading the model {model}"),
        };
        state(RunState::starting(run.id, before, total, loading));
    }
    let mut neural = rw::neural_backend(method, run.model_id.as_deref())?;
    let mut produced = 0;
    for &i in missing {
        if cancel.is_cancelled() {
            break;
        }
        let req = RewriteRequest {
            sentences: vec![sources[i as usize].clone()],
            options: options.clone(),
            model: run.model_id.clone(),
            scorer: scorer.clone(),
            project: None,
            document_id: None,
        };
        let n = neural.as_mut().map(|n| &mut **n as &mut dyn rw::Neural);
        let out = rw::rewrite_with(None, &req, formality.as_mut(), n, cancel, &mut |_| {})?;
        let Some(r) = out.sentences.first() else { break };
        store.put_output(run.id, &rw::output_of(i as usize, r))?;
        let rows: Vec<NewMetric> = rw::metrics_of(&out.sentences, &out.summary)
            .into_iter()
            .filter(|m| m.segment_index.is_some())
            .map(|m| NewMetric { segment_index: Some(i), ..m })
            .collect();
        store.put_metric_results(run.id, &rows)?;
        produced += 1;
        state(RunState::running(run.id, before + produced as u64, total, format!("rewrote sentence {}", i + 1)));
    }
    corpus_means(store, run)?;
    Ok(produced)
}

/// The rewrite run's corpus metrics over all its segments (the stored ones and the resumed ones), computed from
/// the per-segment values as `rewrite` computes them from its sentences.
fn corpus_means(store: &mut Store, run: &Run) -> Result<()> {
    let n = run.total_segments.max(1) as f64;
    let mut rows = Vec::new();
    for metric in ["formality", "formality.input", "chrf.input", "gm"] {
        let values = store.segment_metrics(run.id, metric, None)?;
        rows.push(NewMetric::corpus(metric, values.iter().map(|m| m.value).sum::<f64>() / n));
    }
    let ppl = store.segment_metrics(run.id, "perplexity", None)?;
    if !ppl.is_empty() {
        let mean_ln = ppl.iter().map(|m| m.value.max(1.0).ln()).sum::<f64>() / ppl.len() as f64;
        rows.push(NewMetric::corpus("perplexity", mean_ln.exp()));
    }
    store.put_metric_results(run.id, &rows)?;
    Ok(())
}

fn translate(
    store: &mut Store,
    left: &Left,
    state: &mut dyn FnMut(RunState),
    on_segment: &mut dyn FnMut(&SegmentOut),
    cancel: &CancelToken,
) -> Result<usize> {
    let Left { run, sources, missing, before, total } = *left;
    use crate::translate::{self as tr, Lang, Options, Register, WORD_OVERLAP};
    let code = run.target_lang.as_deref().unwrap_or_default();
    let lang: Lang = code.parse().with_context(|| format!("run {}: unknown target language {code:?}", run.id))?;
    let register: Register = run.register.as_deref().unwrap_or("formal").parse()?;
    let defaults = Options::new(lang, register);
    let shots: usize = param(run, "shots")?;
    let opts = Options {
        controls: tr::Controls(param(run, "controls")?),
        system: param(run, "system")?,
        n_best: param(run, "n_best")?,
        gender: param(run, "gender")?,
        // 0 records that no example pool was found then; one may be there now.
        shots: if shots == 0 { defaults.shots } else { shots },
        shots_per_sentence: param(run, "shots_per_sentence")?,
        // Runs stored before sentence examples existed had none.
        sentence_examples: param(run, "sentence_examples").unwrap_or(0),
        // Chosen by meaning only where the run's were (the encoder may have been installed since).
        meaning_retrieval: run.params["sentence_retrieval"].as_str().is_some_and(|r| r != WORD_OVERLAP),
        // Runs stored before fixed examples existed retrieved theirs.
        fixed_document_examples: run.params["document_examples"].as_str() == Some("fixed"),
        max_tokens: param(run, "max_tokens")?,
        ..defaults
    };
    let overrides: std::collections::BTreeMap<String, Register> = param(run, "register_overrides").unwrap_or_default();
    let registers: Vec<Register> =
        missing.iter().map(|i| overrides.get(&i.to_string()).copied().unwrap_or(register)).collect();
    let subset: Vec<String> = missing.iter().map(|&i| sources[i as usize].clone()).collect();
    // The project's approved segments now, as a fresh run would see them (this run's own are left out).
    let mut opts = opts;
    if opts.uses_memory() {
        let examples = tr::memory::Examples::lookup(store, run.project_id, lang, &subset, &registers, Some(run.id))?;
        let shown = examples.count(&subset, &registers);
        if shown > 0 {
            let mut params = run.params.clone();
            params["memory_examples_resumed"] = serde_json::json!(shown);
            store.set_run_params(run.id, &params)?;
        }
        opts.memory = Some(std::sync::Arc::new(examples));
    }
    let model = run.model_id.clone().with_context(|| format!("run {} has no model recorded", run.id))?;
    let loading = match tr::remote::parse_id(&model) {
        Some((_, url)) => format!("connecting to the server {url}"),
        None => format!("loading the model {model}"),
    };
    state(RunState::starting(run.id, before, total, loading));
    let mut gen = tr::open_for_run(&model)?;
    // The meaning check the run started with, if it had one and its model is still installed.
    let meaning = if run.params["meaning_check"].is_string() { tr::qe::MeaningCheck::installed()? } else { None };
    // The examples the run started with: none if it chose none, else the shipped pool (an error if it is gone).
    let examples = run.params["fewshot_pool"].as_str() != Some(tr::NO_EXAMPLES);
    let mut t = tr::Translator::new(gen.as_mut(), tr::Pool::for_run(lang, examples)?).with_meaning_check(meaning);
    // Until the first segment is stored the model reads its instructions and examples (the prompt prefix).
    state(RunState::starting(run.id, before, total, "computing the prompt prefix"));
    let mut produced = 0u64;
    t.translate_streamed(&subset, &registers, &opts, cancel.flag(), &mut |seg| {
        let mut o = tr::to_output(seg);
        o.segment_index = missing[seg.index];
        store.put_output(run.id, &o)?;
        produced += 1;
        let in_document = SegmentOut { index: o.segment_index as usize, ..seg.clone() };
        on_segment(&in_document);
        state(RunState::running(run.id, before + produced, total, format!("segment {}", o.segment_index + 1)));
        Ok(())
    })?;
    Ok(produced as usize)
}
