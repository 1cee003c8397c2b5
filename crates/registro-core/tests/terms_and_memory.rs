//! What a translator's project remembers reaches the model: approved segments of earlier runs come back as a
//! few-shot exchange before the sentences they match (the translation memory), and a termbase's required terms
//! are written whole even when they take several tokens (with the real Qwen2.5-Coder 0.5B when it is cached).

use std::sync::atomic::AtomicBool;

use registro_core::progress::CancelToken;
use registro_core::translate::{self as tr, Controls, EngineGenerator, Generated, Generator, Lang, Options, Register};
use registro_store::{RunStatus, SegmentStatus, Store};

mod common;

/// The prompts a model that answers every segment with the same sentence was given.
#[derive(Default)]
struct Recorder {
    /// (prefix, turn) of every request, in order.
    prompts: Vec<(String, String)>,
}

impl Recorder {
    /// The model, keeping each prompt here.
    fn model(&mut self) -> impl Generator + '_ {
        common::scripted::ScriptedModel::new("recorder", |prefix, turn, n| {
            self.prompts.push((prefix.to_string(), turn.to_string()));
            vec![Generated { text: "Bitte prüfen Sie das.".into(), logprob: -2.0, tokens: 4 }; n.max(1)]
        })
    }

    /// The prompt the segment `source` was translated from (its turn ends with the source's user message).
    fn prompt_for(&self, source: &str) -> &(String, String) {
        let end = format!("<|im_start|>user\n{source}<|im_end|>\n<|im_start|>assistant\n");
        let found: Vec<&(String, String)> = self.prompts.iter().filter(|(_, turn)| turn.ends_with(&end)).collect();
        assert_eq!(found.len(), 1, "one prompt for {source:?}: {:#?}", self.prompts);
        found[0]
    }
}

fn document(store: &mut Store, project: i64, name: &str, sources: &[&str]) -> i64 {
    registro_testkit::store_text_document(store, project, name, sources)
}

