//! Schema, migrations, cascades, run life cycle and transactional writes.

use registro_store::*;

mod common;

fn doc(n: usize) -> NewDocument {
    NewDocument {
        name: "d".into(),
        source_lang: "en".into(),
        target_lang: Some("de".into()),
        format: "text".into(),
        segments: (0..n)
            .map(|i| NewSegment { text: format!("segment {i}"), references: vec![("formal".into(), format!("Sie {i}"))] })
            .collect(),
        ..Default::default()
    }
}

/// A project "p" with a document of `segments` segments and a run of `system` over it, not started yet.
fn run_on_document(s: &mut Store, segments: usize, task: Task, system: &str) -> (Project, DocumentId, RunId) {
    let p = s.create_project("p").unwrap();
    let d = s.insert_document(p.id, &doc(segments)).unwrap();
    let mut nr = NewRun::new(p.id, task, system);
    nr.document_id = Some(d);
    (p, d, s.create_run(&nr).unwrap())
}

#[test]
fn migrates_an_empty_file_and_reopens() {
    let (_dir, path) = common::temp_db("sub/registro.db");
    {
        let s = Store::open(&path).unwrap();
        let v: i64 = s.connection().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let mode: String = s.connection().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = s.connection().query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
        assert_eq!(fk, 1);
        s.create_project("kept").unwrap();
    }
    let s = Store::open(&path).unwrap();
    assert_eq!(s.list_projects().unwrap()[0].name, "kept");
    assert_eq!(s.integrity_check().unwrap(), "ok");
}

#[test]
fn refuses_a_store_from_a_newer_version() {
    let (_dir, path) = common::temp_db("r.db");
    drop(Store::open(&path).unwrap());
    rusqlite_set_version(&path, SCHEMA_VERSION + 5);
    let err = Store::open(&path).unwrap_err().to_string();
    assert!(err.contains("newer than this build"), "{err}");
    assert!(err.contains(&format!("schema version {}", SCHEMA_VERSION + 5)), "{err}");
}

fn rusqlite_set_version(path: &std::path::Path, v: i64) {
    // Through the store's own connection type, to avoid a second SQLite.
    let s = Store::open(path).unwrap();
    s.connection().execute_batch(&format!("PRAGMA user_version = {v}")).unwrap();
}

#[test]
fn project_names_are_unique_and_found_by_name_or_id() {
    let s = Store::open_in_memory().unwrap();
    let p = s.create_project("Alpha").unwrap();
    assert!(matches!(s.create_project("Alpha"), Err(StoreError::DuplicateProject(_))));
    assert_eq!(s.find_project("Alpha").unwrap().id, p.id);
    assert_eq!(s.find_project(&p.id.to_string()).unwrap().name, "Alpha");
    let err = s.find_project("nope").unwrap_err().to_string();
    assert!(err.contains("project \"nope\" not found"), "{err}");
}

#[test]
fn deleting_cascades() {
    let mut s = Store::open_in_memory().unwrap();
    let (p, d, run) = run_on_document(&mut s, 3, Task::Translate, "sys");
    s.put_outputs(run, &[Output::new(0, "a"), Output::new(1, "b")]).unwrap();
    s.put_metric_results(run, &[NewMetric::corpus("bleu", 30.0), NewMetric::segment("chrf", 0, 50.0)]).unwrap();
    s.add_judgment(&NewJudgment {
        rater: "ann".into(),
        run_id: run,
        segment_index: 0,
        scale: Scale::Fluency,
        value: 4.0,
        note: None,
    })
    .unwrap();
    assert_eq!((count(&s, "segments"), count(&s, "refs"), count(&s, "outputs"), count(&s, "metric_results"), count(&s, "judgments")), (3, 3, 2, 2, 1));
    s.delete_document(d).unwrap();
    for t in ["segments", "refs", "runs", "outputs", "metric_results", "judgments"] {
        assert_eq!(count(&s, t), 0, "{t} not emptied by deleting the document");
    }
    s.insert_document(p.id, &doc(2)).unwrap();
    s.delete_project(p.id).unwrap();
    for t in ["documents", "segments", "refs"] {
        assert_eq!(count(&s, t), 0, "{t} not emptied by deleting the project");
    }
}

