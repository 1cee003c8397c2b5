//! Finishing an unfinished run (failed, cancelled, interrupted by a crash) with the parameters it was started
//! with: only the segments without an output are produced, so no segment ends with two outputs and the ones done
//! stay as they were. Rewrite and translate runs over a stored document can be resumed; the rest say why not.

use anyhow::{bail, ensure, Result};
use registro_store::{NewMetric, Run, RunId, RunStatus, Store, Task};
use serde::Serialize;

use crate::progress::{CancelToken, Progress, ProgressFn};
pub use registro_run::run_state::resume_blocker;
use registro_run::run_state::{catch_run_panic, RunState};
use crate::translate::SegmentOut;

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
        if s.phase == registro_run::run_state::RunPhase::Running {
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
    use crate::rewrite::{self as rw, RewriteRequest};
    // The request the run was started with (rebuilt from the keys of a run stored before requests were).
    let stored = RewriteRequest::of_run(run)?;
    stored.validate()?;
    state(RunState::starting(run.id, before, total, "loading the formality scorer"));
    let mut formality = rw::load_formality(&stored.scorer)?;
    if let Some(model) = stored.model.as_deref() {
        let loading = match registro_generate::remote::parse_id(model) {
            Some((_, url)) => format!("connecting to the server {url}"),
            None => format!("loading the model {model}"),
        };
        state(RunState::starting(run.id, before, total, loading));
    }
    let mut neural = rw::neural_backend(stored.options.method, stored.model.as_deref())?;
    let mut produced = 0;
    for &i in missing {
        if cancel.is_cancelled() {
            break;
        }
        let req = RewriteRequest { sentences: vec![sources[i as usize].clone()], ..stored.clone() };
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
    use crate::translate::{self as tr, Register, TranslateRequest};
    // The request the run was started with (rebuilt from the keys of a run stored before requests were).
    let req = TranslateRequest::of_run(run)?;
    req.validate()?;
    let (lang, register) = (req.options.lang, req.options.register);
    let overrides: std::collections::BTreeMap<String, Register> =
        run.params.get("register_overrides").map(|v| serde_json::from_value(v.clone())).transpose()?.unwrap_or_default();
    let registers: Vec<Register> =
        missing.iter().map(|i| overrides.get(&i.to_string()).copied().unwrap_or(register)).collect();
    let subset: Vec<String> = missing.iter().map(|&i| sources[i as usize].clone()).collect();
    // The project's approved segments now, as a fresh run would see them (this run's own are left out).
    let mut opts = req.options.clone();
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
    let model = req.model.clone();
    let loading = match tr::remote::parse_id(&model) {
        Some((_, url)) => format!("connecting to the server {url}"),
        None => format!("loading the model {model}"),
    };
    state(RunState::starting(run.id, before, total, loading));
    let mut gen = tr::open_for_run(&model)?;
    // The meaning check the run started with, if it had one and its model is still installed; the examples it
    // started with: none if it chose none, else the shipped pool (an error if it is gone).
    let mut t = tr::Translator::new(gen.as_mut(), req.pool()?).with_meaning_check(req.meaning()?);
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
