//! The translation control layer end to end on a tiny random-weight GGUF model (the engine's test helper), plus
//! the real Qwen2.5-Coder-1.5B when present (the README's test command fetches it).
#[path = "../../registro-engine/tests/common/mod.rs"]
#[allow(dead_code, unused_imports)]
mod common;
#[path = "common/scripted.rs"]
mod scripted;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use candle_core::quantized::GgmlDType;
use registro_core::progress::CancelToken;
use registro_core::translate::{
    self as tr, constrain, prompt, Constraints, Controls, EngineGenerator, Generator, Label, Lang, Options, Register, Verdict,
};
use registro_engine::{LoadOptions, Model, TextCodec};
use registro_store::{RunStatus, Store};

/// Any text in, ids of the tiny vocabulary out: a bijection between ids 4..VOCAB and the characters from ' ' on,
/// so that a banned word's encoding is exactly the tokens that would spell it. Characters outside that range (the
/// pipeline's prompts carry newlines and accents) fold onto it: lossy, but total.
struct WrapCodec;

const FIRST_ID: u32 = 4;
const SPAN: u32 = common::VOCAB as u32 - FIRST_ID;

impl TextCodec for WrapCodec {
    fn encode(&self, text: &str, _add_special: bool) -> anyhow::Result<Vec<u32>> {
        Ok(text
            .chars()
            .map(|c| match (c as u32).checked_sub(32) {
                Some(k) if k < SPAN => FIRST_ID + k,
                _ => FIRST_ID + (c as u32) % SPAN,
            })
            .collect())
    }
    fn decode(&self, ids: &[u32], _skip: bool) -> anyhow::Result<String> {
        Ok(ids.iter().filter(|&&i| i >= FIRST_ID).map(|&i| char::from_u32(32 + (i - FIRST_ID) % SPAN).unwrap_or('?')).collect())
    }
    fn token_id(&self, _t: &str) -> Option<u32> {
        None
    }
}

fn tiny() -> (tempfile::TempDir, EngineGenerator) {
    let dir = tempfile::tempdir().unwrap();
    let path = common::tiny_gguf(dir.path(), "qwen2", GgmlDType::Q8_0);
    let model = Model::load(&path, &LoadOptions::default()).unwrap().with_codec(Arc::new(WrapCodec));
    (dir, EngineGenerator::from_model(model, "tiny-qwen2"))
}

fn sources() -> Vec<String> {
    vec!["Do you have favourite bands?".into(), "I watched it yesterday.".into(), "Have a nice day!".into()]
}

/// `sources()` translated by `t` and stored as a run of project "t" in a new in-memory store.
fn translate_stored(
    t: &mut tr::Translator<'_>,
    registers: Option<&[Register]>,
    opts: &Options,
    progress: registro_core::progress::ProgressFn<'_>,
    cancel: &CancelToken,
) -> (Store, i64, Vec<tr::SegmentOut>) {
    let mut store = Store::open_in_memory().unwrap();
    let project = tr::project_id(&store, "t").unwrap();
    let target = tr::RunTarget { project_id: project, document_id: None };
    let (run, segs) = tr::translate_and_store(&mut store, &target, t, &sources(), registers, opts, progress, cancel).unwrap();
    (store, run, segs)
}

