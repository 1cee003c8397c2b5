//! Every GGUF architecture, on tiny random-weight files written by the test: load, generate, beam, batching,
//! prefix reuse, scoring, processors, cancellation, stop strings and bad files.
mod common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use candle_core::quantized::GgmlDType;
use registro_engine::{
    FinishReason, GenerateOptions, LoadOptions, LogitsProcessor, Model, NoProcessor, Sampling, SequenceBias,
};

const ARCHS: [&str; 4] = ["qwen2", "qwen3", "llama", "gemma3"];

fn load(arch: &str) -> (tempfile::TempDir, Model) {
    let dir = tempfile::tempdir().unwrap();
    let path = common::tiny_gguf(dir.path(), arch, GgmlDType::Q8_0);
    let m = Model::load(&path, &LoadOptions::default()).unwrap().with_codec(Arc::new(common::CharCodec));
    // A GPU check (a CUDA build on a GPU machine) says which device the default load must reach, so a silent fall
    // back to the CPU cannot pass for a GPU run.
    if let Ok(want) = std::env::var("REGISTRO_EXPECT_DEVICE") {
        assert!(m.info.device.starts_with(&want), "loaded on {}, expected {want}", m.info.device);
    }
    (dir, m)
}

fn opts(n: usize) -> GenerateOptions {
    GenerateOptions { max_tokens: n, ignore_eos: true, ..Default::default() }
}

fn greedy(m: &Model, prompt: &[u32], n: usize) -> registro_engine::Generation {
    let no = AtomicBool::new(false);
    m.generate(None, prompt, &opts(n), &mut NoProcessor, &mut |_| {}, &no).unwrap()
}

#[test]
fn loads_and_generates_deterministically() {
    for arch in ARCHS {
        let (_d, m) = load(arch);
        assert_eq!(m.info.arch.name(), arch);
        assert_eq!(m.info.vocab, common::VOCAB);
        let a = greedy(&m, &[5, 6, 7, 8], 12);
        let b = greedy(&m, &[5, 6, 7, 8], 12);
        assert_eq!(a.tokens.len(), 12, "{arch}");
        assert_eq!(a.tokens, b.tokens, "{arch}");
        assert_eq!(a.finish, FinishReason::Length);
        assert!(a.logprob < 0.0 && a.logprob.is_finite(), "{arch}: {}", a.logprob);
        // Different prompts lead somewhere different (the model is not ignoring its input).
        let c = greedy(&m, &[40, 41, 42, 43, 44], 12);
        assert_ne!(a.tokens, c.tokens, "{arch}");
    }
}

#[test]
fn batch_equals_one_at_a_time() {
    let no = AtomicBool::new(false);
    for arch in ARCHS {
        let (_d, m) = load(arch);
        let prompts: Vec<Vec<u32>> = vec![vec![5, 6, 7], vec![10, 11, 12, 13, 14, 15, 16, 17], vec![20], vec![30, 31, 32, 33]];
        let batch = m.generate_batch(None, &prompts, &opts(10), &mut NoProcessor, &mut |_| {}, &no).unwrap();
        for (p, b) in prompts.iter().zip(&batch) {
            let single = greedy(&m, p, 10);
            assert_eq!(single.tokens, b.tokens, "{arch} prompt {p:?}");
            assert!((single.logprob - b.logprob).abs() < 1e-3, "{arch}: {} vs {}", single.logprob, b.logprob);
        }
    }
}

