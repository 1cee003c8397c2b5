//! Split and Join in the review grid, through the store and back out into the translator's file: a split leaves
//! both halves to translate and exports them side by side in the same cue or paragraph; a join keeps both
//! translations; nothing joins across the file's cues or paragraphs; a stored segmentation that no longer matches
//! its file is refused on export, never misplaced.

use std::path::{Path, PathBuf};

use registro_core::documents;
use registro_core::progress::CancelToken;
use registro_core::projects::{import_path, ImportOptions};
use registro_core::resegment::{join_segments, split_segment};
use registro_core::translate::review::open_review;
use registro_store::{NewRun, Output, Store, Task};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../registro-formats/tests").join(rel)
}

fn import(file: &Path) -> (Store, i64, i64, Vec<String>) {
    let mut store = Store::open_in_memory().unwrap();
    let project = store.create_project("p").unwrap().id;
    let summary = import_path(&mut store, project, file, &ImportOptions::default(), &mut |_| {}, &CancelToken::new()).unwrap();
    let doc = summary.documents[0].id;
    let sentences = store.segment_texts(doc).unwrap();
    (store, project, doc, sentences)
}

/// A French informal run over `doc` with one output per segment.
fn run_with(store: &mut Store, project: i64, doc: i64, outputs: &[&str], overrides: serde_json::Value) -> i64 {
    let mut nr = NewRun::new(project, Task::Translate, "controlled");
    nr.document_id = Some(doc);
    nr.target_lang = Some("fr".into());
    nr.register = Some("informal".into());
    nr.total_segments = Some(outputs.len() as i64);
    nr.params = serde_json::json!({ "register_overrides": overrides });
    let run = store.create_run(&nr).unwrap();
    for (i, t) in outputs.iter().enumerate() {
        store.put_output(run, &Output::new(i as i64, *t)).unwrap();
    }
    run
}

fn cues(bytes: &[u8]) -> Vec<String> {
    registro_formats::import(bytes, registro_formats::Format::Srt).unwrap().segments.iter().map(|s| s.source.clone()).collect()
}

#[test]
fn a_split_cue_is_translated_again_and_exported_in_the_same_cue() {
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/cues.srt"));
    let at = sentences.iter().position(|s| s == "Would you like some coffee?").expect("cue 1 is one sentence");
    let run = run_with(&mut store, project, doc, &sentences.iter().map(|_| "x").collect::<Vec<_>>(), serde_json::json!({ "0": "formal", "3": "formal" }));

    // "Would you like | some coffee?" — the cursor is before "some".
    let done = split_segment(&mut store, run, at, "Would you like ".chars().count()).unwrap();
    assert_eq!(done.segments, sentences.len() + 1);
    assert_eq!(done.untranslated, vec![at, at + 1], "both halves are to be translated again");
    assert_eq!(&store.segment_texts(doc).unwrap()[at..at + 2], ["Would you like", "some coffee?"]);
    let review = open_review(&store, run).unwrap();
    assert_eq!(review.rows.len(), sentences.len() + 1, "the grid shows the new segment");
    assert_eq!(review.rows[at + 1].segment.register.as_str(), "formal", "a per-sentence register goes to both halves");
    assert_eq!(review.rows[4].segment.register.as_str(), "formal", "and later overrides move with their sentence");

    // The run translates the halves (as resume does) and the cue gets both, in order.
    store.put_output(run, &Output::new(at as i64, "Vous voulez")).unwrap();
    store.put_output(run, &Output::new(at as i64 + 1, "du café ?")).unwrap();
    let out = documents::export_run(&store, run).unwrap();
    let exported = cues(&out.bytes);
    assert_eq!(exported.len(), cues(&std::fs::read(fixture("fixtures/cues.srt")).unwrap()).len(), "no cue added or lost");
    assert!(exported.iter().any(|c| c.replace('\n', " ") == "Vous voulez du café ?"), "{exported:?}");
    let srt = String::from_utf8(out.bytes).unwrap();
    assert!(srt.contains("00:00:01,000 --> 00:00:03,500"), "cue timings kept: {srt}");
}