#[test]
fn every_segment_gets_ranked_candidates_a_verdict_and_a_stored_output() {
    let (_d, mut gen) = tiny();
    let mut t = tr::Translator::new(&mut gen, Some(tr::Pool::default_for(Lang::De).unwrap()));
    let opts = Options { n_best: 3, max_tokens: 24, ..Options::new(Lang::De, Register::Formal) };
    let mut seen = 0;
    let (store, run, segs) = translate_stored(&mut t, None, &opts, &mut |_| seen += 1, &CancelToken::new());
    assert_eq!(segs.len(), 3);
    assert_eq!(seen, 3, "one progress event per segment");
    for s in &segs {
        // The n-best, plus the greedy candidate of a segment that was searched when the search did not find it.
        assert!(!s.candidates.is_empty() && s.candidates.len() <= 4, "{} candidates", s.candidates.len());
        assert_eq!(s.candidates.iter().filter(|c| c.chosen).count(), 1);
        // Reranking picks the best combined score.
        let best = s.candidates.iter().map(|c| c.score).fold(f32::MIN, f32::max);
        assert_eq!(s.candidates.iter().find(|c| c.chosen).unwrap().score, best);
        // Flagged exactly when the final text is not (clearly) in the requested register, or an output check fails
        // (the tiny random model's gibberish stops short of the source's final punctuation: "cut off").
        let meaning = registro_register::meaning::check(Lang::De, &s.source, &s.text);
        assert_eq!(s.flagged, matches!(s.verdict, Verdict::Wrong | Verdict::Uncertain) || !meaning.is_empty(), "{s:?}");
        if !meaning.is_empty() {
            assert!(s.flag_reason.as_deref().is_some_and(|r| r.contains(meaning[0].issue.as_str())), "{s:?}");
        }
    }
    let r = store.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Done);
    assert_eq!(r.register.as_deref(), Some("formal"));
    assert_eq!(r.system, "registro-prompt+fewshot+constrain+rerank+repair");
    let outs = store.outputs(run).unwrap();
    assert_eq!(outs.len(), 3);
    for (o, s) in outs.iter().zip(&segs) {
        assert_eq!(o.text, s.text);
        assert_eq!(o.flagged, s.flagged);
        assert_eq!(o.detected_register.as_deref(), Some(s.analysis.label.as_str().to_lowercase().as_str()));
        assert!(o.candidates["candidates"].as_array().is_some_and(|a| a.len() == s.candidates.len()));
    }
}

#[test]
fn banned_words_never_come_out() {
    let (_d, mut gen) = tiny();
    let cancel = AtomicBool::new(false);
    let free = gen.generate("System: translate.\n", "Hello there\n", 1, 24, &Constraints::default(), &cancel).unwrap();
    let word: String = free[0].text.chars().filter(|c| c.is_ascii_alphanumeric()).take(2).collect();
    if word.len() < 2 {
        println!("skipped: the tiny model produced no two-letter chunk to ban ({:?})", free[0].text);
        return;
    }
    let c = Constraints { ban: vec![word.clone()], ..Default::default() };
    let banned = gen.generate("System: translate.\n", "Hello there\n", 1, 24, &c, &cancel).unwrap();
    assert!(!banned[0].text.contains(&word), "{:?} still contains {word:?}", banned[0].text);
    // N-best honours the ban too.
    for h in gen.generate("System: translate.\n", "Hello there\n", 3, 24, &c, &cancel).unwrap() {
        assert!(!h.text.contains(&word), "{:?} contains {word:?}", h.text);
    }
}

#[test]
fn cancelled_run_keeps_what_was_done_and_ends_cancelled() {
    let (_d, mut gen) = tiny();
    let mut t = tr::Translator::new(&mut gen, None);
    let cancel = CancelToken::new();
    let c2 = cancel.clone();
    let opts = Options { controls: Controls::default(), max_tokens: 16, ..Options::new(Lang::Es, Register::Informal) };
    let (store, run, segs) = translate_stored(
        &mut t,
        None,
        &opts,
        &mut |p| {
            if p.done == 1 {
                c2.cancel()
            }
        },
        &cancel,
    );
    assert_eq!(segs.len(), 1);
    assert_eq!(store.run(run).unwrap().status, RunStatus::Cancelled);
    assert_eq!(store.outputs(run).unwrap().len(), 1);
}