#[test]
fn documents_keep_segments_and_references_in_order() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let d = s.insert_document(p.id, &doc(4)).unwrap();
    let got = s.document(d).unwrap();
    assert_eq!(got.segments, 4);
    assert_eq!(got.reference_names, vec!["formal".to_string()]);
    assert_eq!(s.segment_texts(d).unwrap()[3], "segment 3");
    assert_eq!(s.reference_set(d, "formal").unwrap()[2].as_deref(), Some("Sie 2"));
    assert_eq!(s.reference_set(d, "informal").unwrap(), vec![None; 4]);
    assert_eq!(s.segments_page(d, 1, 2).unwrap().iter().map(|x| x.index).collect::<Vec<_>>(), vec![1, 2]);
}

#[test]
fn output_batches_are_atomic_and_runs_resume() {
    let mut s = Store::open_in_memory().unwrap();
    let (_, _, run) = run_on_document(&mut s, 5, Task::Rewrite, "rules");
    s.start_run(run).unwrap();
    s.put_outputs(run, &[Output::new(0, "zero"), Output::new(1, "one")]).unwrap();
    // Segment 9 is out of range: the whole batch, including valid segment 2, must be rejected.
    let err = s.put_outputs(run, &[Output::new(2, "two"), Output::new(9, "nine")]).unwrap_err().to_string();
    assert!(err.contains("out of range"), "{err}");
    assert_eq!(s.missing_segments(run).unwrap(), vec![2, 3, 4]);
    // Rewriting a segment replaces it, never duplicates.
    s.put_output(run, &Output::new(1, "one again")).unwrap();
    assert_eq!(s.outputs(run).unwrap().len(), 2);
    assert_eq!(s.output(run, 1).unwrap().unwrap().text, "one again");
    s.finish_run(run, RunStatus::Cancelled, Some("user cancelled")).unwrap();
    assert_eq!(s.resume_run(run).unwrap(), vec![2, 3, 4]);
    assert_eq!(s.run(run).unwrap().status, RunStatus::Running);
    s.put_outputs(run, &[Output::new(2, "a"), Output::new(3, "b"), Output::new(4, "c")]).unwrap();
    s.finish_run(run, RunStatus::Done, None).unwrap();
    let r = s.run(run).unwrap();
    assert_eq!((r.completed_segments, r.total_segments, r.status), (5, 5, RunStatus::Done));
    assert!(r.finished_at.is_some());
    assert_eq!(s.output_texts(run).unwrap()[4].as_deref(), Some("c"));
}

#[test]
fn review_status_follows_the_person_and_a_machine_rewrite_resets_it() {
    let mut s = Store::open_in_memory().unwrap();
    let (_, _, run) = run_on_document(&mut s, 3, Task::Translate, "sys");
    s.put_outputs(run, &[Output::new(0, "a"), Output::new(1, "b")]).unwrap();
    use SegmentStatus::*;
    assert_eq!(s.output_statuses(run).unwrap(), vec![(0, Translated), (1, Translated)]);
    s.set_output_status(run, 1, Approved).unwrap();
    s.set_output_status(run, 0, Reviewed).unwrap();
    assert_eq!(s.output_statuses(run).unwrap(), vec![(0, Reviewed), (1, Approved)]);
    // A segment with no output yet cannot be approved: there is nothing to sign off.
    let err = s.set_output_status(run, 2, Approved).unwrap_err().to_string();
    assert!(err.contains("segment 3"), "{err}");
    // The machine writing the segment again (a resume, a QA repair) means nobody has looked at the new text.
    s.put_output(run, &Output::new(1, "b2")).unwrap();
    assert_eq!(s.output_statuses(run).unwrap()[1], (1, Translated));
    // The SQL CHECK keeps hand-edited databases honest too.
    assert!(s.connection().execute("UPDATE outputs SET status = 'done' WHERE run_id = ?1", [run]).is_err());
}

