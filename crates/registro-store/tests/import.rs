//! Every import format from small files, the real CoCoA-MT / IWSLT folders, and every bad-input error.

mod common;

use std::path::Path;

use common::{shared_data, write};
use registro_store::import::{parse_path, Format, ImportOptions};
use registro_store::*;

fn opts() -> ImportOptions {
    ImportOptions::default()
}

fn err_of(path: &Path, o: &ImportOptions) -> String {
    parse_path(path, o).unwrap_err().to_string()
}

#[test]
fn plain_text_one_segment_per_non_blank_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "draft.txt", "\u{feff}hey there\r\n\nwanna come?\n");
    let parsed = parse_path(&p, &opts()).unwrap();
    let d = &parsed.documents[0];
    assert_eq!(d.name, "draft.txt");
    assert_eq!(d.format, "text");
    assert_eq!(d.segments.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(), vec!["hey there", "wanna come?"]);
}

#[test]
fn tsv_and_csv_pick_the_text_column_and_reference_columns() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = write(dir.path(), "a.tsv", "id\ttext\tformal\n1\thi \"you\"\tGuten Tag\n2\tbye\t\n");
    let d = &parse_path(&tsv, &opts()).unwrap().documents[0];
    assert_eq!(d.segments[0].text, "hi \"you\"");
    assert_eq!(d.segments[0].references, vec![("formal".to_string(), "Guten Tag".to_string())]);
    assert!(d.segments[1].references.is_empty());
    // pt16 layout: SID,label,sentence
    let csv = write(dir.path(), "b.csv", "SID,label,sentence\n1,-1.2,\"well, hello\"\n2,0.5,Dear Sir\n");
    let d = &parse_path(&csv, &opts()).unwrap().documents[0];
    assert_eq!(d.segments.len(), 2);
    assert_eq!(d.segments[0].text, "well, hello");
    let o = ImportOptions { column: Some("label".into()), ..opts() };
    assert_eq!(parse_path(&csv, &o).unwrap().documents[0].segments[1].text, "0.5");
    let err = err_of(&csv, &ImportOptions { column: Some("body".into()), ..opts() });
    assert!(err.contains("no column \"body\"") && err.contains("\"sentence\""), "{err}");
    let ragged = write(dir.path(), "c.csv", "text,formal\na,b\nc\n");
    let err = err_of(&ragged, &opts());
    assert!(err.contains("c.csv: line 3") && err.contains("1 fields but the header has 2"), "{err}");
}

#[test]
fn jsonl_text_or_source_with_references() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "a.jsonl",
        "{\"text\":\"one\"}\n\n{\"source\":\"two\",\"references\":{\"formal\":\"Zwei Sie\",\"informal\":\"Zwei du\"}}\n",
    );
    let d = &parse_path(&p, &opts()).unwrap().documents[0];
    assert_eq!(d.segments.len(), 2);
    assert_eq!(d.segments[1].references.len(), 2);
    let bad = write(dir.path(), "b.jsonl", "{\"text\":\"ok\"}\n{\"text\": 5}\n");
    let err = err_of(&bad, &opts());
    assert!(err.contains("b.jsonl: line 2") && err.contains("must be a string"), "{err}");
    let bad = write(dir.path(), "c.jsonl", "{\"text\":\"ok\"}\nnot json\n");
    assert!(err_of(&bad, &opts()).contains("c.jsonl: line 2: invalid JSON"));
}

