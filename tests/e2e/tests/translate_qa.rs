//! The Translate view's quality check in the real window: a stored formal EN→DE run that mixes du and Sie, changes
//! a number and drops a tag is checked with a termbase picked in the (pre-answered) dialog; the panel says the
//! register is mixed, lists each finding with its words marked and that the export is blocked; "Make consistent"
//! repairs the du segment in the run. Writes `tests/e2e/screenshots/translate-qa.png` (before the fix) and
//! `translate-qa-fixed.png`.
mod common;

use std::time::Duration;

use registro_e2e::{screenshot_path, Session};
use registro_store::Store;
use registro_testkit::StoredTranslation;

const WAIT: Duration = Duration::from_secs(30);

const PAIRS: [(&str, &str); 5] = [
    (
        "Can you send me the invoice?",
        "Können Sie mir die Rechnung schicken?",
    ),
    ("Do you have time tomorrow?", "Hast du morgen Zeit?"),
    (
        "The meeting starts at 10:30.",
        "Das Treffen beginnt um 11:30.",
    ),
    (
        "Click <1>Save</1> to keep your changes.",
        "Klicken Sie auf Speichern</1>, um Ihre Änderungen zu behalten.",
    ),
    (
        "Please pay the invoice by Friday.",
        "Bitte bezahlen Sie die Faktura bis Freitag.",
    ),
];

fn stored_run(db: &std::path::Path) -> i64 {
    let mut store = Store::open(db).unwrap();
    let project = store.create_project("Client").unwrap().id;
    StoredTranslation { project, doc_name: "letter.xlf", target_lang: "de", register: Some("formal"), pairs: &PAIRS, params: None }
        .store(&mut store)
}

#[test]
fn the_quality_check_finds_mixed_register_and_makes_the_document_consistent() {
    let Some((dir, db)) = common::ready_temp_store("the_quality_check_finds_mixed_register_and_makes_the_document_consistent") else { return };
    let run = stored_run(&db);
    let tb = dir.path().join("client-terms.tsv");
    std::fs::write(
        &tb,
        "source\ttarget\tforbidden\ninvoice\tRechnung\tFaktura\n",
    )
    .unwrap();

    let s = Session::in_project(&db, dir.path(), &[Some(tb.as_path())], "Client", Some("translate"))
        .expect("the app opens the project");
    s.wait_for(
        &format!(r#"[data-testid="qa-run"] option[value="{run}"]"#),
        WAIT,
    )
    .expect("the stored run is offered");
    s.click_css(r#"[data-testid="qa-termbase"]"#, WAIT).unwrap();
    let name = s
        .wait_for(r#"[data-testid="qa-termbase-name"]"#, WAIT)
        .unwrap();
    for _ in 0..50 {
        if s.text(&name).unwrap() == "client-terms.tsv" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(s.text(&name).unwrap(), "client-terms.tsv");
    s.click_css(r#"[data-testid="qa-check"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="qa-issue"]"#, WAIT)
        .expect("findings are listed");

    let register = s
        .text(
            &s.wait_for(r#"[data-testid="qa-register"][data-mixed="1"]"#, WAIT)
                .unwrap(),
        )
        .unwrap();
    assert_eq!(
        register,
        "Register: MIXED — Sie ×3, du ×1; the document is formal; deviating: 2"
    );
    let summary = s
        .text(&s.wait_for(r#"[data-testid="qa-summary"]"#, WAIT).unwrap())
        .unwrap();
    assert!(
        summary.starts_with("4 errors · 1 warning · export blocked"),
        "{summary}"
    );
    assert!(
        summary.contains("terms: 2 found, 1 missing, 1 forbidden"),
        "{summary}"
    );
    let kinds: Vec<String> = s
        .texts(r#"[data-testid="qa-issue"]"#)
        .unwrap();
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    assert!(
        kinds[0].contains("register") && kinds[0].contains("du in a formal document (Sie)"),
        "{kinds:?}"
    );
    assert!(
        kinds[1].contains("numbers differ: 10 missing; 11 not in the source"),
        "{kinds:?}"
    );
    assert!(kinds[2].contains("inline tag <1> missing"), "{kinds:?}");
    assert!(kinds[3].contains("forbidden term \"Faktura\""), "{kinds:?}");
    assert!(
        kinds[4].contains("term-missing") && kinds[4].contains("needs \"Rechnung\""),
        "{kinds:?}"
    );
    let marks: Vec<String> = s
        .texts(r#"[data-testid="qa-span"]"#)
        .unwrap();
    assert_eq!(
        marks,
        ["Hast", "du", "Faktura"],
        "the words each finding is about are marked"
    );
    s.execute(
        r#"document.querySelector('[data-testid="qa-panel"]').scrollIntoView()"#,
        vec![],
    )
    .unwrap();
    s.screenshot(&screenshot_path("translate-qa.png")).unwrap();

    s.click_css(r#"[data-testid="qa-fix"]"#, WAIT).unwrap();
    let fixed = s
        .wait_for(r#"[data-testid="qa-register"][data-mixed="0"]"#, WAIT)
        .expect("the register is consistent after the fix");
    assert_eq!(s.text(&fixed).unwrap(), "Register: consistent — Sie ×4");
    let fixes = s
        .text(&s.wait_for(r#"[data-testid="qa-fixes"]"#, WAIT).unwrap())
        .unwrap();
    assert!(fixes.starts_with("1 segment repaired"), "{fixes}");
    s.execute(
        r#"document.querySelector('[data-testid="qa-panel"]').scrollIntoView()"#,
        vec![],
    )
    .unwrap();
    s.screenshot(&screenshot_path("translate-qa-fixed.png"))
        .unwrap();
    s.close().unwrap();

    let store = Store::open(&db).unwrap();
    let out = store.output(run, 1).unwrap().unwrap();
    assert_eq!(out.text, "Haben Sie morgen Zeit?");
    assert_eq!(
        registro_core::qa::text_before_fixes(&out).as_deref(),
        Some("Hast du morgen Zeit?")
    );
}