#[test]
fn a_documents_original_file_is_kept_and_goes_with_it() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let d = s.insert_document(p.id, &doc(1)).unwrap();
    assert_eq!(s.document_file(d).unwrap(), None);
    s.put_document_file(d, "docx", b"PK\x03\x04 original").unwrap();
    assert_eq!(s.document_file(d).unwrap(), Some(("docx".to_string(), b"PK\x03\x04 original".to_vec())));
    assert!(s.put_document_file(9999, "docx", b"x").is_err(), "no file without its document");
    s.delete_document(d).unwrap();
    let left: i64 = s.connection().query_row("SELECT count(*) FROM document_files", [], |r| r.get(0)).unwrap();
    assert_eq!(left, 0, "deleting the document deletes its file");
}

#[test]
fn metric_results_replace_and_filter() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let run = common::create_run(&s, p.id, Task::Eval, "umd-1", 2);
    let mut bleu = NewMetric::corpus("bleu", 30.0);
    bleu.reference = Some("formal".into());
    s.put_metric_results(run, &[bleu.clone(), NewMetric::segment("bleu", 0, 20.0)]).unwrap();
    bleu.value = 31.5;
    s.put_metric_results(run, &[bleu]).unwrap();
    let corpus = s.corpus_metrics(run).unwrap();
    assert_eq!(corpus.len(), 1);
    assert_eq!(corpus[0].value, 31.5);
    assert_eq!(s.segment_metrics(run, "bleu", None).unwrap().len(), 1);
    assert_eq!(s.delete_metric_results(run, Some("bleu")).unwrap(), 2);
}

#[test]
fn run_filters_and_ad_hoc_runs() {
    let s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let mut a = NewRun::new(p.id, Task::Translate, "nllb-600m");
    a.total_segments = Some(1);
    a.target_lang = Some("de".into());
    a.register = Some("formal".into());
    let ra = s.create_run(&a).unwrap();
    common::create_run(&s, p.id, Task::Rewrite, "rules", 1);
    let found = s.list_runs(&RunFilter { task: Some(Task::Translate), ..Default::default() }).unwrap();
    assert_eq!(found.iter().map(|r| r.id).collect::<Vec<_>>(), vec![ra]);
    let found = s.list_runs(&RunFilter { system: Some("nllb".into()), register: Some("formal".into()), ..Default::default() }).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(s.list_runs(&RunFilter::default()).unwrap().len(), 2);
    let err = s.create_run(&NewRun::new(p.id, Task::Eval, "x")).unwrap_err().to_string();
    assert!(err.contains("total_segments"), "{err}");
}

#[test]
fn runs_left_running_by_a_dead_process_are_marked_interrupted_at_open() {
    let (_dir, path) = common::temp_db("r.db");
    let run;
    {
        let mut s = Store::open(&path).unwrap();
        let p = s.create_project("p").unwrap();
        run = common::create_run(&s, p.id, Task::Translate, "sys", 3);
        s.start_run(run).unwrap();
        s.put_output(run, &Output::new(0, "x")).unwrap();
        // Pretend a process that no longer exists was driving it.
        s.connection().execute("UPDATE runs SET worker = '999999999:1' WHERE id = ?1", [run]).unwrap();
    }
    common::assert_failed_and_resumable(&path, run, "interrupted:", "1 of 3 segments", &[1, 2]);
}

#[test]
fn a_live_run_of_this_process_is_not_recovered() {
    let (_dir, path) = common::temp_db("r.db");
    let s = Store::open(&path).unwrap();
    let p = s.create_project("p").unwrap();
    let run = common::create_run(&s, p.id, Task::Translate, "sys", 1);
    s.start_run(run).unwrap();
    let other = Store::open(&path).unwrap();
    assert_eq!(other.run(run).unwrap().status, RunStatus::Running);
}