#[test]
fn contrastive_mode_stores_one_run_per_register_with_every_segment() {
    let (_d, mut gen) = tiny();
    let mut t = tr::Translator::new(&mut gen, None);
    let mut store = Store::open_in_memory().unwrap();
    let project = tr::project_id(&store, "t").unwrap();
    let opts = Options { controls: Controls::default(), max_tokens: 12, ..Options::new(Lang::De, Register::Formal) };
    let mut last = (0, 0);
    let (runs, pairs) = tr::translate_contrastive_and_store(
        &mut store,
        &tr::RunTarget { project_id: project, document_id: None },
        &mut t,
        &sources(),
        &opts,
        &mut |p| last = (p.done, p.total),
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(pairs.len(), 3);
    assert_eq!(last, (6, 6), "progress counts both passes");
    assert_eq!(runs.len(), 2);
    let registers: Vec<Option<String>> = runs.iter().map(|&r| store.run(r).unwrap().register).collect();
    assert_eq!(registers, [Some("formal".to_string()), Some("informal".to_string())]);
    for (side, &run) in runs.iter().enumerate() {
        assert_eq!(store.run(run).unwrap().status, RunStatus::Done);
        let outs = store.outputs(run).unwrap();
        assert_eq!(outs.len(), 3);
        for (o, p) in outs.iter().zip(&pairs) {
            assert_eq!(&o.text, if side == 0 { &p.formal.text } else { &p.informal.text });
        }
    }
}

#[test]
fn per_sentence_register_overrides_reach_the_segments_and_the_run() {
    let (_d, mut gen) = tiny();
    let mut t = tr::Translator::new(&mut gen, None);
    let regs = [Register::Formal, Register::Informal, Register::Formal];
    let opts = Options { n_best: 2, max_tokens: 16, ..Options::new(Lang::Fr, Register::Formal) };
    let (store, run, segs) = translate_stored(&mut t, Some(&regs), &opts, &mut |_| {}, &CancelToken::new());
    assert_eq!(segs.iter().map(|s| s.register).collect::<Vec<_>>(), regs);
    assert_eq!(store.run(run).unwrap().params["register_overrides"]["1"], "informal");
}

#[test]
fn controls_parse_in_pipeline_order() {
    let c: Controls = "repair,prompt,rerank".parse().unwrap();
    assert_eq!(c.label(), "prompt+rerank+repair");
    assert_eq!("none".parse::<Controls>().unwrap().label(), "generic");
    assert_eq!("all".parse::<Controls>().unwrap(), Controls::all());
    assert_eq!(Controls::all().label(), "prompt+fewshot+constrain+rerank+repair", "consensus is asked for by name");
    assert_eq!("consensus+all".parse::<Controls>().unwrap().label(), "prompt+fewshot+constrain+rerank+consensus+repair");
    let e = "prompt,magic".parse::<Controls>().unwrap_err().to_string();
    assert!(e.contains("magic"), "{e}");
}

/// The same five German candidates for every request, best model score first: an informal one the model likes
/// most, then three formal ones of which the first is the odd one out, then a formal one that drops the number.
fn five_candidates() -> impl Generator {
    scripted::ScriptedModel::new("five-candidates", |_, _, _| {
        let g = |text: &str, logprob: f32| tr::Generated { text: text.into(), logprob, tokens: 10 };
        vec![
            g("Kannst du mir die 3 Dateien schicken?", -1.0),
            g("Würden Sie mir freundlicherweise die 3 Unterlagen zukommen lassen?", -2.0),
            g("Können Sie mir die 3 Dateien schicken?", -3.0),
            g("Können Sie mir bitte die 3 Dateien schicken?", -4.0),
            g("Können Sie mir die Dateien schicken?", -0.5),
        ]
    })
}

#[test]
fn consensus_chooses_among_the_candidates_in_the_register_the_one_the_others_agree_with() {
    let mut gen = five_candidates();
    let sources = vec!["Can you send me the 3 files?".to_string()];
    let no = AtomicBool::new(false);
    let chosen = |gen: &mut dyn Generator, controls: &str| {
        let opts = Options { controls: controls.parse().unwrap(), n_best: 5, early_exit: false, ..Options::new(Lang::De, Register::Formal) };
        let seg = tr::Translator::new(gen, None).translate(&sources, &opts, &no, &mut |_| Ok(())).unwrap().remove(0);
        (seg.text.clone(), seg.candidates)
    };
    // The model's ranking: the informal favourite loses on register, the one dropping "3" on meaning; of the
    // three formal ones left the model likes the paraphrase best.
    let (by_score, cands) = chosen(&mut gen, "prompt,rerank");
    assert_eq!(by_score, "Würden Sie mir freundlicherweise die 3 Unterlagen zukommen lassen?");
    assert!(cands.iter().all(|c| c.consensus.is_none()), "no consensus computed when it is not asked for");
    // By consensus one of the two near-identical formal ones outvotes the paraphrase; the informal and the
    // unfaithful candidates get no say.
    let (by_consensus, cands) = chosen(&mut gen, "prompt,rerank,consensus");
    assert!(by_consensus.starts_with("Können Sie mir") && by_consensus.contains('3'), "{by_consensus}");
    let top = cands.iter().filter_map(|c| c.consensus).fold(f64::MIN, f64::max);
    assert_eq!(cands.iter().find(|c| c.chosen).unwrap().consensus, Some(top));
    let with_consensus: Vec<&str> = cands.iter().filter(|c| c.consensus.is_some()).map(|c| c.text.as_str()).collect();
    assert_eq!(with_consensus.len(), 3, "only the formal, faithful candidates are compared: {with_consensus:?}");
    assert!(!with_consensus.contains(&"Kannst du mir die 3 Dateien schicken?"));
    assert!(!with_consensus.contains(&"Können Sie mir die Dateien schicken?"));
}

#[test]
fn prompts_spell_out_the_register_and_show_contrastive_examples() {
    let shots = tr::Pool::default_for(Lang::It).unwrap().retrieve("Do you like jazz?", 2, Register::Formal, None);
    let spec = prompt::PromptSpec { lang: Lang::It, register: Register::Formal, instruct: true, gender: Some(tr::Gender::Feminine), shots: &shots };
    let qwen = prompt::ChatFormat::Template(registro_engine::chat::ChatTemplate::builtin("qwen2"));
    let p = prompt::build(&qwen, &spec, "Do you like jazz?").unwrap();
    assert!(p.prefix.contains("Lei") && p.prefix.contains("Italian"), "{}", p.prefix);
    assert!(p.prefix.contains("woman"));
    assert!(p.turn.ends_with("<|im_start|>assistant\n"));
    if shots.is_empty() {
        println!("skipped part: no CoCoA-MT training data for few-shot examples");
    } else {
        assert_eq!(shots.len(), 2);
        assert!(p.prefix.contains("formal (use)") && p.prefix.contains("informal (avoid)"));
        assert!(p.prefix.contains('['), "markers are shown in brackets");
    }
    let generic = prompt::build(&qwen, &prompt::PromptSpec { instruct: false, shots: &[], ..spec }, "Hi").unwrap();
    assert!(!generic.prefix.contains("Lei"), "the generic prompt says nothing about register");
}

#[test]
fn prompts_are_rendered_by_the_models_own_chat_template() {
    use registro_engine::chat::{ChatMessage, ChatTemplate};
    let shots = [tr::fewshot::Shot {
        source: "Are you coming?".into(),
        wanted: "Kommen Sie?".into(),
        wanted_marked: "Kommen [Sie]?".into(),
        avoid_marked: "Kommst [du]?".into(),
    }];
    let spec = prompt::PromptSpec { lang: Lang::De, register: Register::Formal, instruct: true, gender: None, shots: &shots };
    for family in ["qwen2", "gemma3", "llama"] {
        let t = ChatTemplate::builtin(family);
        let p = prompt::build(&prompt::ChatFormat::Template(t.clone()), &spec, "Do you like jazz?").unwrap();
        let messages = [
            ChatMessage::system(&prompt::system_text(&spec)),
            ChatMessage::user("Are you coming?"),
            ChatMessage::assistant("Kommen Sie?"),
            ChatMessage::user("Do you like jazz?"),
        ];
        let whole = t.render(&messages, true).unwrap();
        // BOS is the generator's to add; everything else is the template's rendering, split where the segment's
        // turn starts so the few-shot prefix is shared by every segment.
        assert_eq!(format!("{}{}{}", t.bos_token, p.prefix, p.turn), whole, "{family}");
        assert!(p.prefix.contains("Kommen Sie?") && !p.turn.contains("Kommen Sie?"), "{family}: the example turns are in the prefix");
        let stops = prompt::ChatFormat::Template(t).stops();
        let end = ["<|im_end|>", "<end_of_turn>", "<|eot_id|>"];
        assert!(stops.iter().any(|s| end.contains(&s.as_str())), "{family}: the end-of-turn marker stops generation: {stops:?}");
    }
}

#[test]
fn constraints_ban_the_other_register() {
    let f = constrain::for_register(Lang::De, Register::Formal);
    assert!(f.ban.iter().any(|w| w == "du") && !f.ban.iter().any(|w| w == "Sie"));
    assert!(f.boost.iter().any(|(w, _)| w == "Sie"));
    let i = constrain::for_register(Lang::Ja, Register::Informal);
    assert!(i.ban.iter().any(|w| w == "です") && i.boost.is_empty());
}

#[test]
fn real_qwen_translates_into_the_requested_register() {
    let mut gen = match EngineGenerator::load("qwen2.5-coder-1.5b-instruct") {
        Ok(g) => g,
        Err(e) => {
            println!("skipped: {e:#}");
            return;
        }
    };
    let mut t = tr::Translator::new(&mut gen, Some(tr::Pool::default_for(Lang::De).unwrap()));
    for (register, label) in [(Register::Formal, Label::Formal), (Register::Informal, Label::Informal)] {
        let opts = Options { n_best: 2, ..Options::new(Lang::De, register) };
        let segs = t.translate(&["Do you have favourite bands?".to_string()], &opts, &AtomicBool::new(false), &mut |_| Ok(())).unwrap();
        assert_eq!(segs[0].analysis.label, label, "{:?}", segs[0].text);
        assert!(!segs[0].flagged);
    }
}

/// The batched path (segments decoded together over the shared prefix, a finished row's slot refilled by the next
/// segment) gives each segment what the one-by-one path gives it, and reports every segment exactly once.
#[test]
fn batched_document_matches_segment_by_segment() {
    let many: Vec<String> = (0..11).map(|i| format!("Sentence number {i} is here.")).collect();
    let run = |rows: usize| {
        let (_d, gen) = tiny();
        let mut gen = gen.with_batch_rows(rows);
        let mut t = tr::Translator::new(&mut gen, None);
        let opts = Options { controls: Controls::default(), max_tokens: 24, ..Options::new(Lang::Fr, Register::Formal) };
        let mut seen = Vec::new();
        let segs = t.translate(&many, &opts, &AtomicBool::new(false), &mut |s| Ok(seen.push(s.index))).unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (0..many.len()).collect::<Vec<_>>(), "each segment reported once");
        segs.into_iter().map(|s| (s.index, s.text)).collect::<Vec<_>>()
    };
    let one_by_one = run(1);
    // 3 and 4 rows: finished rows are refilled at different points of the 11 segments.
    assert_eq!(one_by_one, run(4), "batches of 4 rows change a segment's text");
    assert_eq!(one_by_one, run(3), "batches of 3 rows change a segment's text");
}