#[test]
fn prefix_cache_equals_no_cache() {
    let no = AtomicBool::new(false);
    for arch in ARCHS {
        let (_d, m) = load(arch);
        let prefix_toks: Vec<u32> = (4..14).collect();
        let prefix = m.prefix(&prefix_toks).unwrap();
        let suffixes: Vec<Vec<u32>> = vec![vec![50, 51], vec![60, 61, 62, 63, 64], vec![70]];
        let batched = m.generate_batch(Some(&prefix), &suffixes, &opts(8), &mut NoProcessor, &mut |_| {}, &no).unwrap();
        for (s, b) in suffixes.iter().zip(&batched) {
            let mut full = prefix_toks.clone();
            full.extend(s);
            let plain = greedy(&m, &full, 8);
            let cached = m.generate(Some(&prefix), s, &opts(8), &mut NoProcessor, &mut |_| {}, &no).unwrap();
            assert_eq!(plain.tokens, cached.tokens, "{arch}: prefix reuse changed the output");
            assert_eq!(plain.tokens, b.tokens, "{arch}: batched prefix reuse changed the output");
            assert_eq!(cached.prompt_tokens, full.len());
        }
        // The prefix itself is not modified by use.
        let again = m.generate(Some(&prefix), &suffixes[0], &opts(8), &mut NoProcessor, &mut |_| {}, &no).unwrap();
        assert_eq!(again.tokens, batched[0].tokens, "{arch}");
    }
}

#[test]
fn scores_agree_with_generation_and_chunking() {
    for arch in ARCHS {
        let (_d, m) = load(arch);
        let prompt = [5u32, 6, 7, 8];
        let g = greedy(&m, &prompt, 10);
        let s = m.score_tokens(None, &prompt, &g.tokens).unwrap();
        assert_eq!(s.tokens, g.tokens);
        assert!((s.total() as f32 - g.logprob).abs() < common::logprob_tolerance(&m), "{arch}: score {} vs generation {}", s.total(), g.logprob);
        // Scoring through a prefix gives the same numbers.
        let p = m.prefix(&prompt).unwrap();
        let s2 = m.score_tokens(Some(&p), &[], &g.tokens).unwrap();
        assert!((s2.total() - s.total()).abs() < 1e-3, "{arch}");
        // A text longer than one scoring chunk (64) is scored whole and consistently.
        let long: Vec<u32> = (0..150).map(|i| 4 + (i * 7 % 90) as u32).collect();
        let whole = m.score_tokens(None, &long[..1], &long[1..]).unwrap();
        assert_eq!(whole.logprobs.len(), 149);
        let split = m.score_tokens(None, &long[..100], &long[100..]).unwrap();
        for (a, b) in whole.logprobs[99..].iter().zip(&split.logprobs) {
            assert!((a - b).abs() < 1e-3, "{arch}: {a} vs {b}");
        }
        let ppl = whole.perplexity();
        assert!(ppl > 1.0 && ppl.is_finite(), "{arch}: perplexity {ppl}");
    }
}

#[test]
fn beam_search_ranks_consistent_hypotheses() {
    let no = AtomicBool::new(false);
    for arch in ARCHS {
        let (_d, m) = load(arch);
        let prompt = [9u32, 10, 11];
        let o = opts(6);
        let one = m.nbest(None, &prompt, &o, 1, 1, &mut NoProcessor, &no).unwrap();
        assert_eq!(one[0].tokens, greedy(&m, &prompt, 6).tokens, "{arch}: beam 1 must equal greedy");
        let hyps = m.nbest(None, &prompt, &o, 4, 3, &mut NoProcessor, &no).unwrap();
        assert_eq!(hyps.len(), 3, "{arch}");
        assert!(hyps.windows(2).all(|w| w[0].score >= w[1].score), "{arch}: not sorted");
        assert!(hyps[0].tokens != hyps[1].tokens, "{arch}: duplicate hypotheses");
        // Beam 4 finds a sequence at least as likely as greedy (same length, so log-prob order).
        assert!(hyps[0].logprob >= one[0].logprob - 1e-4, "{arch}");
        for h in &hyps {
            let s = m.score_tokens(None, &prompt, &h.tokens).unwrap();
            assert!((s.total() as f32 - h.logprob).abs() < 1e-3, "{arch}: beam score {} vs rescored {}", h.logprob, s.total());
        }
    }
}