#[test]
fn judgments_are_stored_and_filtered() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let run = common::create_run(&s, p.id, Task::Rewrite, "rules", 2);
    let j = |rater: &str, scale| NewJudgment { rater: rater.into(), run_id: run, segment_index: 0, scale, value: 3.0, note: None };
    s.add_judgments(&[j("ann", Scale::Formality), j("bob", Scale::Formality), j("ann", Scale::Meaning)]).unwrap();
    let f = JudgmentFilter { rater: Some("ann".into()), ..Default::default() };
    assert_eq!(s.judgments(&f).unwrap().len(), 2);
    let f = JudgmentFilter { project_id: Some(p.id), scale: Some(Scale::Formality), ..Default::default() };
    assert_eq!(s.judgments(&f).unwrap().len(), 2);
    let mut bad = j("", Scale::Rank);
    assert!(s.add_judgment(&bad).is_err());
    bad.rater = "c".into();
    bad.run_id = 9999;
    assert!(s.add_judgment(&bad).unwrap_err().to_string().contains("run 9999 not found"));
}

#[test]
fn export_writes_tsv_and_jsonl() {
    let mut s = Store::open_in_memory().unwrap();
    let (_, _, run) = run_on_document(&mut s, 2, Task::Translate, "sys");
    let mut o = Output::new(1, "Guten\tTag");
    o.detected_register = Some("formal".into());
    o.flagged = true;
    o.flag_reason = Some("mixed register".into());
    o.candidates = serde_json::json!(["Hallo"]);
    s.put_outputs(run, &[Output::new(0, "Hallo"), o]).unwrap();
    let mut tsv = Vec::new();
    assert_eq!(export::export_run(&s, run, export::ExportFormat::Tsv, &mut tsv).unwrap(), 2);
    let tsv = String::from_utf8(tsv).unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines[0], "index\tsource\toutput\tregister\tflagged\tflag_reason\tcandidates");
    assert_eq!(lines[2], "1\tsegment 1\tGuten\\tTag\tformal\ttrue\tmixed register\t[\"Hallo\"]");
    let mut jsonl = Vec::new();
    export::export_run(&s, run, export::ExportFormat::Jsonl, &mut jsonl).unwrap();
    let rows: Vec<serde_json::Value> =
        String::from_utf8(jsonl).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows[1]["output"], "Guten\tTag");
    assert_eq!(rows[1]["source"], "segment 1");
    assert_eq!(rows[1]["candidates"][0], "Hallo");
}

fn count(s: &Store, t: &str) -> i64 {
    s.connection().query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0)).unwrap()
}

/// A store written by schema version 2 (before cached per-segment statistics) opens with its runs and outputs
/// intact, gains the statistics table, and a cached table round-trips and goes when its run is deleted.
#[test]
fn a_version_2_store_gains_the_statistics_cache_and_keeps_its_runs() {
    let (_dir, path) = common::temp_db("v2.db");
    let run = {
        let mut s = Store::open(&path).unwrap();
        let (_, _, run) = run_on_document(&mut s, 2, Task::Translate, "sys");
        s.put_outputs(run, &[Output::new(0, "Sie a"), Output::new(1, "Sie b")]).unwrap();
        run
    };
    // Turn it back into what version 2 wrote.
    rusqlite::Connection::open(&path).unwrap().execute_batch(
        "ALTER TABLE outputs DROP COLUMN choice; DROP TABLE review_overrides; DROP TABLE segment_stats; ALTER TABLE outputs DROP COLUMN status; DROP TABLE document_files; PRAGMA user_version = 2;",
    ).unwrap();

    let mut s = Store::open(&path).unwrap();
    let v: i64 = s.connection().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, SCHEMA_VERSION);
    assert_eq!(s.outputs(run).unwrap().len(), 2, "the run's outputs survive the migration");
    assert_eq!(s.segment_table_count(None).unwrap(), 0);
    let fp = fingerprint(["Sie a", "Sie b"]);
    let table = SegmentTable { width: 2, values: vec![1.0, 2.0, 0.25, 4.0] };
    s.put_segment_tables(&[(run, "bleu|tok:13a".into(), fp.clone(), table.clone())]).unwrap();
    let stored = s.segment_tables_of(run).unwrap();
    assert_eq!(stored.get("bleu|tok:13a"), Some(&(fp.clone(), table)));
    assert!(stored.get("bleu|tok:intl").is_none(), "other parameters are a miss");
    assert_ne!(stored["bleu|tok:13a"].0, fingerprint(["Sie a"]), "other texts are a miss");
    s.delete_run(run).unwrap();
    assert_eq!(s.segment_table_count(None).unwrap(), 0, "deleting the run deletes its statistics");
    assert_eq!(s.integrity_check().unwrap(), "ok");
}

