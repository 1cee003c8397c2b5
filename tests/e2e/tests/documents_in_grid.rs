//! A translator's documents in the real window as documents (issue 44): the runs lists name each run's document and
//! filter runs by document, language, register, model and date; with a document as the source the pasted-text box
//! is hidden; the inline tags a file's markup becomes (`<1>…</1>`, `<2/>`) are chips in the grid that an edit keeps
//! or moves but cannot break — an edit that drops one is refused with a message and the cell shows the stored text
//! again; "both registers side by side" gives the two translations columns of equal width.
//! Screenshots: `tests/e2e/screenshots/documents-in-grid-*.png`.
mod common;

use std::time::Duration;

use registro_e2e::{keys, screenshot_path, wait_until, Session};
use registro_store::{NewDocument, NewRun, NewSegment, Output, RunStatus, Store, Task};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(60);

const MANUAL: [&str; 3] = ["Click <1>Save</1> to keep your changes.", "Press <2/> to open the menu.", "Your file is ready."];
const MANUAL_DE: [&str; 3] =
    ["Klicken Sie auf <1>Speichern</1>, um Ihre Änderungen zu behalten.", "Drücken Sie <2/>, um das Menü zu öffnen.", "Ihre Datei ist fertig."];
const MANUAL_DE_INFORMAL: [&str; 3] =
    ["Klick auf <1>Speichern</1>, um deine Änderungen zu behalten.", "Drück <2/>, um das Menü zu öffnen.", "Deine Datei ist fertig."];

fn document(store: &mut Store, project: i64, name: &str, segments: &[&str]) -> i64 {
    let doc = NewDocument {
        name: name.into(),
        source_lang: "en".into(),
        target_lang: Some("de".into()),
        format: "text".into(),
        segments: segments.iter().map(|t| NewSegment { text: t.to_string(), references: vec![] }).collect(),
        ..Default::default()
    };
    store.insert_document(project, &doc).unwrap()
}

/// A finished translate run of `doc` into `lang`/`register` by `model`, its outputs `texts`.
fn run(store: &mut Store, project: i64, doc: i64, lang: &str, register: &str, model: &str, texts: &[&str]) -> i64 {
    let mut r = NewRun::new(project, Task::Translate, "registro-prompt");
    r.document_id = Some(doc);
    r.source_lang = Some("en".into());
    r.target_lang = Some(lang.into());
    r.register = Some(register.into());
    r.model_id = Some(model.into());
    r.total_segments = Some(texts.len() as i64);
    let id = store.create_run(&r).unwrap();
    store.start_run(id).unwrap();
    let outs: Vec<Output> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Output { detected_register: Some(if register == "informal" { "informal" } else { "formal" }.into()), ..Output::new(i as i64, *t) })
        .collect();
    store.put_outputs(id, &outs).unwrap();
    store.finish_run(id, RunStatus::Done, None).unwrap();
    id
}

struct Fixture {
    formal: i64,
    informal: i64,
}

/// Project "Manuals": the manual with placeholders translated formally and informally (a linked pair, as "both
/// registers side by side" stores them), and a letter translated into French and Italian by another model.
fn fixture(db: &std::path::Path) -> Fixture {
    let mut store = Store::open(db).unwrap();
    let project = store.create_project("Manuals").unwrap().id;
    let manual = document(&mut store, project, "manual.xlf", &MANUAL);
    let letter = document(&mut store, project, "letter.txt", &["Thank you for your letter.", "See you soon."]);
    let formal = run(&mut store, project, manual, "de", "formal", "qwen2.5-coder-1.5b-instruct", &MANUAL_DE);
    let informal = run(&mut store, project, manual, "de", "informal", "qwen2.5-coder-1.5b-instruct", &MANUAL_DE_INFORMAL);
    for (id, other) in [(formal, informal), (informal, formal)] {
        let mut params = store.run(id).unwrap().params;
        params["contrastive_with"] = json!(other);
        store.set_run_params(id, &params).unwrap();
    }
    run(&mut store, project, letter, "fr", "formal", "qwen2.5-coder-0.5b-instruct", &["Merci pour votre lettre.", "À bientôt."]);
    run(&mut store, project, letter, "it", "informal", "qwen2.5-coder-0.5b-instruct", &["Grazie per la tua lettera.", "A presto."]);
    Fixture { formal, informal }
}

