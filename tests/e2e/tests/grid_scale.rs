//! The Translate view's review grid over a stored run of 10,000 segments, in the real window: the run is opened
//! from the view's runs list as a user does, the grid keeps only the rows on screen in the DOM, "go to segment"
//! scrolls row 9,000 into view with its text, scrolling to the end shows the last row, the flagged filter shows
//! exactly the flagged segments, an edit and Ctrl+Enter approve a row and reach the store, and the document's QA and
//! export run over all 10,000 segments with progress and cancel (a cancelled check says so; a cancelled export
//! leaves no file, not even half of one, where the user chose). Prints the time to the grid's first paint, to the
//! jump, to the filter, to the edit + approve, and QA and export times (the issue's goals, first paint < 1 s and jump
//! < 200 ms, are printed beside them, not asserted). Screenshots: `tests/e2e/screenshots/grid-scale-*.png`.
mod common;

use std::time::{Duration, Instant};

use registro_core::bench::{review_fixture, ReviewFixture};
use registro_e2e::{keys, screenshot_path, wait_until, Session};
use registro_store::{SegmentStatus, Store};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(60);
const SEGMENTS: usize = 10_000;

fn grid_attr(s: &Session, name: &str) -> String {
    s.execute(r#"const g = document.querySelector('[data-testid="translate-grid"]'); return g ? g.getAttribute(arguments[0]) : null;"#, vec![json!(name)])
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn rows_in_dom(s: &Session) -> usize {
    s.execute(r#"return document.querySelectorAll('[data-testid="translate-row"]').length"#, vec![]).unwrap().as_u64().unwrap() as usize
}

/// The text of segment `index`'s translation when its row is in the DOM and inside the grid's visible box.
fn visible_output(s: &Session, index: usize) -> Option<String> {
    s.execute(
        r#"const g = document.querySelector('[data-testid="translate-grid"]');
           const r = document.querySelector('[data-testid="translate-row"][data-index="' + arguments[0] + '"]');
           if (!g || !r) return null;
           const a = g.getBoundingClientRect(), b = r.getBoundingClientRect();
           const head = g.querySelector('thead').getBoundingClientRect().height;
           if (b.bottom <= a.top + head || b.top >= a.bottom || b.height === 0) return null;
           return r.querySelector('[data-testid="translate-output"]').textContent;"#,
        vec![json!(index)],
    )
    .unwrap()
    .as_str()
    .map(str::to_string)
}

fn notice(s: &Session) -> String {
    s.execute(r#"const n = document.querySelector('[data-testid="notice"]'); return n ? n.textContent : ''"#, vec![]).unwrap().as_str().unwrap_or_default().to_string()
}

/// Runs `action` (a script) in the page and returns the milliseconds until the frame after it, measured in the page.
fn timed_in_page(s: &Session, action: &str) -> f64 {
    let script = format!(
        r#"const done = arguments[arguments.length - 1]; const t0 = performance.now();
           {action}
           requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0)));"#
    );
    s.execute_async(&script, vec![]).unwrap().as_f64().unwrap()
}

/// Presses the Cancel of progress panel `testid` as soon as it says something containing `what` (watched from inside
/// the page, so the press lands while that step runs however fast this machine is); returns what it said.
fn cancel_when(s: &Session, testid: &str, what: &str) -> String {
    let v = s
        .execute_async(
            r#"const [testid, what, done] = arguments; const t0 = performance.now();
               const poll = () => {
                 const p = document.querySelector(`[data-testid="${testid}"]`);
                 const label = p ? p.querySelector('.progress-label').textContent : '';
                 if (label.includes(what)) { p.querySelector(`[data-testid="${testid}-cancel"]`).click(); return done(label); }
                 if (performance.now() - t0 > 30000) return done(null);
                 setTimeout(poll, 2);
               };
               poll();"#,
            vec![json!(testid), json!(what)],
        )
        .unwrap();
    v.as_str().unwrap_or_else(|| panic!("{testid} never said {what:?}")).to_string()
}

fn store_fixture(db: &std::path::Path) -> ReviewFixture {
    let t = Instant::now();
    let mut store = Store::open(db).unwrap();
    let f = review_fixture(&mut store, SEGMENTS).unwrap();
    println!("grid_scale: stored a translate run of {SEGMENTS} segments in {:.1} s", t.elapsed().as_secs_f64());
    // What the backend does for the grid's one call (`review_run`), without the window.
    let t = Instant::now();
    let review = registro_core::review::open_review(&store, f.run).unwrap();
    assert_eq!(review.rows.len(), SEGMENTS);
    let json = serde_json::to_string(&review).unwrap();
    println!(
        "grid_scale: open_review of {SEGMENTS} rows in the backend {} ms (the answer is {:.1} MB of JSON)",
        t.elapsed().as_millis(),
        json.len() as f64 / 1e6
    );
    f
}

#[test]
fn ten_thousand_segments_open_jump_filter_edit_approve_qa_and_export() {
    let Some((dir, db)) = common::ready_temp_store("ten_thousand_segments_open_jump_filter_edit_approve_qa_and_export") else { return };
    let fixture = store_fixture(&db);
    let run = fixture.run;
    let exported = dir.path().join("manual.de.txt");
    let cancelled = dir.path().join("cancelled.de.txt");
    let s = Session::in_project(&db, dir.path(), &[Some(cancelled.as_path()), Some(exported.as_path())], "review-bench", Some("translate"))
        .expect("the app opens the project");

    // ---- open the run from the Translate view's runs list ----
    let item = format!(r#"[data-view="translate"] [data-testid="run-item"][data-run-id="{run}"]"#);
    s.wait_for(&item, WAIT).expect("the stored run is listed");
    let t = Instant::now();
    // WebKitWebDriver does not click a table row itself: a cell of it, as a user's pointer lands.
    s.click_css(&format!("{item} td:nth-child(3)"), WAIT).unwrap();
    s.wait_for(&format!(r#"[data-testid="translate-grid"][data-run="{run}"][data-paint-ms]"#), WAIT).expect("the grid shows the run");
    let wall = t.elapsed().as_millis();
    let first = visible_output(&s, 0).expect("row 1 is on screen");
    assert!(first.ends_with("[1]"), "row 1's translation: {first}");
    let (load, paint) = (grid_attr(&s, "data-load-ms"), grid_attr(&s, "data-paint-ms"));
    println!(
        "grid_scale: first paint of the grid {paint} ms from the click's request (the first rows' answer {load} ms of it; {wall} ms by WebDriver polling, click included); goal < 1000 ms"
    );
    s.wait_for(r#"[data-testid="translate-grid"][data-full-ms]:not([data-loading])"#, WAIT).expect("the whole run is loaded");
    println!("grid_scale: the whole run of {SEGMENTS} segments in the grid {} ms after the click's request", grid_attr(&s, "data-full-ms"));
    assert_eq!(s.text_css(r#"[data-testid="grid-count"]"#, WAIT).unwrap(), "10,000 segments");
    let in_dom = rows_in_dom(&s);
    assert!(in_dom < 200, "only the rows on screen are in the DOM, not {in_dom}");
    let summary = s.text_css(r#"[data-testid="translate-summary"]"#, WAIT).unwrap();
    assert!(summary.starts_with("10000 segments") && summary.contains(&format!("{} flagged", fixture.flagged.len())), "{summary}");
    println!("grid_scale: {in_dom} row elements in the DOM for {SEGMENTS} segments");
    std::thread::sleep(Duration::from_millis(400));
    s.screenshot(&screenshot_path("grid-scale-open.png")).unwrap();

    // ---- go to segment 9,000 ----
    let goto = s.wait_for(r#"[data-testid="grid-goto"]"#, WAIT).unwrap();
    s.type_text(&goto, "9000").unwrap();
    let t = Instant::now();
    s.send_keys(&goto, keys::ENTER).unwrap();
    wait_until("row 9,000 to be on screen", WAIT, || visible_output(&s, 8999).is_some());
    let wall = t.elapsed().as_millis();
    let text = visible_output(&s, 8999).unwrap();
    assert!(text.ends_with("[9000]"), "row 9,000 shows its own translation: {text}");
    wait_until("the jump's paint time", WAIT, || !grid_attr(&s, "data-goto-paint-ms").is_empty());
    println!(
        "grid_scale: jump to segment 9,000: {} ms in the page to the row laid out, {} ms to the next frame painted ({wall} ms by WebDriver polling, Enter included); goal < 200 ms",
        grid_attr(&s, "data-goto-ms"),
        grid_attr(&s, "data-goto-paint-ms")
    );
    let in_dom = rows_in_dom(&s);
    assert!(in_dom < 200, "after the jump, still only the rows on screen: {in_dom}");
    let focused = s.execute(r#"const r = document.activeElement && document.activeElement.closest('[data-testid="translate-row"]'); return r ? Number(r.dataset.index) : null"#, vec![]).unwrap();
    assert_eq!(focused, json!(8999), "the caret is in segment 9,000's translation");
    std::thread::sleep(Duration::from_millis(400));
    s.screenshot(&screenshot_path("grid-scale-jump.png")).unwrap();

    // ---- scrolling: the end of the document, then back to the start ----
    let ms = timed_in_page(&s, r#"const g = document.querySelector('[data-testid="translate-grid"]'); g.scrollTop = g.scrollHeight;"#);
    wait_until("the last row after scrolling to the end", WAIT, || {
        s.execute(r#"const g = document.querySelector('[data-testid="translate-grid"]'); g.scrollTop = g.scrollHeight;"#, vec![]).unwrap();
        visible_output(&s, SEGMENTS - 1).is_some()
    });
    assert!(visible_output(&s, SEGMENTS - 1).unwrap().ends_with("[10000]"));
    println!("grid_scale: scroll to the end: {ms:.0} ms in the page to the next frame");
    s.execute(r#"document.querySelector('[data-testid="translate-grid"]').scrollTop = 0;"#, vec![]).unwrap();
    wait_until("row 1 after scrolling back", WAIT, || visible_output(&s, 0).is_some());
    assert!(rows_in_dom(&s) < 200);

    // ---- the flagged filter ----
    let ms = timed_in_page(
        &s,
        r#"const f = document.querySelector('[data-testid="translate-filter"]'); f.value = 'flagged'; f.dispatchEvent(new Event('change'));"#,
    );
    let shown = s.execute(r#"return document.querySelector('[data-testid="grid-count"]').dataset.shown"#, vec![]).unwrap();
    assert_eq!(shown, json!(fixture.flagged.len().to_string()), "the filter shows exactly the flagged segments");
    let (rows, all_flagged) = {
        let v = s
            .execute(
                r#"const rows = [...document.querySelectorAll('[data-testid="translate-row"]')];
                   return [rows.length, rows.every((r) => r.classList.contains('flagged'))];"#,
                vec![],
            )
            .unwrap();
        (v[0].as_u64().unwrap(), v[1].as_bool().unwrap())
    };
    assert!(all_flagged && rows > 0 && rows < 200, "{rows} rows in the DOM, all flagged: {all_flagged}");
    assert_eq!(visible_output(&s, fixture.flagged[0]).map(|t| t.ends_with(&format!("[{}]", fixture.flagged[0] + 1))), Some(true));
    println!("grid_scale: filter to the {} flagged segments: {ms:.0} ms in the page to the next frame", fixture.flagged.len());
    std::thread::sleep(Duration::from_millis(400));
    s.screenshot(&screenshot_path("grid-scale-flagged.png")).unwrap();
    let ms = timed_in_page(
        &s,
        r#"const f = document.querySelector('[data-testid="translate-filter"]'); f.value = 'unapproved'; f.dispatchEvent(new Event('change'));"#,
    );
    let shown = s.execute(r#"return document.querySelector('[data-testid="grid-count"]').dataset.shown"#, vec![]).unwrap();
    assert_eq!(shown, json!((SEGMENTS - fixture.approved.len()).to_string()), "the not-approved filter");
    println!("grid_scale: filter to the {} segments not approved: {ms:.0} ms in the page to the next frame", SEGMENTS - fixture.approved.len());
    s.execute(r#"const f = document.querySelector('[data-testid="translate-filter"]'); f.value = 'all'; f.dispatchEvent(new Event('change'));"#, vec![]).unwrap();

    // ---- edit and approve segment 9,002 (neither flagged nor approved) from the keyboard ----
    let index = 9001;
    assert!(!fixture.flagged.contains(&index) && !fixture.approved.contains(&index));
    s.type_text(&goto, "9002").unwrap();
    s.send_keys(&goto, keys::ENTER).unwrap();
    wait_until("row 9,002 to be on screen", WAIT, || visible_output(&s, index).is_some());
    let out = s.wait_for(&format!(r#"[data-testid="translate-row"][data-index="{index}"] [data-testid="translate-output"]"#), WAIT).unwrap();
    let t = Instant::now();
    // The jump left the caret at the end of the translation.
    s.send_keys(&out, &format!(" Danke.{}{}", keys::CONTROL, keys::ENTER)).unwrap();
    let status = |s: &Session| {
        s.execute(&format!(r#"const r = document.querySelector('[data-testid="translate-row"][data-index="{index}"]'); return r ? r.dataset.status : null"#), vec![])
            .unwrap()
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    wait_until("segment 9,002 to be approved", WAIT, || status(&s) == "approved");
    println!(
        "grid_scale: edit + Ctrl+Enter approve of segment 9,002: {} ms by WebDriver polling (keys included; the edit's checks load the meaning model when it is installed)",
        t.elapsed().as_millis()
    );
    wait_until("the caret to move on to segment 9,003", WAIT, || {
        s.execute(r#"const r = document.activeElement && document.activeElement.closest('[data-testid="translate-row"]'); return r ? Number(r.dataset.index) : null"#, vec![]).unwrap()
            == json!(index + 1)
    });
    {
        let store = Store::open(&db).unwrap();
        let o = store.output(run, index as i64).unwrap().unwrap();
        assert!(o.text.ends_with("[9002] Danke."), "the edit is stored: {}", o.text);
        let st = store.output_statuses(run).unwrap().into_iter().find(|(i, _)| *i == index as i64).unwrap().1;
        assert_eq!(st, SegmentStatus::Approved);
    }
    assert!(rows_in_dom(&s) < 200);
    std::thread::sleep(Duration::from_millis(400));
    s.screenshot(&screenshot_path("grid-scale-approved.png")).unwrap();

    // ---- QA over the whole document (the panel's Check) ----
    s.wait_for(&format!(r#"[data-testid="qa-run"] option[value="{run}"]"#), WAIT).unwrap();
    wait_until("the QA check the grid started on opening", WAIT, || {
        s.text_css(r#"[data-testid="qa-summary"]"#, WAIT).unwrap().starts_with(&format!("Run {run} ·"))
    });
    // The check is started and timed in the page; meanwhile a screenshot shows its progress (or, on a fast machine,
    // its result).
    s.execute(
        r#"document.querySelector('[data-testid="qa-panel"]').scrollIntoView({ block: 'start' });
           const btn = document.querySelector('[data-testid="qa-check"]');
           window.__qaMs = null; const t0 = performance.now(); btn.click();
           const poll = () => (btn.disabled ? setTimeout(poll, 5) : (window.__qaMs = performance.now() - t0));
           setTimeout(poll, 5);"#,
        vec![],
    )
    .unwrap();
    s.screenshot(&screenshot_path("grid-scale-qa-progress.png")).unwrap();
    let mut qa_ms = 0.0;
    wait_until("the check to end", WAIT, || {
        qa_ms = s.execute("return window.__qaMs", vec![]).unwrap().as_f64().unwrap_or(0.0);
        qa_ms > 0.0
    });
    let qa = s.text_css(r#"[data-testid="qa-summary"]"#, WAIT).unwrap();
    let issues = s.find_all(r#"[data-testid="qa-issue"]"#).unwrap().len();
    println!("grid_scale: QA of {SEGMENTS} segments: {qa_ms:.0} ms in the page from Check to the result shown ({issues} findings listed): {qa}");
    s.screenshot(&screenshot_path("grid-scale-qa.png")).unwrap();

    // ---- QA with progress, cancelled ----
    let t = Instant::now();
    s.click_css(r#"[data-testid="qa-check"]"#, WAIT).unwrap();
    let label = cancel_when(&s, "qa-progress", "checking");
    s.screenshot(&screenshot_path("grid-scale-qa-cancelling.png")).unwrap();
    wait_until("the check to say it was cancelled", WAIT, || {
        s.execute(r#"return document.querySelector('[data-testid="qa-summary"]').dataset.cancelled === '1'"#, vec![]).unwrap() == json!(true)
    });
    println!("grid_scale: QA cancelled {} ms after Check (its progress said {label:?}): {}", t.elapsed().as_millis(), s.text_css(r#"[data-testid="qa-summary"]"#, WAIT).unwrap());
    assert!(s.find_all(r#"[data-testid="qa-progress"]"#).unwrap().is_empty(), "the progress goes with the cancel");

    // ---- export with progress, cancelled: nothing is written ----
    s.click_css(r#"[data-testid="translate-export"]"#, WAIT).unwrap();
    let reason = s.wait_for(r#"[data-testid="override-reason"]"#, WAIT).expect("the QA errors ask for a reason");
    s.type_text(&reason, "a long draft for the client").unwrap();
    s.click_css(r#"[data-testid="override-ok"]"#, WAIT).unwrap();
    let label = cancel_when(&s, "export-progress", "export:");
    let t = Instant::now();
    s.screenshot(&screenshot_path("grid-scale-export-progress.png")).unwrap();
    wait_until("the export to say it was cancelled", WAIT, || notice(&s).starts_with("Export cancelled"));
    println!("grid_scale: export cancelled {} ms after Cancel (its progress said {label:?})", t.elapsed().as_millis());
    assert!(!cancelled.exists(), "a cancelled export writes no file where the user chose");
    let left: Vec<String> = std::fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.contains("registro-tmp")).collect();
    assert!(left.is_empty(), "no half file is left beside it: {left:?}");
    {
        let store = Store::open(&db).unwrap();
        let anyway = store.overrides(run).unwrap().into_iter().filter(|o| o.kind == registro_store::OverrideKind::Export).count();
        assert_eq!(anyway, 0, "a cancelled export records no 'exported anyway'");
    }

    // ---- export (QA first; its errors are exported anyway with a reason) ----
    let t = Instant::now();
    s.click_css(r#"[data-testid="translate-export"]"#, WAIT).unwrap();
    wait_until("the export or its QA question", WAIT, || {
        notice(&s).starts_with("Saved") || !s.find_all(r#"[data-testid="override-dialog"]"#).unwrap().is_empty()
    });
    let asked = t.elapsed().as_millis();
    let mut answered = Duration::ZERO;
    if !s.find_all(r#"[data-testid="override-dialog"]"#).unwrap().is_empty() {
        let reason = s.wait_for(r#"[data-testid="override-reason"]"#, WAIT).unwrap();
        s.type_text(&reason, "a long draft for the client").unwrap();
        answered = t.elapsed();
        s.click_css(r#"[data-testid="override-ok"]"#, WAIT).unwrap();
    }
    wait_until("the export", WAIT, || notice(&s).starts_with("Saved"));
    let total = t.elapsed();
    let written = std::fs::read_to_string(&exported).expect("the export is written where the user chose");
    assert_eq!(written.lines().count(), SEGMENTS, "every segment is exported");
    assert!(written.lines().nth(index).unwrap().ends_with("[9002] Danke."));
    println!(
        "grid_scale: export of {SEGMENTS} segments: {} ms by WebDriver polling ({asked} ms to its QA question or the file, {} ms after the reason was typed)",
        total.as_millis(),
        (total - answered).as_millis()
    );
    s.close().unwrap();
}
