//! The second opinion on meaning (issue 43): a segment whose source has a negation, or "you" and "me" acting on one
//! another, has its chosen translation read back in English by the same model; a back-translation that reverses
//! the roles or the polarity flags the segment in words, and the flag survives storing, review and an edit that
//! was not checked again. Faithful ones stay unflagged, and other sentences cost no extra generation.
use std::cell::RefCell;

use registro_core::progress::CancelToken;
use registro_core::review;
use registro_core::translate::{self as tr, Lang, Options, Register};
use registro_store::Store;

mod common;

const ROLES: &str = "Can you send me the report by Friday?";
const NEGATED: &str = "I can't come to the meeting tomorrow.";
const PLAIN: &str = "The train leaves soon.";
const THANKS: &str = "Thank you for the report.";

/// The German the model "translates" each source into (the roles and the negation both reversed), and what it reads
/// each translation back as.
fn german(source: &str, faithful: bool) -> &'static str {
    match (source, faithful) {
        (ROLES, true) => "Können Sie mir den Bericht bis Freitag schicken?",
        (ROLES, false) => "Kann ich Ihnen den Bericht bis Freitag schicken?",
        (NEGATED, true) => "Ich kann morgen nicht zur Besprechung kommen.",
        // "nicht" kept, but on the wrong verb: the rule check sees a negation and passes it.
        (NEGATED, false) => "Ich kann nicht warten, morgen zur Besprechung zu kommen.",
        (PLAIN, _) => "Der Zug fährt bald ab.",
        (THANKS, _) => "Vielen Dank für den Bericht.",
        _ => panic!("no German for {source:?}"),
    }
}

fn english(german: &str) -> &'static str {
    match german {
        "Können Sie mir den Bericht bis Freitag schicken?" => "Could you send me the report by Friday?",
        "Kann ich Ihnen den Bericht bis Freitag schicken?" => "Can I send you the report by Friday?",
        "Ich kann morgen nicht zur Besprechung kommen." => "I cannot come to the meeting tomorrow.",
        "Ich kann nicht warten, morgen zur Besprechung zu kommen." => "I can hardly wait to come to the meeting tomorrow.",
        "Der Zug fährt bald ab." => "The train leaves soon.",
        "Vielen Dank für den Bericht." => "Thank you very much for the report.",
        _ => panic!("no English for {german:?}"),
    }
}

struct Outcome {
    store: Store,
    run: i64,
    segs: Vec<tr::SegmentOut>,
    /// The texts the model was asked to read back in English.
    read_back: Vec<String>,
}

fn translate(faithful: bool, back_translation: bool) -> Outcome {
    let sources = [ROLES, NEGATED, PLAIN, THANKS];
    let read_back = RefCell::new(Vec::new());
    let mut model = common::scripted::ScriptedModel::new("scripted", |prefix, turn, n| {
        let text = if prefix.contains("text into English") {
            let g = ["Können", "Kann", "Ich", "Der", "Vielen"].iter().find_map(|w| turn.find(w).map(|i| &turn[i..])).expect("a German text");
            let g = &g[..g.find("<|im_end|>").unwrap()];
            read_back.borrow_mut().push(g.to_string());
            english(g)
        } else {
            let s = sources.iter().find(|s| turn.contains(*s)).expect("the turn carries its source");
            german(s, faithful)
        };
        (0..n).map(|_| tr::Generated { text: text.to_string(), logprob: -1.0, tokens: 8 }).collect()
    });
    let mut store = Store::open_in_memory().unwrap();
    let project = tr::project_id(&store, "t").unwrap();
    let target = tr::RunTarget { project_id: project, document_id: None };
    let opts = Options { back_translation, ..Options::new(Lang::De, Register::Formal) };
    let mut t = tr::Translator::new(&mut model, None);
    let lines: Vec<String> = sources.iter().map(|s| s.to_string()).collect();
    let (run, segs) = tr::translate_and_store(&mut store, &target, &mut t, &lines, None, &opts, &mut |_| {}, &CancelToken::new()).unwrap();
    drop(t);
    drop(model);
    Outcome { store, run, segs, read_back: read_back.into_inner() }
}

fn seg(o: &Outcome, source: &str) -> tr::SegmentOut {
    o.segs.iter().find(|s| s.source == source).unwrap().clone()
}

#[test]
fn a_translation_whose_reading_back_reverses_the_roles_or_the_polarity_is_flagged_in_words() {
    let o = translate(false, true);
    let roles = seg(&o, ROLES);
    let why = roles.flag_reason.clone().unwrap_or_default();
    assert!(roles.flagged, "{why}");
    assert!(why.starts_with("read back in English, the translation has the speaker") && why.contains("other way round") && why.contains("Can I send you the report"), "{why}");
    assert_eq!(roles.back_translation.as_deref(), Some("Can I send you the report by Friday?"));
    let negated = seg(&o, NEGATED);
    let why = negated.flag_reason.clone().unwrap_or_default();
    assert!(negated.flagged && why.contains("\"n't\"") && why.contains("no negation"), "{why}");
    // Sentences without a negation or both persons are not read back: no generation spent on them.
    assert_eq!(o.read_back.len(), 2, "{:?}", o.read_back);
    for s in [PLAIN, THANKS] {
        let s = seg(&o, s);
        assert!(!s.flagged && s.back_translation.is_none(), "{:?}", s.flag_reason);
    }
    // Stored with the run, and shown by review as stored.
    let out = o.store.output(o.run, roles.index as i64).unwrap().unwrap();
    assert!(out.flagged && out.flag_reason.as_deref().unwrap().contains("read back in English"));
    assert_eq!(out.candidates["back_translation"], "Can I send you the report by Friday?");
    let params = o.store.run(o.run).unwrap().params;
    assert!(params["second_opinion"].as_str().unwrap().starts_with("back-translation"), "{params}");
}

