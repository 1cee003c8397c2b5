//! A continuation that has stopped making sense ends there instead of running to its token budget
//! (`GenerateOptions::stop_senseless`, `registro_engine::sense`): on the tiny generated models of every
//! architecture, a row driven into a loop and a row driven from Devanagari into Latin letters stop within a few
//! tokens of going wrong, greedy, batched and in beam search, with `FinishReason::Senseless` and the text kept so the
//! caller can say why; the same rows without the option decode to the budget, and a row that makes sense is never
//! stopped.
mod common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use candle_core::quantized::GgmlDType;
use registro_engine::text::TextCodec;
use registro_engine::{FinishReason, GenerateOptions, LoadOptions, LogitsProcessor, Model};

const ARCHS: [&str; 4] = ["qwen2", "qwen3", "llama", "gemma3"];
const BUDGET: usize = 160;

/// Ids 0–31 are Devanagari letters (क …), 32–57 Latin a–z, 58 a space; the rest are spaces too.
struct Scripts;

fn char_of(id: u32) -> char {
    match id {
        0..=31 => char::from_u32(0x915 + id).unwrap(),
        32..=57 => (b'a' + (id - 32) as u8) as char,
        _ => ' ',
    }
}

impl TextCodec for Scripts {
    fn encode(&self, _text: &str, _add_special: bool) -> anyhow::Result<Vec<u32>> {
        anyhow::bail!("not needed")
    }
    fn decode(&self, ids: &[u32], _skip: bool) -> anyhow::Result<String> {
        Ok(ids.iter().map(|&i| char_of(i)).collect())
    }
    fn token_id(&self, _t: &str) -> Option<u32> {
        None
    }
}

/// Forces the token `next(step)` at each step, whatever the random weights prefer.
struct Drive(fn(usize) -> u32);

impl LogitsProcessor for Drive {
    fn process(&mut self, _row: usize, generated: &[u32], logits: &mut [f32]) {
        let want = (self.0)(generated.len()) as usize;
        for (t, l) in logits.iter_mut().enumerate() {
            *l = if t == want { 0.0 } else { f32::NEG_INFINITY };
        }
    }
}

/// A "sentence" of 12 letters said again and again.
fn looping(step: usize) -> u32 {
    [35, 36, 37, 58, 40, 41, 42, 43, 58, 44, 45, 58][step % 12]
}

/// A letter index that never settles into a pattern (splitmix64 of the step).
fn scatter(step: usize, n: u64) -> u32 {
    let mut z = (step as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % n) as u32
}

/// Devanagari words, then, from token 90 on, Latin words.
fn drifting(step: usize) -> u32 {
    if step % 6 == 5 {
        58
    } else if step < 90 {
        scatter(step, 32)
    } else {
        32 + scatter(step, 26)
    }
}

/// Latin words that never settle into a loop or change script.
fn sensible(step: usize) -> u32 {
    if step % 7 == 6 {
        58
    } else {
        32 + scatter(step, 26)
    }
}

fn load(arch: &str) -> (tempfile::TempDir, Model) {
    let dir = tempfile::tempdir().unwrap();
    let path = common::tiny_gguf(dir.path(), arch, GgmlDType::Q8_0);
    let m = Model::load(&path, &LoadOptions::default()).unwrap().with_codec(Arc::new(Scripts));
    (dir, m)
}

fn opts(stop: bool) -> GenerateOptions {
    GenerateOptions { max_tokens: BUDGET, ignore_eos: true, stop_senseless: stop, ..Default::default() }
}

#[test]
fn a_loop_and_a_switch_of_script_stop_early_and_say_why() {
    let no = AtomicBool::new(false);
    for arch in ARCHS {
        let (_d, m) = load(arch);
        let prompt = [5u32, 6, 7];

        // Without the option the loop runs to the budget; with it, it ends soon after the loop shows.
        let off = m.generate(None, &prompt, &opts(false), &mut Drive(looping), &mut |_| {}, &no).unwrap();
        assert_eq!((off.finish, off.tokens.len()), (FinishReason::Length, BUDGET), "{arch}");
        let on = m.generate(None, &prompt, &opts(true), &mut Drive(looping), &mut |_| {}, &no).unwrap();
        assert_eq!(on.finish, FinishReason::Senseless, "{arch}");
        assert!(on.tokens.len() <= 64, "{arch}: the loop decoded {} tokens before it stopped", on.tokens.len());
        let why = registro_engine::sense::senseless(&on.text).expect("the text kept shows why");
        assert!(why.starts_with("the output repeats itself"), "{arch}: {why}");

        // Devanagari into Latin letters: stopped within the check's window of the switch at token 90.
        let off = m.generate(None, &prompt, &opts(false), &mut Drive(drifting), &mut |_| {}, &no).unwrap();
        assert_eq!(off.tokens.len(), BUDGET, "{arch}");
        let on = m.generate(None, &prompt, &opts(true), &mut Drive(drifting), &mut |_| {}, &no).unwrap();
        assert_eq!(on.finish, FinishReason::Senseless, "{arch}: {}", on.text);
        assert!((90..=90 + 48).contains(&on.tokens.len()), "{arch}: stopped after {} tokens", on.tokens.len());
        assert_eq!(registro_engine::sense::senseless(&on.text).as_deref(), Some("the output switched from Devanagari to Latin letters part-way"), "{arch}");

        // A row that makes sense is left to its budget, alone and beside a looping row in one batch.
        let fine = m.generate(None, &prompt, &opts(true), &mut Drive(sensible), &mut |_| {}, &no).unwrap();
        assert_eq!((fine.finish, fine.tokens.len()), (FinishReason::Length, BUDGET), "{arch}: {}", fine.text);
        assert_eq!(registro_engine::sense::senseless(&fine.text), None, "{arch}: {}", fine.text);
    }
}

