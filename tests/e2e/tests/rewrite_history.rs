//! A writer reopens yesterday's rewrite as they left it: a rewrite made in the real window with the real
//! Qwen2.5-Coder-0.5B, another candidate picked, an edit rejected and a sentence kept as it was; after a restart of
//! the app the run, clicked in the Documents view, shows the same original text, candidates, chosen rewrite and
//! edit states, and a later change (Accept all) is there after another restart, clicked in the Rewrite view's own
//! list. Writes `tests/e2e/screenshots/rewrite-history-made.png`, `rewrite-history-reopened.png` and
//! `rewrite-history-accepted.png` (the first two look the same).

use std::time::{Duration, Instant};

use registro_e2e::{ready_with_model_or_skip, screenshot_path, temp_project, wait_until, Session};
use registro_store::Store;

const WAIT: Duration = Duration::from_secs(30);
const MODEL: &str = "qwen2.5-coder-0.5b-instruct";
const FIRST: &str = r#"[data-testid="rewrite-sentence"]:first-child"#;
const SECOND: &str = r#"[data-testid="rewrite-sentence"]:nth-child(2)"#;

/// Everything the results card shows about the rewrite, as JSON text: heading, summary and per sentence the
/// original, the rewrite, the candidate chips (the current one marked), each edit with its state and label, the
/// formality and why.
fn shown(s: &Session) -> String {
    let v = s
        .execute(
            r#"const q = (e, s) => [...e.querySelectorAll(s)];
               const res = document.querySelector('[data-testid="rewrite-results"]');
               return JSON.stringify({
                 heading: res.querySelector('h3')?.textContent,
                 summary: res.querySelector('[data-testid="rewrite-summary"]')?.textContent,
                 sentences: q(res, '[data-testid="rewrite-sentence"]').map((r) => ({
                   kept_original: r.classList.contains('rejected'),
                   original: r.querySelector('[data-testid="rewrite-original"]')?.textContent,
                   output: r.querySelector('[data-testid="rewrite-output"]')?.textContent,
                   candidates: q(r, '[data-testid="rewrite-candidate"]').map((c) => (c.classList.contains('current') ? '> ' : '') + c.textContent),
                   edits: q(r, '[data-testid="rewrite-edit"]').map((e) => `${e.dataset.accepted} ${e.textContent}`),
                   formality: r.querySelector('[data-testid="rewrite-formality"]')?.textContent,
                   why: r.querySelector('[data-testid="rewrite-why"]')?.textContent,
                 })),
               }, null, 1);"#,
            vec![],
        )
        .unwrap();
    v.as_str().unwrap().to_string()
}