/// Early exit: with reranking on, a segment gets the n-best search only when its greedy candidate is not in the
/// requested register, and the run's parameters say how many did and what the reranker then chose.
#[test]
fn early_exit_is_recorded_in_the_runs_parameters() {
    let (_d, mut gen) = tiny();
    let mut t = tr::Translator::new(&mut gen, None);
    let opts = Options { n_best: 3, max_tokens: 16, ..Options::new(Lang::De, Register::Formal) };
    let (store, run, segs) = translate_stored(&mut t, None, &opts, &mut |_| {}, &CancelToken::new());
    for s in &segs {
        // One candidate only when it was already right; otherwise the full search.
        if s.candidates.len() == 1 {
            assert_eq!(s.candidates[0].verdict, Verdict::Ok, "{s:?}");
        }
    }
    let p = store.run(run).unwrap().params;
    let e = &p["early_exit"];
    let searched = segs.iter().filter(|s| s.candidates.len() > 1).count() as u64;
    assert_eq!(e["searched"], searched, "{p}");
    assert_eq!(e["settled_by_greedy"], segs.len() as u64 - searched, "{p}");
    assert!(e["reranker_picked_not_first"].as_u64().unwrap() <= searched, "{p}");
}

/// Early exit does not deliver a greedy candidate the rule check flags when a sibling passes: a greedy translation in
/// the right register but with English left in gets the n-best search, and the reranker picks the faithful sibling;
/// a greedy translation that passes every check is kept without the search.
#[test]
fn a_greedy_candidate_the_rule_check_flags_gets_the_search() {
    const SOURCE: &str = "Thank you for your help yesterday, can you send me the report?";
    const LEFT_IN: &str = "Vielen Dank für Ihre Hilfe yesterday, können Sie mir den Bericht schicken?";
    const FAITHFUL: &str = "Vielen Dank für Ihre Hilfe gestern. Können Sie mir den Bericht schicken?";
    let no = AtomicBool::new(false);
    let opts = Options { n_best: 3, back_translation: false, ..Options::new(Lang::De, Register::Formal) };
    for (greedy, searched) in [(LEFT_IN, true), (FAITHFUL, false)] {
        let mut asked = Vec::new();
        let mut gen = scripted::ScriptedModel::new("greedy-then-search", |_, _, n| {
            asked.push(n);
            let g = |text: &str, logprob: f32| tr::Generated { text: text.into(), logprob, tokens: 12 };
            // The model likes the greedy text best either way.
            let mut out = vec![g(greedy, -1.0)];
            if n > 1 {
                out.extend([g(if greedy == LEFT_IN { FAITHFUL } else { LEFT_IN }, -2.0), g(LEFT_IN, -3.0)]);
            }
            out.truncate(n);
            out
        });
        let seg = tr::Translator::new(&mut gen, None).translate(&[SOURCE.to_string()], &opts, &no, &mut |_| Ok(())).unwrap().remove(0);
        assert_eq!(asked, if searched { vec![1, 3] } else { vec![1] }, "greedy {greedy:?}");
        assert_eq!(seg.text, FAITHFUL, "greedy {greedy:?}: {:?}", seg.candidates);
        assert!(!seg.flagged, "{:?}", seg.flag_reason);
    }
    // Every candidate with a problem: the search runs, the greedy candidate stays in the running though the beam
    // search did not find it, the one with fewer problems wins (English left in, against English left in and
    // Chinese, though the model likes those better), and the flag stays on it.
    const WORSE: &str = "Vielen Dank für Ihre Hilfe yesterday, können Sie mir die 3 报告 schicken?";
    let mut gen = scripted::ScriptedModel::new("english-everywhere", |_, _, n| {
        let g = |text: &str, logprob: f32| tr::Generated { text: text.into(), logprob, tokens: 12 };
        if n == 1 {
            vec![g(LEFT_IN, -3.0)]
        } else {
            (0..n).map(|k| g(&WORSE.replace("die 3", &format!("die {}", k + 3)), -1.0)).collect()
        }
    });
    let seg = tr::Translator::new(&mut gen, None).translate(&[SOURCE.to_string()], &opts, &no, &mut |_| Ok(())).unwrap().remove(0);
    assert_eq!(seg.candidates.len(), 4, "three searched and the greedy one");
    assert_eq!(seg.text, LEFT_IN, "{:?}", seg.candidates);
    assert!(seg.flagged && seg.flag_reason.as_deref().unwrap_or("").contains("yesterday"), "{:?}", seg.flag_reason);
}

