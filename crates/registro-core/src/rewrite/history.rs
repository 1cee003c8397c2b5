//! A stored rewrite run reopened as the Rewrite view showed it when it was made: every sentence with its
//! candidates, their labelled edits and verdicts, and the writer's decisions (the candidate picked, the edits
//! rejected, the original kept), which [`save_choices`] keeps as the writer makes them. The faces only call these.

use anyhow::{bail, Context};
use registro_store::{Output, Run, RunId, Store, Task};
use serde::{Deserialize, Serialize};

use super::{summarize, Candidate, CandidateView, Edit, Formalizer, Lang, Method, RewriteOutcome, SentenceResult, Weights};
use registro_rewrite::pipeline::{pieces_from_diff, pieces_from_edits};

/// What a writer decided about one sentence of a rewrite. No decision stored means the machine's choice with every
/// edit accepted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RewriteChoice {
    /// The candidate shown, by its place in the sentence's candidates (0 = the machine's choice).
    pub candidate: usize,
    /// The pieces of that candidate whose edit the writer rejected, by their place in its pieces.
    #[serde(default)]
    pub rejected_edits: Vec<usize>,
    /// The writer kept the original sentence.
    #[serde(default)]
    pub kept_original: bool,
    /// The formality of the sentence as the writer left it, once it was scored again.
    #[serde(default)]
    pub formality: Option<f32>,
}

/// A stored rewrite run as the Rewrite view shows it.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct StoredRewrite {
    pub run: Run,
    pub outcome: RewriteOutcome,
    /// The segment index of each of `outcome.sentences` (a run stopped early has fewer sentences than segments).
    pub segments: Vec<i64>,
    /// The writer's decisions on each of `outcome.sentences`, where there are some.
    pub choices: Vec<Option<RewriteChoice>>,
}

/// An output's `candidates` as a rewrite stores them.
#[derive(Serialize, Deserialize)]
struct Stored {
    source: String,
    formality_before: f32,
    #[serde(default)]
    rule_edits: Vec<Edit>,
    candidates: Vec<CandidateView>,
    /// Exact, where `timings` keeps whole milliseconds.
    #[serde(default)]
    seconds: Option<f64>,
}

/// The `candidates` column of a rewritten sentence's output.
pub(crate) fn stored_sentence(r: &SentenceResult) -> serde_json::Value {
    serde_json::json!({
        "source": r.input,
        "formality_before": r.formality_before,
        "rule_edits": r.rule_edits,
        "candidates": r.candidates,
        "seconds": r.seconds,
    })
}

fn rewrite_run(store: &Store, id: RunId) -> anyhow::Result<Run> {
    let run = store.run(id)?;
    if run.task != Task::Rewrite {
        bail!("run {id} is a {} run, not a rewrite", run.task);
    }
    Ok(run)
}

/// How many candidates a stored sentence had (outputs of every age).
fn candidate_count(o: &Output) -> usize {
    match &o.candidates {
        serde_json::Value::Array(a) => a.len(),
        v => v.get("candidates").and_then(|c| c.as_array()).map_or(0, Vec::len),
    }
}

