//! How the real window looks on a bare machine: Japanese, Korean and Hindi text is drawn with the bundled Noto fonts (the
//! test machine has no CJK, Hangul or Devanagari font, so without them these scripts are boxes), and the palette follows the
//! system's light or dark preference with readable text everywhere it is checked.
//!
//! WebKitGTK takes the dark preference from the GTK theme, and the driver starts the app with its own environment,
//! so each session starts the app through `env GTK_THEME=…`. Writes `tests/e2e/screenshots/appearance-*.png`.
mod common;

use std::path::Path;
use std::time::Duration;

use registro_e2e::{app_args, app_binary, screenshot_path, Session};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(30);
const JAPANESE: &str = "こんにちは、世界。翻訳をお願いします。";
const HINDI: &str = "नमस्ते दुनिया। कृपया इसका अनुवाद करें।";
const KOREAN: &str = "안녕하세요. 번역해 주세요.";
/// Bold in the sidebar (the 700 faces), regular in the tab's text.
const PROJECT: &str = "翻訳 · अनुवाद · 번역";
/// WebDriver's Return key (a plain "\n" is not typed as a line break here).
const ENTER: char = '\u{E007}';

/// Starts the app with `GTK_THEME=theme` on a fresh database `db` in `dir` and opens a new project named [`PROJECT`].
fn start_themed(theme: &str, dir: &Path, db: &Path) -> Session {
    let mut args = vec![format!("GTK_THEME={theme}"), app_binary().display().to_string()];
    args.extend(app_args(db, dir, &[]));
    let s = Session::start(Path::new("/usr/bin/env"), &args).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");
    let name = s.wait_for(r#"[data-testid="new-project-name"]"#, WAIT).unwrap();
    s.type_text(&name, PROJECT).unwrap();
    s.click_css(r#"[data-testid="create-project"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="project-item"].selected"#, WAIT).expect("the new project is open");
    s
}

/// Types the Japanese and Hindi lines into the Translate view's source (the project name, bold in the sidebar and
/// in the status bar's notice, shows both scripts too).
fn show_both_scripts(s: &Session) {
    s.click_css(r#"[data-testid="tab-translate"]"#, WAIT).unwrap();
    let source = s.wait_for(r#"[data-testid="translate-source"]"#, WAIT).unwrap();
    s.type_text(&source, &format!("{JAPANESE}{ENTER}{HINDI}{ENTER}{KOREAN}")).unwrap();
    let typed = s.execute(r#"return document.querySelector('[data-testid="translate-source"]').value"#, vec![]).unwrap();
    assert_eq!(typed, json!(format!("{JAPANESE}\n{HINDI}\n{KOREAN}")), "all three lines typed");
}

/// After layout has asked for the glyphs: whether each bundled family is loaded for its sample text, and which
/// faces (family + weight) were fetched.
fn font_state(s: &Session) -> Value {
    s.execute_async(
        r#"const done = arguments[arguments.length - 1];
           // Two frames so layout has requested the faces the new text needs before waiting on them.
           requestAnimationFrame(() => requestAnimationFrame(() => document.fonts.ready.then(() => done({
             jp: document.fonts.check('16px "Noto Sans JP"', 'こんにちは'),
             hi: document.fonts.check('16px "Noto Sans Devanagari"', 'नमस्ते'),
             ko: document.fonts.check('16px "Noto Sans KR"', '안녕하세요'),
             loaded: [...new Set([...document.fonts].filter((f) => f.status === 'loaded').map((f) => `${f.family.replace(/"/g, '')} ${f.weight}`))].sort(),
           }))));"#,
        vec![],
    )
    .expect("font state")
}

/// WCAG contrast of each visible element matching a selector, against the background actually behind it
/// (translucent layers composited over their ancestors). Returns `[{sel, fg, bg, ratio}]` for the first match.
fn contrasts(s: &Session, selectors: &[&str]) -> Vec<Value> {
    let v = s
        .execute(
            r#"const parse = (c) => { const m = c.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
               const over = (top, under) => top.map((v, i) => i < 3 ? v * top[3] + under[i] * (1 - top[3]) : 1);
               const backdrop = (el) => {
                 const layers = [];
                 for (let e = el; e; e = e.parentElement) {
                   const c = parse(getComputedStyle(e).backgroundColor);
                   if (c[3] > 0) layers.push(c);
                   if (c[3] >= 1) break;
                 }
                 // Below everything: the canvas, which takes the root's background (white if none).
                 let acc = layers.length && layers[layers.length - 1][3] >= 1 ? layers.pop() : [255, 255, 255, 1];
                 while (layers.length) acc = over(layers.pop(), acc);
                 return acc;
               };
               const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
                 .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
               return arguments[0].map((sel) => {
                 const el = [...document.querySelectorAll(sel)].find((e) => e.getClientRects().length > 0);
                 if (!el) return { sel, missing: true };
                 const bg = backdrop(el);
                 const fg = over(parse(getComputedStyle(el).color), bg);
                 const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
                 return { sel, fg: fg.slice(0, 3).map(Math.round), bg: bg.slice(0, 3).map(Math.round), ratio: (a + 0.05) / (b + 0.05) };
               });"#,
            vec![json!(selectors)],
        )
        .expect("contrasts");
    v.as_array().cloned().unwrap_or_default()
}

/// Text that must stay readable in both schemes: the shell, the form controls and the Translate view.
const READABLE: [&str; 12] = [
    ".brand",
    ".sidebar-heading",
    r#"[data-testid="project-item"] .item-title"#,
    r#"[data-testid="project-item"] .muted"#,
    ".tab.active",
    ".tab:not(.active)",
    r#"[data-testid="translate-source"]"#,
    r#"[data-testid="translate-lang"]"#,
    r#"[data-testid="translate-run"]"#,
    r#"[data-testid="translate-export"]"#,
    r#"[data-view="translate"] .muted"#,
    r#"[data-testid="notice"]"#,
];

fn assert_readable(s: &Session, scheme: &str) {
    for c in contrasts(s, &READABLE) {
        assert!(c.get("missing").is_none(), "{scheme}: nothing visible matches {}", c["sel"]);
        // 4.5:1 is WCAG AA for body text; disabled controls (Export before a run) are dimmed on purpose.
        let min = if c["sel"].as_str().unwrap().contains("translate-export") { 2.0 } else { 4.5 };
        let ratio = c["ratio"].as_f64().unwrap();
        assert!(ratio >= min, "{scheme}: {} has contrast {ratio:.2} (text {} on {}), below {min}", c["sel"], c["fg"], c["bg"]);
    }
}

fn prefers_dark(s: &Session) -> bool {
    s.execute("return matchMedia('(prefers-color-scheme: dark)').matches", vec![]).unwrap().as_bool().unwrap()
}

/// Relative luminance (0 black … 1 white) of the root's computed background.
fn page_luminance(s: &Session) -> f64 {
    let v = s
        .execute(
            r#"const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/[\d.]+/g).map(Number);
               return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;"#,
            vec![],
        )
        .unwrap();
    v.as_f64().unwrap()
}

fn assert_bundled_fonts_drawn(s: &Session, scheme: &str) {
    let fonts = font_state(s);
    println!("{scheme}: font faces loaded: {}", fonts["loaded"]);
    let loaded: Vec<&str> = fonts["loaded"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    // check() is also true for a family nobody declared, so the faces themselves must have been fetched.
    for face in [
        "Noto Sans JP 400",
        "Noto Sans JP 700",
        "Noto Sans Devanagari 400",
        "Noto Sans Devanagari 700",
        "Noto Sans KR 400",
        "Noto Sans KR 700",
    ] {
        assert!(loaded.contains(&face), "{scheme}: {face} was not loaded for the text on screen: {loaded:?}");
    }
    assert_eq!(fonts["jp"], json!(true), "{scheme}: Noto Sans JP is not ready for Japanese: {fonts}");
    assert_eq!(fonts["hi"], json!(true), "{scheme}: Noto Sans Devanagari is not ready for Hindi: {fonts}");
    assert_eq!(fonts["ko"], json!(true), "{scheme}: Noto Sans KR is not ready for Korean: {fonts}");
}

#[test]
fn japanese_and_hindi_render_with_the_bundled_fonts_in_the_light_theme() {
    let Some((dir, db)) = common::ready_temp_store("japanese_and_hindi_render_with_the_bundled_fonts_in_the_light_theme") else { return };
    let s = start_themed("Adwaita", dir.path(), &db);
    assert!(!prefers_dark(&s), "a light GTK theme reports a light preference");
    show_both_scripts(&s);
    assert_bundled_fonts_drawn(&s, "light");
    assert!(page_luminance(&s) > 0.9, "light page background");
    assert_readable(&s, "light");
    s.screenshot(&screenshot_path("appearance-fonts-light.png")).unwrap();

    // The same text in Rewrite's input (a plain textarea with the shared .input style).
    s.click_css(r#"[data-testid="tab-rewrite"]"#, WAIT).unwrap();
    let input = s.wait_for(r#"[data-testid="rewrite-input"]"#, WAIT).unwrap();
    s.type_text(&input, &format!("{JAPANESE}{ENTER}{HINDI}")).unwrap();
    s.screenshot(&screenshot_path("appearance-rewrite-light.png")).unwrap();
    s.close().unwrap();
}

#[test]
fn dark_gtk_theme_gives_a_dark_readable_window() {
    let Some((dir, db)) = common::ready_temp_store("dark_gtk_theme_gives_a_dark_readable_window") else { return };
    let s = start_themed("Adwaita:dark", dir.path(), &db);
    assert!(prefers_dark(&s), "WebKitGTK reports prefers-color-scheme: dark under GTK_THEME=Adwaita:dark");
    let lum = page_luminance(&s);
    assert!(lum < 0.15, "the page background is dark, luminance {lum:.2}");
    // Form controls follow too (color-scheme: light dark), not only the classes styled here.
    let scheme = s.execute("return getComputedStyle(document.documentElement).colorScheme", vec![]).unwrap();
    assert_eq!(scheme, json!("light dark"));

    show_both_scripts(&s);
    assert_bundled_fonts_drawn(&s, "dark");
    assert_readable(&s, "dark");
    let field = contrasts(&s, &[r#"[data-testid="translate-source"]"#]);
    let bg = field[0]["bg"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).sum::<f64>() / 3.0;
    assert!(bg < 80.0, "the source textarea is dark too: {}", field[0]);
    s.screenshot(&screenshot_path("appearance-dark.png")).unwrap();

    // Settings: the overlay, a card-like panel, badges per model state and a read-only textarea.
    s.click_css(r#"[data-testid="open-settings"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="settings-panel"] [data-testid="about-facts"]"#, WAIT).unwrap();
    for c in contrasts(&s, &[".settings-panel h2", ".about-fact dt", ".about-fact dd", r#"[data-testid="about-model"] .badge"#, r#"[data-testid="settings-close"]"#]) {
        assert!(c.get("missing").is_none(), "dark: nothing visible matches {}", c["sel"]);
        let ratio = c["ratio"].as_f64().unwrap();
        assert!(ratio >= 4.5, "dark settings: {} has contrast {ratio:.2} (text {} on {})", c["sel"], c["fg"], c["bg"]);
    }
    s.screenshot(&screenshot_path("appearance-dark-settings.png")).unwrap();
    s.close().unwrap();
}
