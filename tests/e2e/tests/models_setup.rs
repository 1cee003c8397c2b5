//! A first start in the real window, as a translator who installed the package meets it: no model on disk, so the
//! window opens on the setup card; Download fetches the default model from a real HTTP server on 127.0.0.1 (slowed
//! down, so Cancel lands mid-way), Cancel keeps the bytes, Continue resumes them — through a dropped connection too
//! — and the sha256-checked model becomes ready; Settings → Models then lists it ready, Verify passes, Remove
//! deletes it, and Import a GGUF (a dialog answered by the test) brings it back.
//!
//! The app gets an empty model cache (`REGISTRO_MODELS`) and a catalogue (`REGISTRO_CATALOGUE`) whose manifest for
//! the default model's id points at the local server. The file served is the real Qwen2.5-Coder-0.5B from the
//! model cache when it is there (`registro models fetch qwen2.5-coder-0.5b-instruct`); then three sentences are also
//! translated formally into Italian with the model just downloaded. Without it a generated file stands in and the
//! translation is skipped, saying so. `REGISTRO_APP_BIN` runs another build of the app (the packaged one).
//! Writes `tests/e2e/screenshots/setup-*.png` and `settings-models-*.png`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use registro_e2e::{app_args, app_binary, ready_or_skip, screenshot_path, temp_project, wait_until, Session};
use registro_store::{RunStatus, Store};
use registro_testkit::file_server::{Body, FileServer, Plan};
use serde_json::{json, Value};
use sha2::Digest;

const WAIT: Duration = Duration::from_secs(30);
/// The model a fresh install offers on its setup card.
const DEFAULT: &str = registro_core::models::DEFAULT_MODEL;
const SMALL_LLM: &str = "qwen2.5-coder-0.5b-instruct";
const SENTENCES: [&str; 3] = [
    "Thank you for your message; we will answer within two days.",
    "Could you send us the signed contract by Friday?",
    "Please let me know if you have any questions.",
];

/// What the local server serves: the file, its name in the cache, size, sha256, and whether it is a real LLM.
struct Served {
    path: PathBuf,
    name: String,
    bytes: u64,
    sha256: String,
    real: bool,
}

fn served(dir: &Path) -> Served {
    if let Ok(r) = registro_core::models::resolve_llm(SMALL_LLM) {
        let m = r.manifest.expect("a catalogue model");
        let f = m.main_file();
        return Served { path: r.main.clone(), name: f.name.clone(), bytes: f.bytes, sha256: f.sha256.clone(), real: true };
    }
    println!("note: {SMALL_LLM} is not in the model cache (registro models fetch {SMALL_LLM}): a generated 24 MB file is served and the translation step is skipped");
    let data: Vec<u8> = (0..24_000_000usize).map(|i| (i * 7919 % 251) as u8).collect();
    let path = dir.join("stand-in.gguf");
    std::fs::write(&path, &data).unwrap();
    let sha256 = sha2::Sha256::digest(&data).iter().map(|b| format!("{b:02x}")).collect();
    Served { path, name: "stand-in.gguf".into(), bytes: data.len() as u64, sha256, real: false }
}

/// A catalogue entry of one file offered at `url`.
fn entry(id: &str, name: &str, file: &str, bytes: u64, sha256: &str, url: &str) -> String {
    format!(
        "id = \"{id}\"\nname = \"{name}\"\nfamily = \"qwen2.5\"\narchitecture = \"qwen2\"\nrole = \"llm\"\n\
         licence = \"Apache-2.0\"\ndescription = \"Served from 127.0.0.1 by the window test.\"\n\
         [[files]]\nname = \"{file}\"\nbytes = {bytes}\nsha256 = \"{sha256}\"\n[[files.sources]]\nkind = \"url\"\nurl = \"{url}\"\n"
    )
}

