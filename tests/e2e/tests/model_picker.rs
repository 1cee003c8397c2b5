//! The model picker of the Translate view in the real window, as a translator about to pick a model meets it: only
//! the language models on this disk are offered (a model that is not installed, or an embedding model, is not), each
//! with its size and what it is worth for the chosen target language, measured into its manifest (core
//! `models::quality_for`); a model that is poor for the language says so beside the picker before anything runs, a
//! good or usable one does not; a GGUF file path can still be typed; "Get more models…" opens Settings → Models.
//!
//! The app gets a model cache of its own (`REGISTRO_MODELS`) in which the two shipped Qwen models are "installed" as
//! files of their real size (sparse, never loaded: nothing is translated), so the picker shows the shipped
//! manifests' real sizes and measured quality. Writes `tests/e2e/screenshots/model-picker-*.png`.

use std::path::Path;
use std::time::Duration;

use registro_core::models::{quality_for, LangQuality, Manifest, QualityLevel};
use registro_core::translate::Lang;
use registro_e2e::{app_args, app_binary, ready_or_skip, screenshot_path, temp_project, wait_until, Session};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(30);
const INSTALLED: [&str; 2] = ["qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"];

fn shipped(id: &str) -> Manifest {
    registro_core::models::manager(&[]).manifest(id).cloned().unwrap_or_else(|| panic!("{id} is shipped"))
}

