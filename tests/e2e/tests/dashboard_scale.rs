//! The Dashboard with thousands of stored runs, in the real window: the runs table shows its first page with the
//! right total, pages (buttons and Page Down), filters and orders in the backend, keeps the ticked runs across
//! pages, compares them with progress, and a long comparison is cancelled while the window keeps answering (another
//! tab opens meanwhile). Prints how long the table takes to show 2,000 and 10,000 runs; screenshots go to
//! `tests/e2e/screenshots/dashboard-scale-*.png`.
mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use registro_e2e::{screenshot_path, Session};
use registro_store::Store;

const WAIT: Duration = Duration::from_secs(60);

/// `runs` scored runs of `segments` segments each (the benchmark's test set) in project "dashboard-bench".
fn store_with(db: &Path, runs: usize, segments: usize) -> Vec<i64> {
    let t = Instant::now();
    let mut store = Store::open(db).unwrap();
    let ids = registro_core::bench::bench_fixture(&mut store, runs, segments).unwrap();
    println!("dashboard_scale: stored {runs} runs × {segments} segments in {:.1} s", t.elapsed().as_secs_f64());
    ids
}

fn attr(s: &Session, css: &str, name: &str) -> String {
    let v = s
        .execute("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", vec![css.into(), name.into()])
        .unwrap();
    v.as_str().unwrap_or_default().to_string()
}

fn range_text(s: &Session) -> String {
    s.text(&s.wait_for(r#"[data-testid="dash-runs-range"]"#, WAIT).unwrap()).unwrap()
}

/// Waits until the runs table shows `expected` in its range line (a page or filter answered); fails otherwise.
fn expect_range(s: &Session, expected: &str) {
    let t = Instant::now();
    let mut r = range_text(s);
    while r != expected && t.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(50));
        r = range_text(s);
    }
    assert_eq!(r, expected, "the runs table's range line");
}

/// Picks `value` in the select `testid` as a user would (WebDriver cannot drive WebKitGTK's native popups).
fn choose(s: &Session, testid: &str, value: &str) {
    s.execute(
        r#"const sel = document.querySelector('[data-testid="' + arguments[0] + '"]'); sel.value = arguments[1]; sel.dispatchEvent(new Event('change'));"#,
        vec![testid.into(), value.into()],
    )
    .unwrap();
}