/// A Cyrillic "а" inside a Portuguese word (the 0.5B model wrote "escolа" on the development split) is put right
/// before the checks read the candidate: the delivered text is plain Latin, unflagged, and the search is not spent
/// on it. A word written in Cyrillic throughout stays, flagged.
#[test]
fn a_lookalike_letter_is_put_right_and_a_foreign_word_is_flagged() {
    let no = AtomicBool::new(false);
    let opts = Options { n_best: 3, back_translation: false, ..Options::new(Lang::Pt, Register::Informal) };
    let source = "You have to go to school.".to_string();
    for (answer, delivered, flagged) in [("Tens de ir para a escolа.", "Tens de ir para a escola.", false), ("Tens de ir para a школа.", "Tens de ir para a школа.", true)] {
        let mut asked = Vec::new();
        let mut gen = scripted::ScriptedModel::new("lookalike", |_, _, n| {
            asked.push(n);
            (0..n).map(|_| tr::Generated { text: answer.into(), logprob: -1.0, tokens: 8 }).collect()
        });
        let seg = tr::Translator::new(&mut gen, None).translate(&[source.clone()], &opts, &no, &mut |_| Ok(())).unwrap().remove(0);
        assert_eq!(seg.text, delivered);
        assert_eq!(seg.flagged, flagged, "{:?}", seg.flag_reason);
        assert_eq!(asked.len(), if flagged { 2 } else { 1 }, "{answer}: requests {asked:?}");
        if flagged {
            assert!(seg.flag_reason.as_deref().unwrap_or("").contains("wrong language: Cyrillic letters"), "{:?}", seg.flag_reason);
        }
    }
}

