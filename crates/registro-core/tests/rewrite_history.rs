//! A stored rewrite run reopens as the Rewrite view showed it: the same sentences, candidates, labelled edits,
//! verdicts and summary, and the writer's decisions (candidate picked, edits rejected, original kept) as they were
//! saved. Runs stored before the whole view was kept reopen from their document with the pieces computed again.

use registro_core::progress::CancelToken;
use registro_core::rewrite::{
    open_rewrite, rewrite, save_choices, Lang, Method, Neural, Options, RewriteChoice, RewriteRequest, ScorerChoice,
};
use registro_store::{NewDocument, NewSegment, Store};

/// Fixed answers for the LLM method, so every sentence gets several candidates without a model.
struct Canned;
impl Neural for Canned {
    fn translate(&mut self, text: &str, _from: Lang, _to: Lang) -> Result<String, String> {
        Ok(text.to_string())
    }
    fn generate(&mut self, m: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
        let last = &m.last().unwrap().1;
        let answer = if last.contains("know") { "I am not certain whether she will come." } else { "Could you please send me the file?" };
        Ok(vec![answer.to_string(); n.max(1)])
    }
    fn perplexity(&mut self, text: &str, _lang: Lang) -> Result<f64, String> {
        Ok(10.0 + text.len() as f64 / 10.0)
    }
}

/// `a` and `b` are the same JSON, numbers within a relative 1e-12: the store's JSON text is read back by
/// serde_json's fast float parser, which may miss the last bit of an f64 (nothing shown rounds anywhere near it).
fn assert_same(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-12 * x.abs().max(y.abs()), "{at}: {x} != {y}");
        }
        (Array(x), Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                assert_same(x, y, &format!("{at}[{i}]"));
            }
        }
        (Object(x), Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>(), "{at}: fields");
            for (k, v) in x {
                assert_same(v, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

const DRAFT: [&str; 2] = ["dunno if she's gonna come tbh", "can u send me the file pls"];

fn request(project: &str, document_id: Option<i64>) -> RewriteRequest {
    RewriteRequest {
        sentences: DRAFT.iter().map(|s| s.to_string()).collect(),
        options: Options { n: 1, ..Options::new(Lang::En, Method::Llm) },
        model: Some("canned".into()),
        scorer: ScorerChoice::Surface,
        project: Some(project.into()),
        document_id,
    }
}

#[test]
fn a_stored_rewrite_reopens_with_its_sentences_candidates_and_the_writers_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    let (run, made) = {
        let mut store = Store::open(&path).unwrap();
        let out = rewrite(Some(&mut store), &request("drafts", None), Some(&mut Canned), &CancelToken::new(), &mut |_| {}).unwrap();
        (out.run_id.unwrap(), out)
    };
    assert!(made.sentences.iter().all(|s| s.candidates.len() >= 2), "the test needs candidates to choose between");
    let edit = made.sentences[0].candidates[1].pieces.iter().position(|p| p.kind.is_some()).expect("an edit to reject");
    let decided = vec![
        (0, RewriteChoice { candidate: 1, rejected_edits: vec![edit], kept_original: false, formality: Some(0.25) }),
        (1, RewriteChoice { candidate: 0, rejected_edits: vec![], kept_original: true, formality: None }),
    ];
    {
        let mut store = Store::open(&path).unwrap();
        save_choices(&mut store, run, &decided).unwrap();
        let wrong = save_choices(&mut store, run, &[(0, RewriteChoice { candidate: 9, ..Default::default() })]).unwrap_err();
        assert!(format!("{wrong:#}").contains("no candidate 10"), "{wrong:#}");
    }

    // A new process on the same file: what the view rendered then, field for field.
    let store = Store::open(&path).unwrap();
    let back = open_rewrite(&store, run).unwrap();
    assert_same(&serde_json::to_value(&back.outcome).unwrap(), &serde_json::to_value(&made).unwrap(), "outcome");
    assert_eq!(back.segments, vec![0, 1]);
    assert_eq!(back.choices, decided.into_iter().map(|(_, c)| Some(c)).collect::<Vec<_>>(), "the failed save changed nothing");
}

#[test]
fn a_rewrite_stored_before_the_view_was_kept_reopens_from_its_document() {
    let mut store = Store::open_in_memory().unwrap();
    let p = store.create_project("drafts").unwrap();
    let doc = NewDocument {
        name: "draft".into(),
        source_lang: "en".into(),
        format: "text".into(),
        segments: DRAFT.iter().map(|s| NewSegment { text: s.to_string(), references: vec![] }).collect(),
        ..Default::default()
    };
    let d = store.insert_document(p.id, &doc).unwrap();
    let made = rewrite(Some(&mut store), &request("drafts", Some(d)), Some(&mut Canned), &CancelToken::new(), &mut |_| {}).unwrap();
    let run = made.run_id.unwrap();
    // What the outputs held before: the candidates alone, no input, labels or pieces.
    for (i, s) in made.sentences.iter().enumerate() {
        let mut o = store.output(run, i as i64).unwrap().unwrap();
        o.candidates = serde_json::json!(s.candidates.iter().map(|c| &c.candidate).collect::<Vec<_>>());
        store.put_output(run, &o).unwrap();
    }
    let back = open_rewrite(&store, run).unwrap();
    for (a, b) in back.outcome.sentences.iter().zip(&made.sentences) {
        assert_eq!(a.input, b.input);
        assert_eq!(a.formality_before, b.formality_before);
        assert_same(&serde_json::to_value(&a.candidates).unwrap(), &serde_json::to_value(&b.candidates).unwrap(), &a.input);
    }
    assert_eq!(back.choices, vec![None, None]);

    // Pasted text from before has nothing to reopen from, and says so.
    let pasted = rewrite(Some(&mut store), &request("drafts", None), Some(&mut Canned), &CancelToken::new(), &mut |_| {}).unwrap();
    let run = pasted.run_id.unwrap();
    let mut o = store.output(run, 0).unwrap().unwrap();
    o.candidates = serde_json::json!([]);
    store.put_output(run, &o).unwrap();
    let err = format!("{:#}", open_rewrite(&store, run).unwrap_err());
    assert!(err.contains("original text is gone"), "{err}");
}