/// Each model's main file at its real size in `cache` (sparse: no disk used, and never hashed since never loaded).
fn install(cache: &Path, ids: &[&str]) {
    for id in ids {
        let f = shipped(id).main_file().clone();
        let path = cache.join(id).join(&f.name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::File::create(&path).unwrap().set_len(f.bytes).unwrap();
    }
}

fn js(s: &Session, script: &str) -> Value {
    s.execute(script, vec![]).unwrap()
}

fn set_lang(s: &Session, lang: &str) {
    s.execute(
        r#"const l = document.querySelector('[data-testid="translate-lang"]'); l.value = arguments[0]; l.dispatchEvent(new Event('change', { bubbles: true }));"#,
        vec![json!(lang)],
    )
    .unwrap();
}

/// Chooses `value` in the picker's list as a user does (a change of the select).
fn pick(s: &Session, value: &str) {
    s.execute(
        r#"const p = document.querySelector('[data-testid="translate-model-select"]'); p.value = arguments[0]; p.dispatchEvent(new Event('change', { bubbles: true }));"#,
        vec![json!(value)],
    )
    .unwrap();
}

fn warning(s: &Session) -> Option<String> {
    let v = js(s, r#"const w = document.querySelector('[data-testid="translate-model-warning"]'); return w && !w.hidden && w.offsetParent !== null ? w.textContent : null"#);
    v.as_str().map(str::to_string)
}

/// The first language (in Registro's order) for which `level(verdict)` holds with model `id`.
fn find_lang(id: &str, ok: impl Fn(&LangQuality) -> bool) -> Option<(Lang, LangQuality)> {
    let m = shipped(id);
    Lang::ALL.into_iter().map(|l| (l, quality_for(&m, l))).find(|(_, q)| ok(q))
}

#[test]
fn the_picker_offers_installed_models_with_their_quality_warns_for_a_poor_pair_and_opens_the_manager() {
    if !ready_or_skip("the_picker_offers_installed_models_with_their_quality_warns_for_a_poor_pair_and_opens_the_manager") {
        return;
    }
    let (dir, db) = temp_project("Picker");
    let cache = dir.path().join("models");
    install(&cache, &INSTALLED);
    let mut args = vec![
        "-u".into(),
        "REGISTRO_DEFAULT_MODEL".into(),
        "-u".into(),
        "REGISTRO_CATALOGUE".into(),
        format!("REGISTRO_MODELS={}", cache.display()),
        app_binary().display().to_string(),
    ];
    args.extend(app_args(&db, dir.path(), &[]));
    let s = Session::start(Path::new("/usr/bin/env"), &args).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");
    s.click_css(r#"[data-testid="project-item"][data-project-name="Picker"] [data-testid="open-project"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="tab-translate"]"#, WAIT).unwrap();

    // Only the installed language models are offered: not the catalogue's hub models, not the embedding models.
    s.wait_for_count(r#"[data-testid="translate-model-option"]"#, INSTALLED.len(), WAIT).expect("the installed models are listed");
    let offered: Vec<String> = serde_json::from_value(js(&s, r#"return [...document.querySelectorAll('[data-testid="translate-model-select"] option')].map(o => o.value)"#)).unwrap();
    let mut models: Vec<&str> = offered.iter().map(String::as_str).filter(|v| *v != ":path").collect();
    models.sort();
    assert_eq!(models, INSTALLED, "{offered:?}");
    assert!(registro_core::models::summaries().iter().any(|m| m.role == "llm" && !INSTALLED.contains(&m.id.as_str())), "the catalogue knows more models than are installed");
    // The default model is the one picked.
    assert_eq!(js(&s, r#"return document.querySelector('[data-testid="translate-model"]').value"#), json!(INSTALLED[1]));

    // A language the small model is poor at: the option says so, and picking it warns before anything runs.
    let (poor_lang, poor) = find_lang(INSTALLED[0], |q| q.level == QualityLevel::Poor).expect("a measured language the 0.5B model is poor at");
    set_lang(&s, poor_lang.code());
    pick(&s, INSTALLED[0]);
    wait_until("the warning for a poor pair", WAIT, || warning(&s).is_some());
    let w = warning(&s).unwrap();
    assert!(w.starts_with("Before you run it: ") && w.contains(&poor.text), "{w}");
    assert!(poor.text.contains(&format!("{} with this model: poor (BLEU", poor_lang.name())) && poor.text.ends_with("— use a larger model or a backend"), "{}", poor.text);
    let label = js(&s, &format!(r#"return document.querySelector('[data-testid="translate-model-option"][data-model-id="{}"]').textContent"#, INSTALLED[0]));
    let size = registro_core::models::human_bytes(shipped(INSTALLED[0]).total_bytes());
    assert_eq!(label, json!(format!("Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF) · {size} · poor")));
    let info = s.text_css(r#"[data-testid="translate-model-info"]"#, WAIT).unwrap();
    assert!(info.starts_with(&format!("{size} · languages")) && !info.contains(&poor.text), "said once, in the warning: {info}");
    std::thread::sleep(Duration::from_millis(500));
    s.screenshot(&screenshot_path("model-picker-poor.png")).unwrap();

    // Each installed model shows its own verdict for the language; a pair that is not poor gives no warning.
    for id in INSTALLED {
        let q = quality_for(&shipped(id), poor_lang);
        let level = js(&s, &format!(r#"return document.querySelector('[data-testid="translate-model-option"][data-model-id="{id}"]').dataset.quality"#));
        assert_eq!(level, json!(serde_json::to_value(q.level).unwrap()), "{id}");
    }
    let (fine_lang, fine) = find_lang(INSTALLED[1], |q| matches!(q.level, QualityLevel::Good | QualityLevel::Usable)).expect("a measured language the 1.5B model is not poor at");
    set_lang(&s, fine_lang.code());
    pick(&s, INSTALLED[1]);
    wait_until("the quality of the default model", WAIT, || {
        s.text_css(r#"[data-testid="translate-model-quality"]"#, WAIT).is_ok_and(|t| t == fine.text)
    });
    assert_eq!(warning(&s), None, "{}: no warning for {fine_lang:?}", fine.text);
    // A language nobody measured says so, never "good".
    let (unmeasured, _) = find_lang(INSTALLED[1], |q| q.level == QualityLevel::NotMeasured).expect("Russian is not measured");
    set_lang(&s, unmeasured.code());
    let q = s.text_css(r#"[data-testid="translate-model-quality"]"#, WAIT).unwrap();
    assert!(q.starts_with(&format!("{} with this model: not measured", unmeasured.name())), "{q}");
    assert_eq!(warning(&s), None);
    set_lang(&s, fine_lang.code());
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("model-picker-fine.png")).unwrap();

    // The escape for a GGUF file outside the cache: its box appears and its text is the model Translate uses.
    pick(&s, ":path");
    let path_box = s.wait_for(r#"[data-testid="translate-model"]:not([hidden])"#, WAIT).expect("the path box is shown");
    s.type_text(&path_box, "/data/models/my-model.gguf").unwrap();
    assert_eq!(js(&s, r#"return document.querySelector('[data-testid="translate-model"]').value"#), json!("/data/models/my-model.gguf"));
    assert!(s.text_css(r#"[data-testid="translate-model-info"]"#, WAIT).unwrap().contains("its quality is not measured"));
    pick(&s, INSTALLED[1]);
    assert!(s.find_all(r#"[data-testid="translate-model"]:not([hidden])"#).unwrap().is_empty(), "the path box goes with a listed model");

    // Get more models… opens the model manager, where the rest of the catalogue can be downloaded.
    s.click_css(r#"[data-testid="translate-model-more"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="settings-panel"] [data-testid="models-table"]"#, WAIT).expect("Settings → Models opens");
    assert_eq!(js(&s, r#"return document.querySelector('[data-testid="settings-models"]').getAttribute('aria-selected')"#), json!("true"));
    s.wait_for(r#"[data-testid="model-row"][data-model-id="gemma-3-4b-it"][data-state="missing"]"#, WAIT).expect("a model to get is listed");
    let quality = s.text_css(&format!(r#"[data-testid="model-row"][data-model-id="{}"] [data-testid="model-quality"]"#, INSTALLED[0]), WAIT).unwrap();
    assert!(quality.starts_with("Translation quality: ") && quality.contains("poor: ") && quality.contains(poor_lang.code()), "{quality}");
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("model-picker-manager.png")).unwrap();
    s.close().unwrap();
}