#[test]
fn cocoa_folder_with_domains_gives_one_document_per_source() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for dom in ["a", "b"] {
        write(d, &format!("t.{dom}.en-de"), "Hi\nBye\n");
        write(d, &format!("t.{dom}.en-de.formal"), "Hallo Sie\nTschüss Sie\n");
        write(d, &format!("t.{dom}.en-de.informal.annotated"), "[F]Hallo du[/F]\nTschüss\n");
        write(d, &format!("t.{dom}.en-de.formal.feminine"), "Hallo Sie\n\n");
    }
    write(d, "system-1.formal.de", "x\ny\n");
    let parsed = parse_path(d, &opts()).unwrap();
    assert_eq!(parsed.documents.len(), 2);
    let doc = &parsed.documents[0];
    assert_eq!(doc.name, "t.a.en-de");
    assert_eq!((doc.source_lang.as_str(), doc.target_lang.as_deref()), ("en", Some("de")));
    assert_eq!(doc.format, "cocoa");
    let names: Vec<&str> = doc.segments[0].references.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, vec!["formal", "formal.feminine", "informal.annotated"]);
    // An empty reference line means no reference for that segment.
    assert_eq!(doc.segments[1].references.len(), 2);
    assert_eq!(parsed.ignored, vec![d.join("system-1.formal.de")]);
}

#[test]
fn iwslt_layout_with_language_suffixes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "fc.test.en-es.en", "Hi\n");
    write(d, "fc.test.en-es.formal.es", "Hola usted\n");
    write(d, "fc.test.en-es.informal.annotated.es", "[F]Hola tú[/F]\n");
    let doc = &parse_path(d, &opts()).unwrap().documents[0];
    assert_eq!(doc.name, "fc.test.en-es");
    assert_eq!(doc.target_lang.as_deref(), Some("es"));
    assert_eq!(doc.segments[0].references[1], ("informal.annotated".to_string(), "[F]Hola tú[/F]".to_string()));
    // A single source file in such a folder imports just that source.
    let o = ImportOptions { format: Some(Format::Cocoa), ..opts() };
    assert_eq!(parse_path(&d.join("fc.test.en-es.en"), &o).unwrap().documents.len(), 1);
}

#[test]
fn xformal_folder_uses_ref_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("test");
    std::fs::create_dir(&d).unwrap();
    write(&d, "informal", "gonna go\nu ok?\n");
    for i in 0..4 {
        write(&d, &format!("formal.ref{i}"), format!("I am going to go.\nAre you well? ({i})\n"));
    }
    let parsed = parse_path(&d, &ImportOptions { source_lang: Some("it".into()), ..opts() }).unwrap();
    let doc = &parsed.documents[0];
    assert_eq!(doc.name, "test/informal");
    assert_eq!(doc.format, "xformal");
    assert_eq!(doc.source_lang, "it");
    assert_eq!(doc.segments[1].references.len(), 4);
    assert_eq!(doc.segments[1].references[3], ("ref3".to_string(), "Are you well? (3)".to_string()));
    assert!(parsed.ignored.is_empty());
}

#[test]
fn bad_inputs_give_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = write(d, "utf8.txt", b"fine\nbad \xff byte\n".as_slice());
    let e = err_of(&p, &opts());
    assert!(e.contains("utf8.txt: invalid UTF-8 at line 2, byte offset 9"), "{e}");
    let p = write(d, "empty.txt", "");
    assert!(err_of(&p, &opts()).contains("empty.txt is empty"));
    let p = write(d, "blank.txt", "\n  \n");
    assert!(err_of(&p, &opts()).contains("blank.txt is empty"));
    let mut long = "x".repeat(MAX_LINE_BYTES_PLUS);
    long.insert_str(0, "ok\n");
    let p = write(d, "long.txt", &long);
    let e = err_of(&p, &opts());
    assert!(e.contains("long.txt: line 2 is 1048577 bytes long, over the 1 MB limit"), "{e}");
    let p = write(d, "bin.dat", b"PK\x03\x04\n\x00\x00abc".as_slice());
    let e = err_of(&p, &opts());
    assert!(e.contains("bin.dat looks like a binary file (NUL byte at line 2, byte offset 5)"), "{e}");
    let e = err_of(&d.join("missing.txt"), &opts());
    assert!(e.contains("cannot read") && e.contains("missing.txt"), "{e}");

    let pair = d.join("pair");
    std::fs::create_dir(&pair).unwrap();
    write(&pair, "x.en", "a\nb\nc\n");
    write(&pair, "x.formal.de", "A\nB\n");
    let e = err_of(&pair, &opts());
    assert!(
        e.contains("x.en has 3 lines") && e.contains("x.formal.de has 2"),
        "mismatch must name both files and counts: {e}"
    );
    let nothing = d.join("nothing");
    std::fs::create_dir(&nothing).unwrap();
    write(&nothing, "notes.md", "hi\n");
    assert!(err_of(&nothing, &opts()).contains("no paired files found"));
    assert!("weird".parse::<Format>().unwrap_err().to_string().contains("unknown import format"));
}