/// The catalogue entry that replaces the shipped default model (the same id, the served file, one URL source), and
/// two that fail: a server that is not there, and a file that is not the one its manifest describes.
fn catalogue(dir: &Path, s: &Served, url: &str, wrong_file_url: &str) -> PathBuf {
    let cat = dir.join("catalogue");
    std::fs::create_dir_all(&cat).unwrap();
    let offline = format!("http://127.0.0.1:{}/gone.gguf", registro_testkit::free_port());
    std::fs::write(cat.join("offline.toml"), entry("test-offline", "Offline mirror", "gone.gguf", 1000, &"0".repeat(64), &offline)).unwrap();
    std::fs::write(cat.join("altered.toml"), entry("test-altered", "Altered file", "altered.gguf", 1_000_000, &"1".repeat(64), wrong_file_url)).unwrap();
    let name = if s.real { "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF)" } else { "Stand-in model" };
    std::fs::write(cat.join("default.toml"), entry(DEFAULT, name, &s.name, s.bytes, &s.sha256, url)).unwrap();
    cat
}

/// The setup card's progress panel as numbers: (stage, bytes done, total), or None when it is gone.
fn progress(s: &Session, panel: &str) -> Option<(String, u64, u64)> {
    let v = s
        .execute(
            r#"const p = document.querySelector(`[data-testid="${arguments[0]}"]`);
               return p ? [p.dataset.stage || '', Number(p.dataset.done || 0), Number(p.dataset.total || 0)] : null"#,
            vec![json!(panel)],
        )
        .unwrap();
    v.as_array().map(|a| (a[0].as_str().unwrap_or("").to_string(), a[1].as_u64().unwrap_or(0), a[2].as_u64().unwrap_or(0)))
}

fn attr(s: &Session, css: &str, name: &str) -> Value {
    s.execute(
        r#"const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null"#,
        vec![json!(css), json!(name)],
    )
    .unwrap()
}

