//! The Dashboard in the real window: import the UMD IWSLT 2022 EN→DE submissions as runs, compare three systems
//! (tables with CIs, charts), open a chart and a drill-down, and rate two segments blind. Screenshots go to
//! `tests/e2e/screenshots/dashboard-*.png`; the time from the Compare click to tables and charts on screen is
//! printed.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use registro_e2e::{screenshot_path, app_args, app_binary, ready_or_skip, Session};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(60);


fn submissions_dir() -> Option<PathBuf> {
    let base = std::env::var_os("REGISTRO_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let d = base.join("iwslt2022-umd/en-de");
    d.is_dir().then_some(d)
}

#[test]
fn import_compare_drill_rate() {
    if !ready_or_skip("import_compare_drill_rate") {
        return;
    }
    let Some(subs) = submissions_dir() else {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "skipped: import_compare_drill_rate: shared data iwslt2022-umd/en-de not found");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("registro.db");
    // What the "user" picks in the dialogs, in order: the submissions folder, where to save a chart, and the
    // folder to export the report into (WebDriver cannot drive a native dialog; the app reads these at start).
    let chart_file = dir.path().join("bleu.svg");
    let report_dir = dir.path().join("report");
    std::fs::create_dir(&report_dir).expect("report folder");
    let answers = [Some(subs.as_path()), Some(chart_file.as_path()), Some(report_dir.as_path())];
    let s = Session::start(&app_binary(), &app_args(&db, dir.path(), &answers)).expect("start the app");
    s.wait_for(r#"body[data-ready="1"]"#, WAIT).expect("the UI becomes ready");

    s.type_text(&s.wait_for(r#"[data-testid="new-project-name"]"#, WAIT).unwrap(), "IWSLT 2022 EN-DE").unwrap();
    s.click_css(r#"[data-testid="create-project"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="project-item"].selected"#, WAIT).expect("the project opens");
    s.click_css(r#"[data-testid="tab-dashboard"]"#, WAIT).unwrap();

    // ---- import the folder: 5 systems × formal/informal = 10 runs ----
    s.click_css(r#"[data-testid="dash-import"]"#, WAIT).unwrap();
    let rows = s.wait_for_count(r#"[data-testid="dash-run-row"]"#, 10, Duration::from_secs(180)).expect("10 runs imported and listed");
    assert_eq!(rows.len(), 10);

    // ---- pick three formal systems, the second as baseline ----
    let formal: Vec<_> = ["formality-control-1.formal.de", "formality-control-2.formal.de", "formality-control-3.formal.de"]
        .iter()
        .map(|n| s.wait_for(&format!(r#"[data-testid="dash-run-row"][data-system="{n}"]"#), WAIT).expect("run listed"))
        .collect();
    assert_eq!(formal.len(), 3);
    for n in ["formality-control-1.formal.de", "formality-control-2.formal.de", "formality-control-3.formal.de"] {
        s.click_css(&format!(r#"[data-testid="dash-run-row"][data-system="{n}"] [data-testid="dash-run-check"]"#), WAIT).unwrap();
    }
    s.click_css(r#"[data-testid="dash-run-row"][data-system="formality-control-2.formal.de"] [data-testid="dash-run-baseline"]"#, WAIT)
        .unwrap();
    // The form starts from core's defaults (`dashboard_defaults`), as `registro report`'s flags do.
    let resamples = s.execute(r#"return document.querySelector('[data-testid="dash-bootstrap"]').value;"#, vec![]).unwrap();
    assert_eq!(resamples.as_str(), Some(registro_core::report::CompareOptions::default().bootstrap.to_string().as_str()), "core's resamples");
    let t0 = Instant::now();
    s.click_css(r#"[data-testid="dash-compare"]"#, WAIT).unwrap();
    let table = s.wait_for(r#"[data-testid="dash-table-corpus"]"#, WAIT).expect("the corpus table appears");
    s.wait_for(r#"[data-testid="dash-chart-thumb"]"#, WAIT).expect("charts appear");
    let wall = t0.elapsed();
    let shown = s.execute(r#"return document.querySelector('[data-testid="dash-results"]').getAttribute('data-shown-ms');"#, vec![]).unwrap();
    println!("dashboard: Compare click → tables and charts shown: {} ms in the page ({} ms as seen by WebDriver)", shown.as_str().unwrap_or("?"), wall.as_millis());

    let text = s.text(&table).unwrap();
    assert!(text.contains("BLEU") && text.contains("chrF2") && text.contains("M-Acc"), "corpus table columns: {text}");
    assert!(text.contains("formality-control-2") && text.contains("(baseline)"), "the baseline is marked: {text}");
    assert!(text.contains('['), "CIs are shown: {text}");
    assert!(text.contains("nrefs:1") && text.contains("version:2.6.0"), "signatures shown: {text}");
    let corpus_rows = s.find_all(r#"[data-testid="dash-table-corpus"] tbody tr"#).unwrap();
    assert_eq!(corpus_rows.len(), 3, "one row per compared system");
    s.wait_for(r#"[data-testid="dash-table-macc"]"#, WAIT).expect("M-Acc counts table");
    s.screenshot(&screenshot_path("dashboard-tables.png")).unwrap();

    // ---- the edit types, a table over every segment pair, are built when the page scrolls to them ----
    s.execute(
        r#"const c = document.querySelector('[data-testid="dash-pending-edit_types"], [data-testid="dash-table-edit_types"]'); c.scrollIntoView();"#,
        vec![],
    )
    .expect("the edit types card is on the page");
    let edits = s.wait_for(r#"[data-testid="dash-table-edit_types"]"#, WAIT).expect("the edit types table is built when shown");
    let edits_text = s.text(&edits).unwrap();
    assert!(edits_text.contains("paraphrase") && edits_text.contains("Edits from the baseline's output"), "edit types: {edits_text}");
    assert_eq!(
        s.find_all(r#"[data-testid="dash-table-edit_types"] tbody tr"#).unwrap().len(),
        2,
        "one row per system other than the baseline"
    );
    assert!(s.find_all(r#"[data-testid="dash-pending-edit_types"]"#).unwrap().is_empty(), "the placeholder is replaced");
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("dashboard-edit-types.png")).unwrap();

    // ---- open a chart ----
    s.click_css(r#"[data-testid="dash-chart-thumb"][data-key="bars_bleu"]"#, WAIT).expect("BLEU bar chart thumbnail");
    s.wait_for(r#"[data-testid="dash-chart-viewer"][data-open="bars_bleu"] img.dash-chart-large"#, WAIT).expect("the chart opens large");
    let loaded = s
        .execute(r#"const i = document.querySelector('.dash-chart-large'); return i.complete && i.naturalWidth;"#, vec![])
        .unwrap();
    assert!(loaded.as_u64().unwrap_or(0) >= 400, "the chart image rendered: {loaded}");
    s.execute(r#"document.querySelector('[data-testid="dash-chart-viewer"]').scrollIntoView();"#, vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("dashboard-chart.png")).unwrap();

    // ---- the BLEU × formality trade-off: German outputs placed by the register analyzer, and the axis says so ----
    s.click_css(r#"[data-testid="dash-chart-thumb"][data-key="scatter_bleu_formality"]"#, WAIT).expect("BLEU × formality thumbnail");
    s.wait_for(r#"[data-testid="dash-chart-viewer"][data-open="scatter_bleu_formality"] img.dash-chart-large"#, WAIT).expect("the scatter opens");
    // The SVG the window shows, asked for the way the page asks for it.
    let svg = s.invoke("dashboard_chart_svg", serde_json::json!({ "key": "scatter_bleu_formality" }), 60_000).unwrap().expect("the chart renders");
    let svg = svg.as_str().unwrap_or_default();
    assert!(svg.contains("register analyzer (de)"), "the formality axis names the German analyzer, not the English PT16 regressor: {}", &svg[..svg.len().min(400)]);
    s.execute(r#"document.querySelector('[data-testid="dash-chart-viewer"]').scrollIntoView();"#, vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("dashboard-bleu-formality.png")).unwrap();
    s.click_css(r#"[data-testid="dash-chart-thumb"][data-key="bars_bleu"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="dash-chart-viewer"][data-open="bars_bleu"] img.dash-chart-large"#, WAIT).unwrap();

    // ---- save it, and export the whole comparison, to the files picked in the dialogs ----
    s.click_css(r#"[data-testid="dash-chart-save-svg"]"#, WAIT).unwrap();
    let t = Instant::now();
    let mut notice = String::new();
    while !notice.contains("bleu.svg") && t.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(100));
        notice = s.text(&s.wait_for(r#"[data-testid="notice"]"#, WAIT).unwrap()).unwrap();
    }
    assert!(notice.contains("saved") && notice.contains("bleu.svg"), "the notice names the saved file: {notice}");
    let svg = std::fs::read_to_string(&chart_file).expect("the chart was saved where the user chose");
    assert!(svg.contains("<svg"), "an SVG: {}", &svg[..svg.len().min(200)]);
    s.click_css(r#"[data-testid="dash-export"]"#, WAIT).unwrap();
    let t = Instant::now();
    while !report_dir.join("report.html").is_file() && t.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(report_dir.join("report.html").is_file(), "the report was written into the folder the user chose");
    let html = std::fs::read_to_string(report_dir.join("report.html")).unwrap();
    assert!(html.contains("Edit types"), "the report holds every table, also those built when shown");

    // ---- drill-down between the baseline and system 1 ----
    s.click_css(r#"[data-testid="dash-drill-go"]"#, WAIT).unwrap();
    let segs = s.wait_for(r#"[data-testid="dash-drill-segment"]"#, WAIT).expect("drill-down segments");
    let seg_text = s.text(&segs).unwrap();
    assert!(seg_text.contains("Δ"), "the difference is shown: {seg_text}");
    assert!(!s.find_all(r#"[data-testid="dash-drill-segment"] .tok.match, [data-testid="dash-drill-segment"] .tok.improving"#).unwrap().is_empty(), "n-grams are highlighted");
    s.execute(r#"document.querySelector('[data-testid="dash-drill"]').scrollIntoView();"#, vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("dashboard-drilldown.png")).unwrap();

    // ---- rate two segments blind ----
    s.type_text(&s.wait_for(r#"[data-testid="dash-rater"]"#, WAIT).unwrap(), "tester").unwrap();
    s.type_text(&s.wait_for(r#"[data-testid="dash-rate-count"]"#, WAIT).unwrap(), "2").unwrap();
    s.click_css(r#"[data-testid="dash-rate-start"]"#, WAIT).unwrap();
    for item in 0..2 {
        s.wait_for(r#"[data-testid="dash-rate-item"]"#, WAIT).expect("a rating item");
        // Choose a value on every scale of every output through the page (select elements).
        s.execute(
            r#"const item = arguments[0];
               document.querySelectorAll('[data-testid="dash-rate-item"] select').forEach((sel, i) => {
                 sel.selectedIndex = 1 + ((i + item) % (sel.options.length - 1));
               });"#,
            vec![json!(item)],
        )
        .unwrap();
        if item == 0 {
            s.execute(r#"document.querySelector('[data-testid="dash-rate-item"]').scrollIntoView();"#, vec![]).unwrap();
            s.screenshot(&screenshot_path("dashboard-rating.png")).unwrap();
        }
        s.click_css(r#"[data-testid="dash-rate-save"]"#, WAIT).unwrap();
    }
    s.wait_for(r#"[data-testid="dash-rate-done"]"#, WAIT).expect("both items saved");
    let summary = s.wait_for(r#"[data-testid="dash-table-human_means"]"#, WAIT).expect("human summary");
    let st = s.text(&summary).unwrap();
    assert!(st.contains("formality-control-1"), "means per system: {st}");
    // The summary is redrawn once the last item's ratings are stored, a moment after "done" shows.
    let mut notice = String::new();
    let t = Instant::now();
    while !notice.contains("24 ratings by 1 rater") && t.elapsed() < WAIT {
        notice = s.text(&s.wait_for(r#"[data-testid="dash-human-summary"]"#, WAIT).unwrap()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(notice.contains("24 ratings by 1 rater"), "2 items × 3 outputs × 4 scales stored: {notice}");
    s.execute(r#"document.querySelector('[data-testid="dash-human-summary"]').scrollIntoView();"#, vec![]).unwrap();
    s.screenshot(&screenshot_path("dashboard-human.png")).unwrap();

    // ---- the five informal submissions: lower formality is better, as M-Acc says ----
    for n in ["formality-control-1.formal.de", "formality-control-2.formal.de", "formality-control-3.formal.de"] {
        s.click_css(&format!(r#"[data-testid="dash-run-row"][data-system="{n}"] [data-testid="dash-run-check"]"#), WAIT).unwrap();
    }
    for k in 1..=5 {
        s.click_css(&format!(r#"[data-testid="dash-run-row"][data-system="formality-control-{k}.informal.de"] [data-testid="dash-run-check"]"#), WAIT)
            .unwrap();
    }
    s.click_css(r#"[data-testid="dash-run-row"][data-system="formality-control-1.informal.de"] [data-testid="dash-run-baseline"]"#, WAIT)
        .unwrap();
    s.click_css(r#"[data-testid="dash-compare"]"#, WAIT).unwrap();
    let t = Instant::now();
    while s.find_all(r#"[data-testid="dash-table-corpus"] tbody tr"#).unwrap().len() != 5 && t.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(s.find_all(r#"[data-testid="dash-table-corpus"] tbody tr"#).unwrap().len(), 5, "the five informal systems");
    let head = s.wait_for(r#"[data-testid="dash-table-corpus"] th[data-key="formality"]"#, WAIT).unwrap();
    assert!(s.text(&head).unwrap().contains('↓'), "formality: lower is better for informal runs: {}", s.text(&head).unwrap());
    // Sorting by formality (best first) gives M-Acc's best and worst systems at the ends.
    s.click_css(r#"[data-testid="dash-table-corpus"] th[data-key="formality"]"#, WAIT).unwrap();
    let order = s
        .execute(
            r#"return [...document.querySelectorAll('[data-testid="dash-table-corpus"] tbody tr')].map(r => r.cells[0].textContent);"#,
            vec![],
        )
        .unwrap();
    let order: Vec<String> = order.as_array().unwrap().iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect();
    println!("dashboard: informal systems by formality, best first: {order:?}");
    assert!(order[0].contains("formality-control-5") && order[4].contains("formality-control-4"), "best and worst as M-Acc ranks them: {order:?}");
    let corpus_text = s.text(&s.wait_for(r#"[data-testid="dash-table-corpus"]"#, WAIT).unwrap()).unwrap();
    assert!(corpus_text.contains("lower is better: the runs ask for informal"), "the note says why: {corpus_text}");
    // The less informal systems are marked worse (†), never better (*), on formality.
    let marks = s
        .execute(
            r#"const t = document.querySelector('[data-testid="dash-table-corpus"]');
               const i = [...t.querySelectorAll('th')].findIndex(h => h.dataset.key === 'formality');
               return [...t.querySelectorAll('tbody tr')].map(r => r.cells[i].textContent);"#,
            vec![],
        )
        .unwrap();
    let marks: Vec<String> = marks.as_array().unwrap().iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect();
    assert!(marks.iter().all(|m| !m.contains('*')), "no informal system is 'better' for being more formal: {marks:?}");
    assert!(marks.iter().filter(|m| m.contains('†')).count() >= 3, "{marks:?}");
    s.execute(r#"document.querySelector('[data-testid="dash-table-corpus"]').scrollIntoView();"#, vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("dashboard-informal-table.png")).unwrap();

    // The formality chart: its title says which side is better, and its labels tell the systems apart.
    s.click_css(r#"[data-testid="dash-chart-thumb"][data-key="bars_formality"]"#, WAIT).expect("formality bar chart");
    s.wait_for(r#"[data-testid="dash-chart-viewer"][data-open="bars_formality"] img.dash-chart-large"#, WAIT).expect("the chart opens");
    let svg = s.invoke("dashboard_chart_svg", serde_json::json!({ "key": "bars_formality" }), 60_000).unwrap().expect("the chart renders");
    let svg = svg.as_str().unwrap_or_default();
    assert!(svg.contains("lower is better") && !svg.contains("higher is better"), "the chart's direction");
    assert!(svg.contains("…control-5") && svg.contains("<title>formality-control-5.informal"), "short labels, full names on hover");
    let key = s.wait_for(r#"[data-testid="dash-chart-key"]"#, WAIT).expect("the names key under the chart");
    let key_text = s.text(&key).unwrap();
    assert!(key_text.contains("…control-1 = formality-control-1.informal"), "{key_text}");
    assert_eq!(s.find_all(r#"[data-testid="dash-chart-key"] li[title]"#).unwrap().len(), 5, "a tooltip per system");
    s.execute(r#"document.querySelector('[data-testid="dash-chart-viewer"]').scrollIntoView();"#, vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    s.screenshot(&screenshot_path("dashboard-informal-formality.png")).unwrap();
    s.close().unwrap();
}
