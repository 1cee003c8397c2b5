//! The store opens only its own files: another application's SQLite database, a store from a newer Registro, a
//! damaged one, or a file that is not SQLite at all is refused with a message saying what it is, and left
//! byte-identical (no WAL switch, no tables, no side files).

use std::path::{Path, PathBuf};

use registro_store::*;

mod common;
use rusqlite::Connection;

fn sidecars(path: &Path) -> Vec<PathBuf> {
    ["-wal", "-shm", "-journal"]
        .iter()
        .map(|s| PathBuf::from(format!("{}{s}", path.display())))
        .filter(|p| p.exists())
        .collect()
}

/// Opens `path`, expects a refusal, and checks the file is exactly as before. Returns the message.
fn refused_untouched(path: &Path) -> String {
    let before = std::fs::read(path).unwrap();
    let err = Store::open(path).expect_err("the store must refuse this file").to_string();
    assert_eq!(std::fs::read(path).unwrap(), before, "{} was modified", path.display());
    assert_eq!(sidecars(path), Vec::<PathBuf>::new(), "side files left beside {}", path.display());
    assert!(err.contains(&path.display().to_string()), "the message names the file: {err}");
    err
}

fn invoices(path: &Path, application_id: i32, user_version: i64) {
    let c = Connection::open(path).unwrap();
    c.execute_batch(&format!(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
         CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customers(id), total REAL);
         INSERT INTO customers (name) VALUES ('ACME');
         INSERT INTO invoices (customer, total) VALUES (1, 99.5);
         PRAGMA application_id = {application_id};
         PRAGMA user_version = {user_version};"
    ))
    .unwrap();
}

/// The refusal of an [`invoices`] database with these pragmas, written as `file` in a fresh folder.
fn invoices_refusal(file: &str, application_id: i32, user_version: i64) -> String {
    let (_dir, path) = common::temp_db(file);
    invoices(&path, application_id, user_version);
    refused_untouched(&path)
}

/// The refusal of a store, written as `file` in a fresh folder, whose `PRAGMA user_version` was then set to `version`.
fn store_version_refusal(file: &str, version: i64) -> String {
    let (_dir, path) = common::temp_db(file);
    drop(Store::open(&path).unwrap());
    Connection::open(&path).unwrap().execute_batch(&format!("PRAGMA user_version = {version}")).unwrap();
    refused_untouched(&path)
}

fn application_id(s: &Store) -> i32 {
    s.connection().query_row("PRAGMA application_id", [], |r| r.get(0)).unwrap()
}

#[test]
fn another_applications_database_is_refused_and_left_identical() {
    let (_dir, path) = common::temp_db("invoices.db");
    invoices(&path, 0, 0);
    let err = refused_untouched(&path);
    assert!(err.contains("a SQLite database of another application"), "{err}");
    assert!(err.contains("tables: customers, invoices"), "{err}");
    assert!(err.contains("choose another file (--db or REGISTRO_DB)"), "{err}");
    let mode: String = Connection::open(&path).unwrap().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "delete", "the file must keep its journal mode");
}

#[test]
fn a_database_with_another_application_id_is_named_by_its_id() {
    let err = invoices_refusal("map.gpkg", 0x4750_4B47, 10301);
    assert!(err.contains("application_id 0x47504b47"), "{err}");
}

#[test]
fn a_file_with_version_7_and_no_id_is_refused_before_any_write() {
    let err = invoices_refusal("v7.db", 0, 7);
    assert!(err.contains("user_version 7"), "{err}");
}

#[test]
fn a_store_from_a_newer_registro_is_refused_untouched() {
    let err = store_version_refusal("newer.db", 7);
    assert!(err.contains("schema version 7, newer than this build of Registro supports"), "{err}");
    assert!(err.contains(&format!("({SCHEMA_VERSION})")), "{err}");
}