const MAX_LINE_BYTES_PLUS: usize = registro_store::import::MAX_LINE_BYTES + 1;

#[test]
fn a_bad_file_in_a_folder_leaves_the_store_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "good.en", "a\n");
    write(d, "good.formal.de", "A\n");
    write(d, "zbad.en", "b\n");
    write(d, "zbad.formal.de", b"\xc3(\n".as_slice());
    let e = err_of(d, &opts());
    assert!(e.contains("zbad.formal.de: invalid UTF-8 at line 1, byte offset 0"), "{e}");
    // The parse failed before any insert, so a store would have nothing; and an insert itself is one
    // transaction: a cancelled multi-document insert writes nothing either.
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("p").unwrap();
    let docs = parse_path(&d.join("good.en"), &ImportOptions { format: Some(Format::Cocoa), ..opts() }).unwrap().documents;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let twice = vec![docs[0].clone(), docs[0].clone()];
    let r = s.insert_documents(p.id, &twice, Some(&cancel), &mut |done, _| {
        if done == 1 {
            cancel.store(true, std::sync::atomic::Ordering::SeqCst)
        }
    });
    assert!(matches!(r, Err(StoreError::Cancelled)));
    assert!(s.list_documents(p.id).unwrap().is_empty());
}

#[test]
fn real_cocoa_mt_test_en_de() {
    let Some(dir) = shared_data("cocoa-mt/test/en-de", "real_cocoa_mt_test_en_de") else { return };
    let parsed = parse_path(&dir, &opts()).unwrap();
    assert_eq!(parsed.documents.len(), 3, "call_center, telephony, topical_chat");
    assert!(parsed.ignored.is_empty(), "{:?}", parsed.ignored);
    let mut s = Store::open_in_memory().unwrap();
    let p = s.create_project("cocoa").unwrap();
    let ids = s.insert_documents(p.id, &parsed.documents, None, &mut |_, _| {}).unwrap();
    for id in ids {
        let d = s.document(id).unwrap();
        assert_eq!(d.segments, 200);
        assert_eq!((d.source_lang.as_str(), d.target_lang.as_deref()), ("en", Some("de")));
        assert_eq!(
            d.reference_names,
            ["formal", "formal.annotated", "formal.feminine", "informal", "informal.annotated", "informal.feminine"]
        );
        let ann = s.reference_set(id, "formal.annotated").unwrap();
        assert!(ann.iter().flatten().any(|t| t.contains("[F]")));
    }
}

#[test]
fn real_iwslt2022_umd_en_de() {
    let Some(dir) = shared_data("iwslt2022-umd/en-de", "real_iwslt2022_umd_en_de") else { return };
    let parsed = parse_path(&dir, &opts()).unwrap();
    assert_eq!(parsed.documents.len(), 1);
    let d = &parsed.documents[0];
    assert_eq!(d.name, "formality-control.test.en-de");
    assert_eq!(d.segments.len(), 600);
    assert_eq!(d.target_lang.as_deref(), Some("de"));
    assert_eq!(d.segments[0].references.len(), 4);
    // The ten UMD submissions are system outputs, not references.
    assert_eq!(parsed.ignored.len(), 10);
}