/// Reopens a stored rewrite run: the outcome the view renders, as it was when the run was made, and the writer's
/// decisions on it. Runs stored before the whole view was kept are rebuilt from their candidates (labels and
/// pieces computed again; the input from the run's document, so such a run of pasted text cannot be reopened).
pub fn open_rewrite(store: &Store, id: RunId) -> anyhow::Result<StoredRewrite> {
    let run = rewrite_run(store, id)?;
    let lang: Lang = run.source_lang.as_deref().unwrap_or("en").parse()?;
    let p = &run.params;
    let (method, weights, model) = if p.get("request").is_some() {
        // The request the run was started with (`params.request`).
        let r = super::RewriteRequest::of_run(&run)?;
        (r.options.method, r.options.weights, r.model)
    } else {
        // Stored before runs kept their request: one key per option.
        let method: Method = serde_json::from_value(p["method"].clone()).with_context(|| format!("run {id} names no rewrite method"))?;
        let weights: Weights = serde_json::from_value(p["weights"].clone()).unwrap_or_default();
        let model = match p.get("model") {
            Some(m) => serde_json::from_value(m.clone()).unwrap_or(None),
            None => run.model_id.clone(),
        };
        (method, weights, model)
    };
    // The formality judge's name, as the outcome showed it.
    let scorer = p["scorer"].as_str().unwrap_or("registro-surface").to_string();
    let segments = run.document_id.map(|d| store.segment_texts(d)).transpose()?;
    let before = store.segment_metrics(id, "formality.input", None)?;
    let mut decided = store.output_choices(id)?.into_iter().peekable();
    let mut formalizer = Formalizer::new();
    let (mut sentences, mut indices, mut choices) = (Vec::new(), Vec::new(), Vec::new());
    for o in store.outputs(id)? {
        let i = o.segment_index;
        let seconds = o.timings["total_ms"].as_f64().unwrap_or(0.0) / 1000.0;
        let sentence = match serde_json::from_value::<Stored>(o.candidates.clone()) {
            Ok(s) => SentenceResult {
                input: s.source,
                formality_before: s.formality_before,
                rule_edits: s.rule_edits,
                candidates: s.candidates,
                seconds: s.seconds.unwrap_or(seconds),
            },
            Err(_) => {
                let input = segments
                    .as_ref()
                    .and_then(|s| s.get(i as usize).cloned())
                    .with_context(|| format!("run {id} was stored before Registro kept the text it rewrote, and it was pasted, not a document: its original text is gone"))?;
                let cands: Vec<Candidate> = serde_json::from_value(o.candidates.clone()).unwrap_or_default();
                let rules = formalizer.formalize(&input, lang);
                let of = cands.len();
                let candidates = cands
                    .into_iter()
                    .enumerate()
                    .map(|(k, c)| {
                        let pieces = if c.origin == "rules" && c.text == rules.text {
                            pieces_from_edits(&input, &rules.edits)
                        } else {
                            pieces_from_diff(&input, &c.text, lang)
                        };
                        let verdict = registro_rewrite::verdict::verdict(&c, k, of);
                        CandidateView { candidate: c, pieces, verdict }
                    })
                    .collect();
                let formality_before = before.iter().find(|m| m.segment_index == Some(i)).map_or(0.0, |m| m.value as f32);
                SentenceResult { input, formality_before, rule_edits: rules.edits, candidates, seconds }
            }
        };
        while decided.next_if(|(k, _)| *k < i).is_some() {}
        let choice = decided.next_if(|(k, _)| *k == i).and_then(|(_, c)| serde_json::from_value(c).ok());
        sentences.push(sentence);
        indices.push(i);
        choices.push(choice);
    }
    let mut summary = summarize(&sentences, sentences.iter().map(|s| s.seconds).sum());
    // The numbers the run showed when it finished, where it stored them.
    for m in store.corpus_metrics(id)? {
        match m.metric.as_str() {
            "formality" => summary.formality_after = m.value,
            "formality.input" => summary.formality_before = m.value,
            "chrf.input" => summary.chrf_to_input = m.value,
            "gm" => summary.gm = m.value,
            "perplexity" => summary.perplexity = Some(m.value),
            "seconds_per_sentence" => summary.seconds_per_sentence = m.value,
            _ => {}
        }
    }
    let outcome = RewriteOutcome { run_id: Some(id), lang, method, model, scorer, weights, sentences, summary };
    Ok(StoredRewrite { run, outcome, segments: indices, choices })
}

/// Keeps the writer's decisions on sentences of a stored rewrite run, (segment index, decision) pairs, all or none.
/// A decision must name a candidate the sentence has and edits among that candidate's pieces.
pub fn save_choices(store: &mut Store, id: RunId, choices: &[(i64, RewriteChoice)]) -> anyhow::Result<()> {
    rewrite_run(store, id)?;
    let mut rows = Vec::with_capacity(choices.len());
    for (i, c) in choices {
        let o = store.output(id, *i)?.with_context(|| format!("run {id} has no sentence {}", i + 1))?;
        let n = candidate_count(&o);
        if c.candidate > 0 && c.candidate >= n {
            bail!("sentence {} of run {id} has {n} candidate(s); there is no candidate {}", i + 1, c.candidate + 1);
        }
        if let Ok(s) = serde_json::from_value::<Stored>(o.candidates.clone()) {
            let pieces = s.candidates.get(c.candidate).map_or(0, |v| v.pieces.len());
            if let Some(k) = c.rejected_edits.iter().find(|&&k| k >= pieces) {
                bail!("candidate {} of sentence {} has {pieces} piece(s); there is no piece {}", c.candidate + 1, i + 1, k + 1);
            }
        }
        rows.push((*i, serde_json::to_value(c)?));
    }
    store.set_output_choices(id, &rows)?;
    Ok(())
}