/// Translates `sources` as document `doc` of `project` with the recorder; returns the run and the prompts.
fn translate(store: &mut Store, project: i64, doc: i64, sources: &[&str], registers: Option<&[Register]>, controls: &str) -> (i64, Recorder) {
    let mut rec = Recorder::default();
    let mut model = rec.model();
    let texts: Vec<String> = sources.iter().map(|s| s.to_string()).collect();
    let opts = Options { controls: controls.parse::<Controls>().unwrap(), n_best: 1, ..Options::new(Lang::De, Register::Formal) };
    let mut t = tr::Translator::new(&mut model, None);
    let target = tr::RunTarget { project_id: project, document_id: Some(doc) };
    let (run, segs) = tr::translate_and_store(store, &target, &mut t, &texts, registers, &opts, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(segs.len(), sources.len());
    drop(t);
    drop(model);
    (run, rec)
}

/// The translator corrects a segment and approves it (the review grid's Ctrl+Enter).
fn approve(store: &mut Store, run: i64, segment: usize, register: Register, text: &str) {
    registro_core::review::store_edit(store, run, segment, Lang::De, register, text).unwrap();
    store.set_output_status(run, segment as i64, SegmentStatus::Approved).unwrap();
}

#[test]
fn an_approved_segment_is_shown_to_the_model_before_a_similar_sentence_of_the_next_document() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("tm.db")).unwrap();
    let project = store.create_project("contracts").unwrap().id;

    let first = ["Please sign the last page of the contract.", "Send it back by Friday."];
    let doc = document(&mut store, project, "contract-v1.txt", &first);
    let (run1, _) = translate(&mut store, project, doc, &first, None, "prompt,fewshot");
    assert_eq!(store.run(run1).unwrap().params["memory_examples"], 0, "nothing approved yet");
    const APPROVED: &str = "Bitte unterschreiben Sie die letzte Seite des Vertrags.";
    approve(&mut store, run1, 0, Register::Formal, APPROVED);

    // The next document: a near-identical sentence, an unrelated one, and the same sentence asked informally (a
    // formal translation would bring the wrong address form back).
    let next = ["Please sign the last page of this contract.", "Call me tomorrow.", "Please sign the last page of the contract!"];
    let regs = [Register::Formal, Register::Formal, Register::Informal];
    let doc2 = document(&mut store, project, "contract-v2.txt", &next);
    let (run2, rec) = translate(&mut store, project, doc2, &next, Some(&regs), "prompt,fewshot");
    let (prefix, turn) = rec.prompt_for(next[0]);
    assert!(turn.contains(APPROVED) && turn.contains(first[0]), "the approved pair is in the segment's turn: {turn}");
    assert!(turn.find(APPROVED).unwrap() < turn.find(next[0]).unwrap(), "as an exchange before the segment: {turn}");
    let (other_prefix, other_turn) = rec.prompt_for(next[1]);
    assert_eq!(prefix, other_prefix, "the shared prefix (and its KV cache) is the same with and without a match");
    assert!(!prefix.contains(APPROVED) && !other_turn.contains(APPROVED), "no match, no example");
    assert!(!rec.prompt_for(next[2]).1.contains(APPROVED), "an informal sentence is not shown the formal translation");
    let params = store.run(run2).unwrap().params;
    assert_eq!(params["memory_examples"], 1, "{params}");

    // The informal sentence, corrected and approved in that formal run, is the informal memory's: an informal
    // document is shown it, a formal one still the formal translation.
    const INFORMAL: &str = "Unterschreib bitte die letzte Seite des Vertrags!";
    approve(&mut store, run2, 2, Register::Informal, INFORMAL);
    let third = ["Please sign the last page of the contract."];
    let doc3 = document(&mut store, project, "contract-v3.txt", &third);
    let (_, rec) = translate(&mut store, project, doc3, &third, Some(&[Register::Informal]), "prompt,fewshot");
    let turn = &rec.prompt_for(third[0]).1;
    assert!(turn.contains(INFORMAL) && !turn.contains(APPROVED), "{turn}");
    let (_, rec) = translate(&mut store, project, doc3, &third, None, "prompt,fewshot");
    let turn = &rec.prompt_for(third[0]).1;
    assert!(turn.contains(APPROVED) && !turn.contains(INFORMAL), "{turn}");

    // Few-shot examples are a control: without it (the generic system of an ablation, say) none is shown.
    let (run, rec) = translate(&mut store, project, doc3, &third, None, "prompt,constrain");
    assert!(!rec.prompt_for(third[0]).1.contains(APPROVED));
    assert_eq!(store.run(run).unwrap().params["memory_examples"], 0);
}