#[test]
fn first_start_downloads_the_default_model_and_settings_manages_it() {
    if !ready_or_skip("first_start_downloads_the_default_model_and_settings_manages_it") {
        return;
    }
    let (dir, db) = temp_project("Setup");
    let model = served(dir.path());
    // Request 1 is slow enough to cancel; request 2 (the resume) drops part-way, as a failing network does;
    // request 3 continues at full speed.
    let slow = if model.real { 4_000_000 } else { 2_000_000 };
    let plan = Plan { rates: vec![Some(slow), Some(2 * slow)], cuts: vec![None, Some(2 * slow)] };
    let server = FileServer::start("model.gguf", Body::File(model.path.clone()), plan);
    let altered = FileServer::start("altered.gguf", Body::Bytes(Arc::new(vec![7u8; 1_000_000])), Plan::default());
    let cat = catalogue(dir.path(), &model, &server.url(), &altered.url());
    let cache = dir.path().join("models");
    let part = cache.join(DEFAULT).join(format!("{}.part", model.name));

    // Only the model cache and the catalogue are set (prefixes are kept beside the cache, in the temp folder too);
    // the import at the end picks the served file in the (pre-answered) dialog.
    let mut args = vec![
        // The card offers the shipped default model, whatever the environment the driver was started in says.
        "-u".into(),
        "REGISTRO_DEFAULT_MODEL".into(),
        format!("REGISTRO_MODELS={}", cache.display()),
        format!("REGISTRO_CATALOGUE={}", cat.display()),
        app_binary().display().to_string(),
    ];
    args.extend(app_args(&db, dir.path(), &[Some(model.path.as_path())]));
    let s = Session::start(Path::new("/usr/bin/env"), &args).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");

    // The setup card: the model, its size and licence, not downloaded.
    s.wait_for(r#"[data-testid="setup-card"]"#, WAIT).expect("an empty model cache opens on the setup card");
    let name = s.text_css(r#"[data-testid="setup-model-name"]"#, WAIT).unwrap();
    assert!(name.contains(if model.real { "Qwen2.5-Coder-0.5B" } else { "Stand-in" }), "{name}");
    let size = s.text_css(r#"[data-testid="setup-model-size"]"#, WAIT).unwrap();
    assert_eq!(size, registro_core::models::human_bytes(model.bytes));
    assert_eq!(s.text_css(r#"[data-testid="setup-model-licence"]"#, WAIT).unwrap(), "Apache-2.0");
    assert_eq!(attr(&s, r#"[data-testid="setup-state"]"#, "data-state"), json!("missing"));
    // The first frame after start-up can lag the DOM under Xvfb.
    std::thread::sleep(Duration::from_millis(800));
    s.screenshot(&screenshot_path("setup-card.png")).unwrap();

    // A script in the page cannot make the model commands read or delete a path of its choosing.
    let refused = |cmd: &str, args: Value, why: &str| {
        let e = s.invoke(cmd, args.clone(), 8000).unwrap().expect_err(&format!("{cmd}({args}) must be refused"));
        assert!(e.contains(why), "{cmd}: {e}");
    };
    refused("import_model", json!({"file": "/etc/passwd", "opId": "x1", "onProgress": "$CHANNEL"}), "not a file you chose");
    refused("download_model", json!({"id": "/etc/passwd", "opId": "x2", "onProgress": "$CHANNEL"}), "by id, not by path");
    refused("remove_model", json!({"id": ".."}), "unknown model id");

    // Download: bytes and percent move; Cancel once a few MB are in.
    s.click_css(r#"[data-testid="setup-download"]"#, WAIT).unwrap();
    let t0 = Instant::now();
    loop {
        let p = progress(&s, "setup-progress");
        if let Some((stage, done, total)) = &p {
            if stage == "download" && *done >= slow {
                assert_eq!(*total, model.bytes, "the total is the model's size");
                break;
            }
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no download progress: {p:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let label = s.text_css(r#"[data-testid="setup-progress-label"]"#, WAIT).unwrap();
    assert!(label.starts_with("Downloading ") && label.contains(&format!("of {}", size)) && label.contains('%') && label.contains("/s"), "{label}");
    s.screenshot(&screenshot_path("setup-downloading.png")).unwrap();
    s.click_css(r#"[data-testid="setup-progress-cancel"]"#, WAIT).unwrap();
    wait_until("the card to show the partial download", Duration::from_secs(30), || {
        attr(&s, r#"[data-testid="setup-state"]"#, "data-state") == json!("partial")
    });
    assert!(progress(&s, "setup-progress").is_none(), "the progress panel goes with the cancel");
    let kept = std::fs::metadata(&part).expect("a cancelled download keeps its .part for the next try").len();
    assert!(kept >= slow && kept < model.bytes, "{kept}");
    let state = s.text_css(r#"[data-testid="setup-state"]"#, WAIT).unwrap();
    assert!(state.contains("downloaded; Download continues from there"), "{state}");
    assert_eq!(s.text_css(r#"[data-testid="setup-download"]"#, WAIT).unwrap(), "Continue download");
    assert!(s.find_all(r#"[data-testid="setup-error"]:not([hidden])"#).unwrap().is_empty(), "a cancel is not an error");
    s.screenshot(&screenshot_path("setup-cancelled.png")).unwrap();

    // Continue: resumes where the cancel stopped, survives the dropped connection, and checks the sha256.
    s.click_css(r#"[data-testid="setup-download"]"#, WAIT).unwrap();
    wait_until("the model to become ready", Duration::from_secs(600), || {
        attr(&s, r#"[data-testid="setup-state"]"#, "data-state") == json!("ready")
    });
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "first try, resume, resume after the drop: {reqs:?}");
    assert_eq!(reqs[0], None, "the first request asks for the whole file");
    assert!(reqs[1].is_some_and(|r| r > 0 && r <= kept), "the resume asks for the rest, not the whole file: {reqs:?} (kept {kept})");
    assert!(reqs[2].is_some_and(|r| r > reqs[1].unwrap()), "after the dropped connection it continues again: {reqs:?}");
    assert!(server.bytes_sent() < model.bytes + 2 * slow, "no byte downloaded twice beyond the resume points: {}", server.bytes_sent());
    assert!(!part.exists(), "the .part became the model file");
    let file = cache.join(DEFAULT).join(&model.name);
    assert_eq!(std::fs::metadata(&file).unwrap().len(), model.bytes);
    assert!(s.text_css(r#"[data-testid="setup-state"]"#, WAIT).unwrap().starts_with("Ready"));
    // The banner about the missing default model goes once it is downloaded.
    wait_until("the missing-model banner to go", WAIT, || {
        s.texts(r#"[data-testid="startup-problem"]"#).unwrap().iter().all(|t| !t.contains(DEFAULT))
    });
    s.screenshot(&screenshot_path("setup-ready.png")).unwrap();
    s.click_css(r#"[data-testid="setup-done"]"#, WAIT).unwrap();
    wait_until("the card to close", WAIT, || s.find_all(r#"[data-testid="setup-card"]"#).unwrap().is_empty());

    if model.real {
        translate_formally_into_italian(&s, &db);
    } else {
        println!("skipped: translating with the downloaded model (needs {SMALL_LLM} in the model cache)");
    }

    // Settings → Models: ready, Verify passes, Remove deletes it, Import brings it back.
    s.click_css(r#"[data-testid="open-settings"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="settings-models"]"#, WAIT).expect("Settings has a Models section");
    let row = format!(r#"[data-testid="model-row"][data-model-id="{DEFAULT}"]"#);
    s.wait_for(&format!(r#"{row}[data-state="ready"]"#), WAIT).expect("the downloaded model is listed ready");
    let rows = s.find_all(r#"[data-testid="model-row"]"#).unwrap().len();
    assert!(rows >= 10, "every catalogue model is listed: {rows}");
    assert_eq!(s.find_all(r#"[data-testid="model-row"][data-model-id="gemma-3-270m"][data-state="missing"]"#).unwrap().len(), 1);
    s.screenshot(&screenshot_path("settings-models.png")).unwrap();

    s.click_css(&format!(r#"{row} [data-testid="model-verify"]"#), WAIT).unwrap();
    let result = s.wait_for(r#"[data-testid="model-result"][data-ok]"#, Duration::from_secs(120)).expect("Verify reports");
    let text = s.text(&result).unwrap();
    assert_eq!(attr(&s, r#"[data-testid="model-result"]"#, "data-ok"), json!("1"), "{text}");
    assert!(text.contains(&model.name) && text.contains("intact"), "{text}");
    s.screenshot(&screenshot_path("settings-models-verified.png")).unwrap();

    // Failures in words that say what to do, and nothing half-written left behind.
    for (id, words) in [
        ("test-offline", "the download server did not answer (no network connection, or a firewall or proxy in the way). Check that this computer is online"),
        ("test-altered", "the file that arrived is not the one Registro expects (its size or sha256 checksum differs), so it was deleted"),
    ] {
        s.click_css(&format!(r#"[data-testid="model-row"][data-model-id="{id}"] [data-testid="model-download"]"#), WAIT).unwrap();
        let err = s.text_css(&format!(r#"tr.model-extra[data-model-id="{id}"] [data-testid="model-error"]"#), Duration::from_secs(60)).unwrap();
        assert!(err.starts_with(&format!("Could not download {id}: ")) && err.contains(words) && err.contains("Details: "), "{err}");
        s.wait_for(&format!(r#"[data-testid="model-row"][data-model-id="{id}"][data-state="missing"]"#), WAIT).unwrap();
        assert!(!cache.join(id).join("altered.gguf.part").exists() && !cache.join(id).join("altered.gguf").exists());
        s.execute(
            r#"document.querySelector(`tr.model-extra[data-model-id="${arguments[0]}"]`).scrollIntoView({ block: 'center' })"#,
            vec![json!(id)],
        )
        .unwrap();
        s.screenshot(&screenshot_path(&format!("settings-models-{id}.png"))).unwrap();
    }

    s.click_css(&format!(r#"{row} [data-testid="model-remove"]"#), WAIT).unwrap();
    let confirm = s.text_css(r#"[data-testid="confirm-dialog"]"#, WAIT).unwrap();
    assert!(confirm.contains("Remove") && confirm.contains(&size), "{confirm}");
    s.click_css(r#"[data-testid="confirm-ok"]"#, WAIT).unwrap();
    s.wait_for(&format!(r#"{row}[data-state="missing"]"#), WAIT).expect("the removed model is listed as not downloaded");
    assert!(!cache.join(DEFAULT).exists(), "Remove deletes the model's folder");
    let freed = s.text_css(r#"[data-testid="model-result"]"#, WAIT).unwrap();
    assert!(freed.contains("freed"), "{freed}");
    s.screenshot(&screenshot_path("settings-models-removed.png")).unwrap();

    // Import a GGUF: the dialog's answer is the file the server served. The real model is recognised by its sha256
    // as a catalogue model (the shipped 0.5B, or the default id the test's catalogue gave it) and listed ready; the
    // stand-in is no GGUF, and the error says so.
    s.click_css(r#"[data-testid="models-import"]"#, WAIT).unwrap();
    if model.real {
        let done = s.text_css(r#"[data-testid="models-import-done"]"#, Duration::from_secs(300)).expect("the import finishes");
        let id = [SMALL_LLM, DEFAULT].into_iter().find(|id| done.contains(&format!(" as {id} "))).unwrap_or_else(|| panic!("{done}"));
        s.wait_for(&format!(r#"[data-testid="model-row"][data-model-id="{id}"][data-state="ready"]"#), WAIT)
            .expect("the imported model is listed ready");
    } else {
        let err = s.text_css(r#"[data-testid="models-import-error"]"#, Duration::from_secs(60)).unwrap();
        assert!(err.starts_with("stand-in.gguf: ") && err.contains("not a GGUF file"), "{err}");
    }
    s.screenshot(&screenshot_path("settings-models-imported.png")).unwrap();
    s.close().unwrap();
}

/// Three sentences into Italian, formal, with the model the card downloaded (the Translate view's default model).
fn translate_formally_into_italian(s: &Session, db: &Path) {
    s.click_css(r#"[data-testid="project-item"][data-project-name="Setup"] [data-testid="open-project"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="tab-translate"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="translate-source"]"#, WAIT).unwrap();
    let model = s.execute(r#"return document.querySelector('[data-testid="translate-model"]').value"#, vec![]).unwrap();
    assert_eq!(model, json!(DEFAULT), "Translate uses the default model the card downloaded");
    s.execute(
        r#"const [text] = arguments;
           const t = document.querySelector('[data-testid="translate-source"]'); t.value = text; t.dispatchEvent(new Event('input', { bubbles: true }));
           const l = document.querySelector('[data-testid="translate-lang"]'); l.value = 'it'; l.dispatchEvent(new Event('change', { bubbles: true }));
           const r = document.querySelector('[data-testid="translate-register"]'); r.value = 'formal'; r.dispatchEvent(new Event('change', { bubbles: true }));
           document.querySelector('[data-testid="translate-nbest"]').value = '2';"#,
        vec![json!(SENTENCES.join("\n"))],
    )
    .unwrap();
    let t0 = Instant::now();
    s.click_css(r#"[data-testid="translate-run"]"#, WAIT).unwrap();
    s.wait_for_count(r#"[data-testid="translate-row"]"#, 3, Duration::from_secs(600)).expect("three translated rows");
    wait_until("the run to finish", Duration::from_secs(300), || {
        s.execute(r#"return document.querySelector('[data-testid="translate-progress"]') === null"#, vec![]).unwrap() == json!(true)
    });
    println!("models_setup: three sentences translated {} ms after the click (model load included)", t0.elapsed().as_millis());
    let outputs = s.texts(r#"[data-testid="translate-output"]"#).unwrap();
    assert_eq!(outputs.len(), 3);
    for (src, out) in SENTENCES.iter().zip(&outputs) {
        println!("models_setup: {src} → {out}");
        assert!(!out.trim().is_empty() && out.trim() != *src, "{src}: no translation shown: {out:?}");
    }
    s.screenshot(&screenshot_path("setup-translated.png")).unwrap();
    let store = Store::open(db).unwrap();
    let runs = store.list_runs(&Default::default()).unwrap();
    let run = runs.iter().find(|r| r.status == RunStatus::Done).expect("a finished run is stored");
    assert_eq!(run.target_lang.as_deref(), Some("it"));
    assert_eq!(run.register.as_deref(), Some("formal"));
    assert_eq!(run.model_id.as_deref(), Some(DEFAULT));
    let stored = store.outputs(run.id).unwrap();
    assert_eq!(stored.len(), 3);
    // Never silently wrong: each sentence is confirmed formal (or neutral: nothing to address), or flagged with why.
    for o in &stored {
        let register = o.detected_register.as_deref().unwrap_or("").to_ascii_uppercase();
        assert!(
            matches!(register.as_str(), "FORMAL" | "NEUTRAL") || (o.flagged && o.flag_reason.is_some()),
            "segment {}: {register} and not flagged: {:?}",
            o.segment_index,
            o.text
        );
    }
}
