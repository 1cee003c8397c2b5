//! Every control of every view reached with the keyboard alone, each with a visible focus (issue 44, "keyboard and
//! accessibility"), in the real window. For each view (Documents with a document open, Rewrite, Translate with a
//! stored run open in the review grid, Dashboard) and each Settings section (About, Models, Backends) the test
//! presses Tab — nothing else — from the top of the window until the focus comes round again, noting every element
//! focused and whether its focus can be seen (an outline or a ring); then it lists the controls on screen (buttons,
//! fields, selects, links, summaries, editable cells, anything with a tab stop) that Tab never reached. Settings'
//! sections are a tab strip: Tab reaches the selected section's tab and the arrow keys move to the next, as in any
//! tab strip, and Tab then walks that section. Screenshots: `tests/e2e/screenshots/keyboard-*.png`, each taken with
//! the focus on a control in the view, to look at the focus ring.
mod common;

use std::time::Duration;

use registro_e2e::{keys, screenshot_path, wait_until, Session};
use registro_store::Store;
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(60);
/// Tab presses at most per walk: more than the controls of any view here.
const MAX_PRESSES: usize = 400;

/// What a walk found.
#[derive(Default, Debug)]
struct Walk {
    /// Every element focused, described, in order.
    focused: Vec<String>,
    /// Those whose focus could not be seen.
    invisible: Vec<String>,
}

/// Forgets which elements were focused (the marks the last walk left).
fn forget(s: &Session) {
    s.execute(r#"for (const e of document.querySelectorAll('[data-kb-seen], [data-kb-invisible]')) { delete e.dataset.kbSeen; delete e.dataset.kbInvisible; }"#, vec![]).unwrap();
}

/// Notes the element focused now: `null` when it was focused before in this walk (the walk came round), `{ same }`
/// when the focus stayed on the element the last Tab left it on (a date field's day, month and year are three stops
/// of one input), `{ body }` when nothing is focused, else its description and whether its focus is visible.
fn note_focus(s: &Session) -> Value {
    s.execute(
        r#"const el = document.activeElement;
           if (!el || el === document.body || el === document.documentElement) return { body: true };
           if (el.dataset.kbSeen === 'last') return { same: true };
           if (el.dataset.kbSeen) return null;
           const last = document.querySelector('[data-kb-seen="last"]');
           if (last) last.dataset.kbSeen = '1';
           el.dataset.kbSeen = 'last';
           const cs = getComputedStyle(el);
           const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || (cs.boxShadow && cs.boxShadow !== 'none');
           if (!ring) el.dataset.kbInvisible = '1';
           const name = el.getAttribute('data-testid') || el.getAttribute('aria-label') || (el.textContent || '').trim().slice(0, 30) || el.getAttribute('placeholder') || '';
           return { desc: `${el.tagName.toLowerCase()}${el.type ? '[' + el.type + ']' : ''} "${name}"`, visible: !!ring };"#,
        vec![],
    )
    .unwrap()
}

/// Presses Tab from where the focus is until the focus comes back to an element it already reached.
fn walk(s: &Session) -> Walk {
    forget(s);
    let mut w = Walk::default();
    let mut bodies = 0;
    for _ in 0..MAX_PRESSES {
        s.press_keys(keys::TAB).unwrap();
        let v = note_focus(s);
        if v.is_null() {
            return w;
        }
        if v["same"] == json!(true) {
            continue;
        }
        if v["body"] == json!(true) {
            // Past the last control the focus leaves the page once, then starts again at the top.
            bodies += 1;
            assert!(bodies < 3, "Tab keeps landing nowhere: {w:?}");
            continue;
        }
        let desc = v["desc"].as_str().unwrap_or_default().to_string();
        if v["visible"] != json!(true) {
            w.invisible.push(desc.clone());
        }
        w.focused.push(desc);
    }
    panic!("the focus never came round after {MAX_PRESSES} presses of Tab: {:?}", w.focused);
}

/// The controls inside `scope` that are on screen and take the focus but that the last walk never reached.
fn unreached(s: &Session, scope: &str) -> Vec<String> {
    let v = s
        .execute(
            r#"const scope = document.querySelector(arguments[0]);
               if (!scope) return ['no ' + arguments[0]];
               const sel = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex], [contenteditable="true"]';
               return [...scope.querySelectorAll(sel)].filter((e) => {
                 if (e.disabled || e.closest('[inert], [aria-hidden="true"], .offscreen')) return false;
                 // Inside a closed <details>: reached by opening it (its summary is a tab stop).
                 const closed = e.closest('details:not([open])');
                 if (closed && !(e.tagName === 'SUMMARY' && e.parentElement === closed)) return false;
                 // A roving tab stop (the selected tab of a strip carries it) and script-only targets.
                 if (e.getAttribute('tabindex') === '-1') return false;
                 if (e.getClientRects().length === 0) return false;
                 const cs = getComputedStyle(e);
                 if (cs.visibility === 'hidden' || cs.display === 'none') return false;
                 return !e.dataset.kbSeen;
               }).map((e) => `${e.tagName.toLowerCase()} "${e.getAttribute('data-testid') || e.getAttribute('aria-label') || (e.textContent || '').trim().slice(0, 30)}"`);"#,
            vec![json!(scope)],
        )
        .unwrap();
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap_or_default().to_string()).collect()
}