/// Clicks the pager button `testid`, waits for the page `expected`, and prints how long it took.
fn page_to(s: &Session, testid: &str, expected: &str, what: &str) {
    let t = Instant::now();
    s.click_css(&format!(r#"[data-testid="{testid}"]"#), WAIT).unwrap();
    expect_range(s, expected);
    println!(
        "dashboard_scale: {what} shown {} ms after the click (WebDriver polling), {} ms from the request to the rows in the page",
        t.elapsed().as_millis(),
        attr(s, r#"[data-testid="dash-runs"]"#, "data-shown-ms")
    );
}

fn first_row_id(s: &Session) -> i64 {
    attr(s, r#"[data-testid="dash-run-row"]"#, "data-run-id").parse().unwrap()
}

/// Opens the Dashboard on `db` and returns the session and the page's own time from asking for the first page to
/// its rows in the DOM (the view asks when the project opens, before its tab is shown).
fn open_dashboard(db: &Path, dir: &Path, total: usize) -> (Session, String) {
    let s = Session::in_project(db, dir, &[], "dashboard-bench", Some("dashboard")).expect("the app opens the project");
    s.wait_for(&format!(r#"[data-testid="dash-runs"][data-total="{total}"]:not([data-loading]) [data-testid="dash-run-row"]"#), WAIT)
        .expect("the first page of runs is shown with the total");
    let in_page = attr(&s, r#"[data-testid="dash-runs"]"#, "data-shown-ms");
    (s, in_page)
}

#[test]
fn two_thousand_runs_page_filter_compare_and_cancel() {
    let Some((dir, db)) = common::ready_temp_store("two_thousand_runs_page_filter_compare_and_cancel") else { return };
    let ids = store_with(&db, 2000, 50);
    let newest = |k: usize| ids[ids.len() - 1 - k];

    let (s, in_page) = open_dashboard(&db, dir.path(), 2000);
    println!("dashboard_scale: 2,000 runs: first page {in_page} ms from the request to the rows in the page");
    let rows = s.find_all(r#"[data-testid="dash-run-row"]"#).unwrap();
    assert_eq!(rows.len(), 50, "one page of 50 rows, not 2,000");
    assert_eq!(range_text(&s), "rows 1–50 of 2,000");
    assert_eq!(first_row_id(&s), newest(0), "newest first");
    s.screenshot(&screenshot_path("dashboard-scale-runs.png")).unwrap();

    // ---- paging: the Next button, then Page Down with the table focused ----
    page_to(&s, "dash-page-next", "rows 51–100 of 2,000", "2,000 runs: the next page");
    assert_eq!(first_row_id(&s), newest(50));
    // Tick the first run of page 2; it must stay ticked while other pages are shown.
    let kept = newest(50);
    s.click_css(&format!(r#"[data-testid="dash-run-row"][data-run-id="{kept}"] [data-testid="dash-run-check"]"#), WAIT).unwrap();
    s.execute(
        r#"const box = document.querySelector('[data-testid="dash-runs"]'); box.focus();
           box.dispatchEvent(new KeyboardEvent('keydown', { key: 'PageDown', bubbles: true }));"#,
        vec![],
    )
    .unwrap();
    expect_range(&s, "rows 101–150 of 2,000");
    s.click_css(r#"[data-testid="dash-page-first"]"#, WAIT).unwrap();
    expect_range(&s, "rows 1–50 of 2,000");
    for k in [0, 1] {
        s.click_css(&format!(r#"[data-testid="dash-run-row"][data-run-id="{}"] [data-testid="dash-run-check"]"#, newest(k)), WAIT).unwrap();
    }
    s.click_css(&format!(r#"[data-testid="dash-run-row"][data-run-id="{}"] [data-testid="dash-run-baseline"]"#, newest(1)), WAIT).unwrap();
    let ticked = s.text(&s.wait_for(r#"[data-testid="dash-selected"]"#, WAIT).unwrap()).unwrap();
    assert!(ticked.starts_with("3 ticked"), "two on this page and one on page 2: {ticked}");
    s.click_css(r#"[data-testid="dash-page-next"]"#, WAIT).unwrap();
    expect_range(&s, "rows 51–100 of 2,000");
    let still = s.execute(
        &format!(r#"return document.querySelector('[data-testid="dash-run-row"][data-run-id="{kept}"] [data-testid="dash-run-check"]').checked;"#),
        vec![],
    );
    assert_eq!(still.unwrap(), serde_json::json!(true), "the run ticked on page 2 is still ticked");

    // ---- filter and order, in the backend ----
    let t = Instant::now();
    s.type_text(&s.wait_for(r#"[data-testid="dash-f-model"]"#, WAIT).unwrap(), "SYSTEM-07").unwrap();
    expect_range(&s, "rows 1–2 of 2");
    println!("dashboard_scale: typing a filter → 2 matching rows shown {} ms after the first key (WebDriver, includes the 250 ms typing pause)", t.elapsed().as_millis());
    let systems = s.execute(r#"return [...document.querySelectorAll('[data-testid="dash-run-row"]')].map((r) => r.dataset.system);"#, vec![]).unwrap();
    assert_eq!(systems, serde_json::json!(["system-07", "system-07"]));
    // WebKitWebDriver refuses to type an empty text: clear the field the way a select-all + delete leaves it.
    s.execute(r#"const i = document.querySelector('[data-testid="dash-f-model"]'); i.value = ''; i.dispatchEvent(new Event('input'));"#, vec![]).unwrap();
    expect_range(&s, "rows 1–50 of 2,000");
    choose(&s, "dash-f-register", "informal");
    expect_range(&s, "rows 1–50 of 1,000");
    s.click_css(r#"[data-testid="dash-sort-system"]"#, WAIT).unwrap();
    let t = Instant::now();
    while attr(&s, r#"[data-testid="dash-run-row"]"#, "data-system") != "system-01" && t.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(attr(&s, r#"[data-testid="dash-run-row"]"#, "data-system"), "system-01", "ordered by system name");
    // Numbers in names sort by value: system-09, system-10 … system-50, not system-10, system-100, system-1000.
    let names = s.execute(r#"return [...document.querySelectorAll('[data-testid="dash-run-row"]')].map((r) => r.dataset.system);"#, vec![]).unwrap();
    let want: Vec<String> = (1..=50).map(|k| format!("system-{k:02}")).collect();
    assert_eq!(names, serde_json::json!(want), "the System column sorts as people read numbers");
    assert_eq!(attr(&s, r#"th[aria-sort="ascending"] button"#, "data-testid"), "dash-sort-system");
    s.screenshot(&screenshot_path("dashboard-scale-filtered.png")).unwrap();
    choose(&s, "dash-f-register", "");
    expect_range(&s, "rows 1–50 of 2,000");

    // ---- compare the three ticked runs (two pages): progress, then tables ----
    s.click_css(r#"[data-testid="dash-compare"]"#, WAIT).unwrap();
    let table = s.wait_for(r#"[data-testid="dash-table-corpus"]"#, WAIT).expect("the corpus table appears");
    let corpus_rows = s.find_all(r#"[data-testid="dash-table-corpus"] tbody tr"#).unwrap();
    assert_eq!(corpus_rows.len(), 3, "the runs ticked on both pages are compared");
    let text = s.text(&table).unwrap();
    assert!(text.contains("(baseline)"), "{text}");
    // Charts are built when scrolled to: the thumbnails exist, and the ones in view get their image.
    s.execute(r#"document.querySelector('[data-testid="dash-charts"]').scrollIntoView();"#, vec![]).unwrap();
    s.wait_for(r#"[data-testid="dash-chart-thumb"][data-rendered="1"]"#, WAIT).expect("a chart in view is rendered");
    s.screenshot(&screenshot_path("dashboard-scale-compared.png")).unwrap();

    // ---- a long comparison (1,000 runs) is cancelled while another tab is used ----
    s.execute(r#"window.scrollTo(0, 0);"#, vec![]).unwrap();
    s.click_css(r#"[data-testid="dash-clear-selection"]"#, WAIT).unwrap();
    choose(&s, "dash-page-size", "500");
    expect_range(&s, "rows 1–500 of 2,000");
    s.click_css(r#"[data-testid="dash-select-page"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="dash-page-next"]"#, WAIT).unwrap();
    expect_range(&s, "rows 501–1,000 of 2,000");
    s.click_css(r#"[data-testid="dash-select-page"]"#, WAIT).unwrap();
    let ticked = s.text(&s.wait_for(r#"[data-testid="dash-selected"]"#, WAIT).unwrap()).unwrap();
    assert!(ticked.starts_with("1000 ticked"), "{ticked}");
    s.click_css(r#"[data-testid="dash-compare"]"#, WAIT).unwrap();
    let progress = s.wait_for(r#"[data-testid="dash-compare-progress"]"#, WAIT).expect("the comparison shows its progress");
    let t = Instant::now();
    let mut label = String::new();
    while !label.contains("/1000)") && t.elapsed() < WAIT {
        label = s.text(&progress).unwrap_or_default();
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(label.contains("/1000)"), "progress counts the systems: {label}");
    s.screenshot(&screenshot_path("dashboard-scale-progress.png")).unwrap();
    // The window answers while the comparison runs: another tab opens and shows its view.
    let t = Instant::now();
    s.click_css(r#"[data-testid="tab-documents"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="view-documents"]:not([hidden])"#, WAIT).expect("the Documents tab opens during the comparison");
    let tab_ms = t.elapsed().as_millis();
    s.click_css(r#"[data-testid="tab-dashboard"]"#, WAIT).unwrap();
    assert!(
        !s.find_all(r#"[data-testid="dash-compare-progress"]"#).unwrap().is_empty(),
        "the comparison was still running when the other tab opened ({tab_ms} ms)"
    );
    println!("dashboard_scale: another tab opened {tab_ms} ms after the click while 1,000 runs were being compared");
    let t = Instant::now();
    s.click_css(r#"[data-testid="dash-compare-progress-cancel"]"#, WAIT).unwrap();
    let gone = s.wait_for_count(r#"[data-testid="dash-compare-progress"]"#, 0, WAIT);
    assert!(gone.is_ok(), "the comparison stops after Cancel");
    println!("dashboard_scale: Cancel → comparison stopped {} ms after the click", t.elapsed().as_millis());
    let notice = s.text(&s.wait_for(r#"[data-testid="notice"]"#, WAIT).unwrap()).unwrap();
    assert!(notice.contains("cancelled"), "the notice says it was cancelled: {notice}");
    assert_eq!(s.find_all(r#"[data-testid="dash-table-corpus"] tbody tr"#).unwrap().len(), 3, "the comparison on screen stays");
    s.screenshot(&screenshot_path("dashboard-scale-cancelled.png")).unwrap();
    s.close().unwrap();
}

#[test]
fn ten_thousand_runs_show_their_first_page() {
    let Some((dir, db)) = common::ready_temp_store("ten_thousand_runs_show_their_first_page") else { return };
    store_with(&db, 10_000, 2);
    let (s, in_page) = open_dashboard(&db, dir.path(), 10_000);
    println!("dashboard_scale: 10,000 runs: first page {in_page} ms from the request to the rows in the page");
    assert_eq!(s.find_all(r#"[data-testid="dash-run-row"]"#).unwrap().len(), 50);
    assert_eq!(range_text(&s), "rows 1–50 of 10,000");
    page_to(&s, "dash-page-last", "rows 9,951–10,000 of 10,000", "10,000 runs: the last page");
    s.close().unwrap();
}
