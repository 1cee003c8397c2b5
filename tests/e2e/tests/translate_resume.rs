//! Resume where the run is shown, with live progress, and an export that asks (issue 44, "state that never lies"), in
//! the real window. A formal German translation of a nine-sentence letter, made on an OpenAI-compatible server (a
//! scripted one on 127.0.0.1 whose answer is a fixed function of the sentence), was cancelled after three sentences.
//!
//! - Reopened in the Translate view it says "cancelled 3/9" above the grid and offers Resume there; its row in the runs
//!   list says the same.
//! - Resume (the server answering slowly) shows what it is doing before the first sentence (connecting, computing the
//!   prompt prefix), then "running n/9" as sentences arrive; each fills its own row of the grid, which stays in
//!   document order whatever order the server answers in, and the run's row in
//!   the runs list shows the same live state rather than the stale "cancelled 3/9"; at the end "done 9/9", no Resume.
//! - Exporting the cancelled run asks first ("6 of 9 segments are not translated — export anyway?"): No writes
//!   nothing, Export anyway writes the file with the untranslated lines empty.
//!
//! Screenshots: `tests/e2e/screenshots/translate-resume-*.png`, `translate-export-asks.png`.
mod common;
#[path = "../../../crates/registro-remote/testsupport/fake.rs"]
mod fake;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fake::{Act, FakeServer};
use registro_core::progress::CancelToken;
use registro_core::translate::{self as tr, Lang, Options, Register};
use registro_e2e::{screenshot_path, wait_until, Session};
use registro_store::{RunStatus, Store};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(60);
const SOURCES: [&str; 9] = [
    "Could you send me report 1 tomorrow?",
    "Could you check invoice 2 today?",
    "Could you sign contract 3 this week?",
    "Could you read chapter 4 tonight?",
    "Could you call customer 5 on Monday?",
    "Could you print page 6 for me?",
    "Could you book room 7 for Friday?",
    "Could you answer ticket 8 soon?",
    "Could you close case 9 by noon?",
];

/// Milliseconds the server waits before answering sentence n, times n (the probes wait once): with requests in flight
/// together, sentences still come one after another.
static DELAY_MS: AtomicU64 = AtomicU64::new(0);

/// The formal German answer for the sentence numbered `n`.
fn answer(n: &str) -> String {
    format!("Könnten Sie bitte Nummer {n} erledigen?")
}

/// Answers like a vLLM server serving one Qwen model: each completion by the number in its prompt's last user turn.
fn respond(path: &str, body: &str) -> Act {
    fake::vllm_qwen(path, body, |turn| {
        let number = turn.and_then(|t| SOURCES.iter().position(|s| t.contains(s))).map(|i| (i + 1).to_string());
        let (text, times) = match number {
            Some(n) => (answer(&n), n.parse::<u64>().unwrap_or(1)),
            // The connect-time probes.
            None => (" Paris".to_string(), 1),
        };
        fake::completion(&text).delay(Duration::from_millis(DELAY_MS.load(Ordering::SeqCst) * times))
    })
}

/// Project "Letters" with the letter as a document and its formal German translation through the server at `url`,
/// cancelled once three sentences were stored (one request at a time, so it stops there). Returns the run's id.
fn cancelled_run(db: &std::path::Path, url: &str) -> i64 {
    let mut store = Store::open(db).unwrap();
    let project = store.create_project("Letters").unwrap();
    let doc = registro_testkit::store_text_document(&mut store, project.id, "letter.txt", &SOURCES);
    let cfg = tr::remote::Config { max_in_flight: 1, ..tr::remote::Config::new(url) };
    let mut gen = tr::open_generator(None, Some(cfg)).expect("the scripted server answers");
    let mut t = tr::Translator::new(gen.as_mut(), Some(tr::Pool::default_for(Lang::De).unwrap()));
    // Without the second opinion, so the first three segments are the ones stored before the cancel (a segment read
    // back waits for its reading: `registro-core/tests/back_translation.rs`); the resume runs the request as stored.
    let opts = Options { n_best: 1, sentence_examples: 0, back_translation: false, ..Options::new(Lang::De, Register::Formal) };
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let sources: Vec<String> = SOURCES.iter().map(|s| s.to_string()).collect();
    let target = tr::RunTarget { project_id: project.id, document_id: Some(doc) };
    let (run, _) = tr::translate_and_store(&mut store, &target, &mut t, &sources, None, &opts, &mut |p| {
        if p.done >= 3 {
            stop.cancel()
        }
    }, &cancel)
    .unwrap();
    let r = store.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Cancelled);
    assert_eq!(r.completed_segments, 3, "the fixture stops after three sentences (one request at a time)");
    run
}

fn text_of(s: &Session, css: &str) -> String {
    s.execute("const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", vec![json!(css)]).unwrap().as_str().unwrap_or_default().to_string()
}