/// A cancel that lands while the model is decoding a segment keeps the finished ones, stores nothing half-done and
/// lists the run as cancelled (it used to fail with "the model returned no candidate for segment N").
#[test]
fn cancel_during_decoding_keeps_finished_segments_and_lists_the_run_cancelled() {
    struct CancelOnSecond<'a>(&'a mut EngineGenerator, usize);
    impl Generator for CancelOnSecond<'_> {
        fn id(&self) -> String {
            self.0.id()
        }
        fn chat_format(&self) -> &prompt::ChatFormat {
            self.0.chat_format()
        }
        fn generate(&mut self, p: &str, turn: &str, n: usize, max: usize, c: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<tr::Generated>> {
            self.1 += 1;
            if self.1 == 2 {
                // The user's click arrives while this segment is being decoded.
                cancel.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            self.0.generate(p, turn, n, max, c, cancel)
        }
    }
    let (_d, mut gen) = tiny();
    let mut g = CancelOnSecond(&mut gen, 0);
    let mut t = tr::Translator::new(&mut g, None);
    let opts = Options { controls: Controls::default(), max_tokens: 16, ..Options::new(Lang::Es, Register::Informal) };
    let (store, run, segs) = translate_stored(&mut t, None, &opts, &mut |_| {}, &CancelToken::new());
    assert_eq!(segs.len(), 1);
    let r = store.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Cancelled, "{:?}", r.error);
    assert_eq!(store.outputs(run).unwrap().len(), 1);
}