#[test]
fn processors_ban_sequences_and_sampling_is_seeded() {
    let no = AtomicBool::new(false);
    let (_d, m) = load("qwen2");
    let prompt = [5u32, 6, 7];
    let g = greedy(&m, &prompt, 8);
    let mut ban = SequenceBias::new();
    ban.ban(&[g.tokens[0]]);
    let banned = m.generate(None, &prompt, &opts(8), &mut ban, &mut |_| {}, &no).unwrap();
    assert!(!banned.tokens.contains(&g.tokens[0]), "banned token generated");
    // Two-token ban: forbid the greedy second token only right after the greedy first token.
    let mut ban2 = SequenceBias::new();
    ban2.ban(&g.tokens[..2]);
    let b2 = m.generate(None, &prompt, &opts(8), &mut ban2, &mut |_| {}, &no).unwrap();
    assert_eq!(b2.tokens[0], g.tokens[0]);
    assert_ne!(b2.tokens[1], g.tokens[1]);
    // A strong boost wins.
    let mut boost = SequenceBias::new();
    boost.add(&[77], 1000.0);
    let bo = m.generate(None, &prompt, &opts(3), &mut boost, &mut |_| {}, &no).unwrap();
    assert_eq!(bo.tokens, vec![77, 77, 77]);

    let sample = |seed| {
        let o = GenerateOptions {
            sampling: Sampling::Sample { temperature: 1.5, top_p: 0.95, top_k: 40, seed },
            ..opts(16)
        };
        m.generate(None, &prompt, &o, &mut NoProcessor, &mut |_| {}, &no).unwrap().tokens
    };
    assert_eq!(sample(1), sample(1));
    assert_ne!(sample(1), sample(2));

    struct Count(usize);
    impl LogitsProcessor for Count {
        fn process(&mut self, _: usize, _: &[u32], _: &mut [f32]) {
            self.0 += 1;
        }
    }
    let mut c = Count(0);
    m.generate(None, &prompt, &opts(5), &mut c, &mut |_| {}, &no).unwrap();
    assert_eq!(c.0, 5);
}

#[test]
fn streaming_stop_strings_eos_and_cancel() {
    let (_d, m) = load("llama");
    let no = AtomicBool::new(false);
    let prompt = [5u32, 6, 7];
    let g = greedy(&m, &prompt, 12);
    let text = m.decode(&g.tokens).unwrap();
    assert_eq!(text.chars().count(), 12);
    // Streaming pieces add up to the text.
    let mut streamed = String::new();
    let g2 = m.generate(None, &prompt, &opts(12), &mut NoProcessor, &mut |e| streamed.push_str(e.text), &no).unwrap();
    assert_eq!(streamed, g2.text);
    // Stop at a string made of generated chars 5..7: text is cut before it and nothing after is streamed.
    let stop: String = text.chars().skip(5).take(2).collect();
    let mut streamed = String::new();
    let o = GenerateOptions { stop_strings: vec![stop.clone()], ..opts(12) };
    let s = m.generate(None, &prompt, &o, &mut NoProcessor, &mut |e| streamed.push_str(e.text), &no).unwrap();
    assert_eq!(s.finish, FinishReason::Stop);
    let cut = text.find(&stop).unwrap();
    assert_eq!(s.text, text[..cut]);
    assert_eq!(streamed, s.text);
    // EOS as a stop token ends generation without including it.
    let i = (1..g.tokens.len()).find(|&i| !g.tokens[..i].contains(&g.tokens[i])).unwrap();
    let o = GenerateOptions { stop_tokens: vec![g.tokens[i]], ignore_eos: false, ..opts(12) };
    let e = m.generate(None, &prompt, &o, &mut NoProcessor, &mut |_| {}, &no).unwrap();
    assert_eq!(e.finish, FinishReason::Eos);
    assert_eq!(e.tokens, g.tokens[..i]);
    // Cancellation from the callback stops after the current token.
    let cancel = AtomicBool::new(false);
    let c = m
        .generate(None, &prompt, &opts(50), &mut NoProcessor, &mut |e| {
            if e.token == g.tokens[2] {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }, &cancel)
        .unwrap();
    assert_eq!(c.finish, FinishReason::Cancelled);
    assert!(c.tokens.len() <= 3);
}

#[test]
fn q5_0_is_converted_to_q8_0_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::tiny_gguf(dir.path(), "qwen2", GgmlDType::Q5_0);
    let mut f = registro_engine::gguf::GgufFile::open(&path).unwrap();
    f.requantize = false;
    let raw = f.qtensor("blk.0.attn_q.weight", &candle_core::Device::Cpu).unwrap();
    assert_eq!(raw.dtype(), GgmlDType::Q5_0);
    let conv = registro_engine::gguf::q5_0_to_q8_0(&raw).unwrap();
    assert_eq!(conv.dtype(), GgmlDType::Q8_0);
    let a = raw.dequantize(&candle_core::Device::Cpu).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
    let b = conv.dequantize(&candle_core::Device::Cpu).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
    assert_eq!(a, b);
}

