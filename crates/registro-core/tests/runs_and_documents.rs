//! Stored evaluations are linked to the test set they were scored against (by contents), evaluations without a
//! source still reach the Dashboard, and unfinished runs can be finished without writing a segment twice.

use std::path::{Path, PathBuf};

use registro_core::eval::{self, registro_metrics::evaluate::EvalConfig, EvalFiles, MetricName};
use registro_core::progress::CancelToken;
use registro_core::report::{self, CompareOptions, CompareRequest};
use registro_core::rewrite::{self, Formality, Lang, Method, Options, RewriteRequest, ScorerChoice};
use registro_store::{RunStatus, Store};

mod common;

fn write(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

fn eval(store: &mut Store, hyp: PathBuf, refs: PathBuf, src: Option<PathBuf>) -> i64 {
    let files = EvalFiles { hyps: vec![hyp], refs: vec![refs], src, ..Default::default() };
    let loaded = eval::load_files(&files).unwrap();
    let cfg = EvalConfig { metrics: vec![MetricName::Bleu, MetricName::Chrf], lang: "de".into(), ..EvalConfig::default() };
    let out = eval::run_eval(Some(store), "eval", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
    out.run_ids[0]
}

/// chrF of every compared run as the Dashboard computes it from the stored document's references.
fn dashboard_chrf(store: &Store, runs: &[i64]) -> anyhow::Result<Vec<f64>> {
    let req = CompareRequest { runs: runs.to_vec(), baseline: None, reference: None };
    let prep = report::prepare(report::load(store, &req)?)?;
    let cmp = report::compare(&prep, &CompareOptions { bootstrap: 100, render_svg: false, ..Default::default() })?;
    let corpus = cmp.table("corpus").expect("corpus table");
    let col = corpus.columns.iter().position(|c| c.key == "chrf").expect("chrF column");
    Ok(corpus.rows.iter().map(|r| r.cells[col].value.unwrap()).collect())
}

#[test]
fn a_second_test_set_with_the_same_file_name_and_size_gets_its_own_document() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let ref_a = ["Können Sie mir helfen?", "Ich danke Ihnen sehr.", "Wo wohnen Sie jetzt?"];
    let ref_b = ["Das Wetter ist heute schön.", "Der Zug kommt um acht.", "Wir essen später zusammen."];
    let mut store = Store::open_in_memory().unwrap();
    let run_a = eval(
        &mut store,
        write(&a, "hyp.de", &ref_a),
        write(&a, "test.de", &ref_a),
        Some(write(&a, "test.en", &["Can you help me?", "Thank you very much.", "Where do you live now?"])),
    );
    let run_b = eval(
        &mut store,
        write(&b, "hyp.de", &ref_b),
        write(&b, "test.de", &ref_b),
        Some(write(&b, "test.en", &["The weather is nice today.", "The train comes at eight.", "We eat together later."])),
    );
    let (da, db) = (store.run(run_a).unwrap().document_id.unwrap(), store.run(run_b).unwrap().document_id.unwrap());
    assert_ne!(da, db, "the second test set was linked to the first one's document");
    assert_eq!(store.reference_set(db, "test.de").unwrap()[0].as_deref(), Some(ref_b[0]));
    // Each system output equals its own references: the Dashboard must say so.
    assert_eq!(dashboard_chrf(&store, &[run_b]).unwrap(), vec![100.0]);
    // The same test set again is the same document.
    let again = eval(&mut store, b.join("hyp.de"), b.join("test.de"), Some(b.join("test.en")));
    assert_eq!(store.run(again).unwrap().document_id, Some(db));
}

#[test]
fn evaluations_without_a_source_on_the_same_references_can_be_compared() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let refs = ["Können Sie mir bitte helfen?", "Ich danke Ihnen sehr herzlich.", "Wo wohnen Sie jetzt?"];
    let mut store = Store::open_in_memory().unwrap();
    let good = eval(&mut store, write(d, "good.de", &refs), write(d, "ref.de", &refs), None);
    let bad = eval(
        &mut store,
        write(d, "bad.de", &["Kannst du mir helfen?", "Ich danke dir.", "Wo wohnst du?"]),
        d.join("ref.de"),
        None,
    );
    let chrf = dashboard_chrf(&store, &[good, bad]).expect("runs on the same references are comparable");
    assert_eq!(chrf[0], 100.0);
    assert!(chrf[1] < 80.0, "{chrf:?}");

    // Same file name and size, other references: not the same test set.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let elsewhere = eval(
        &mut store,
        write(&other, "good.de", &["Eins.", "Zwei.", "Drei."]),
        write(&other, "ref.de", &["Eins.", "Zwei.", "Drei."]),
        None,
    );
    let err = dashboard_chrf(&store, &[good, elsewhere]).unwrap_err().to_string();
    assert!(err.contains("were scored against different references"), "{err}");
    assert!(err.contains("evaluate with --src"), "{err}");
}

