//! Runs stored before runs kept their request (`params.request`, issue 40) are still resumed with the settings they
//! were started with: their parameters, one key per option as the old code wrote them, are read back into the
//! request (`TranslateRequest::of_run`, `RewriteRequest::of_run`). Users have such runs in their stores.
use std::time::Duration;

use registro_core::progress::CancelToken;
use registro_core::resume::{resume_blocker, resume_run_watched, Watch};
use registro_core::rewrite::{Method, RewriteRequest, ScorerChoice};
use registro_core::translate::{Control, Lang, Register, SegmentOut, SystemKind, TranslateRequest};
use registro_store::{NewRun, Output, RunStatus, Store, Task};

#[path = "../../registro-remote/testsupport/fake.rs"]
mod fake;
use fake::{Act, FakeServer};

const SOURCES: [&str; 3] = ["Could you send me report 1 tomorrow?", "Could you check invoice 2 today?", "Could you sign contract 3 this week?"];

fn respond(path: &str, body: &str) -> Act {
    fake::vllm_qwen(path, body, |turn| {
        match turn.and_then(|t| SOURCES.iter().position(|s| t.contains(s))) {
            Some(i) => fake::completion(&format!("Könnten Sie bitte Nummer {} erledigen?", i + 1)),
            None => fake::completion(" Paris"),
        }
        .delay(Duration::from_millis(5))
    })
}

/// A run as `translate_and_store` stored it before issue 40 (its parameters copied from such a run, the server's
/// address replaced), its first segment done, cancelled.
fn old_translate_run(store: &mut Store, project: i64, doc: i64, url: &str) -> i64 {
    let mut run = NewRun::new(project, Task::Translate, "registro-prompt+fewshot+constrain+rerank+repair");
    run.document_id = Some(doc);
    run.model_id = Some(format!("remote:Qwen/Qwen2.5-7B-Instruct@{url}"));
    run.source_lang = Some("en".into());
    run.target_lang = Some("de".into());
    run.register = Some("formal".into());
    run.params = serde_json::json!({
        "controls": ["prompt", "fewshot", "constrain", "rerank", "repair"],
        "system": {"kind": "controlled"},
        "n_best": 2,
        "gender": null,
        "shots": 2,
        "fewshot_pool": "cocoa-mt/en-de train, pool split: 1000 contrastive pairs (REGISTRO_DATA: data/examples/cocoa-mt/en-de)",
        "shots_per_sentence": false,
        "document_examples": "fixed",
        "sentence_examples": 1,
        "max_tokens": 200,
        "token_budget": {"per_source_char": 0.6, "measured_by": "per-script default"},
        "meaning_check": null,
        "sentence_retrieval": "word overlap",
        "register_overrides": {"2": "informal"},
        "memory_examples": 0,
        "backend": {"url": url},
    });
    let id = store.create_run(&run).unwrap();
    store.start_run(id).unwrap();
    store.put_output(id, &Output::new(0, "Könnten Sie bitte Nummer 1 erledigen?")).unwrap();
    store.finish_run(id, RunStatus::Cancelled, None).unwrap();
    id
}

#[test]
fn a_translation_stored_before_requests_resumes_with_its_own_settings() {
    let server = FakeServer::start_with(Vec::new(), respond);
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("old.db")).unwrap();
    let project = store.create_project("p").unwrap();
    let doc = registro_testkit::store_text_document(&mut store, project.id, "letter.txt", &SOURCES);
    let run = old_translate_run(&mut store, project.id, doc, &server.url());
    assert_eq!(resume_blocker(&store.run(run).unwrap()), None);

    let req = TranslateRequest::of_run(&store.run(run).unwrap()).unwrap();
    let o = &req.options;
    assert_eq!((o.lang, o.register, o.system.clone()), (Lang::De, Register::Formal, SystemKind::Controlled));
    assert_eq!(o.controls.0, [Control::Prompt, Control::Fewshot, Control::Constrain, Control::Rerank, Control::Repair]);
    assert_eq!((o.n_best, o.shots, o.sentence_examples, o.max_tokens), (2, 2, 1, 200));
    assert!(o.fixed_document_examples && !o.meaning_retrieval && o.early_exit);
    assert!(req.examples && !req.meaning_check && !req.contrastive);
    assert!(req.model.starts_with("remote:Qwen/Qwen2.5-7B-Instruct@"), "{}", req.model);

    let mut segments: Vec<SegmentOut> = Vec::new();
    let out = resume_run_watched(&mut store, run, Watch { state: &mut |_| {}, segment: &mut |s| segments.push(s.clone()) }, &CancelToken::new()).unwrap();
    assert_eq!(out.state.label, "done 3/3", "{:?}", out.run.error);
    segments.sort_by_key(|s| s.index);
    assert_eq!(segments.iter().map(|s| (s.index, s.register)).collect::<Vec<_>>(), [(1, Register::Formal), (2, Register::Informal)], "the stored override is kept");
    // The resumed run keeps its old parameters as they were: nothing is rewritten into the new form.
    assert!(store.run(run).unwrap().params.get("request").is_none());
}

