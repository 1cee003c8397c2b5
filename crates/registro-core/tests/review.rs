//! A translator's file through the store: imported whole (the file kept with its sentences), translated as a run,
//! reviewed (statuses, edits), exported back into the same format and as a TMX of what was approved. The model is
//! not needed: the run's outputs are written the way `translate_and_store` writes them. Split and Join in the grid:
//! a split leaves both halves to translate and exports them side by side in the same cue or paragraph; a join keeps
//! both translations; nothing joins across the file's cues or paragraphs; a stored segmentation that no longer
//! matches its file is refused on export, never misplaced.

use std::path::{Path, PathBuf};

use registro_core::documents;
use registro_core::progress::CancelToken;
use registro_core::projects::{import_path, ImportOptions};
use registro_core::resegment::{join_segments, split_segment};
use registro_core::review::{export_tmx, open_review, set_status};
use registro_core::review::store_edit;
use registro_core::translate::{Lang, Register};
use registro_store::{NewRun, Output, SegmentStatus, Store, Task};

fn fixture(rel: &str) -> PathBuf {
    registro_testkit::crate_dir().join("../registro-formats/tests").join(rel)
}

/// Imports `file` into a fresh store and returns it with the document id and its sentences.
fn import(file: &Path) -> (Store, i64, i64, Vec<String>) {
    let mut store = Store::open_in_memory().unwrap();
    let project = store.create_project("p").unwrap().id;
    let summary = import_path(&mut store, project, file, &ImportOptions::default(), &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(summary.documents.len(), 1);
    let doc = summary.documents[0].id;
    let sentences = store.segment_texts(doc).unwrap();
    (store, project, doc, sentences)
}

/// A German translate run over `doc` with `outputs` (index → text) stored as the control layer stores them.
fn run_with(store: &mut Store, project: i64, doc: i64, total: usize, outputs: &[(usize, &str)]) -> i64 {
    let mut nr = NewRun::new(project, Task::Translate, "controlled");
    nr.document_id = Some(doc);
    nr.target_lang = Some("de".into());
    nr.register = Some("formal".into());
    nr.total_segments = Some(total as i64);
    let run = store.create_run(&nr).unwrap();
    let sources = store.segment_texts(doc).unwrap();
    for (i, text) in outputs {
        let mut o = Output::new(*i as i64, *text);
        o.candidates = serde_json::json!({ "candidates": [], "source": sources[*i] });
        store.put_output(run, &o).unwrap();
    }
    run
}

#[test]
fn an_xliff_file_is_reviewed_and_exported_back_with_its_tags_and_notes() {
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/okapi.xlf"));
    let d = store.document(doc).unwrap();
    assert_eq!(d.format, "xliff");
    assert_eq!(store.document_file(doc).unwrap().unwrap().0, "xliff", "the original file is kept for Export");
    assert_eq!(sentences.len(), 3, "{sentences:?}");
    assert!(sentences[1].starts_with("Please sign <1/>here"), "inline tags travel as placeholders: {sentences:?}");

    // The last sentence was not translated (a cancelled run).
    let run = run_with(&mut store, project, doc, 3, &[(0, "Dienst<1>vertrag</1>"), (1, "Bitte unterschreiben Sie <1/>hier & senden Sie es an <2>unser Büro</2> bis Freitag.")]);
    let review = open_review(&store, run).unwrap();
    assert_eq!(review.export_format, "xliff");
    assert_eq!(review.export_name, "okapi.de.xlf");
    let statuses: Vec<SegmentStatus> = review.rows.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [SegmentStatus::Translated, SegmentStatus::Translated, SegmentStatus::Draft]);
    assert_eq!(review.rows[2].segment.source, sentences[2], "an unfinished segment still shows its source");
    assert!(review.rows[1].segment.analysis.markers.iter().any(|m| m.char_start > 0), "markers are found again for highlighting");

    // The reviewer approves the title, edits the second sentence (reviewed), and cannot approve the missing one.
    set_status(&mut store, run, 0, SegmentStatus::Approved).unwrap();
    store_edit(&mut store, run, 1, Lang::De, Register::Formal, "Bitte unterschreiben Sie <1/>hier und senden Sie es bis Freitag an <2>unser Büro</2>.").unwrap();
    let err = set_status(&mut store, run, 2, SegmentStatus::Approved).unwrap_err().to_string();
    assert!(err.contains("no translation yet"), "{err}");
    let statuses: Vec<SegmentStatus> = open_review(&store, run).unwrap().rows.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [SegmentStatus::Approved, SegmentStatus::Reviewed, SegmentStatus::Draft]);

    let out = documents::export_run(&store, run).unwrap();
    assert_eq!((out.translated, out.sentences), (2, 3));
    let xml = String::from_utf8(out.bytes).unwrap();
    assert!(xml.contains(r#"Dienst<g id="1" ctype="bold">vertrag</g>"#), "placeholders become the file's own tags: {xml}");
    assert!(xml.contains(r#"senden Sie es bis Freitag an <g id="3" ctype="link">unser Büro</g>."#), "the edit is exported: {xml}");
    assert!(xml.contains("<note from=\"pm\">Title of the contract: keep it short.</note>"), "notes are kept");
    assert!(xml.contains("Okapi Rainbow"), "the header is kept");
    let again = registro_formats::import(xml.as_bytes(), registro_formats::Format::Xliff).unwrap();
    assert_eq!(again.segments.len(), 3, "the exported file opens in the XLIFF reader with the same units");

    let (tmx, units) = export_tmx(&store, run).unwrap();
    assert_eq!(units, 1, "only approved segments form the translation memory");
    assert!(tmx.contains("<tuv xml:lang=\"de\"><seg>Dienst&lt;1&gt;vertrag&lt;/1&gt;</seg></tuv>"), "{tmx}");
    assert!(!tmx.contains("Büro"), "a reviewed but unapproved segment is not in the TM: {tmx}");
}

#[test]
fn a_docx_contract_keeps_its_package_and_only_the_text_changes() {
    let (mut store, project, doc, sentences) = import(&fixture("data/contract.docx"));
    assert!(sentences.len() >= 3, "{sentences:?}");
    let outputs: Vec<(usize, String)> = sentences.iter().enumerate().map(|(i, _)| (i, format!("Satz {i} für Sie."))).collect();
    let refs: Vec<(usize, &str)> = outputs.iter().map(|(i, t)| (*i, t.as_str())).collect();
    let run = run_with(&mut store, project, doc, sentences.len(), &refs);
    let out = documents::export_run(&store, run).unwrap();
    assert_eq!(out.file_name, "contract.de.docx");
    let again = registro_formats::import(&out.bytes, registro_formats::Format::Docx).unwrap();
    let text: String = again.segments.iter().map(|s| s.source.clone()).collect::<Vec<_>>().join(" ");
    for i in 0..sentences.len() {
        assert!(text.contains(&format!("Satz {i} für Sie.")), "sentence {i} is in the exported DOCX: {text}");
    }
    let original = registro_formats::import(&std::fs::read(fixture("data/contract.docx")).unwrap(), registro_formats::Format::Docx).unwrap();
    assert_eq!(again.segments.len(), original.segments.len(), "paragraphs, cells, headers and footers are all still there");
}

#[test]
fn pasted_text_exports_as_text_and_a_run_longer_than_its_document_is_refused_not_misaligned() {
    let mut store = Store::open_in_memory().unwrap();
    let project = store.create_project("p").unwrap().id;
    let mut nr = NewRun::new(project, Task::Translate, "controlled");
    nr.target_lang = Some("fr".into());
    nr.register = Some("informal".into());
    nr.total_segments = Some(1);
    let run = store.create_run(&nr).unwrap();
    let mut o = Output::new(0, "Tu viens ?");
    o.candidates = serde_json::json!({ "source": "Are you coming?" });
    store.put_output(run, &o).unwrap();
    let review = open_review(&store, run).unwrap();
    assert_eq!((review.export_format.as_str(), review.export_name.as_str()), ("text", "translation.fr.txt"));
    assert_eq!(review.rows[0].segment.source, "Are you coming?");
    let err = documents::export_run(&store, run).unwrap_err().to_string();
    assert!(err.contains("export it as text"), "{err}");

    // A run whose segment count no longer matches its document's (a store edited behind Registro's back).
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/cues.srt"));
    let run = run_with(&mut store, project, doc, sentences.len(), &[(0, "Salut.")]);
    store.connection().execute("UPDATE runs SET total_segments = total_segments + 1 WHERE id = ?1", [run]).unwrap();
    let err = documents::export_run(&store, run).unwrap_err().to_string();
    assert!(err.contains("translate the document again"), "{err}");
}

#[test]
fn review_works_on_a_file_database_with_a_second_connection() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let mut store = Store::open(&db).unwrap();
    let project = store.create_project("p").unwrap().id;
    let summary = import_path(&mut store, project, &fixture("data/contract.docx"), &ImportOptions::default(), &mut |_| {}, &CancelToken::new()).unwrap();
    let doc = summary.documents[0].id;
    let other = Store::open(&db).unwrap();
    assert!(other.list_documents(project).unwrap().len() == 1);
    drop(other);
    let n = store.segment_texts(doc).unwrap().len();
    let run = run_with(&mut store, project, doc, n, &[(0, "Dienstvertrag")]);
    let review = open_review(&store, run).unwrap();
    assert_eq!(review.export_format, "docx");
}

#[test]
fn qa_errors_block_the_export_until_the_translator_exports_anyway() {
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/cues.srt"));
    let outputs: Vec<(usize, String)> = sentences.iter().enumerate().map(|(i, s)| (i, s.clone())).collect();
    let mut refs: Vec<(usize, &str)> = outputs.iter().map(|(i, t)| (*i, t.as_str())).collect();
    // One translation loses a tag the source has: an error, not a warning.
    let broken = sentences.iter().position(|s| s.contains('<')).map(|i| (i, "Ohne Markierung."));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cues.de.srt");
    let run = match broken {
        Some(b) => {
            refs[b.0] = b;
            run_with(&mut store, project, doc, sentences.len(), &refs)
        }
        None => {
            // No tag in the cues: an empty translation is an error too.
            refs[0] = (0, "");
            run_with(&mut store, project, doc, sentences.len(), &refs)
        }
    };
    let err = registro_core::review::export_to(&mut store, run, &out, None).unwrap_err().to_string();
    assert!(err.contains("export blocked") && err.contains("export anyway"), "{err}");
    assert!(!out.exists(), "nothing is written when the export is blocked");
    let anyway = registro_core::review::OverrideBy { who: "Ana".into(), reason: "client asked for the draft".into() };
    let said = registro_core::review::export_to(&mut store, run, &out, Some(&anyway)).unwrap();
    assert!(said.contains("SRT") && said.contains("exported anyway"), "{said}");
    assert!(out.exists());
    let recorded = store.overrides(run).unwrap();
    assert_eq!(recorded.len(), 1, "the export anyway is recorded");
    assert_eq!((recorded[0].who.as_str(), recorded[0].reason.as_str()), ("Ana", "client asked for the draft"));
}

#[test]
fn approved_segments_come_back_as_translation_memory_matches_in_the_same_register_only() {
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/okapi.xlf"));
    let first = run_with(&mut store, project, doc, sentences.len(), &[(0, "Dienst<1>vertrag</1>"), (2, "Summe: <1/> EUR.")]);
    set_status(&mut store, first, 0, SegmentStatus::Approved).unwrap();
    // A later run over the same document (the next version of the file, say) sees the approved title.
    let second = run_with(&mut store, project, doc, sentences.len(), &[(0, "Dienstleistungs<1>vertrag</1>")]);
    let review = open_review(&store, second).unwrap();
    let tm = review.rows[0].tm.as_ref().expect("a 100% match");
    assert_eq!((tm.similarity, tm.target.as_str(), tm.run_id), (100, "Dienst<1>vertrag</1>", first));
    assert!(review.rows[2].tm.is_none(), "translated but not approved is not in the memory");
    assert!(open_review(&store, first).unwrap().rows[0].tm.is_none(), "an approved segment needs no match, and a run never matches itself");
    // The same sentence in an informal run: a formal translation would bring the wrong address form back.
    let mut nr = NewRun::new(project, Task::Translate, "controlled");
    nr.document_id = Some(doc);
    nr.target_lang = Some("de".into());
    nr.register = Some("informal".into());
    nr.total_segments = Some(sentences.len() as i64);
    let informal = store.create_run(&nr).unwrap();
    store.put_output(informal, &Output::new(0, "Dienstvertrag")).unwrap();
    assert!(open_review(&store, informal).unwrap().rows[0].tm.is_none());
}

#[test]
fn a_contrastive_pair_opens_as_two_target_columns() {
    let (mut store, project, doc, sentences) = import(&fixture("fixtures/cues.srt"));
    let formal: Vec<(usize, String)> = (0..sentences.len()).map(|i| (i, format!("Möchten Sie {i}?"))).collect();
    let f = run_with(&mut store, project, doc, sentences.len(), &formal.iter().map(|(i, t)| (*i, t.as_str())).collect::<Vec<_>>());
    let informal: Vec<(usize, String)> = (0..sentences.len()).map(|i| (i, format!("Möchtest du {i}?"))).collect();
    let i = run_with(&mut store, project, doc, sentences.len(), &informal.iter().map(|(i, t)| (*i, t.as_str())).collect::<Vec<_>>());
    store.connection().execute("UPDATE runs SET register = 'informal' WHERE id = ?1", [i]).unwrap();
    assert!(open_review(&store, f).unwrap().contrast.is_none(), "a run on its own has one target column");
    // What translate_contrastive_and_store records: each run names the other.
    for (run, other) in [(f, i), (i, f)] {
        let mut params = store.run(run).unwrap().params;
        params["contrastive_with"] = serde_json::json!(other);
        store.set_run_params(run, &params).unwrap();
    }
    let review = open_review(&store, f).unwrap();
    let contrast = review.contrast.expect("the informal run as the second column");
    assert_eq!((contrast.run_id, contrast.register), (i, Register::Informal));
    assert_eq!(contrast.rows.len(), review.rows.len());
    assert_eq!(contrast.rows[1].segment.text, "Möchtest du 1?");
    assert_eq!(contrast.rows[1].segment.source, review.rows[1].segment.source, "row for row over the same sources");
    assert_eq!(open_review(&store, i).unwrap().contrast.unwrap().run_id, f, "and the other way round");
    // A partner deleted since is no column, not an error.
    store.delete_run(i).unwrap();
    assert!(open_review(&store, f).unwrap().contrast.is_none());
}

// ---- Split and Join ----

/// A French informal run over `doc` with one output per segment.
fn fr_run(store: &mut Store, project: i64, doc: i64, outputs: &[&str], overrides: serde_json::Value) -> i64 {
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
    let run = fr_run(&mut store, project, doc, &sentences.iter().map(|_| "x").collect::<Vec<_>>(), serde_json::json!({ "0": "formal", "3": "formal" }));

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
    let run = fr_run(&mut store, project, doc, &outputs, serde_json::json!({}));

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
    let run = fr_run(&mut store, project, doc, &outputs.iter().map(String::as_str).collect::<Vec<_>>(), serde_json::json!({}));
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
    let run = fr_run(&mut store, project, doc, &sentences.iter().map(|_| "x").collect::<Vec<_>>(), serde_json::json!({}));
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