#[test]
fn faithful_translations_read_back_stay_unflagged() {
    let o = translate(true, true);
    assert_eq!(o.read_back.len(), 2);
    for s in &o.segs {
        assert!(!s.flagged, "{}: {:?}", s.source, s.flag_reason);
    }
    assert_eq!(seg(&o, ROLES).back_translation.as_deref(), Some("Could you send me the report by Friday?"));
}

#[test]
fn with_the_second_opinion_off_nothing_is_read_back_and_the_run_records_it() {
    let o = translate(false, false);
    assert!(o.read_back.is_empty());
    assert!(!seg(&o, ROLES).flagged, "without the second opinion no rule sees swapped roles");
    let run = o.store.run(o.run).unwrap();
    assert_eq!(run.params["request"]["back_translation"], false, "{}", run.params);
    assert_eq!(run.params["second_opinion"], "off");
}

#[test]
fn an_edit_keeps_the_flag_until_a_check_passes_on_the_new_text() {
    let mut o = translate(false, true);
    let i = seg(&o, ROLES).index;
    // The same text again (a no-op save) keeps the flag as it was.
    let c = review::store_edit(&mut o.store, o.run, i, Lang::De, Register::Formal, german(ROLES, false)).unwrap();
    assert!(c.flagged && c.flag_reason.as_deref().unwrap().contains("Can I send you"), "{:?}", c.flag_reason);
    // A changed text cannot be read back without the model: the flag stays and says so.
    let c = review::store_edit(&mut o.store, o.run, i, Lang::De, Register::Formal, german(ROLES, true)).unwrap();
    let why = c.flag_reason.clone().unwrap_or_default();
    assert!(c.flagged && why.contains("read back in English") && why.contains("not checked again"), "{why}");
    let out = o.store.output(o.run, i as i64).unwrap().unwrap();
    assert!(out.flagged);
    assert!(out.candidates.get("back_translation").is_none(), "the old text's reading back is not shown for the new text");
}

/// The real default model reads back: a German translation that swaps who owes whom is flagged, the faithful one is
/// not (the translations are given; the model only reads them back, through the pipeline).
#[test]
fn the_real_model_reads_a_reversed_translation_back_as_reversed() {
    use registro_core::translate::{prompt::ChatFormat, Constraints, EngineGenerator, Generated, Generator};
    use std::sync::atomic::AtomicBool;
    struct Reader {
        real: EngineGenerator,
        answer: &'static str,
    }
    impl Generator for Reader {
        fn id(&self) -> String {
            self.real.id()
        }
        fn chat_format(&self) -> &ChatFormat {
            self.real.chat_format()
        }
        fn generate(&mut self, prefix: &str, turn: &str, n: usize, max: usize, c: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
            if prefix.contains("text into English") {
                return self.real.generate(prefix, turn, n, max, c, cancel);
            }
            Ok((0..n).map(|_| Generated { text: self.answer.into(), logprob: -1.0, tokens: 8 }).collect())
        }
    }
    let real = match EngineGenerator::load("qwen2.5-coder-1.5b-instruct") {
        Ok(g) => g,
        Err(e) => {
            println!("skipped: {e:#}");
            return;
        }
    };
    let mut reader = Reader { real, answer: "Ich schulde Ihnen zwanzig Euro." };
    let source = vec!["You owe me twenty euros.".to_string()];
    let opts = Options::new(Lang::De, Register::Formal);
    for (answer, reversed) in [("Ich schulde Ihnen zwanzig Euro.", true), ("Sie schulden mir zwanzig Euro.", false)] {
        reader.answer = answer;
        let mut t = tr::Translator::new(&mut reader, None);
        let segs = t.translate(&source, &opts, &AtomicBool::new(false), &mut |_| Ok(())).unwrap();
        let s = &segs[0];
        let back = s.back_translation.clone().expect("read back");
        println!("{answer} → {back} → {:?}", s.flag_reason);
        assert_eq!(s.flagged, reversed, "{answer}: read back as {back:?}: {:?}", s.flag_reason);
        if reversed {
            assert!(s.flag_reason.as_deref().unwrap().contains("other way round"), "{:?}", s.flag_reason);
        }
    }
}

/// A reading back that fails (a server that refuses the request) is no second opinion: the translation is stored
/// with the checks it had, not lost and not failed.
#[test]
fn a_reading_back_that_fails_loses_no_translation() {
    use registro_core::translate::{prompt::ChatFormat, Constraints, Generated, Generator};
    use std::sync::atomic::AtomicBool;
    struct Refuses(ChatFormat);
    impl Generator for Refuses {
        fn id(&self) -> String {
            "refuses".into()
        }
        fn chat_format(&self) -> &ChatFormat {
            &self.0
        }
        fn generate(&mut self, prefix: &str, _: &str, n: usize, _: usize, _: &Constraints, _: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
            anyhow::ensure!(!prefix.contains("text into English"), "HTTP 400: unknown prompt");
            Ok((0..n).map(|_| Generated { text: german(ROLES, false).into(), logprob: -1.0, tokens: 8 }).collect())
        }
    }
    let mut model = Refuses(ChatFormat::Template(registro_engine::chat::ChatTemplate::builtin("qwen2")));
    let mut t = tr::Translator::new(&mut model, None);
    let segs = t.translate(&[ROLES.to_string()], &Options::new(Lang::De, Register::Formal), &AtomicBool::new(false), &mut |_| Ok(())).unwrap();
    assert_eq!(segs.len(), 1);
    assert_eq!(segs[0].text, german(ROLES, false));
    assert!(segs[0].back_translation.is_none() && !segs[0].flagged, "{:?}", segs[0].flag_reason);
}
