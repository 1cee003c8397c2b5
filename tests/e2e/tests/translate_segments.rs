//! Subtitles in both registers through the real window with the real Qwen2.5-Coder-0.5B: an SRT imported and
//! translated into French formal and informal at once (two linked runs, two target columns), a segment split in
//! the grid (caret in the source, Enter: both halves translated again in both registers), two sentences of one
//! cue joined, a join across two cues refused, and the SRT exported with every cue and timing in place. Writes
//! `tests/e2e/screenshots/translate-contrastive.png` and `translate-split-join.png`.
mod common;

use std::time::Duration;

use registro_e2e::{keys, screenshot_path, wait_until, Session};

const WAIT: Duration = Duration::from_secs(30);
const MODEL_WAIT: Duration = Duration::from_secs(540);
const MODEL: &str = "qwen2.5-coder-0.5b-instruct";

/// The sources of the grid's rows, in order.
fn sources(s: &Session) -> Vec<String> {
    let v = s.execute(r#"return Array.from(document.querySelectorAll('[data-testid="translate-row"] .tr-src > div:first-child')).map(e => e.textContent)"#, vec![]).unwrap();
    serde_json::from_value(v).unwrap()
}

/// Rows whose own and contrast translations are both filled, once no progress panel is left.
/// Clicks a button in a row of the grid, the row scrolled to the middle of the window first (the grid scrolls inside
/// the page, under the bar that stays at its top).
fn click_in_row(s: &Session, css: &str) {
    s.wait_for(css, WAIT).unwrap();
    s.execute("document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })", vec![serde_json::json!(css)]).unwrap();
    s.click_css(css, WAIT).unwrap();
}

fn settled(s: &Session, rows: usize) -> bool {
    s.execute(
        r#"const rows = Array.from(document.querySelectorAll('[data-testid="translate-row"][data-status]'));
           return document.querySelector('[data-testid="translate-progress"]') === null && rows.length === arguments[0]
             && rows.every(r => r.querySelector('[data-testid="translate-output"]').textContent.trim() !== ''
                             && r.querySelector('[data-testid="translate-contrast"] .tr-out')?.textContent.trim())"#,
        vec![rows.into()],
    )
    .unwrap()
        == true
}

#[test]
fn subtitles_in_both_registers_split_joined_and_exported_cue_for_cue() {
    let Some(common::FixtureToTranslate { dir: _dir, fixture: srt, exported, session: s, .. }) = common::fixture_to_translate(
        "subtitles_in_both_registers_split_joined_and_exported_cue_for_cue",
        "Subtitles",
        "cues.srt",
        "cues.fr.srt",
    ) else {
        return;
    };
    s.execute(r#"const l = document.querySelector('[data-testid="translate-lang"]'); l.value = 'fr'; l.dispatchEvent(new Event('change'));"#, vec![]).unwrap();
    s.pick_translate_source("cues.srt", MODEL, 1).unwrap();
    s.click_css(r#"[data-testid="translate-contrastive"]"#, WAIT).unwrap();
    s.click_css(r#"[data-testid="translate-run"]"#, WAIT).unwrap();
    let before = {
        wait_until("the two registers", MODEL_WAIT, || {
            let n = s.find_all(r#"[data-testid="translate-row"][data-status]"#).unwrap().len();
            n > 0 && settled(&s, n)
        });
        sources(&s)
    };
    let head = s.text(&s.wait_for(r#"[data-testid="translate-contrast-head"]"#, WAIT).unwrap()).unwrap();
    assert!(head.starts_with("informal (run "), "the second column is the informal run: {head}");
    let informal_labels = s.execute(r#"return Array.from(document.querySelectorAll('[data-testid="translate-contrast"] [data-testid="translate-badge"]')).map(b => b.textContent)"#, vec![]).unwrap();
    assert_eq!(informal_labels.as_array().unwrap().len(), before.len(), "a register badge per informal translation");
    s.screenshot(&screenshot_path("translate-contrastive.png")).unwrap();

    // Split "Would you like some coffee?": the box opens with the caret before "some"; Enter splits there.
    let coffee = before.iter().position(|x| x == "Would you like some coffee?").expect("cue 1 is one sentence");
    click_in_row(&s, &format!(r#"[data-testid="translate-row"][data-index="{coffee}"] [data-testid="translate-split"]"#));
    let box_ = s.wait_for(r#"[data-testid="translate-split-box"]"#, WAIT).unwrap();
    s.send_keys(&box_, keys::ENTER).unwrap();
    wait_until("the split halves in both registers", MODEL_WAIT, || settled(&s, before.len() + 1));
    let after_split = sources(&s);
    assert_eq!(&after_split[coffee..coffee + 2], ["Would you like", "some coffee?"], "{after_split:?}");

    // "Yes, please." and "Thank you!" are one cue: they join. The cue before is another cue: that join is refused.
    let yes = after_split.iter().position(|x| x == "Yes, please.").expect("cue 2's first sentence");
    click_in_row(&s, &format!(r#"[data-testid="translate-row"][data-index="{}"] [data-testid="translate-join"]"#, yes - 1));
    let notice = || s.text(&s.wait_for(r#"[data-testid="notice"]"#, WAIT).unwrap()).unwrap();
    wait_until("the refusal", WAIT, || notice().contains("different parts"));
    assert_eq!(sources(&s), after_split, "a refused join changes nothing");
    click_in_row(&s, &format!(r#"[data-testid="translate-row"][data-index="{yes}"] [data-testid="translate-join"]"#));
    wait_until("the joined row", WAIT, || sources(&s).len() == after_split.len() - 1);
    assert_eq!(sources(&s)[yes], "Yes, please. Thank you!");
    assert!(settled(&s, after_split.len() - 1), "both translations of the joined sentences are kept");
    s.screenshot(&screenshot_path("translate-split-join.png")).unwrap();

    s.click_css(r#"[data-testid="translate-export"]"#, WAIT).unwrap();
    // QA errors (a flag the small model's output leaves open) block the export: exporting anyway takes a reason.
    let question = r#"[data-testid="override-dialog"]"#;
    wait_until("the export or its QA question", WAIT, || {
        notice().starts_with("Saved") || !s.find_all(question).unwrap().is_empty()
    });
    if !s.find_all(question).unwrap().is_empty() {
        let reason = s.wait_for(r#"[data-testid="override-reason"]"#, WAIT).unwrap();
        s.type_text(&reason, "subtitles checked by hand").unwrap();
        s.click_css(r#"[data-testid="override-ok"]"#, WAIT).unwrap();
        wait_until("the export", WAIT, || notice().starts_with("Saved"));
    }
    s.close().unwrap();

    let out = std::fs::read(&exported).expect("the SRT is written where the user chose");
    let cues = registro_formats::import(&out, registro_formats::Format::Srt).expect("the export opens as SRT");
    let original = registro_formats::import(&std::fs::read(&srt).unwrap(), registro_formats::Format::Srt).unwrap();
    assert_eq!(cues.segments.len(), original.segments.len(), "every cue is still there");
    let text = String::from_utf8(out).unwrap();
    for timing in ["00:00:01,000 --> 00:00:03,500", "00:00:04,000 --> 00:00:06,000", "00:00:06,500 --> 00:00:09,000"] {
        assert!(text.contains(timing), "{timing} kept: {text}");
    }
    assert!(!text.contains("Would you like"), "the split cue is translated: {text}");
}
