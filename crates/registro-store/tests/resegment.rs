//! Split and join of a document's segments: segments and every run's outputs renumbered in one transaction.

use registro_store::*;

fn doc(texts: &[&str], with_refs: bool) -> NewDocument {
    NewDocument {
        name: "contract.docx".into(),
        source_lang: "en".into(),
        target_lang: Some("de".into()),
        format: "docx".into(),
        segments: texts
            .iter()
            .map(|t| NewSegment { text: t.to_string(), references: if with_refs { vec![("formal".into(), format!("Sie: {t}"))] } else { Vec::new() } })
            .collect(),
        ..Default::default()
    }
}

fn run_over(s: &mut Store, project: ProjectId, d: DocumentId, outputs: &[&str]) -> RunId {
    let mut nr = NewRun::new(project, Task::Translate, "sys");
    nr.document_id = Some(d);
    nr.total_segments = Some(outputs.len() as i64);
    let run = s.create_run(&nr).unwrap();
    let outs: Vec<Output> = outputs.iter().enumerate().map(|(i, t)| Output::new(i as i64, *t)).collect();
    s.put_outputs(run, &outs).unwrap();
    s.finish_run(run, RunStatus::Done, None).unwrap();
    run
}

#[test]
fn a_split_renumbers_every_run_and_leaves_both_halves_to_translate() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let d = s.insert_document(p.id, &doc(&["One.", "Two a. Two b.", "Three."], false)).unwrap();
    let hash_before = s.document(d).unwrap().content_hash;
    let a = run_over(&mut s, p.id, d, &["Eins.", "Zwei a. Zwei b.", "Drei."]);
    let b = run_over(&mut s, p.id, d, &["1", "2", "3"]);
    s.set_output_status(a, 2, SegmentStatus::Approved).unwrap();
    s.resegment(d, &Resegment::Split { index: 1, first: "Two a.".into(), second: "Two b.".into() }, &[(a, serde_json::json!({"k": 1}))]).unwrap();

    assert_eq!(s.segment_texts(d).unwrap(), ["One.", "Two a.", "Two b.", "Three."]);
    assert_eq!(s.output_texts(a).unwrap(), [Some("Eins.".to_string()), None, None, Some("Drei.".to_string())]);
    assert_eq!(s.output_texts(b).unwrap(), [Some("1".to_string()), None, None, Some("3".to_string())]);
    // The approved segment moved with its text, status included.
    assert_eq!(s.output_statuses(a).unwrap(), vec![(0, SegmentStatus::Translated), (3, SegmentStatus::Approved)]);
    assert_eq!(s.missing_segments(a).unwrap(), vec![1, 2]);
    assert_eq!(s.run(a).unwrap().total_segments, 4);
    assert_eq!(s.run(a).unwrap().params, serde_json::json!({"k": 1}));
    assert_ne!(s.document(d).unwrap().content_hash, hash_before, "the contents changed, so does their hash");
    assert_eq!(s.document(d).unwrap().segments, 4);
}

#[test]
fn a_join_keeps_the_joined_translation_and_closes_the_gap() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let d = s.insert_document(p.id, &doc(&["One.", "Two", "continues.", "Four."], false)).unwrap();
    let a = run_over(&mut s, p.id, d, &["Eins.", "Zwei", "geht weiter.", "Vier."]);
    let b = run_over(&mut s, p.id, d, &["1", "2", "3", "4"]);
    s.set_output_status(a, 3, SegmentStatus::Reviewed).unwrap();
    let joined = Output::new(1, "Zwei geht weiter.");
    s.resegment(d, &Resegment::Join { index: 1, text: "Two continues.".into(), outputs: vec![(a, joined)] }, &[]).unwrap();

    assert_eq!(s.segment_texts(d).unwrap(), ["One.", "Two continues.", "Four."]);
    assert_eq!(s.output_texts(a).unwrap(), [Some("Eins.".to_string()), Some("Zwei geht weiter.".to_string()), Some("Vier.".to_string())]);
    // Run b got no joined output: the joined segment is missing there, nothing else moved wrongly.
    assert_eq!(s.output_texts(b).unwrap(), [Some("1".to_string()), None, Some("4".to_string())]);
    assert_eq!(s.output_statuses(a).unwrap()[2], (2, SegmentStatus::Reviewed));
    assert_eq!(s.run(b).unwrap().total_segments, 3);
}

#[test]
fn refusals_change_nothing() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let test_set = s.insert_document(p.id, &doc(&["A. B.", "C."], true)).unwrap();
    let err = s.resegment(test_set, &Resegment::Split { index: 0, first: "A.".into(), second: "B.".into() }, &[]).unwrap_err().to_string();
    assert!(err.contains("references"), "{err}");
    assert_eq!(s.segment_texts(test_set).unwrap(), ["A. B.", "C."]);

    let d = s.insert_document(p.id, &doc(&["A. B.", "C."], false)).unwrap();
    let a = run_over(&mut s, p.id, d, &["x", "y"]);
    for (edit, says) in [
        (Resegment::Split { index: 2, first: "a".into(), second: "b".into() }, "no segment 3"),
        (Resegment::Split { index: 0, first: "A. B.".into(), second: "  ".into() }, "empty segment"),
        (Resegment::Join { index: 1, text: "C.".into(), outputs: Vec::new() }, "no next segment"),
        (Resegment::Join { index: -1, text: "C.".into(), outputs: Vec::new() }, "no next segment"),
    ] {
        let err = s.resegment(d, &edit, &[]).unwrap_err().to_string();
        assert!(err.contains(says), "{err}");
    }
    // A joined output for a run of another document rolls the whole change back.
    let other = s.insert_document(p.id, &doc(&["Z."], false)).unwrap();
    let stranger = run_over(&mut s, p.id, other, &["z"]);
    let err = s.resegment(d, &Resegment::Join { index: 0, text: "A. B. C.".into(), outputs: vec![(stranger, Output::new(0, "z"))] }, &[]).unwrap_err().to_string();
    assert!(err.contains("not a run over document"), "{err}");
    assert_eq!(s.segment_texts(d).unwrap(), ["A. B.", "C."]);
    assert_eq!(s.output_texts(a).unwrap(), [Some("x".to_string()), Some("y".to_string())]);

    // While a run over the document runs, its outputs must not move under it.
    let mut nr = NewRun::new(p.id, Task::Translate, "sys");
    nr.document_id = Some(d);
    let live = s.create_run(&nr).unwrap();
    s.start_run(live).unwrap();
    let err = s.resegment(d, &Resegment::Split { index: 0, first: "A.".into(), second: "B.".into() }, &[]).unwrap_err().to_string();
    assert!(err.contains("running"), "{err}");
}