#[test]
fn a_rewrite_stored_before_requests_resumes_with_its_own_settings() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("old.db")).unwrap();
    let project = store.create_project("p").unwrap();
    let doc = registro_testkit::store_text_document(&mut store, project.id, "draft.txt", &["hey u there?", "thx 4 the help", "gonna call u"]);
    let weights = serde_json::json!({"formality": 1.0, "meaning": 0.5, "fluency": 0.5, "consensus": 6.0});
    // Two generations of old parameters: with and without the round trip and locked words, which came later.
    let params = [
        serde_json::json!({"method": "rules", "n": 1, "weights": weights, "fluency": true, "roundtrip": false, "keep": ["u"],
            "scorer": "registro-surface", "model": null, "scorer_choice": {"kind": "surface"}, "gm": "weighted geometric mean"}),
        serde_json::json!({"method": "rules", "n": 1, "weights": weights, "fluency": true, "scorer": "registro-surface", "model": null,
            "scorer_choice": {"kind": "surface"}}),
    ];
    for (k, p) in params.into_iter().enumerate() {
        let mut new = NewRun::new(project.id, Task::Rewrite, "rules");
        new.document_id = Some(doc);
        new.source_lang = Some("en".into());
        new.target_lang = Some("en".into());
        new.register = Some("formal".into());
        new.params = p;
        let run = store.create_run(&new).unwrap();
        store.start_run(run).unwrap();
        store.finish_run(run, RunStatus::Failed, Some("interrupted")).unwrap();

        let req = RewriteRequest::of_run(&store.run(run).unwrap()).unwrap();
        assert_eq!((req.options.lang.code(), req.options.method, req.options.n), ("en", Method::Rules, 1));
        assert_eq!(req.scorer, ScorerChoice::Surface);
        assert_eq!(req.options.keep, if k == 0 { vec!["u".to_string()] } else { Vec::new() });
        assert!(!req.options.roundtrip && req.model.is_none());

        let out = registro_core::resume::resume_run(&mut store, run, &mut |_| {}, &CancelToken::new()).unwrap();
        assert_eq!(out.state.label, "done 3/3", "{:?}", out.run.error);
        assert_eq!(out.produced, 3);
    }
    // Older still: no scorer recorded at all, so it cannot be resumed with the same judge.
    let mut new = NewRun::new(project.id, Task::Rewrite, "rules");
    new.document_id = Some(doc);
    new.source_lang = Some("en".into());
    new.params = serde_json::json!({"method": "rules", "n": 1, "weights": weights, "fluency": true});
    let run = store.create_run(&new).unwrap();
    assert!(resume_blocker(&store.run(run).unwrap()).unwrap().contains("formality scorer"));
}

/// What a run stores now: its request whole, which resume reads back as it was.
#[test]
fn a_new_rewrite_run_stores_its_request_and_resumes_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("new.db")).unwrap();
    let mut req = RewriteRequest::new("en".parse().unwrap(), Method::Rules);
    req.options.keep = vec!["Acme".into()];
    req.sentences = vec!["hey Acme team".into(), "thx".into()];
    req.project = Some("p".into());
    let out = registro_core::rewrite::rewrite(Some(&mut store), &req, None, &CancelToken::new(), &mut |_| {}).unwrap();
    let run = store.run(out.run_id.unwrap()).unwrap();
    assert_eq!(run.params["request"], serde_json::to_value(&req).unwrap(), "{}", run.params);
    let back = RewriteRequest::of_run(&run).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), run.params["request"]);
}
