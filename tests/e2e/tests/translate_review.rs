//! A translator's DOCX through the real window with the real Qwen2.5-Coder-0.5B: imported in the Documents view
//! (a second file "dropped" onto the window), translated into formal German, reviewed in the grid from the keyboard
//! (Ctrl+Enter approves and moves on, ↑/↓ move, an informal edit is flagged and Ctrl+Shift+R repairs it, filters),
//! exported back as DOCX (table, bold run, header and footer still there) and the approved segments as TMX; the
//! statuses are still there when the run is reopened in a new window, and a second translation of the file offers
//! the approved sentences as translation-memory matches. Writes `tests/e2e/screenshots/translate-review-grid.png`,
//! `translate-review-approved.png`, `translate-review-reopened.png` and `translate-review-tm.png`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use registro_e2e::{keys, ready_or_skip, screenshot_path, temp_project, wait_until, Element, Session};
use registro_store::{SegmentStatus, Store};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(30);
const MODEL: &str = "qwen2.5-coder-0.5b-instruct";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/registro-formats/tests/data").join(name)
}

fn rows(s: &Session) -> Vec<Element> {
    s.find_all(r#"[data-testid="translate-row"]"#).unwrap()
}

fn row_attr(s: &Session, i: usize, attr: &str) -> String {
    s.execute(
        &format!(r#"const r = document.querySelectorAll('[data-testid="translate-row"]')[{i}]; return r ? r.getAttribute('{attr}') : null"#),
        vec![],
    )
    .unwrap()
    .as_str()
    .unwrap_or_default()
    .to_string()
}

fn output(s: &Session, i: usize) -> Element {
    s.wait_for(&format!(r#"[data-testid="translate-row"][data-index="{i}"] [data-testid="translate-output"]"#), WAIT).unwrap()
}

/// The segment index of the row whose target has the caret.
fn focused_index(s: &Session) -> Option<u64> {
    s.execute(
        r#"const r = document.activeElement && document.activeElement.closest('[data-testid="translate-row"]'); return r ? Number(r.dataset.index) : null"#,
        vec![],
    )
    .unwrap()
    .as_u64()
}

fn notice(s: &Session) -> String {
    s.text(&s.wait_for(r#"[data-testid="notice"]"#, WAIT).unwrap()).unwrap()
}

fn visible_rows(s: &Session) -> u64 {
    s.execute(r#"return [...document.querySelectorAll('[data-testid="translate-row"]')].filter((r) => !r.hidden).length"#, vec![])
        .unwrap()
        .as_u64()
        .unwrap()
}

fn set_filter(s: &Session, value: &str) {
    s.execute(
        &format!(r#"const f = document.querySelector('[data-testid="translate-filter"]'); f.value = '{value}'; f.dispatchEvent(new Event('change'));"#),
        vec![],
    )
    .unwrap();
}

#[test]
fn a_docx_is_translated_reviewed_from_the_keyboard_and_exported_in_its_own_format() {
    if !ready_or_skip("a_docx_is_translated_reviewed_from_the_keyboard_and_exported_in_its_own_format") {
        return;
    }
    let (dir, db) = temp_project("Contracts");
    let exported = dir.path().join("contract.de.docx");
    let tmx = dir.path().join("contract.de.tmx");
    let contract = fixture("contract.docx");
    let letter = fixture("letter.docx");
    let answers = [Some(contract.as_path()), Some(letter.as_path()), Some(exported.as_path()), Some(tmx.as_path())];
    let s = Session::in_project(&db, dir.path(), &answers, "Contracts", None).expect("the app opens the project");

    // Import with the Documents view's button.
    let result = s.import_browsed().unwrap();
    assert!(result.contains("Imported 1 document") && result.contains("contract.docx"), "{result}");

    // A drop: the backend hands the page an import token for each dropped file (`registro://files-dropped`).
    // WebDriver cannot drag a file from the desktop, so the test takes the token a dialog gives and sends the same
    // event the backend sends; what is tested is the page's side: the file is imported into the open project.
    // The contract's sentences, as the import stored them.
    let sentences = s
        .execute(
            r#"const d = [...document.querySelectorAll('[data-testid="document-item"]')].find((e) => e.textContent.includes('contract.docx'));
               const m = d && d.textContent.match(/(\d+) segments?/); return m ? Number(m[1]) : null"#,
            vec![],
        )
        .unwrap()
        .as_u64()
        .expect("the contract is listed with its segment count") as usize;
    assert!(sentences >= 10, "the contract splits into its sentences: {sentences}");
    let chosen = s.invoke("choose_file", json!({"purpose": "import", "defaultName": null}), 10_000).unwrap().expect("a token");
    s.invoke("plugin:event|emit", json!({"event": "registro://files-dropped", "payload": [chosen]}), 10_000)
        .unwrap()
        .expect("the page may emit app events");
    wait_until("the dropped file to be imported", WAIT, || notice(&s).contains("Imported letter.docx"));

    // Translate the contract: formal German, one candidate per sentence (the 0.5B model on the CPU).
    s.click_css(r#"[data-testid="tab-translate"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="translate-document"] option:nth-child(3)"#, WAIT).expect("both documents are offered");
    s.pick_translate_source("contract.docx", MODEL, 1).unwrap();
    // Another process (the CLI, say) opens and closes the store while the app has it open: the app's connections
    // must keep working (this once cost the app its view of the database: "file is not a database").
    assert_eq!(Store::open(&db).unwrap().list_documents(1).unwrap().len(), 2);
    s.click_css(r#"[data-testid="translate-run"]"#, WAIT).unwrap();
    wait_until("the translation to finish", Duration::from_secs(540), || {
        s.execute(r#"return document.querySelector('[data-testid="translate-progress"]') === null"#, vec![]).unwrap() == true
    });
    assert_eq!(rows(&s).len(), sentences, "every sentence has a row");
    let export_label = s.text(&s.wait_for(r#"[data-testid="translate-export"]"#, WAIT).unwrap()).unwrap();
    assert_eq!(export_label, "Export DOCX…", "Export offers the document's own format (status bar: {})", notice(&s));
    assert!((0..sentences).all(|i| row_attr(&s, i, "data-status") == "translated"));
    s.screenshot(&screenshot_path("translate-review-grid.png")).unwrap();

    // Ctrl+Enter approves the first sentence and puts the caret in the second.
    let first = output(&s, 0);
    s.click(&first).unwrap();
    s.send_keys(&first, &format!("{}{}", keys::CONTROL, keys::ENTER)).unwrap();
    override_if_asked(&s, 0);
    wait_until("segment 1 to be approved", WAIT, || row_attr(&s, 0, "data-status") == "approved");
    wait_until("the caret to move on", WAIT, || focused_index(&s) == Some(1));
    // An edit, then Ctrl+Enter: the edit is stored and approved.
    let second = output(&s, 1);
    s.send_keys(&second, &format!("{} Danke.{}{}", keys::END, keys::CONTROL, keys::ENTER)).unwrap();
    override_if_asked(&s, 1);
    wait_until("segment 2 to be approved", WAIT, || row_attr(&s, 1, "data-status") == "approved");
    // ↓ moves without approving.
    s.send_keys(&output(&s, 2), keys::ARROW_DOWN).unwrap();
    wait_until("↓ to reach segment 4", WAIT, || focused_index(&s) == Some(3));
    s.send_keys(&output(&s, 3), keys::ARROW_UP).unwrap();
    wait_until("↑ to go back to segment 3", WAIT, || focused_index(&s) == Some(2));
    assert_eq!(row_attr(&s, 2, "data-status"), "translated", "moving does not approve");

    // An informal edit in a formal document is flagged; Ctrl+Shift+R repairs it into the formal register.
    let fourth = output(&s, 3);
    s.type_text(&fourth, "Kannst du die Bedingungen lesen?").unwrap();
    s.send_keys(&fourth, keys::ENTER).unwrap();
    wait_until("the informal edit to be flagged", WAIT, || row_attr(&s, 3, "class").contains("flagged"));
    assert_eq!(row_attr(&s, 3, "data-status"), "translated", "an edit with an open flag is not reviewed");
    let fourth = output(&s, 3);
    let flag_text = |s: &Session| {
        s.execute(
            r#"const f = document.querySelector('[data-testid="translate-row"][data-index="3"] [data-testid="translate-flag"]'); return f ? f.textContent : ''"#,
            vec![],
        )
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_string()
    };
    assert!(flag_text(&s).to_lowercase().contains("informal instead of formal"), "the edit's flag names its register: {}", flag_text(&s));
    s.send_keys(&fourth, &format!("{}{}R", keys::CONTROL, keys::SHIFT)).unwrap();
    let output_text = |s: &Session| {
        s.execute(r#"return document.querySelector('[data-testid="translate-row"][data-index="3"] [data-testid="translate-output"]').textContent"#, vec![])
            .unwrap()
    };
    wait_until("the repair", WAIT, || output_text(&s) == "Können Sie die Bedingungen lesen?");
    // The register's part of the flag is gone; the checks ran again on the repaired text, so a flag of another check
    // (the meaning check of a sentence the test typed in) may stay, and says so.
    wait_until("the register flag to clear", WAIT, || !flag_text(&s).to_lowercase().contains("instead of formal"));
    let repaired = output_text(&s);
    assert_eq!(repaired, "Können Sie die Bedingungen lesen?", "repaired into the formal register");
    assert_eq!(row_attr(&s, 3, "data-status"), "translated", "a repair is the machine's text, checked again");

    // Filters: the unapproved segments, then back to all.
    set_filter(&s, "unapproved");
    assert_eq!(visible_rows(&s), sentences as u64 - 2);
    set_filter(&s, "all");
    assert_eq!(visible_rows(&s), sentences as u64);
    let summary = s.text(&s.wait_for(r#"[data-testid="translate-summary"]"#, WAIT).unwrap()).unwrap();
    assert!(summary.contains("2 approved"), "{summary}");
    s.screenshot(&screenshot_path("translate-review-approved.png")).unwrap();

    // Export: the same DOCX with the German text.
    s.click_css(r#"[data-testid="translate-export"]"#, WAIT).unwrap();
    // QA errors in the model's output (a tag it dropped, say) stop the export until the translator says otherwise.
    wait_until("the export or its QA question", WAIT, || {
        notice(&s).starts_with("Saved") || !s.find_all(r#"[data-testid="override-dialog"]"#).unwrap().is_empty()
    });
    if let Some(dialog) = s.find_all(r#"[data-testid="override-dialog"]"#).unwrap().first() {
        let question = s.text(dialog).unwrap();
        assert!(question.contains("quality check found") && question.contains("Export anyway"), "{question}");
        println!("translate_review: export asked first: {question}");
        let reason = s.wait_for(r#"[data-testid="override-reason"]"#, WAIT).unwrap();
        s.type_text(&reason, "a draft for the client").unwrap();
        s.click_css(r#"[data-testid="override-ok"]"#, WAIT).unwrap();
        wait_until("the export", WAIT, || notice(&s).starts_with("Saved"));
    }
    let n = notice(&s);
    assert!(n.contains("DOCX") && n.contains(&format!("{sentences} of {sentences} sentences")), "{n}");
    let bytes = std::fs::read(&exported).expect("the DOCX is written where the user chose");
    let doc = registro_formats::import(&bytes, registro_formats::Format::Docx).expect("the export opens as DOCX");
    let original = registro_formats::import(&std::fs::read(&contract).unwrap(), registro_formats::Format::Docx).unwrap();
    assert_eq!(doc.segments.len(), original.segments.len(), "paragraphs, cells, header and footer are all there");
    let text: Vec<String> = doc.segments.iter().map(|s| s.source.clone()).collect();
    assert!(text.iter().any(|t| t.contains("Danke.")), "the reviewer's edit is in the file: {text:?}");
    assert!(text.iter().any(|t| t.contains("Können Sie")), "the repair is in the file: {text:?}");
    assert_ne!(text, original.segments.iter().map(|s| s.source.clone()).collect::<Vec<_>>(), "the text changed");
    let part = zip_part;
    for tag in ["<w:tbl>", "<w:b/>", "<w:headerReference", "<w:footerReference"] {
        assert_eq!(
            part(&bytes, "word/document.xml").matches(tag).count(),
            part(&std::fs::read(&contract).unwrap(), "word/document.xml").matches(tag).count(),
            "{tag} kept"
        );
    }

    // TMX: the approved segments only.
    s.click_css(r#"[data-testid="translate-export-tmx"]"#, WAIT).unwrap();
    wait_until("the TMX export", WAIT, || notice(&s).contains("TMX"));
    let tm = std::fs::read_to_string(&tmx).expect("the TMX is written");
    assert_eq!(tm.matches("<tu>").count(), 2, "{tm}");
    assert!(tm.contains("Danke."), "{tm}");
    s.close().unwrap();

    // A new window: the run reopens with its statuses.
    let store = Store::open(&db).unwrap();
    let run = store.list_runs(&Default::default()).unwrap()[0].id;
    let statuses = store.output_statuses(run).unwrap();
    assert_eq!(statuses.iter().filter(|(_, st)| *st == SegmentStatus::Approved).count(), 2);
    assert_eq!(statuses[3].1, SegmentStatus::Translated, "repaired by the machine, not signed off");
    drop(store);
    let s = Session::in_project(&db, dir.path(), &[], "Contracts", Some("translate")).unwrap();
    s.wait_for(&format!(r#"[data-testid="translate-open-run"] option[value="{run}"]"#), WAIT).unwrap();
    s.execute(
        &format!(r#"const p = document.querySelector('[data-testid="translate-open-run"]'); p.value = '{run}'; p.dispatchEvent(new Event('change'));"#),
        vec![],
    )
    .unwrap();
    s.wait_for_count(r#"[data-testid="translate-row"]"#, sentences, WAIT).unwrap();
    assert_eq!(row_attr(&s, 0, "data-status"), "approved");
    assert_eq!(row_attr(&s, 3, "data-status"), "translated");
    s.screenshot(&screenshot_path("translate-review-reopened.png")).unwrap();

    // The next version of the contract: what was approved comes back as a 100% translation-memory match.
    s.pick_translate_source("contract.docx", MODEL, 1).unwrap();
    s.click_css(r#"[data-testid="translate-run"]"#, WAIT).unwrap();
    wait_until("the second run to be shown", Duration::from_secs(540), || {
        s.execute(r#"return document.querySelector('[data-testid="translate-progress"]') === null"#, vec![]).unwrap() == true
            && row_attr(&s, 1, "data-status") == "translated"
    });
    let tm = s.wait_for(r#"[data-testid="translate-row"][data-index="1"] [data-testid="translate-tm"]"#, WAIT).expect("a TM match for the approved sentence");
    assert_eq!(s.text(&tm).unwrap(), "TM 100%");
    s.click_css(r#"[data-testid="translate-row"][data-index="1"] [data-testid="translate-use-tm"]"#, WAIT).unwrap();
    wait_until("the TM translation to be used", WAIT, || {
        s.execute(r#"return document.querySelector('[data-testid="translate-row"][data-index="1"] [data-testid="translate-output"]').textContent"#, vec![])
            .unwrap()
            .as_str()
            .is_some_and(|t| t.ends_with("Danke."))
    });
    // A TM match taken is a person's choice: reviewed, unless a check still flags it against the new source (then it
    // stays "translated" with the flag shown, as any edit with an open flag does).
    let flagged = row_attr(&s, 1, "class").contains("flagged");
    assert_eq!(row_attr(&s, 1, "data-status"), if flagged { "translated" } else { "reviewed" }, "a TM match taken (flagged: {flagged})");
    s.screenshot(&screenshot_path("translate-review-tm.png")).unwrap();
    s.close().unwrap();
}

/// One part of a zip file, as text (the DOCX's XML).
fn zip_part(bytes: &[u8], name: &str) -> String {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a DOCX is a zip");
    let mut text = String::new();
    zip.by_name(name).unwrap_or_else(|e| panic!("{name} is in the package: {e}")).read_to_string(&mut text).unwrap();
    text
}

/// Ctrl+Enter on a segment the checks still flag asks for an override before approving it (issue 43): the 0.5B
/// model's output for a sentence may or may not be flagged ("Service Agreement" came back as "Empfangsbalken",
/// rightly flagged), so the test answers the question when it is asked and checks that it names the flag.
fn override_if_asked(s: &Session, i: usize) {
    let dialog = r#"[data-testid="override-dialog"]"#;
    wait_until("the approval or the override question", WAIT, || {
        row_attr(s, i, "data-status") == "approved" || !s.find_all(dialog).unwrap().is_empty()
    });
    if s.find_all(dialog).unwrap().is_empty() {
        return;
    }
    let question = s.text(&s.wait_for(r#"[data-testid="override-message"]"#, WAIT).unwrap()).unwrap();
    assert!(question.contains("still flagged"), "{question}");
    let reason = s.wait_for(r#"[data-testid="override-reason"]"#, WAIT).unwrap();
    s.type_text(&reason, "checked against the contract by the reviewer").unwrap();
    s.click_css(r#"[data-testid="override-ok"]"#, WAIT).unwrap();
}

/// Stores a formal Italian run whose only segment is still English and flagged (as the control layer stores it).
fn stored_english_run(db: &Path) -> i64 {
    use registro_core::translate::{check_output, Lang, Register};
    let mut store = Store::open(db).unwrap();
    let project = store.create_project("Client").unwrap().id;
    let pairs = [("hey, can you send me the file by friday?", "Hey, can you send me the file by Friday?")];
    let run = registro_testkit::StoredTranslation { project, doc_name: "mail.txt", target_lang: "it", register: Some("formal"), pairs: &pairs, params: None }
        .store(&mut store);
    let mut out = store.output(run, 0).unwrap().unwrap();
    let c = check_output(Lang::It, Register::Formal, Some(pairs[0].0), pairs[0].1);
    out.flagged = c.flagged;
    out.flag_reason = c.flag_reason;
    store.put_output(run, &out).unwrap();
    run
}

/// Issue 43: Repair on a segment still in English used to clear the flag and say "reviewed". Now the checks run
/// again on the repaired text: the flag stays, the status stays `translated`, and approving it asks for an
/// override whose reason is stored and shown. Writes `translate-review-repair-keeps-flag.png` and
/// `translate-review-override.png`.
#[test]
fn repair_keeps_the_flag_of_a_segment_still_in_english_and_approving_it_needs_an_override() {
    if !ready_or_skip("repair_keeps_the_flag_of_a_segment_still_in_english_and_approving_it_needs_an_override") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("registro.db");
    let run = stored_english_run(&db);
    let s = Session::in_project(&db, dir.path(), &[], "Client", Some("translate")).expect("the app opens the project");
    s.wait_for(&format!(r#"[data-testid="translate-open-run"] option[value="{run}"]"#), WAIT).unwrap();
    s.execute(
        &format!(r#"const p = document.querySelector('[data-testid="translate-open-run"]'); p.value = '{run}'; p.dispatchEvent(new Event('change'));"#),
        vec![],
    )
    .unwrap();
    s.wait_for_count(r#"[data-testid="translate-row"]"#, 1, WAIT).unwrap();
    assert!(row_attr(&s, 0, "class").contains("flagged"));
    let flag = s.text(&s.wait_for(r#"[data-testid="translate-flag"]"#, WAIT).unwrap()).unwrap();
    assert!(flag.contains("untranslated"), "{flag}");

    s.click_css(r#"[data-testid="translate-repair"]"#, WAIT).unwrap();
    wait_until("Repair to answer", WAIT, || notice(&s).contains("still flagged"));
    assert!(row_attr(&s, 0, "class").contains("flagged"), "the flag stays: the text is still English");
    assert_eq!(row_attr(&s, 0, "data-status"), "translated", "not reviewed");
    let flag = s.text(&s.wait_for(r#"[data-testid="translate-flag"]"#, WAIT).unwrap()).unwrap();
    assert!(flag.contains("untranslated"), "{flag}");
    s.screenshot(&screenshot_path("translate-review-repair-keeps-flag.png")).unwrap();

    // Approving asks for an override; Cancel leaves the segment as it was.
    s.click_css(r#"[data-testid="translate-approve"]"#, WAIT).unwrap();
    let question = s.text(&s.wait_for(r#"[data-testid="override-message"]"#, WAIT).unwrap()).unwrap();
    assert!(question.contains("still flagged") && question.contains("untranslated"), "{question}");
    s.click_css(r#"[data-testid="override-cancel"]"#, WAIT).unwrap();
    assert_eq!(row_attr(&s, 0, "data-status"), "translated");
    s.click_css(r#"[data-testid="translate-approve"]"#, WAIT).unwrap();
    let reason = s.wait_for(r#"[data-testid="override-reason"]"#, WAIT).unwrap();
    s.type_text(&reason, "the client keeps this line in English").unwrap();
    s.click_css(r#"[data-testid="override-ok"]"#, WAIT).unwrap();
    wait_until("the approval with its override", WAIT, || row_attr(&s, 0, "data-status") == "approved");
    let shown = s.text(&s.wait_for(r#"[data-testid="translate-override"]"#, WAIT).unwrap()).unwrap();
    assert!(shown.contains("flag overridden by") && shown.contains("the client keeps this line in English"), "{shown}");
    s.screenshot(&screenshot_path("translate-review-override.png")).unwrap();
    s.close().unwrap();

    let store = Store::open(&db).unwrap();
    let o = store.overrides(run).unwrap();
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].reason, "the client keeps this line in English");
    assert!(store.output(run, 0).unwrap().unwrap().flagged, "overridden, not cleared");
}
