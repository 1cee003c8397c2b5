//! The foundation flow in the real window: create a project, import a document picked in the file dialog (the
//! dialog's answers are given to the app at start: WebDriver cannot drive a native dialog), see its segments,
//! close the app, start it again on the same database and find the project and segments again.
//! Writes `tests/e2e/screenshots/foundation.png` and prints how long the app took to become usable.
mod common;

use std::time::{Duration, Instant};

use registro_e2e::{screenshot_path, app_args, app_binary, Session};

const WAIT: Duration = Duration::from_secs(30);
const PROJECT: &str = "Letters to the council";
const LINES: [&str; 3] = [
    "hey, can u send me the report by friday?",
    "thx a lot for ur help yesterday!!",
    "gonna be late, sry — start without me",
];


/// Starts the app with `args` and waits until the first project list has loaded; returns the session and the
/// time from asking the driver for a window to a usable UI.
fn start_app(args: &[String]) -> (Session, Duration) {
    let t0 = Instant::now();
    let s = Session::start(&app_binary(), args).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");
    (s, t0.elapsed())
}

fn segment_texts(s: &Session) -> Vec<String> {
    let rows = s.wait_for_count(r#"[data-testid="segment-text"]"#, LINES.len(), WAIT).expect("all segments listed");
    rows.iter().map(|e| s.text(e).expect("segment text")).collect()
}

#[test]
fn create_import_reopen() {
    let Some((dir, db)) = common::ready_temp_store("create_import_reopen") else { return };
    let doc = dir.path().join("draft-informal.txt");
    std::fs::write(&doc, LINES.join("\n") + "\n").expect("write the document");

    let missing = dir.path().join("no-such-file.txt");
    // What the "user" picks in the file dialogs, in order: first a file that has gone, then the document.
    let answers = [Some(missing.as_path()), Some(doc.as_path())];

    // ---- first start: create, import, see segments ----
    let (s, first_start) = start_app(&app_args(&db, dir.path(), &answers));
    println!("app start to usable UI (first start, fresh database): {} ms", first_start.as_millis());
    assert_eq!(s.title().unwrap(), "Registro");
    s.wait_for(r#"[data-testid="welcome"]"#, WAIT).expect("a fresh database shows the welcome panel");

    let name = s.wait_for(r#"[data-testid="new-project-name"]"#, WAIT).unwrap();
    s.type_text(&name, PROJECT).unwrap();
    s.click_css(r#"[data-testid="create-project"]"#, WAIT).unwrap();
    s.wait_for(&format!(r#"[data-testid="project-item"][data-project-name="{PROJECT}"].selected"#), WAIT)
        .expect("the new project is listed and open");

    // A file that is gone gives a readable error naming it, and imports nothing.
    s.click_css(r#"[data-testid="import-browse"]"#, WAIT).unwrap();
    let err = s.wait_for(r#"[data-testid="import-error"]"#, WAIT).expect("an import error is shown");
    let msg = s.text(&err).unwrap();
    assert!(msg.contains("no-such-file.txt"), "the error names the file: {msg}");
    assert!(s.find_all(r#"[data-testid="document-item"]"#).unwrap().is_empty(), "nothing was imported");

    let summary = s.import_browsed().expect("the import finishes");
    assert!(summary.contains("3 segments"), "import summary: {summary}");
    s.wait_for(r#"[data-testid="document-item"][data-document-name="draft-informal.txt"]"#, WAIT)
        .expect("the document is listed under its file name");
    assert_eq!(segment_texts(&s), LINES, "the imported segments are shown in order");
    let sidebar = s.text(&s.wait_for(r#"[data-testid="project-item"]"#, WAIT).unwrap()).unwrap();
    assert!(sidebar.contains("1 document"), "sidebar counts the document: {sidebar}");
    s.screenshot(&screenshot_path("foundation-first-start.png")).unwrap();
    s.close().expect("closing the session closes the app");

    // ---- second start on the same database: everything is still there ----
    let (s, second_start) = start_app(&["--db".to_string(), db.display().to_string()]);
    println!("app start to usable UI (second start, existing database): {} ms", second_start.as_millis());
    s.click_css(&format!(r#"[data-testid="project-item"][data-project-name="{PROJECT}"] [data-testid="open-project"]"#), WAIT)
        .expect("the project survived the restart");
    s.click_css(r#"[data-testid="document-item"][data-document-name="draft-informal.txt"] [data-testid="open-document"]"#, WAIT)
        .expect("the document survived the restart");
    assert_eq!(segment_texts(&s), LINES, "the segments survived the restart");
    let shot = screenshot_path("foundation.png");
    s.screenshot(&shot).unwrap();
    println!("screenshot: {}", shot.display());

    // ---- deleting asks first; Cancel keeps the project, confirming removes it ----
    s.click_css(r#"[data-testid="delete-project"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="confirm-cancel"]"#, WAIT).unwrap();
    s.wait_for_count(r#"[data-testid="confirm-dialog"]"#, 0, WAIT).unwrap();
    assert_eq!(s.find_all(r#"[data-testid="project-item"]"#).unwrap().len(), 1, "Cancel keeps the project");
    s.click_css(r#"[data-testid="delete-project"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="confirm-ok"]"#, WAIT).unwrap();
    s.wait_for_count(r#"[data-testid="project-item"]"#, 0, WAIT).expect("confirming deletes the project");
    s.wait_for(r#"[data-testid="welcome"]"#, WAIT).expect("back to the welcome panel");
    s.close().unwrap();
}