#[test]
fn a_join_keeps_both_translations_and_never_spans_two_cues() {
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/cues.srt"));
    let yes = sentences.iter().position(|s| s == "Yes, please.").expect("cue 2 splits into two sentences");
    assert_eq!(sentences[yes + 1], "Thank you!");
    let mut outputs: Vec<&str> = sentences.iter().map(|_| "x").collect();
    outputs[yes] = "Oui, s'il te plaît.";
    outputs[yes + 1] = "Merci !";
    let run = run_with(&mut store, project, doc, &outputs, serde_json::json!({}));

    let err = join_segments(&mut store, run, yes - 1).unwrap_err().to_string();
    assert!(err.contains("different parts"), "cue 1 and cue 2 stay apart: {err}");
    assert_eq!(store.segment_texts(doc).unwrap(), sentences, "a refused join changes nothing");

    let done = join_segments(&mut store, run, yes).unwrap();
    assert_eq!((done.segments, done.untranslated.len()), (sentences.len() - 1, 0));
    assert_eq!(store.segment_texts(doc).unwrap()[yes], "Yes, please. Thank you!");
    let review = open_review(&store, run).unwrap();
    assert_eq!(review.rows[yes].segment.text, "Oui, s'il te plaît. Merci !");
    assert_eq!(review.rows[yes].segment.analysis.label.as_str().to_lowercase(), "informal", "the joined text is analysed again");
    let exported = cues(&documents::export_run(&store, run).unwrap().bytes);
    assert!(exported.contains(&"Oui, s'il te plaît. Merci !".to_string()), "{exported:?}");

    let err = join_segments(&mut store, run, done.segments - 1).unwrap_err().to_string();
    assert!(err.contains("last one"), "{err}");
}

#[test]
fn a_docx_paragraph_split_exports_into_the_same_paragraph() {
    let (mut store, project, doc, sentences) = import(&fixture("data/contract.docx"));
    let (k, space) = sentences
        .iter()
        .enumerate()
        .find_map(|(k, s)| s.char_indices().filter(|(_, c)| *c == ' ').nth(2).map(|(b, _)| (k, s[..b].chars().count() + 1)))
        .expect("a sentence of several words");
    let outputs: Vec<String> = (0..sentences.len()).map(|i| format!("Satz{i}.")).collect();
    let run = run_with(&mut store, project, doc, &outputs.iter().map(String::as_str).collect::<Vec<_>>(), serde_json::json!({}));
    split_segment(&mut store, run, k, space).unwrap();
    store.put_output(run, &Output::new(k as i64, "Erste Hälfte")).unwrap();
    store.put_output(run, &Output::new(k as i64 + 1, "zweite Hälfte.")).unwrap();
    let out = documents::export_run(&store, run).unwrap();
    let again = registro_formats::import(&out.bytes, registro_formats::Format::Docx).unwrap();
    let original = registro_formats::import(&std::fs::read(fixture("data/contract.docx")).unwrap(), registro_formats::Format::Docx).unwrap();
    assert_eq!(again.segments.len(), original.segments.len(), "the same paragraphs, cells, headers and footers");
    assert!(again.segments.iter().any(|s| s.source.contains("Erste Hälfte zweite Hälfte.")), "both halves in one paragraph");
}

#[test]
fn segments_that_no_longer_match_the_file_are_refused_on_export() {
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/cues.srt"));
    let run = run_with(&mut store, project, doc, &sentences.iter().map(|_| "x").collect::<Vec<_>>(), serde_json::json!({}));
    store.connection().execute("UPDATE segments SET text = 'Something the file never said.' WHERE document_id = ?1 AND idx = 1", [doc]).unwrap();
    let err = documents::export_run(&store, run).unwrap_err().to_string();
    assert!(err.contains("no longer match"), "{err}");
    // Pasted text has no document to split.
    let mut nr = NewRun::new(project, Task::Translate, "controlled");
    nr.target_lang = Some("fr".into());
    nr.total_segments = Some(1);
    let pasted = store.create_run(&nr).unwrap();
    let err = split_segment(&mut store, pasted, 0, 3).unwrap_err().to_string();
    assert!(err.contains("pasted text"), "{err}");
}