/// A store written by schema version 5 (before a writer's rewrite decisions were kept) opens with its outputs, which
/// have no decisions; decisions round-trip, and a new output for the segment (a resume) drops them.
#[test]
fn a_version_5_store_gains_rewrite_choices_and_keeps_its_outputs() {
    let (_dir, path) = common::temp_db("v5.db");
    let run = {
        let mut s = Store::open(&path).unwrap();
        let (_, _, run) = run_on_document(&mut s, 2, Task::Rewrite, "rules");
        s.put_outputs(run, &[Output::new(0, "Hello."), Output::new(1, "I do not know.")]).unwrap();
        run
    };
    rusqlite::Connection::open(&path).unwrap().execute_batch("ALTER TABLE outputs DROP COLUMN choice; PRAGMA user_version = 5;").unwrap();

    let mut s = Store::open(&path).unwrap();
    let v: i64 = s.connection().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, SCHEMA_VERSION);
    assert_eq!(s.outputs(run).unwrap().len(), 2);
    assert!(s.output_choices(run).unwrap().is_empty(), "old outputs carry no decisions");
    let c = serde_json::json!({ "candidate": 1, "rejected_edits": [0] });
    s.set_output_choices(run, &[(1, c.clone())]).unwrap();
    assert_eq!(s.output_choices(run).unwrap(), vec![(1, c.clone())]);
    let err = s.set_output_choices(run, &[(0, c.clone()), (5, c.clone())]).unwrap_err().to_string();
    assert!(err.contains("segment 6"), "{err}");
    assert_eq!(s.output_choices(run).unwrap(), vec![(1, c)], "a failed batch writes nothing");
    s.put_output(run, &Output::new(1, "I don't know.")).unwrap();
    assert!(s.output_choices(run).unwrap().is_empty(), "a new output drops the decisions about the old one");
    assert_eq!(s.integrity_check().unwrap(), "ok");
}

/// A file that claims a run of 10^12 segments (damaged, or written to hurt) gets a clear error from the resume's
/// list of missing segments, and the export's list of texts stays the size of what is stored: neither allocates
/// for the claim.
#[test]
fn a_damaged_segment_count_is_refused_not_allocated() {
    let mut s = Store::open_in_memory().unwrap();
    let (_, _, run) = run_on_document(&mut s, 3, Task::Translate, "sys");
    s.put_outputs(run, &[Output::new(0, "Sie a"), Output::new(1, "Sie b")]).unwrap();
    s.connection().execute("UPDATE runs SET total_segments = 1000000000000 WHERE id = ?1", [run]).unwrap();
    let err = s.missing_segments(run).unwrap_err().to_string();
    assert!(err.contains("claims 1000000000000 segments with 2 stored") && err.contains("damaged"), "{err}");
    assert_eq!(s.output_texts(run).unwrap(), [Some("Sie a".to_string()), Some("Sie b".to_string())]);
    // An honest count still lists the gaps and pads the texts to the document's length.
    s.connection().execute("UPDATE runs SET total_segments = 3 WHERE id = ?1", [run]).unwrap();
    assert_eq!(s.missing_segments(run).unwrap(), vec![2]);
    assert_eq!(s.output_texts(run).unwrap().len(), 3);
}