/// With fixed document examples two unrelated documents continue the same prefix, so a resident model computes
/// it once for both (the second Translate click skips the prefill); retrieved ones follow each document's words.
#[test]
fn fixed_document_examples_give_every_document_the_same_prefix() {
    let docs = [
        vec!["Did you watch the football game last night?".to_string(), "Your team played really well.".to_string()],
        vec!["Can you send me the invoice for the car repair?".to_string()],
    ];
    let no = AtomicBool::new(false);
    // The prefix of every request, each answered with the same formal German sentence.
    let prefixes = |fixed: bool| -> Vec<String> {
        let mut seen = Vec::new();
        let mut gen = scripted::ScriptedModel::new("prefix-recorder", |prefix, _, _| {
            seen.push(prefix.to_string());
            vec![tr::Generated { text: "Haben Sie heute Zeit?".into(), logprob: -1.0, tokens: 5 }]
        });
        let opts = Options { controls: "prompt,fewshot".parse().unwrap(), n_best: 1, fixed_document_examples: fixed, ..Options::new(Lang::De, Register::Formal) };
        for doc in &docs {
            tr::Translator::new(&mut gen, Some(tr::Pool::default_for(Lang::De).unwrap())).translate(doc, &opts, &no, &mut |_| Ok(())).unwrap();
        }
        seen
    };
    let fixed = prefixes(true);
    assert_eq!(fixed.len(), 3);
    assert!(fixed.iter().all(|p| *p == fixed[0]), "one prefix for every segment of both documents");
    assert!(fixed[0].contains("(use):") && fixed[0].contains("Sie"), "the prefix shows formal examples: {}", fixed[0]);
    let retrieved = prefixes(false);
    assert_eq!(retrieved[0], retrieved[1], "one prefix within a document");
    assert_ne!(retrieved[0], retrieved[2], "retrieved examples follow each document's words");
}