/// Presses Tab until the element matching `css` has the focus; false when the walk comes round without it.
fn tab_to(s: &Session, css: &str) -> bool {
    forget(s);
    for _ in 0..MAX_PRESSES {
        s.press_keys(keys::TAB).unwrap();
        if s.execute("return document.activeElement && document.activeElement.matches(arguments[0])", vec![json!(css)]).unwrap() == json!(true) {
            return true;
        }
        if note_focus(s).is_null() {
            return false;
        }
    }
    false
}

/// Walks the window and checks the controls inside `scope`: every one reached, every focus visible (only those
/// inside `scope` count, so each view answers for its own controls). Takes a screenshot with the focus on `shot`.
fn check_view(s: &Session, name: &str, scope: &str, shot: &str, problems: &mut Vec<String>) {
    s.execute("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).unwrap();
    let w = walk(s);
    let missed = unreached(s, scope);
    let inside: Vec<String> = s
        .execute(
            r#"return [...document.querySelector(arguments[0]).querySelectorAll('[data-kb-seen]')].length"#,
            vec![json!(scope)],
        )
        .map(|v| vec![v.to_string()])
        .unwrap_or_default();
    println!(
        "keyboard: {name}: {} tab stops in the window ({} in the view); not reached: {missed:?}; focus not visible anywhere in the window: {:?}",
        w.focused.len(),
        inside.first().cloned().unwrap_or_default(),
        w.invisible
    );
    for m in missed {
        problems.push(format!("{name}: Tab never reaches {m}"));
    }
    // Each view answers for the focus of its own controls.
    let invisible = s
        .execute(
            r#"return [...document.querySelector(arguments[0]).querySelectorAll('[data-kb-invisible]')].map((e) => e.getAttribute('data-testid') || e.tagName.toLowerCase())"#,
            vec![json!(scope)],
        )
        .unwrap();
    for i in invisible.as_array().unwrap() {
        problems.push(format!("{name}: no visible focus on {}", i.as_str().unwrap_or_default()));
    }
    if tab_to(s, shot) {
        std::thread::sleep(Duration::from_millis(200));
        s.screenshot(&screenshot_path(&format!("keyboard-{name}.png"))).unwrap();
    } else {
        problems.push(format!("{name}: Tab never reaches {shot} for the screenshot"));
    }
}

#[test]
fn every_control_of_every_view_is_reached_with_tab_and_shows_its_focus() {
    let Some((dir, db)) = common::ready_temp_store("every_control_of_every_view_is_reached_with_tab_and_shows_its_focus") else { return };
    // A small stored translation (project "review-bench": its document and a done, reviewed run).
    let fixture = {
        let mut store = Store::open(&db).unwrap();
        registro_core::bench::review_fixture(&mut store, 6).unwrap()
    };
    let s = Session::in_project(&db, dir.path(), &[], "review-bench", None).expect("the app opens the project");
    let mut problems = Vec::new();

    // ---- Documents, with the document open ----
    s.click_css(r#"[data-testid="open-document"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="segment-row"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="view-documents"] [data-testid="run-item"]"#, WAIT).unwrap();
    check_view(&s, "documents", r#"[data-testid="view-documents"]"#, r#"[data-testid="view-documents"] [data-testid="run-item"]"#, &mut problems);

    // ---- Rewrite ----
    s.click_css(r#"[data-testid="tab-rewrite"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="rewrite-input"]"#, WAIT).unwrap();
    check_view(&s, "rewrite", r#"[data-testid="view-rewrite"]"#, r#"[data-testid="rewrite-run"]"#, &mut problems);

    // ---- Translate, with the stored run in the review grid ----
    s.click_css(r#"[data-testid="tab-translate"]"#, WAIT).unwrap();
    let item = format!(r#"[data-view="translate"] [data-testid="run-item"][data-run-id="{}"]"#, fixture.run);
    s.click_css(&format!("{item} td:nth-child(3)"), WAIT).unwrap();
    s.wait_for(&format!(r#"[data-testid="translate-grid"][data-run="{}"]:not([data-loading])"#, fixture.run), WAIT).unwrap();
    check_view(&s, "translate", r#"[data-testid="view-translate"]"#, r#"[data-testid="translate-output"]"#, &mut problems);

    // ---- Dashboard ----
    s.click_css(r#"[data-testid="tab-dashboard"]"#, WAIT).unwrap();
    std::thread::sleep(Duration::from_millis(800));
    check_view(&s, "dashboard", r#"[data-testid="view-dashboard"]"#, r#"[data-testid="view-dashboard"] button, [data-testid="view-dashboard"] select"#, &mut problems);

    // ---- Settings, opened from the keyboard; each section reached with Tab and the arrow keys ----
    s.execute("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).unwrap();
    assert!(tab_to(&s, r#"[data-testid="open-settings"]"#), "Tab reaches Settings");
    s.press_keys(keys::ENTER).unwrap();
    s.wait_for(r#"[data-testid="settings-panel"] [data-testid="about-facts"]"#, WAIT).expect("Enter opens Settings on About");
    check_view(&s, "settings-about", r#"[data-testid="settings-panel"]"#, r#"[data-testid="settings-about"]"#, &mut problems);
    for (section, ready) in [("models", r#"[data-testid="settings-panel"] table, [data-testid="settings-panel"] .card"#), ("backends", r#"[data-testid="settings-panel"] input"#)] {
        s.execute("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);", vec![]).unwrap();
        assert!(tab_to(&s, r#"[data-testid="settings-panel"] [role="tab"][aria-selected="true"]"#), "Tab reaches the selected section's tab");
        s.press_keys(keys::ARROW_RIGHT).unwrap();
        wait_until(&format!("the {section} section from the keyboard"), WAIT, || {
            s.execute(&format!(r#"return document.querySelector('[data-testid="settings-{section}"]').getAttribute('aria-selected') === 'true'"#), vec![]).unwrap() == json!(true)
        });
        s.wait_for(ready, WAIT).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        check_view(&s, &format!("settings-{section}"), r#"[data-testid="settings-panel"]"#, &format!(r#"[data-testid="settings-{section}"]"#), &mut problems);
    }
    s.close().unwrap();
    assert!(problems.is_empty(), "keyboard problems:\n{}", problems.join("\n"));
}