/// A resumed run is shown the project's memory as it is now (the run's own segments left out) and says how many
/// resumed segments were, with the real Qwen2.5-Coder 0.5B (resume loads the run's own model).
#[test]
fn a_resumed_translation_uses_the_memory_too() {
    if !common::small_model_cached() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tm.db");
    let mut store = Store::open(&path).unwrap();
    let project = store.create_project("contracts").unwrap().id;
    let first = ["Please sign the last page of the contract."];
    let doc = document(&mut store, project, "v1.txt", &first);
    let (run1, _) = translate(&mut store, project, doc, &first, None, "prompt,fewshot");
    approve(&mut store, run1, 0, Register::Formal, "Bitte unterschreiben Sie die letzte Seite des Vertrags.");

    let next = ["Thank you for your help.", "Please sign the last page of this contract."];
    let doc2 = document(&mut store, project, "v2.txt", &next);
    let (run, done) = common::translate_with_small_model(&mut store, project, doc2, &next, "prompt,fewshot", &mut |_| {}, &CancelToken::new());
    assert_eq!(done.len(), 2);
    assert_eq!(store.run(run).unwrap().params["memory_examples"], 1, "one sentence matches the approved one");
    // The matching sentence was lost (a crash before it was stored): resume translates it again.
    store.connection().execute("DELETE FROM outputs WHERE run_id = ?1 AND segment_idx = 1", [run]).unwrap();
    let out = registro_core::resume::resume_run(&mut store, run, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!((out.produced, out.run.status), (1, RunStatus::Done));
    assert_eq!(out.run.params["memory_examples_resumed"], 1, "{}", out.run.params);
    let resumed = store.output(run, 1).unwrap().unwrap().text;
    // The model copies most of the approved sentence it was shown.
    assert!(resumed.contains("letzte Seite"), "{resumed:?}");
}

/// A termbase's required terms that take several tokens ("Vertragsstrafe" is " Ver|tr|ags|str|afe" to Qwen) are
/// written: before, only single-token terms were boosted, and the 0.5B wrote "Vertragssatz" and "Wartepzeit".
#[test]
fn multi_token_required_terms_appear_in_the_translation() {
    if !common::small_model_cached() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("terms.tsv");
    std::fs::write(&path, "source\ttarget\ncontractual penalty\tVertragsstrafe\nwarranty period\tGewährleistungsfrist\ncontractor\tAuftragnehmer\n").unwrap();
    let tb = registro_core::qa::load_termbase(&path, Lang::De).unwrap();
    let mut gen = EngineGenerator::load(common::SMALL_MODEL).unwrap();
    for term in ["Vertragsstrafe", "Gewährleistungsfrist", "Auftragnehmer"] {
        assert!(gen.model().encode(&format!(" {term}")).unwrap().len() > 1, "{term} is several tokens");
    }
    let sources: Vec<String> = [
        "A contractual penalty applies to late delivery.",
        "The warranty period is two years from acceptance.",
        "The contractor must finish the work by May.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut t = tr::Translator::new(&mut gen, None);
    let mut missing = |termbase: bool| {
        let opts = Options {
            controls: "prompt,constrain".parse::<Controls>().unwrap(),
            n_best: 1,
            max_tokens: 48,
            termbase: termbase.then(|| tb.clone()),
            ..Options::new(Lang::De, Register::Formal)
        };
        let segs = t.translate(&sources, &opts, &AtomicBool::new(false), &mut |_| Ok(())).unwrap();
        segs.iter()
            .filter(|s| {
                let found = tb.check_segment(s.index, &s.source, &s.text, Some(Register::Formal));
                println!("termbase {termbase}: {:?} → {:?}, {} issue(s)", s.source, s.text, found.issues.len());
                !found.issues.is_empty()
            })
            .count()
    };
    assert!(missing(false) > 0, "without the termbase the model misses a term (else this test shows nothing)");
    assert_eq!(missing(true), 0, "every required term is written whole");
}

/// `--sentence-examples`: each segment's nearest pool pairs, beyond the document's shared shots, are shown in its
/// own turn; every segment continues the same prefix, so its cache is shared and the document decodes in batches.
#[test]
fn sentence_examples_go_in_each_turn_and_the_prefix_stays_shared() {
    let mut rec = Recorder::default();
    let mut model = rec.model();
    // The hand-written Russian pool is always there.
    let pool = tr::Pool::default_for(Lang::Ru).unwrap();
    let sources = vec!["Can you send me the documents by Friday?".to_string(), "What is your favourite movie?".to_string()];
    // No document-level shots, so nothing is taken before the sentence's own.
    let opts = Options { controls: "prompt,fewshot".parse::<Controls>().unwrap(), n_best: 1, shots: 0, sentence_examples: 1, ..Options::new(Lang::Ru, Register::Formal) };
    tr::Translator::new(&mut model, Some(pool)).translate(&sources, &opts, &AtomicBool::new(false), &mut |_| Ok(())).unwrap();
    drop(model);
    assert_eq!(rec.prompts.len(), 2);
    assert_eq!(rec.prompts[0].0, rec.prompts[1].0, "one shared prefix");
    let docs = rec.prompt_for("Can you send me the documents by Friday?");
    let movie = rec.prompt_for("What is your favourite movie?");
    // Each sentence's own nearest pair is its twin in the pool, shown before it with the formal reference.
    assert!(docs.1.contains("Не могли бы вы прислать мне документы до пятницы?"), "{}", docs.1);
    assert!(movie.1.contains("Какой ваш любимый фильм?"), "{}", movie.1);
    assert!(!docs.1.contains("Какой ваш любимый фильм?"), "another sentence's example stays out of this turn");
}
