//! "Open with Registro": the app started with a file on its command line (what the desktop entry's
//! `Exec=registro-app %f` does when a translator double-clicks an .xlf) opens that file in the Translate view as the
//! source document, with its segments listed. With no project open the file goes into an "Opened files" project.
//! A name that is not a file is a start-up warning, not a crash. Writes `tests/e2e/screenshots/open-with.png`.
//!
//! Runs on the built app, or on a packaged one with `REGISTRO_APP_BIN=<root>/usr/bin/registro-app`.
mod common;

use std::time::Duration;

use registro_e2e::{screenshot_path, wait_until, Session};

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn a_file_named_on_the_command_line_opens_in_the_translate_view() {
    let Some((dir, db)) = common::ready_temp_store("a_file_named_on_the_command_line_opens_in_the_translate_view") else {
        return;
    };
    // A name with a space, as file managers pass them (one argument, no quoting).
    let file = dir.path().join("Service agreement.xlf");
    std::fs::copy(common::format_fixture("okapi.xlf"), &file).unwrap();
    let args = vec!["--db".to_string(), db.display().to_string(), file.display().to_string()];
    let s = Session::start(&registro_e2e::app_binary(), &args).unwrap();
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).unwrap();

    // The Translate view is shown, with the file picked as its source and its three units listed.
    wait_until("the opened file's segments in the Translate view", WAIT, || {
        s.find_all(r#"[data-view="translate"]:not([hidden]) [data-testid="translate-segments"] .tr-segrow"#).unwrap().len() == 3
    });
    let notice = || s.text_css(r#"[data-testid="notice"]"#, WAIT).unwrap();
    wait_until("the notice that the file was opened", WAIT, || notice().contains("Opened Service agreement.xlf: 3 segments"));
    let selected = s
        .execute(
            r#"const d = document.querySelector('[data-testid="translate-document"]');
               return d.options[d.selectedIndex].textContent"#,
            vec![],
        )
        .unwrap();
    assert_eq!(selected, "Service agreement.xlf", "the opened file is the Translate view's source");
    // Shown, not only in the page: the list is open and scrolled into view. (Read through the page: WebDriver's
    // element text is empty inside a <details> here, open or not.)
    let shown = s
        .execute(
            r#"const d = document.querySelector('[data-testid="translate-seg-details"]');
               const r = d.querySelector('.tr-segrow').getBoundingClientRect();
               return d.open && r.top >= 0 && r.bottom <= window.innerHeight"#,
            vec![],
        )
        .unwrap();
    assert_eq!(shown, true, "the segment list is open and in view");
    s.screenshot(&screenshot_path("open-with.png")).unwrap();
    let rows: Vec<String> = serde_json::from_value(
        s.execute(r#"return [...document.querySelectorAll('[data-testid="translate-segments"] .tr-segrow .grow')].map((e) => e.textContent)"#, vec![])
            .unwrap(),
    )
    .unwrap();
    assert!(rows[0].contains("Service") && rows[0].contains("Agreement"), "{rows:?}");
    assert!(rows[1].contains("Please sign") && rows[1].contains("by Friday"), "{rows:?}");
    assert!(rows[2].starts_with("Total:"), "{rows:?}");
    let tab = s.execute(r#"return document.querySelector('[data-testid="tab-translate"]').getAttribute('aria-selected')"#, vec![]).unwrap();
    assert_eq!(tab, "true", "the Translate tab is the one shown");
    // No project was open: the file went into "Opened files", which is now the open project.
    s.wait_for(r#"[data-testid="project-item"].selected[data-project-name="Opened files"]"#, WAIT).unwrap();
    s.close().unwrap();

    // Stored like any import: the document is in the project with its three segments.
    let store = registro_store::Store::open(&db).unwrap();
    let project = store.list_projects().unwrap().into_iter().find(|p| p.name == "Opened files").expect("the project");
    let docs = store.list_documents(project.id).unwrap();
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].name, "Service agreement.xlf");
}

#[test]
fn a_name_that_is_not_a_file_is_a_warning_and_nothing_is_imported() {
    let Some((dir, db)) = common::ready_temp_store("a_name_that_is_not_a_file_is_a_warning_and_nothing_is_imported") else {
        return;
    };
    let gone = dir.path().join("gone.xlf");
    let args = vec!["--db".to_string(), db.display().to_string(), gone.display().to_string()];
    let s = Session::start(&registro_e2e::app_binary(), &args).unwrap();
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).unwrap();
    let warnings = s.texts(r#"[data-testid="startup-problem"][data-level="warning"]"#).unwrap();
    assert!(
        warnings.iter().any(|w| w.contains(&format!("Registro was asked to open {}", gone.display())) && w.contains("cannot be read")),
        "{warnings:?}"
    );
    assert!(s.find_all(r#"[data-testid="project-item"][data-project-name="Opened files"]"#).unwrap().is_empty());
    s.close().unwrap();
}
