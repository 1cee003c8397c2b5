//! Settings → Backends in the real window, against a real OpenAI-compatible server (llama-cpp-python serving the
//! 0.5B GGUF on 127.0.0.1): Test connection shows what the server honours, the Translate view's model picker then
//! offers the backend beside the local models, and a translation runs through it into a stored run. The API key
//! typed in Settings goes to the OS keyring (GNOME Keyring on scripts/e2e.sh's session bus) and reaches neither the
//! page's storage, the database nor the run; a second Test connection with the field empty finds it there. Writes
//! `tests/e2e/screenshots/backends.png` and `translate-remote.png`.

use std::time::Duration;

use registro_e2e::{app_args, app_binary, ready_or_skip, screenshot_path, temp_project, Session};
use registro_store::{RunStatus, Store};
use registro_testkit::llama_server::LlamaServer;

const WAIT: Duration = Duration::from_secs(30);
const SECRET: &str = "sk-e2e-do-not-store-4242";

/// llama-cpp-python's server on the 0.5B GGUF on a free port, logging into `dir`.
fn llama_server(dir: &std::path::Path) -> LlamaServer {
    let gguf = registro_core::models::resolve("qwen2.5-coder-0.5b-instruct")
        .expect("the 0.5B model is cached")
        .main;
    LlamaServer::start(&gguf, 0, dir)
}