#[test]
fn batched_rows_and_beam_search_stop_a_senseless_row_only() {
    let no = AtomicBool::new(false);
    for arch in ARCHS {
        let (_d, m) = load(arch);
        // Row 0 loops, row 1 makes sense: each row gets its own driver through the row index.
        struct ByRow;
        impl LogitsProcessor for ByRow {
            fn process(&mut self, row: usize, generated: &[u32], logits: &mut [f32]) {
                let f: fn(usize) -> u32 = if row == 0 { looping } else { sensible };
                Drive(f).process(row, generated, logits)
            }
        }
        let outs = m.generate_batch(None, &[vec![5, 6, 7], vec![8, 9, 10]], &opts(true), &mut ByRow, &mut |_| {}, &no).unwrap();
        assert_eq!(outs[0].finish, FinishReason::Senseless, "{arch}");
        assert!(outs[0].tokens.len() <= 64, "{arch}");
        assert_eq!((outs[1].finish, outs[1].tokens.len()), (FinishReason::Length, BUDGET), "{arch}");

        // Beam search: every beam is driven into the loop, and each ends early as senseless.
        let hyps = m.nbest(None, &[5, 6, 7], &opts(true), 2, 2, &mut Drive(looping), &no).unwrap();
        assert!(!hyps.is_empty(), "{arch}");
        for h in &hyps {
            assert_eq!(h.finish, FinishReason::Senseless, "{arch}: {}", h.text);
            assert!(h.tokens.len() <= 64, "{arch}: {}", h.tokens.len());
        }
    }
}

/// The real 0.5B model (skipped when it is not in the model cache) continuing a list it will loop on: without the
/// option it decodes its whole budget; with it, it stops a few words into the loop and the text says so.
#[test]
fn a_real_model_looping_on_a_list_is_stopped_early() {
    let root = std::env::var_os("REGISTRO_MODELS")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache/registro/models")));
    let Some(path) = root
        .map(|r| r.join("qwen2.5-coder-0.5b-instruct/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"))
        .filter(|p| p.exists())
    else {
        eprintln!("skipped: qwen2.5-coder-0.5b-instruct is not in the model cache (registro models fetch qwen2.5-coder-0.5b-instruct)");
        return;
    };
    let m = Model::load(&path, &LoadOptions::default()).unwrap();
    let prompt = m.encode("Monday, Tuesday, Monday, Tuesday, Monday, Tuesday, Monday, Tuesday,").unwrap();
    let no = AtomicBool::new(false);
    let o = |stop| GenerateOptions { max_tokens: 120, stop_senseless: stop, ..Default::default() };
    let on = m.generate(None, &prompt, &o(true), &mut registro_engine::NoProcessor, &mut |_| {}, &no).unwrap();
    assert_eq!(on.finish, FinishReason::Senseless, "{:?}", on.text);
    assert!(on.tokens.len() <= 30, "{} tokens: {:?}", on.tokens.len(), on.text);
    let why = registro_engine::sense::senseless(&on.text).unwrap();
    assert!(why.starts_with("the output repeats itself (\"") && (why.contains("Monday") || why.contains("Tuesday")), "{why}");
    let off = m.generate(None, &prompt, &o(false), &mut registro_engine::NoProcessor, &mut |_| {}, &no).unwrap();
    assert_eq!((off.finish, off.tokens.len()), (FinishReason::Length, 120), "{:?}", off.text);
    assert!(off.text.starts_with(&on.text), "the stop changes where the text ends, not what it says");
    println!("stopped after {} tokens ({:.2} s, {why}); without the stop {} tokens ({:.2} s)", on.tokens.len(), on.decode_secs, off.tokens.len(), off.decode_secs);
}