fn js(s: &Session, script: &str) -> serde_json::Value {
    s.execute(script, vec![]).unwrap()
}

/// Picks `value` in the runs filter `field` of the list inside `scope`; returns how many runs it shows then.
fn filter_runs(s: &Session, scope: &str, field: &str, value: &str) -> usize {
    s.execute(
        r#"const [scope, field, value] = arguments;
           const sel = document.querySelector(`${scope} [data-testid="run-filter-${field}"]`);
           sel.value = value; sel.dispatchEvent(new Event('change'));"#,
        vec![json!(scope), json!(field), json!(value)],
    )
    .unwrap();
    let rows = s.execute(r#"return document.querySelectorAll(arguments[0] + ' [data-testid="run-item"]').length"#, vec![json!(scope)]).unwrap();
    rows.as_u64().unwrap() as usize
}

#[test]
fn documents_are_listed_filtered_and_shown_as_documents() {
    let Some((dir, db)) = common::ready_temp_store("documents_are_listed_filtered_and_shown_as_documents") else { return };
    let f = fixture(&db);
    let s = Session::in_project(&db, dir.path(), &[], "Manuals", None).expect("the app opens the project");

    // ---- the runs list: a document column and a filter (Documents view) ----
    let docs = r#"[data-testid="view-documents"]"#;
    s.wait_for_count(&format!(r#"{docs} [data-testid="run-item"]"#), 4, WAIT).expect("four runs listed");
    let names: Vec<String> = s
        .execute(r#"return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)"#, vec![json!(format!(r#"{docs} [data-testid="run-document"]"#))])
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(names.iter().filter(|n| *n == "manual.xlf").count(), 2, "{names:?}");
    assert_eq!(names.iter().filter(|n| *n == "letter.txt").count(), 2, "{names:?}");
    assert_eq!(filter_runs(&s, docs, "document", "letter.txt"), 2, "by document");
    assert_eq!(filter_runs(&s, docs, "lang", "en→it"), 1, "and by language");
    assert_eq!(filter_runs(&s, docs, "lang", ""), 2);
    assert_eq!(filter_runs(&s, docs, "document", ""), 4);
    assert_eq!(filter_runs(&s, docs, "register", "informal"), 2, "by register");
    assert_eq!(filter_runs(&s, docs, "model", "qwen2.5-coder-1.5b-instruct"), 1, "and by model");
    assert_eq!(filter_runs(&s, docs, "register", ""), 2);
    assert_eq!(filter_runs(&s, docs, "since", "1"), 2, "and by date: made today");
    assert_eq!(s.text_css(&format!(r#"{docs} [data-testid="run-filter-count"]"#), WAIT).unwrap(), "2 of 4 runs");
    std::thread::sleep(Duration::from_millis(200));
    s.screenshot(&screenshot_path("documents-in-grid-filter.png")).unwrap();
    assert_eq!(filter_runs(&s, docs, "model", ""), 4);
    assert_eq!(filter_runs(&s, docs, "since", ""), 4);

    // ---- Translate: a document as the source hides the pasted-text box ----
    s.click_css(r#"[data-testid="tab-translate"]"#, WAIT).unwrap();
    let tr = r#"[data-view="translate"]"#;
    s.wait_for_count(&format!(r#"{tr} [data-testid="run-item"]"#), 4, WAIT).unwrap();
    assert_eq!(filter_runs(&s, tr, "document", "manual.xlf"), 2, "the Translate view's list filters too");
    let source_hidden = || js(&s, r#"return document.querySelector('[data-testid="translate-source"]').getClientRects().length === 0"#);
    assert_eq!(source_hidden(), json!(false), "pasted text: the box is there");
    s.execute(
        r#"const d = document.querySelector('[data-testid="translate-document"]');
           d.value = [...d.options].find((o) => o.textContent === 'manual.xlf').value; d.dispatchEvent(new Event('change'));"#,
        vec![],
    )
    .unwrap();
    assert_eq!(source_hidden(), json!(true), "a document as the source: no pasted-text box");

    // ---- the formal run in the grid: tags as chips, both registers in columns of equal width ----
    let item = format!(r#"{tr} [data-testid="run-item"][data-run-id="{}"]"#, f.formal);
    s.click_css(&format!("{item} td:nth-child(3)"), WAIT).unwrap();
    s.wait_for(&format!(r#"[data-testid="translate-grid"][data-run="{}"]:not([data-loading])"#, f.formal), WAIT).unwrap();
    s.wait_for(r#"[data-testid="translate-contrast-head"]"#, WAIT).expect("the informal run is the second column");
    let widths = js(
        &s,
        r#"const w = (c) => document.querySelector(c).getBoundingClientRect().width;
           return [w('[data-testid="translate-main-head"]'), w('[data-testid="translate-contrast-head"]'), w('.tr-src-h')];"#,
    );
    let (main, other) = (widths[0].as_f64().unwrap(), widths[1].as_f64().unwrap());
    println!("documents_in_grid: side by side, the formal column is {main:.0} px, the informal {other:.0} px, the source {:.0} px", widths[2].as_f64().unwrap());
    assert!((main - other).abs() <= 2.0 && main > 200.0, "both registers get columns of equal width: {widths}");
    let row0 = r#"[data-testid="translate-row"][data-index="0"]"#;
    let chips = s.texts(&format!(r#"{row0} [data-testid="translate-output"] [data-testid="translate-tag"]"#)).unwrap();
    assert_eq!(chips, ["<1>", "</1>"], "the tags are chips in the translation");
    assert_eq!(s.texts(&format!(r#"{row0} .tr-src [data-testid="translate-tag"]"#)).unwrap(), ["<1>", "</1>"], "and in the source");
    assert_eq!(
        js(&s, &format!(r#"return [...document.querySelectorAll('{row0} [data-testid="translate-tag"]')].every((c) => c.isContentEditable === false)"#)),
        json!(true),
        "a chip is not edited inside"
    );
    s.execute("document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })", vec![json!(row0)]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("documents-in-grid-chips.png")).unwrap();

    // ---- an edit that drops a tag is refused; one that moves it is kept ----
    let out = s.wait_for(&format!(r#"{row0} [data-testid="translate-output"]"#), WAIT).unwrap();
    s.click(&out).unwrap();
    s.send_keys(&out, &format!("{}a{}", keys::CONTROL, keys::CONTROL)).unwrap();
    s.send_keys(&out, &format!("Klicken Sie auf Speichern, um Ihre Aenderungen zu behalten.{}", keys::ENTER)).unwrap();
    let notice = || s.text_css(r#"[data-testid="notice"]"#, WAIT).unwrap();
    wait_until("the refusal", WAIT, || notice().contains("inline tag"));
    let said = notice();
    assert!(said.contains("segment 1") && said.contains("drops the inline tags <1> </1>"), "{said}");
    wait_until("the stored text back in the cell", WAIT, || {
        s.texts(&format!(r#"{row0} [data-testid="translate-output"] [data-testid="translate-tag"]"#)).unwrap() == ["<1>", "</1>"]
    });
    s.screenshot(&screenshot_path("documents-in-grid-refused.png")).unwrap();
    assert_eq!(Store::open(&db).unwrap().output(f.formal, 0).unwrap().unwrap().text, MANUAL_DE[0], "nothing was stored");

    let moved = "Um Ihre Aenderungen zu behalten, klicken Sie auf <1>Speichern</1>.";
    let out = s.wait_for(&format!(r#"{row0} [data-testid="translate-output"]"#), WAIT).unwrap();
    s.click(&out).unwrap();
    s.send_keys(&out, &format!("{}a{}", keys::CONTROL, keys::CONTROL)).unwrap();
    s.send_keys(&out, &format!("{moved}{}", keys::ENTER)).unwrap();
    wait_until("the moved tags stored", WAIT, || Store::open(&db).unwrap().output(f.formal, 0).unwrap().unwrap().text == moved);
    wait_until("the moved tags as chips", WAIT, || {
        s.texts(&format!(r#"{row0} [data-testid="translate-output"] [data-testid="translate-tag"]"#)).unwrap() == ["<1>", "</1>"]
    });
    assert_ne!(f.informal, f.formal);
    s.close().unwrap();
}
