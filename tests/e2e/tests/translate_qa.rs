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
        summary.contains(&format!("Run {run} · de · formal: 4 errors · 1 warning · export blocked")),
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

/// Issue 43: the panel of one run showed another run's result (German "Sie ×4" under a Hindi and a French run). The
/// panel is keyed by run id: opening a run in the grid checks that run, and switching runs clears what was shown.
/// Writes `translate-qa-run-de.png` and `translate-qa-run-hi.png`.
#[test]
fn the_quality_panel_shows_the_run_open_in_the_grid_and_is_cleared_when_the_run_changes() {
    let Some((dir, db)) = common::ready_temp_store("the_quality_panel_shows_the_run_open_in_the_grid_and_is_cleared_when_the_run_changes") else { return };
    let german = stored_run(&db);
    let (hindi, french) = {
        let mut store = Store::open(&db).unwrap();
        let project = store.find_project("Client").unwrap().id;
        let hi = StoredTranslation {
            project,
            doc_name: "note-hi.txt",
            target_lang: "hi",
            register: Some("formal"),
            pairs: &[("Can you send me the invoice?", "क्या आप मुझे बिल भेज सकते हैं?"), ("Thank you very much.", "आपका बहुत धन्यवाद।")],
            params: None,
        }
        .store(&mut store);
        let fr = StoredTranslation {
            project,
            doc_name: "note-fr.txt",
            target_lang: "fr",
            register: Some("formal"),
            pairs: &[("Can you send me the invoice?", "Pouvez-vous m'envoyer la facture ?")],
            params: None,
        }
        .store(&mut store);
        (hi, fr)
    };
    let s = Session::in_project(&db, dir.path(), &[], "Client", Some("translate")).expect("the app opens the project");
    let open = |run: i64| {
        s.wait_for(&format!(r#"[data-testid="translate-open-run"] option[value="{run}"]"#), WAIT).unwrap();
        s.execute(
            &format!(r#"const p = document.querySelector('[data-testid="translate-open-run"]'); p.value = '{run}'; p.dispatchEvent(new Event('change'));"#),
            vec![],
        )
        .unwrap();
    };
    let panel_run = || -> String {
        s.execute(r#"return document.querySelector('[data-testid="qa-panel"]').dataset.run || ''"#, vec![]).unwrap().as_str().unwrap_or_default().to_string()
    };
    let summary = || s.text(&s.wait_for(r#"[data-testid="qa-summary"]"#, WAIT).unwrap()).unwrap();
    let register = || s.text(&s.wait_for(r#"[data-testid="qa-register"]"#, WAIT).unwrap()).unwrap();
    let scroll = || {
        s.execute(r#"document.querySelector('[data-testid="qa-panel"]').scrollIntoView()"#, vec![]).unwrap();
    };

    open(german);
    registro_e2e::wait_until("the German run's check", WAIT, || summary().starts_with(&format!("Run {german} · de")));
    assert_eq!(panel_run(), german.to_string());
    assert!(register().contains("Sie ×3, du ×1"), "{}", register());
    scroll();
    s.screenshot(&screenshot_path("translate-qa-run-de.png")).unwrap();

    for (run, lang) in [(hindi, "hi"), (french, "fr")] {
        open(run);
        registro_e2e::wait_until("the panel to follow the grid", WAIT, || summary().starts_with(&format!("Run {run} · {lang}")));
        assert_eq!(panel_run(), run.to_string());
        let picked = s.execute(r#"return document.querySelector('[data-testid="qa-run"]').value"#, vec![]).unwrap();
        assert_eq!(picked.as_str(), Some(run.to_string().as_str()), "the panel's run picker names the run shown");
        let reg = register();
        assert!(!reg.contains("Sie") && !reg.contains("du ×"), "no German result under run {run}: {reg}");
        let issues = s.texts(r#"[data-testid="qa-issue"]"#).unwrap();
        assert!(issues.iter().all(|i| !i.contains("Rechnung") && !i.contains("Hast")), "{issues:?}");
        if lang == "hi" {
            scroll();
            s.screenshot(&screenshot_path("translate-qa-run-hi.png")).unwrap();
        }
    }

    // Picking another run in the panel itself clears it and checks that run.
    s.execute(
        &format!(r#"const p = document.querySelector('[data-testid="qa-run"]'); p.value = '{german}'; p.dispatchEvent(new Event('change'));"#),
        vec![],
    )
    .unwrap();
    registro_e2e::wait_until("the panel to check the picked run", WAIT, || summary().starts_with(&format!("Run {german} · de")));
    s.close().unwrap();
}