/// The segment index of every row in the grid, in the order they are shown.
fn row_order(s: &Session) -> Vec<u64> {
    s.execute(r#"return [...document.querySelectorAll('[data-testid="translate-row"]')].map((r) => Number(r.dataset.index));"#, vec![])
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// Rows of the grid whose translation is there (not "not translated"), by segment index.
fn translated_rows(s: &Session) -> Vec<u64> {
    s.execute(
        r#"return [...document.querySelectorAll('[data-testid="translate-row"]')]
             .filter((r) => r.dataset.status !== 'untranslated').map((r) => Number(r.dataset.index));"#,
        vec![],
    )
    .unwrap()
    .as_array()
    .unwrap()
    .iter()
    .map(|v| v.as_u64().unwrap())
    .collect()
}

fn open_in_grid(s: &Session, run: i64) -> String {
    let item = format!(r#"[data-view="translate"] [data-testid="run-item"][data-run-id="{run}"]"#);
    s.wait_for(&item, WAIT).expect("the run is listed");
    s.click_css(&format!("{item} td:nth-child(3)"), WAIT).unwrap();
    s.wait_for(&format!(r#"[data-testid="translate-grid"][data-run="{run}"]:not([data-loading])"#), WAIT).expect("the grid shows the run");
    s.wait_for_count(r#"[data-testid="translate-row"]"#, SOURCES.len(), WAIT).expect("every sentence is a row");
    item
}

#[test]
fn a_cancelled_run_resumes_in_the_translate_view_with_live_progress() {
    let Some((dir, db)) = common::ready_temp_store("a_cancelled_run_resumes_in_the_translate_view_with_live_progress") else { return };
    let server = FakeServer::start_with(Vec::new(), respond);
    let run = cancelled_run(&db, &server.url());
    let s = Session::in_project(&db, dir.path(), &[], "Letters", Some("translate")).expect("the app opens the project");
    let item = open_in_grid(&s, run);

    // ---- reopened: the state where the run is shown, and Resume there ----
    let state_css = r#"[data-testid="translate-run-state"] [data-testid="run-state"]"#;
    wait_until("the run's state above the grid", WAIT, || text_of(&s, state_css).contains("cancelled 3/9"));
    assert!(text_of(&s, &format!(r#"{item} [data-testid="run-state"]"#)).contains("cancelled 3/9"), "the runs list says the same");
    assert_eq!(text_of(&s, &format!(r#"{item} [data-testid="run-document"]"#)), "letter.txt", "the runs list names the document");
    assert_eq!(translated_rows(&s), vec![0, 1, 2]);
    let resume = s.wait_for(r#"[data-testid="translate-resume"]:not([hidden])"#, WAIT).expect("Resume is offered in the Translate view");
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("translate-resume-cancelled.png")).unwrap();

    // ---- resume: live progress, the grid and the list follow ----
    DELAY_MS.store(400, Ordering::SeqCst);
    let t0 = Instant::now();
    s.click(&resume).unwrap();
    let mut panel_states: Vec<String> = Vec::new();
    let mut list_states: Vec<String> = Vec::new();
    let mut picker_states: Vec<String> = Vec::new();
    let mut filled: Vec<usize> = Vec::new();
    let mut shot = false;
    loop {
        let panel = text_of(&s, r#"[data-testid="translate-progress-state"]"#);
        if !panel.is_empty() && panel_states.last() != Some(&panel) {
            panel_states.push(panel.clone());
        }
        let picked = s.execute(r#"const p = document.querySelector('[data-testid="translate-open-run"]'); return p.options[p.selectedIndex].textContent"#, vec![]).unwrap().as_str().unwrap_or_default().to_string();
        if picker_states.last() != Some(&picked) {
            picker_states.push(picked);
        }
        let listed = text_of(&s, &format!(r#"{item} [data-testid="run-state"]"#));
        if list_states.last() != Some(&listed) {
            list_states.push(listed.clone());
        }
        let rows = translated_rows(&s);
        if filled.last() != Some(&rows.len()) {
            // Sentences answered in any order fill their own rows: the grid stays in document order.
            assert_eq!(row_order(&s), (0..SOURCES.len() as u64).collect::<Vec<_>>(), "the rows stay in document order");
            filled.push(rows.len());
        }
        if !shot && panel.contains("running") && (5..9).contains(&rows.len()) {
            s.screenshot(&screenshot_path("translate-resume-live.png")).unwrap();
            // The runs list further down says the same.
            s.execute("document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })", vec![json!(item)]).unwrap();
            std::thread::sleep(Duration::from_millis(150));
            s.screenshot(&screenshot_path("translate-resume-live-list.png")).unwrap();
            shot = true;
        }
        if s.find_all(r#"[data-testid="translate-progress"]"#).unwrap().is_empty() && t0.elapsed() > Duration::from_millis(500) {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "the resume did not end: {panel_states:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    println!("translate_resume: resumed in {:.1} s; the panel said {panel_states:?}; the runs list said {list_states:?}; translated rows went {filled:?}", t0.elapsed().as_secs_f64());
    assert!(panel_states.iter().any(|p| p.starts_with("starting") && (p.contains("connecting") || p.contains("prompt prefix"))), "what it does before the first sentence is said: {panel_states:?}");
    assert!(panel_states.iter().any(|p| p.contains("running 4/9") || p.contains("running 5/9")), "n of m while it runs: {panel_states:?}");
    assert!(list_states.iter().any(|l| l.starts_with("running") || l.starts_with("starting")), "the runs list shows the live state: {list_states:?}");
    assert!(!list_states.iter().skip(1).any(|l| l.contains("cancelled 3/9")), "the list never goes back to the stale state: {list_states:?}");
    assert!(filled.len() >= 4, "the grid fills in while it runs, not at once at the end: {filled:?}");
    assert!(shot, "the resume was seen running with rows still to come");
    assert!(picker_states.iter().any(|p| p.contains("running")), "the run picker follows too: {picker_states:?}");

    wait_until("the run's state to say done", WAIT, || text_of(&s, state_css).contains("done 9/9"));
    wait_until("the runs list to say done", WAIT, || text_of(&s, &format!(r#"{item} [data-testid="run-state"]"#)).contains("done 9/9"));
    assert!(s.find_all(r#"[data-testid="translate-resume"]:not([hidden])"#).unwrap().is_empty(), "a done run offers no Resume");
    wait_until("all nine rows translated", WAIT, || translated_rows(&s).len() == 9);
    for i in 0..9 {
        let out = text_of(&s, &format!(r#"[data-testid="translate-row"][data-index="{i}"] [data-testid="translate-output"]"#));
        assert_eq!(out, answer(&(i + 1).to_string()), "segment {}", i + 1);
    }
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("translate-resume-done.png")).unwrap();
    s.close().unwrap();

    let store = Store::open(&db).unwrap();
    let outputs = store.outputs(run).unwrap();
    assert_eq!(outputs.iter().map(|o| o.segment_index).collect::<Vec<_>>(), (0..9).collect::<Vec<_>>(), "each sentence once");
    assert_eq!(store.run(run).unwrap().status, RunStatus::Done);
}

#[test]
fn exporting_a_cancelled_run_asks_first() {
    let Some((dir, db)) = common::ready_temp_store("exporting_a_cancelled_run_asks_first") else { return };
    let server = FakeServer::start_with(Vec::new(), respond);
    let run = cancelled_run(&db, &server.url());
    drop(server);
    let exported = dir.path().join("letter.de.txt");
    let s = Session::in_project(&db, dir.path(), &[Some(exported.as_path())], "Letters", Some("translate")).expect("the app opens the project");
    open_in_grid(&s, run);

    // ---- the question, answered No: nothing is written, no dialog opened ----
    s.click_css(r#"[data-testid="translate-export"]"#, WAIT).unwrap();
    let dialog = s.wait_for(r#"[data-testid="confirm-dialog"]"#, WAIT).expect("an incomplete run's export asks first");
    let question = s.text(&dialog).unwrap();
    assert!(question.contains("6 of 9 segments are not translated — export anyway?"), "{question}");
    std::thread::sleep(Duration::from_millis(200));
    s.screenshot(&screenshot_path("translate-export-asks.png")).unwrap();
    s.click_css(r#"[data-testid="confirm-cancel"]"#, WAIT).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(!exported.exists(), "No writes nothing");

    // ---- answered Export anyway: written, the untranslated lines empty ----
    s.click_css(r#"[data-testid="translate-export"]"#, WAIT).unwrap();
    s.wait_for(r#"[data-testid="confirm-dialog"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="confirm-ok"]"#, WAIT).unwrap();
    wait_until("the export", WAIT, || {
        if !s.find_all(r#"[data-testid="override-dialog"]"#).unwrap().is_empty() {
            // Only the untranslated segments should stop it; anything else the QA finds needs a reason.
            let msg = text_of(&s, r#"[data-testid="override-message"]"#);
            panic!("the export asked for a reason beyond the untranslated segments: {msg}");
        }
        exported.exists()
    });
    let text = std::fs::read_to_string(&exported).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 9, "{text}");
    assert_eq!(lines[0], answer("1"));
    assert!(lines[3..].iter().all(|l| l.is_empty()), "{text}");
    // The file lands before the view says so: wait for the notice rather than read it at once.
    wait_until("the export's notice", WAIT, || text_of(&s, r#"[data-testid="notice"]"#).starts_with("Saved"));
    s.close().unwrap();
}