#[test]
fn bad_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = common::tiny_gguf(dir.path(), "llama", GgmlDType::Q8_0);
    let bytes = std::fs::read(&good).unwrap();
    let err = |p: &std::path::Path| format!("{:#}", Model::load(p, &LoadOptions::default()).err().expect("should fail"));

    let trunc = dir.path().join("trunc.gguf");
    std::fs::write(&trunc, &bytes[..bytes.len() - 1000]).unwrap();
    assert!(err(&trunc).contains("truncated"), "{}", err(&trunc));

    let magic = dir.path().join("magic.gguf");
    let mut b = bytes.clone();
    b[..4].copy_from_slice(b"GGML");
    std::fs::write(&magic, &b).unwrap();
    assert!(err(&magic).contains("not a GGUF file"), "{}", err(&magic));

    let empty = dir.path().join("empty.gguf");
    std::fs::write(&empty, b"").unwrap();
    assert!(err(&empty).contains("empty or truncated"), "{}", err(&empty));

    let unknown = dir.path().join("unknown.gguf");
    let s = String::from_utf8_lossy(&bytes).into_owned();
    assert!(s.contains("llama"));
    // Same-length rename of the architecture value keeps the file structurally valid.
    let pos = bytes.windows(5).position(|w| w == b"llama").unwrap();
    let mut b = bytes.clone();
    b[pos..pos + 5].copy_from_slice(b"zorro");
    std::fs::write(&unknown, &b).unwrap();
    let e = err(&unknown);
    assert!(e.contains("unsupported GGUF architecture") && e.contains("zorro"), "{e}");

    let missing = dir.path().join("nope.gguf");
    assert!(err(&missing).contains("cannot open"), "{}", err(&missing));

    // No tokenizer: token-level use works, text use says what is missing.
    let m = Model::load(&good, &LoadOptions::default()).unwrap();
    let e = format!("{:#}", m.encode("hello").unwrap_err());
    assert!(e.contains("missing tokenizer"), "{e}");

    // Requesting a device this build lacks.
    if !cfg!(feature = "cuda") {
        let o = LoadOptions { device: "cuda".parse().unwrap(), ..Default::default() };
        let e = format!("{:#}", Model::load(&good, &o).err().unwrap());
        assert!(e.contains("no CUDA support"), "{e}");
    }
}

fn has_repeated_ngram(t: &[u32], n: usize) -> bool {
    let mut seen = std::collections::HashSet::new();
    t.windows(n).any(|w| !seen.insert(w.to_vec()))
}