#[test]
fn settings_backends_connects_and_translate_runs_through_the_server() {
    if !ready_or_skip("settings_backends_connects_and_translate_runs_through_the_server") {
        return;
    }
    let (dir, db) = temp_project("Agency");
    let server = llama_server(dir.path());
    let url = server.url();

    let s = Session::start(&app_binary(), &app_args(&db, dir.path(), &[])).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT)
        .expect("the UI becomes ready");
    s.click_css(r#"[data-testid="open-settings"]"#, WAIT)
        .unwrap();
    s.click_css(r#"[data-testid="settings-backends"]"#, WAIT)
        .expect("Settings has a Backends section");

    // A wrong address first: a clear error, no crash.
    let url_box = s.wait_for(r#"[data-testid="backend-url"]"#, WAIT).unwrap();
    s.type_text(&url_box, "127.0.0.1:1").unwrap();
    s.click_css(r#"[data-testid="backend-test"]"#, WAIT)
        .unwrap();
    let err = s
        .text(
            &s.wait_for(r#"[data-testid="backend-error"]"#, WAIT)
                .expect("a bad URL is an error"),
        )
        .unwrap();
    assert!(
        err.contains("no scheme") && err.contains("http://"),
        "{err}"
    );

    s.execute(
        r#"document.querySelector('[data-testid="backend-url"]').value = ''"#,
        vec![],
    )
    .unwrap();
    s.type_text(&url_box, &url).unwrap();
    s.type_text(
        &s.wait_for(r#"[data-testid="backend-key"]"#, WAIT).unwrap(),
        SECRET,
    )
    .unwrap();
    s.click_css(r#"[data-testid="backend-test"]"#, WAIT)
        .unwrap();
    // The probe's findings: llama-cpp-python scores and bans, and ignores n.
    s.wait_for(
        r#"[data-testid="backend-cap"][data-cap="logit_bias"][data-on="1"]"#,
        Duration::from_secs(120),
    )
    .expect("the probe answers");
    assert_eq!(
        s.find_all(r#"[data-testid="backend-cap"][data-cap="logprobs"][data-on="1"]"#)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        s.find_all(r#"[data-testid="backend-cap"][data-cap="n"][data-on="0"]"#)
            .unwrap()
            .len(),
        1
    );
    let result = s
        .text(
            &s.wait_for(r#"[data-testid="backend-result"]"#, WAIT)
                .unwrap(),
        )
        .unwrap();
    assert!(
        result.contains("qwen2.5-coder-0.5b-instruct")
            && result.contains("key stored in the keyring")
            && result.contains("seeded requests"),
        "{result}"
    );
    assert!(!result.contains(SECRET));
    s.screenshot(&screenshot_path("backends.png")).unwrap();
    let key_left = s
        .execute(
            r#"return document.querySelector('[data-testid="backend-key"]').value"#,
            vec![],
        )
        .unwrap();
    assert_eq!(
        key_left.as_str(),
        Some(""),
        "the key field is emptied after the test"
    );
    // Again with the field empty: the key now comes from the keyring, not from the page.
    s.execute(
        r#"document.querySelector('[data-testid="backend-key-source"]').remove()"#,
        vec![],
    )
    .unwrap();
    s.click_css(r#"[data-testid="backend-test"]"#, WAIT)
        .unwrap();
    s.wait_for(
        r#"[data-testid="backend-key-source"][data-source="keyring"]"#,
        Duration::from_secs(120),
    )
    .expect("the second connection reads the key from the keyring");
    let storage = s
        .execute("return JSON.stringify(localStorage)", vec![])
        .unwrap();
    assert!(
        !storage.as_str().unwrap_or_default().contains(SECRET),
        "the page stored the key: {storage}"
    );
    s.click_css(r#"[data-testid="settings-close"]"#, WAIT)
        .unwrap();

    // Translate: the picker offers the backend beside the local models, and the translation runs through it.
    s.click_css(
        r#"[data-testid="project-item"][data-project-name="Agency"] [data-testid="open-project"]"#,
        WAIT,
    )
    .unwrap();
    s.click_css(r#"[data-testid="tab-translate"]"#, WAIT)
        .unwrap();
    s.wait_for(r#"[data-testid="translate-model-remote"]"#, WAIT)
        .expect("the picker lists the backend");
    let options = s.execute(r#"return [...document.querySelectorAll('#translate-models option')].map(o => o.value)"#, vec![]).unwrap();
    let options: Vec<String> = serde_json::from_value(options).unwrap();
    assert!(
        options[0].starts_with("remote:")
            && options.iter().any(|o| o == "qwen2.5-coder-0.5b-instruct"),
        "{options:?}"
    );
    let picked = s
        .execute(
            r#"return document.querySelector('[data-testid="translate-model"]').value"#,
            vec![],
        )
        .unwrap();
    assert!(picked.as_str().unwrap().starts_with("remote:"), "{picked}");
    s.execute(
        r#"const n = document.querySelector('[data-testid="translate-nbest"]'); n.value = '2'"#,
        vec![],
    )
    .unwrap();
    s.wait_for(r#"[data-testid="translate-source"]"#, WAIT)
        .unwrap();
    // Two lines, two segments (set directly: typed keys would turn the newline into Enter).
    s.execute(
        r#"const t = document.querySelector('[data-testid="translate-source"]'); t.value = 'Thank you for your help.\nWhere do you live?'; t.dispatchEvent(new Event('input', { bubbles: true }))"#,
        vec![],
    )
    .unwrap();
    s.click_css(r#"[data-testid="translate-run"]"#, WAIT)
        .unwrap();
    let rows = s
        .wait_for_count(
            r#"[data-testid="translate-row"]"#,
            2,
            Duration::from_secs(400),
        )
        .expect("both segments come back");
    assert_eq!(rows.len(), 2);
    let first = s
        .text_css(r#"[data-testid="translate-row"][data-index="0"] [data-testid="translate-output"]"#, WAIT)
        .unwrap();
    assert!(!first.trim().is_empty());
    s.screenshot(&screenshot_path("translate-remote.png"))
        .unwrap();
    s.close().unwrap();

    let store = Store::open(&db).unwrap();
    let runs = store.list_runs(&Default::default()).unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.status, RunStatus::Done);
    assert!(
        run.model_id.as_deref().unwrap().starts_with("remote:"),
        "{:?}",
        run.model_id
    );
    assert_eq!(run.params["backend"]["url"], url);
    assert_eq!(store.outputs(run.id).unwrap().len(), 2);
    drop(store);
    let bytes = std::fs::read(&db).unwrap();
    assert!(
        !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
        "the API key reached the database"
    );
}
