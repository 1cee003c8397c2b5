//! The second opinion in the real window with the real Qwen2.5-Coder-1.5B (issue 43): sentences with a negation or
//! "you" and "me" acting on one another are translated into formal German, and each row the other checks did not
//! flag shows what the model read its translation back as ("read back: …"), so a translator sees why a sentence
//! passed; the option sits under Advanced, is on by default, and a run with it off reads nothing back and records
//! so. Writes `tests/e2e/screenshots/translate-read-back.png`.

use std::time::{Duration, Instant};

use registro_e2e::{ready_with_model_or_skip, screenshot_path, temp_project, Session};
use registro_store::Store;

const WAIT: Duration = Duration::from_secs(30);
const MODEL: &str = "qwen2.5-coder-1.5b-instruct";
const TEXT: &str = "I can\\'t come to the meeting tomorrow.\\nYou owe me twenty euros.";

/// Pastes the two sentences, picks the model, clicks Translate and waits until the run is done.
fn translate(s: &Session) {
    s.execute(
        &format!(
            r#"const t = document.querySelector('[data-testid="translate-source"]'); t.value = '{TEXT}'; t.dispatchEvent(new Event('input', {{ bubbles: true }}));
               const m = document.querySelector('[data-testid="translate-model"]'); m.value = '{MODEL}'; m.dispatchEvent(new Event('input', {{ bubbles: true }}));"#
        ),
        vec![],
    )
    .unwrap();
    s.click_css(r#"[data-testid="translate-run"]"#, WAIT).unwrap();
    s.wait_for_count(r#"[data-testid="translate-row"]"#, 2, Duration::from_secs(600)).expect("both sentences translated");
    let t0 = Instant::now();
    while s.execute(r#"return document.querySelector('[data-testid="translate-progress"]') !== null"#, vec![]).unwrap() == true {
        assert!(t0.elapsed() < Duration::from_secs(120), "the run did not end");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Per row: (flag text, read-back text), empty where the row has none.
fn rows(s: &Session) -> Vec<(String, String)> {
    let v = s
        .execute(
            r#"return [...document.querySelectorAll('[data-testid="translate-row"]')].map((r) => {
                 const f = r.querySelector('[data-testid="translate-flag"]'); const b = r.querySelector('[data-testid="translate-back"]');
                 return [f ? f.textContent : '', b ? b.textContent : ''];
               })"#,
            vec![],
        )
        .unwrap();
    v.as_array().unwrap().iter().map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_str().unwrap().to_string())).collect()
}

#[test]
fn a_sentence_that_passed_shows_what_its_translation_was_read_back_as() {
    if !ready_with_model_or_skip("a_sentence_that_passed_shows_what_its_translation_was_read_back_as", MODEL) {
        return;
    }
    let (dir, db) = temp_project("Letters");
    let s = Session::in_project(&db, dir.path(), &[], "Letters", Some("translate")).expect("the app opens the project");
    s.wait_for(r#"[data-testid="translate-source"]"#, WAIT).unwrap();
    // On by default, under Advanced.
    s.execute(r#"document.querySelector('[data-testid="translate-advanced"]').open = true"#, vec![]).unwrap();
    let on = s.execute(r#"return document.querySelector('[data-testid="translate-back-translation"]').checked"#, vec![]).unwrap();
    assert_eq!(on, true, "the second opinion is on by default");

    translate(&s);
    let first = rows(&s);
    println!("translate_read_back: {first:?}");
    // Every row is read back unless another check flagged it first (a flagged row needs no second opinion); the
    // reading is shown in the row, or, where it reverses the source, the flag quotes it.
    for (flag, back) in &first {
        assert!(!flag.is_empty() || back.starts_with("read back: “"), "an unflagged row shows its reading back: {first:?}");
        if !back.is_empty() {
            assert!(back.len() > "read back: “”".len() + 5, "{back}");
        }
    }
    assert!(first.iter().any(|(_, b)| !b.is_empty()), "at least one sentence was read back: {first:?}");
    println!("translate_read_back: outputs {:?}", s.texts(r#"[data-testid="translate-output"]"#).unwrap_or_default());
    s.execute(r#"document.querySelector('[data-testid="translate-row"]').scrollIntoView({ block: 'center' })"#, vec![]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&screenshot_path("translate-read-back.png")).unwrap();

    // Off: nothing is read back.
    s.click_css(r#"[data-testid="translate-back-translation"]"#, WAIT).unwrap();
    translate(&s);
    let second = rows(&s);
    assert!(second.iter().all(|(_, b)| b.is_empty()), "{second:?}");
    s.close().unwrap();

    let store = Store::open(&db).unwrap();
    let mut runs = store.list_runs(&Default::default()).unwrap();
    runs.sort_by_key(|r| r.id);
    let opinions: Vec<&str> = runs.iter().map(|r| r.params["second_opinion"].as_str().unwrap_or_default()).collect();
    assert_eq!(runs.len(), 2);
    assert!(opinions[0].starts_with("back-translation") && opinions[1] == "off", "{opinions:?}");
}