fn rules_request(sentences: Vec<String>, document_id: Option<i64>) -> RewriteRequest {
    RewriteRequest {
        sentences,
        options: Options { n: 1, fluency: false, ..Options::new(Lang::En, Method::Rules) },
        model: None,
        scorer: ScorerChoice::Surface,
        project: Some("p".into()),
        document_id,
    }
}

fn informal_document(store: &mut Store) -> (i64, Vec<String>) {
    let texts: Vec<String> =
        ["gonna call u tmrw", "i dunno what ur talking about lol", "thx for the help!!", "wanna grab lunch?"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    let p = store.create_project("p").unwrap();
    let sources: Vec<&str> = texts.iter().map(String::as_str).collect();
    (registro_testkit::store_text_document(store, p.id, "drafts", &sources), texts)
}

/// A formality judge that crashes on the third sentence: the fault a bug deep in a scorer or a model would cause.
struct CrashesOnThird {
    inner: Box<dyn Formality>,
    calls: usize,
}

impl Formality for CrashesOnThird {
    fn formality(&mut self, text: &str, lang: Lang) -> Result<f32, String> {
        if text.starts_with("thx") {
            panic!("attempt to divide by zero");
        }
        self.calls += 1;
        self.inner.formality(text, lang)
    }
    fn name(&self) -> String {
        self.inner.name()
    }
}

#[test]
fn a_panic_in_a_rewrite_ends_the_run_failed_and_resume_finishes_it_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    let mut store = Store::open(&path).unwrap();
    let (doc, texts) = informal_document(&mut store);
    let req = rules_request(texts.clone(), Some(doc));
    let mut judge = CrashesOnThird { inner: rewrite::load_formality(&ScorerChoice::Surface).unwrap(), calls: 0 };
    let err = rewrite::rewrite_with(Some(&mut store), &req, &mut judge, None, &CancelToken::new(), &mut |_| {})
        .err()
        .expect("the crash is an error, not a panic");
    assert!(format!("{err:#}").contains("crashed: attempt to divide by zero"), "{err:#}");
    let run = store.list_runs(&Default::default()).unwrap()[0].clone();
    assert_eq!(run.status, RunStatus::Failed, "a crashed run must not stay running");
    assert!(run.error.as_deref().unwrap().contains("sentence 3: crashed"), "{:?}", run.error);
    assert_eq!(run.completed_segments, 2);
    let before: Vec<_> = store.outputs(run.id).unwrap();

    // What `registro runs resume ID` does, in a later process.
    drop(store);
    let mut store = Store::open(&path).unwrap();
    let detail = registro_core::projects::get_run(&store, run.id).unwrap();
    assert_eq!(detail.missing_segments, vec![2, 3]);
    assert_eq!(detail.resume_blocker, None);
    let out = registro_core::resume::resume_run(&mut store, run.id, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(out.produced, 2);
    assert_eq!(out.run.status, RunStatus::Done);
    let outputs = store.outputs(run.id).unwrap();
    assert_eq!(outputs.iter().map(|o| o.segment_index).collect::<Vec<_>>(), vec![0, 1, 2, 3], "one output per segment");
    assert_eq!(&outputs[..2], &before[..], "the segments done before are kept as they were");
    // The resumed segments are what a fresh run gives them.
    let fresh = rewrite::rewrite(None, &rules_request(texts, None), None, &CancelToken::new(), &mut |_| {}).unwrap();
    assert_eq!(outputs.iter().map(|o| o.text.clone()).collect::<Vec<_>>(), fresh.best_texts());
    let corpus = store.corpus_metrics(run.id).unwrap();
    let formality = corpus.iter().find(|m| m.metric == "formality").unwrap().value;
    assert!((formality - fresh.summary.formality_after).abs() < 1e-4, "{formality} vs {}", fresh.summary.formality_after);
    // Nothing left to do: resuming again changes nothing.
    let again = registro_core::resume::resume_run(&mut store, run.id, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(again.produced, 0);
}

#[test]
fn runs_that_cannot_be_resumed_say_why() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open_in_memory().unwrap();
    let refs = ["Eins.", "Zwei."];
    let run = eval(&mut store, write(tmp.path(), "h.de", &refs), write(tmp.path(), "r.de", &refs), None);
    let err = registro_core::resume::resume_run(&mut store, run, &mut |_| {}, &CancelToken::new()).unwrap_err().to_string();
    assert!(err.contains("cannot be resumed: eval runs are stored in one step"), "{err}");

    // A rewrite of pasted text (no stored document): its input is gone.
    let texts = vec!["gonna call u".to_string(), "thx".to_string()];
    let out = rewrite::rewrite(Some(&mut store), &rules_request(texts, None), None, &CancelToken::new(), &mut |_| {}).unwrap();
    let id = out.run_id.unwrap();
    store.finish_run(id, RunStatus::Failed, Some("test")).unwrap();
    let blocker = registro_core::projects::get_run(&store, id).unwrap().resume_blocker.unwrap();
    assert!(blocker.contains("its input was not a stored document"), "{blocker}");
}

/// A translation cancelled after its first segment, finished by `registro runs resume` with the real Qwen2.5-Coder
/// 0.5B (the README's test command fetches it): the missing segments are translated with the run's own model and
/// controls, the finished one is kept as it was, and nothing is written twice.
#[test]
fn a_cancelled_translation_is_resumed_with_its_own_model_and_controls() {
    if !common::small_model_cached() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let mut store = Store::open(&path).unwrap();
    let p = store.create_project("p").unwrap();
    let sources = ["Do you have time tomorrow?", "Thank you for your help.", "Where do you live?"];
    let doc = registro_testkit::store_text_document(&mut store, p.id, "mail", &sources);
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let (run, done) = common::translate_with_small_model(&mut store, p.id, doc, &sources, "prompt,repair", &mut |_| stop.cancel(), &cancel);
    assert_eq!(done.len(), 1);
    assert_eq!(store.run(run).unwrap().status, RunStatus::Cancelled);
    let before = store.outputs(run).unwrap();

    drop(store);
    let mut store = Store::open(&path).unwrap();
    let detail = registro_core::projects::get_run(&store, run).unwrap();
    // Rows finish in the order the batch decodes them, not document order: whichever segment finished first is kept.
    let kept = before[0].segment_index;
    let missing: Vec<i64> = (0..3).filter(|&i| i != kept).collect();
    assert_eq!(detail.missing_segments, missing);
    assert_eq!(detail.resume_blocker, None);
    let mut events = 0;
    let out = registro_core::resume::resume_run(&mut store, run, &mut |_| events += 1, &CancelToken::new()).unwrap();
    assert_eq!(out.produced, 2);
    assert_eq!(events, 2, "one progress event per resumed segment");
    assert_eq!(out.run.status, RunStatus::Done);
    let outputs = store.outputs(run).unwrap();
    assert_eq!(outputs.iter().map(|o| o.segment_index).collect::<Vec<_>>(), vec![0, 1, 2], "one output per segment");
    assert_eq!(outputs[kept as usize], before[0], "the segment done before is kept as it was");
    for o in outputs.iter().filter(|o| o.segment_index != kept) {
        assert!(!o.text.trim().is_empty(), "segment {} was translated", o.segment_index);
        // Every resumed segment went through the register check like the first one did.
        assert!(o.detected_register.is_some(), "segment {} carries its analysis", o.segment_index);
    }
}