#[test]
fn a_negative_schema_version_is_refused_as_damaged() {
    let err = store_version_refusal("neg.db", -3);
    assert!(err.contains("is damaged: schema version -3"), "{err}");
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_untouched() {
    let (dir, path) = common::temp_db("notes.db");
    let mut junk = b"Dear diary, today I opened the wrong file. ".repeat(200);
    junk.extend((0..=255u8).cycle().take(5000));
    std::fs::write(&path, &junk).unwrap();
    let err = refused_untouched(&path);
    assert!(err.contains("not a SQLite database (it starts with \"Dear diary, toda\")"), "{err}");

    let short = dir.path().join("short.db");
    std::fs::write(&short, b"\x00\x01\x02").unwrap();
    let err = refused_untouched(&short);
    assert!(err.contains("not a SQLite database (only 3 bytes long)"), "{err}");
}

#[test]
fn a_folder_or_a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let err = Store::open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("a folder, not a regular file"), "{err}");
    #[cfg(unix)]
    {
        let fifo = dir.path().join("pipe.db");
        let ok = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        if ok {
            let err = Store::open(&fifo).unwrap_err().to_string();
            assert!(err.contains("a named pipe (FIFO), not a regular file"), "{err}");
        }
    }
}

#[test]
fn an_empty_file_becomes_a_store() {
    let (_dir, path) = common::temp_db("empty.db");
    std::fs::write(&path, b"").unwrap();
    let s = Store::open(&path).unwrap();
    s.create_project("p").unwrap();
    assert_eq!(application_id(&s), APPLICATION_ID);
    drop(s);
    assert_eq!(Store::open(&path).unwrap().list_projects().unwrap().len(), 1);
}

fn doc(refs: &[&str]) -> NewDocument {
    NewDocument {
        name: "d".into(),
        source_lang: "en".into(),
        format: "text".into(),
        segments: refs
            .iter()
            .enumerate()
            .map(|(i, r)| NewSegment { text: format!("source {i}"), references: vec![("formal".into(), r.to_string())] })
            .collect(),
        ..Default::default()
    }
}

/// Stores written before the application id (schema version 1) keep opening: they are recognised by their
/// tables, stamped, and their documents get the content hash a new insert would give them.
#[test]
fn a_store_from_before_the_application_id_keeps_opening() {
    let (_dir, path) = common::temp_db("old.db");
    let d = doc(&["Sie a", "Sie b"]);
    let id = {
        let mut s = Store::open(&path).unwrap();
        let p = s.create_project("p").unwrap();
        s.insert_document(p.id, &d).unwrap()
    };
    // Turn it back into what version 1 wrote.
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "ALTER TABLE outputs DROP COLUMN choice; DROP TABLE review_overrides; DROP TABLE segment_stats; DROP TABLE document_files; ALTER TABLE outputs DROP COLUMN status;
             DROP INDEX documents_content; ALTER TABLE documents DROP COLUMN content_hash;
             PRAGMA application_id = 0; PRAGMA user_version = 1;",
        )
        .unwrap();
    let s = Store::open(&path).unwrap();
    assert_eq!(application_id(&s), APPLICATION_ID);
    assert_eq!(s.document(id).unwrap().content_hash, content_hash(&d));
    assert_eq!(s.integrity_check().unwrap(), "ok");
}

#[test]
fn documents_are_found_by_contents_not_by_name_or_size() {
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let a = doc(&["Sie a", "Sie b"]);
    let b = doc(&["Du a", "Du b"]);
    let ida = s.insert_document(p.id, &a).unwrap();
    assert_eq!(s.find_document_by_content(p.id, &a).unwrap(), Some(ida));
    assert_eq!(s.find_document_by_content(p.id, &b).unwrap(), None, "same name and size, other references");
    let idb = s.insert_document(p.id, &b).unwrap();
    assert_eq!(s.find_document_by_content(p.id, &b).unwrap(), Some(idb));
    assert_ne!(content_hash(&a), content_hash(&b));
}