#[test]
fn no_repeat_ngram_guard_holds_for_greedy_and_beam() {
    let no = AtomicBool::new(false);
    for arch in ARCHS {
        let (_d, m) = load(arch);
        let o = GenerateOptions { no_repeat_ngram: 3, ..opts(48) };
        let g = m.generate(None, &[5, 6, 7], &o, &mut NoProcessor, &mut |_| {}, &no).unwrap();
        assert_eq!(g.tokens.len(), 48, "{arch}");
        assert!(!has_repeated_ngram(&g.tokens, 3), "{arch}: greedy repeated a trigram: {:?}", g.tokens);
        for h in m.nbest(None, &[5, 6, 7], &o, 3, 3, &mut NoProcessor, &no).unwrap() {
            assert!(!has_repeated_ngram(&h.tokens, 3), "{arch}: beam repeated a trigram: {:?}", h.tokens);
        }
    }
}

/// A byte-level vocabulary in miniature: ids below 64 are ASCII letters, 64–67 the bytes E0 A4 B9 A5 and 68
/// the byte 88, so "है" (E0 A4 B9 E0 A5 88) is six tokens, as a Devanagari word is in Qwen's vocabulary.
struct ByteCodec;

const HAI: [u32; 6] = [64, 65, 66, 64, 67, 68];

impl ByteCodec {
    fn bytes(ids: &[u32]) -> Vec<u8> {
        ids.iter()
            .map(|&i| match i {
                64 => 0xE0,
                65 => 0xA4,
                66 => 0xB9,
                67 => 0xA5,
                68 => 0x88,
                _ => b'a' + (i % 26) as u8,
            })
            .collect()
    }
}

impl registro_engine::text::TextCodec for ByteCodec {
    fn encode(&self, _text: &str, _add_special: bool) -> anyhow::Result<Vec<u32>> {
        anyhow::bail!("not needed")
    }
    fn decode(&self, ids: &[u32], _skip: bool) -> anyhow::Result<String> {
        Ok(String::from_utf8_lossy(&Self::bytes(ids)).into_owned())
    }
    fn token_id(&self, _t: &str) -> Option<u32> {
        None
    }
}

/// Wants "है" over and over: inside a character only the byte that continues the word is possible (as for a
/// real model, which never strands a character), and a new character starts "है" if it can.
struct RepeatHai;

impl LogitsProcessor for RepeatHai {
    fn process(&mut self, _row: usize, generated: &[u32], logits: &mut [f32]) {
        let inside = std::str::from_utf8(&ByteCodec::bytes(generated)).is_err_and(|e| e.error_len().is_none());
        if inside {
            let done = (1..HAI.len()).rev().find(|&k| generated.ends_with(&HAI[..k])).unwrap();
            for (t, l) in logits.iter_mut().enumerate() {
                if t as u32 != HAI[done] {
                    *l = f32::NEG_INFINITY;
                }
            }
        } else {
            for t in 65..=68 {
                logits[t] = f32::NEG_INFINITY;
            }
            logits[64] += 30.0;
        }
    }
}

/// The repeat guard bans at character boundaries only: banning the next byte of a repeated word left a
/// character unfinished, which decoded to U+FFFD in the middle of Hindi outputs.
#[test]
fn no_repeat_ngram_never_strands_a_character() {
    let no = AtomicBool::new(false);
    let dir = tempfile::tempdir().unwrap();
    let path = common::tiny_gguf(dir.path(), "qwen2", GgmlDType::Q8_0);
    let m = Model::load(&path, &LoadOptions::default()).unwrap().with_codec(Arc::new(ByteCodec));
    let o = GenerateOptions { no_repeat_ngram: 3, ..opts(40) };
    let starts_a_character = |t: &[u32], i: usize| std::str::from_utf8(&ByteCodec::bytes(&t[..i])).is_ok();
    let check = |what: &str, t: &[u32]| {
        let text = ByteCodec.decode(t, true).unwrap();
        assert!(!text.contains('\u{FFFD}') || text.ends_with('\u{FFFD}'), "{what}: a character cut short: {text:?} {t:?}");
        assert!(text.matches('ह').count() >= 2, "{what}: the repeated word is started again: {text:?}");
        let mut seen = std::collections::HashSet::new();
        for (i, w) in t.windows(3).enumerate() {
            if starts_a_character(t, i + 2) {
                assert!(seen.insert(w.to_vec()), "{what}: a repeated trigram ends at a character boundary: {t:?}");
            } else {
                seen.insert(w.to_vec());
            }
        }
    };
    use registro_engine::text::TextCodec;
    let g = m.generate(None, &[5, 6, 7], &o, &mut RepeatHai, &mut |_| {}, &no).unwrap();
    check("greedy", &g.tokens);
    for h in m.nbest(None, &[5, 6, 7], &o, 2, 2, &mut RepeatHai, &no).unwrap() {
        check("beam", &h.tokens);
    }
}