/// Scrolls the results card to the top of the window and takes the screenshot once WebKit has painted.
fn screenshot_results(s: &Session, name: &str) {
    s.execute(r#"document.querySelector('[data-testid="rewrite-results"]').scrollIntoView({ block: 'start' });"#, vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    s.screenshot(&screenshot_path(name)).unwrap();
}

/// The results card's text, shown or not (WebDriver reads a hidden view's text as empty).
fn results_text(s: &Session) -> String {
    s.wait_for(r#"[data-testid="rewrite-results"]"#, WAIT).unwrap();
    let v = s.execute(r#"return document.querySelector('[data-testid="rewrite-results"]').textContent;"#, vec![]).unwrap();
    v.as_str().unwrap_or_default().to_string()
}

/// The decisions stored for the run: (segment, JSON) pairs.
fn stored_choices(db: &std::path::Path, run: i64) -> Vec<(i64, serde_json::Value)> {
    Store::open(db).unwrap().output_choices(run).unwrap()
}

#[test]
fn a_rewrite_reopens_after_a_restart_with_its_choices_and_edit_states() {
    if !ready_with_model_or_skip("a_rewrite_reopens_after_a_restart_with_its_choices_and_edit_states", MODEL) {
        return;
    }
    let (dir, db) = temp_project("Drafts");
    let s = Session::in_project(&db, dir.path(), &[], "Drafts", Some("rewrite")).expect("the app opens the project");
    s.wait_for(r#"[data-testid="rewrite-input"]"#, WAIT).unwrap();
    s.execute(
        &format!(
            r#"const set = (id, v) => {{ const e = document.querySelector(`[data-testid="${{id}}"]`); e.value = v; e.dispatchEvent(new Event('input', {{ bubbles: true }})); e.dispatchEvent(new Event('change', {{ bubbles: true }})); }};
               set('rewrite-input', 'thx for the help, ill send u the docs b4 friday\ndunno if she is gonna come tbh lol');
               set('rewrite-method', 'llm');
               set('rewrite-model', '{MODEL}');
               set('rewrite-n', '1');"#
        ),
        vec![],
    )
    .unwrap();
    let t0 = Instant::now();
    s.click_css(r#"[data-testid="rewrite-run"]"#, WAIT).unwrap();
    s.wait_for_count(r#"[data-testid="rewrite-why"]"#, 2, Duration::from_secs(500)).expect("both sentences rewritten");
    println!("rewrite of 2 sentences with {MODEL} (model load included): {} ms", t0.elapsed().as_millis());
    let run = Store::open(&db).unwrap().list_runs(&Default::default()).unwrap()[0].id;

    // The writer's decisions: another candidate for the first sentence (where there is one) with its first edit
    // rejected, and the second sentence kept as it was.
    let chips = s.texts(&format!(r#"{FIRST} [data-testid="rewrite-candidate"]"#)).unwrap();
    let picked = if chips.len() > 1 {
        s.click_css(&format!(r#"{FIRST} [data-testid="rewrite-candidate"]:nth-child(2)"#), WAIT).unwrap();
        1
    } else {
        println!("only one candidate for the first sentence: {chips:?}");
        0
    };
    let edits = s.find_all(&format!(r#"{FIRST} [data-testid="rewrite-edit"]"#)).unwrap();
    assert!(!edits.is_empty(), "the first sentence's rewrite has no edit to reject");
    s.click(&edits[0]).unwrap();
    s.click_css(&format!(r#"{SECOND} [data-testid="rewrite-reject-sentence"]"#), WAIT).unwrap();
    // Kept in the store as they are made, with the formality the sentences were scored again to.
    wait_until("both sentences' decisions stored with their new formality", WAIT, || {
        let c = stored_choices(&db, run);
        c.len() == 2 && c.iter().all(|(_, v)| v["formality"].is_number())
    });
    let choices = stored_choices(&db, run);
    assert_eq!(choices[0].1["candidate"], picked, "{choices:?}");
    assert!(!choices[0].1["rejected_edits"].as_array().unwrap().is_empty(), "{choices:?}");
    assert_eq!(choices[1].1["kept_original"], true, "{choices:?}");
    let made = shown(&s);
    assert!(made.contains(r#""kept_original": true"#) && made.contains(r#""0 "#), "{made}");
    screenshot_results(&s, "rewrite-history-made.png");
    s.close().unwrap();

    // Restarted: nothing shown until the run is clicked, here in the Documents view, which opens it in Rewrite.
    let s = Session::in_project(&db, dir.path(), &[], "Drafts", None).expect("the app opens the project again");
    assert_eq!(results_text(&s), "No rewrite yet.");
    // WebKitWebDriver does not click a table row itself: a cell of it, where a user's pointer lands.
    s.click_css(&format!(r#"[data-testid="view-documents"] [data-testid="run-item"][data-run-id="{run}"] td:nth-child(3)"#), WAIT).unwrap();
    s.wait_for(r#"[data-testid="view-rewrite"]:not([hidden]) [data-testid="rewrite-why"]"#, WAIT).expect("the run opens in the Rewrite view");
    s.wait_for_count(r#"[data-testid="rewrite-why"]"#, 2, WAIT).unwrap();
    let reopened = shown(&s);
    assert_eq!(reopened, made, "the reopened rewrite differs from the one left");
    let draft = s.execute(r#"return document.querySelector('[data-testid="rewrite-input"]').value;"#, vec![]).unwrap();
    assert_eq!(draft, "thx for the help, ill send u the docs b4 friday\ndunno if she is gonna come tbh lol", "the draft is back in the form");
    screenshot_results(&s, "rewrite-history-reopened.png");
    // A later change is kept too.
    s.click_css(r#"[data-testid="rewrite-accept-all"]"#, WAIT).unwrap();
    wait_until("Accept all stored", WAIT, || {
        let c = stored_choices(&db, run);
        c.len() == 2 && c.iter().all(|(_, v)| v["rejected_edits"].as_array().is_some_and(|a| a.is_empty()) && v["kept_original"] == false)
    });
    s.close().unwrap();

    // Restarted again, the run clicked in the Rewrite view's own list: every edit accepted, the picked candidate kept.
    let s = Session::in_project(&db, dir.path(), &[], "Drafts", Some("rewrite")).expect("the app opens the project a third time");
    assert_eq!(results_text(&s), "No rewrite yet.");
    s.click_css(&format!(r#"[data-testid="view-rewrite"] [data-testid="run-item"][data-run-id="{run}"] td:nth-child(3)"#), WAIT).unwrap();
    s.wait_for_count(r#"[data-testid="rewrite-why"]"#, 2, WAIT).expect("the run reopens from the Rewrite view's list");
    let accepted = shown(&s);
    assert!(!accepted.contains(r#""0 "#) && !accepted.contains(r#""kept_original": true"#), "{accepted}");
    let chips_now = s.texts(&format!(r#"{FIRST} [data-testid="rewrite-candidate"]"#)).unwrap();
    let current = s.find_all(&format!(r#"{FIRST} [data-testid="rewrite-candidate"].current"#)).unwrap();
    assert_eq!(current.len(), 1);
    assert_eq!(s.text(&current[0]).unwrap(), chips_now[picked], "the picked candidate is still the one shown");
    let selected = s.find_all(&format!(r#"[data-testid="view-rewrite"] [data-testid="run-item"].selected[data-run-id="{run}"]"#)).unwrap();
    assert_eq!(selected.len(), 1, "the open run is marked in the list");
    screenshot_results(&s, "rewrite-history-accepted.png");
    s.close().unwrap();
}