/// Q4_K and Q6_K weights of K-quant-friendly widths run through the engine's packed kernels (AVX-512 VNNI
/// CPUs) or candle's; either way batching and prefix reuse must not change results, and the quantized model
/// must compute what the same weights do in exact f32 arithmetic, up to the 8-bit activation rounding.
#[test]
fn k_quant_weights_match_their_f32_dequantization() {
    let no = AtomicBool::new(false);
    for (arch, wtype) in [("qwen2", GgmlDType::Q4K), ("llama", GgmlDType::Q6K), ("gemma3", GgmlDType::Q4K)] {
        let dir = tempfile::tempdir().unwrap();
        let dims = common::Dims::KQUANT;
        let load = |deq| {
            let p = common::tiny_gguf_with(dir.path(), arch, wtype, dims, deq);
            Model::load(&p, &LoadOptions::default()).unwrap().with_codec(Arc::new(common::CharCodec))
        };
        let (quant, exact) = (load(false), load(true));
        // Under 32 rows, so Q4_K takes the packed kernels rather than candle's large-batch path.
        let text: Vec<u32> = (0..24).map(|i| 4 + (i * 7 % 90) as u32).collect();
        let sq = quant.score_tokens(None, &text[..1], &text[1..]).unwrap();
        let se = exact.score_tokens(None, &text[..1], &text[1..]).unwrap();
        // The 8-bit activations alone move single tokens by up to 0.5 nats in this random model (candle's own
        // kernels the same); a wrong scale, nibble order or row layout moves everything.
        let (lq, le) = (sq.perplexity().ln(), se.perplexity().ln());
        assert!((lq / le - 1.0).abs() < 0.015, "{arch} {wtype:?}: log-perplexity {lq} quantized vs {le} f32");
        let n = sq.logprobs.len() as f32;
        let mean_diff = sq.logprobs.iter().zip(&se.logprobs).map(|(a, b)| (a - b).abs()).sum::<f32>() / n;
        assert!(mean_diff < 0.3, "{arch} {wtype:?}: mean |Δ logprob| {mean_diff}");
        let prompts: Vec<Vec<u32>> = vec![vec![5, 6, 7], vec![10, 11, 12, 13, 14, 15, 16, 17], vec![20]];
        let batch = quant.generate_batch(None, &prompts, &opts(8), &mut NoProcessor, &mut |_| {}, &no).unwrap();
        for (p, b) in prompts.iter().zip(&batch) {
            assert_eq!(greedy(&quant, p, 8).tokens, b.tokens, "{arch} {wtype:?} prompt {p:?}");
        }
        let prefix = quant.prefix(&[5, 6, 7, 8, 9]).unwrap();
        let with = quant.generate(Some(&prefix), &[10, 11], &opts(8), &mut NoProcessor, &mut |_| {}, &no).unwrap();
        assert_eq!(with.tokens, greedy(&quant, &[5, 6, 7, 8, 9, 10, 11], 8).tokens, "{arch} {wtype:?}");
    }
}
