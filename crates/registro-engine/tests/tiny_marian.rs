//! Marian (opus-mt) translation on a tiny random-weight folder written by the test: the same files a user would
//! point the app at (`config.json`, `model.safetensors`, `tokenizer.json`, `tokenizer_target.json`), with the
//! tensor names candle-transformers' `marian` loader reads.
mod common;
use common::{ones, rnd};

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use candle_core::{Device, Tensor};
use registro_engine::marian::Translator;
use registro_engine::DeviceChoice;

const D: usize = 16;
const FFN: usize = 32;
const LAYERS: usize = 2;
const HEADS: usize = 2;
/// Small on purpose so the position limit is reachable in a test.
const MAX_POS: usize = 16;
const SOURCE: &[&str] = &["hello", "world", "how", "are", "you", "please", "send", "the", "report", "thanks", "sir", "hey"];
// A disjoint target vocabulary makes "the output came from tokenizer_target.json" observable.
const TARGET: &[&str] = &["hola", "mundo", "como", "estas", "tu", "por", "favor", "envia", "el", "informe", "gracias", "senor"];
// Marian's layout: </s> = 0, <unk> = 1, pieces, then <pad> last, which is also the decoder start token.
const EOS: usize = 0;
const PAD: usize = SOURCE.len() + 2;
const VOCAB: usize = SOURCE.len() + 3;


/// `bias` is `final_logits_bias`: tests steer generation through it (e.g. towards <pad> or </s>).
fn weights(bias: &[(usize, f32)]) -> HashMap<String, Tensor> {
    let mut w = HashMap::new();
    let mut seed = 7u64;
    let mut next = || {
        seed += 1;
        seed
    };
    let mut fb = vec![0f32; VOCAB];
    for &(id, b) in bias {
        fb[id] = b;
    }
    w.insert("final_logits_bias".into(), Tensor::from_vec(fb, (1, VOCAB), &Device::Cpu).unwrap());
    // One table serves encoder input, decoder input and (tied) lm_head, as in opus-mt checkpoints.
    w.insert("model.shared.weight".into(), rnd(&[VOCAB, D], next(), 1.0));
    let attn = |w: &mut HashMap<String, Tensor>, p: &str, next: &mut dyn FnMut() -> u64| {
        for n in ["q_proj", "k_proj", "v_proj", "out_proj"] {
            w.insert(format!("{p}.{n}.weight"), rnd(&[D, D], next(), 0.6));
            w.insert(format!("{p}.{n}.bias"), rnd(&[D], next(), 0.1));
        }
        w.insert(format!("{p}_layer_norm.weight"), ones(D));
        w.insert(format!("{p}_layer_norm.bias"), rnd(&[D], next(), 0.1));
    };
    for side in ["encoder", "decoder"] {
        for l in 0..LAYERS {
            let p = format!("model.{side}.layers.{l}");
            attn(&mut w, &format!("{p}.self_attn"), &mut next);
            if side == "decoder" {
                attn(&mut w, &format!("{p}.encoder_attn"), &mut next);
            }
            w.insert(format!("{p}.fc1.weight"), rnd(&[FFN, D], next(), 0.5));
            w.insert(format!("{p}.fc1.bias"), rnd(&[FFN], next(), 0.1));
            w.insert(format!("{p}.fc2.weight"), rnd(&[D, FFN], next(), 0.5));
            w.insert(format!("{p}.fc2.bias"), rnd(&[D], next(), 0.1));
            w.insert(format!("{p}.final_layer_norm.weight"), ones(D));
            w.insert(format!("{p}.final_layer_norm.bias"), rnd(&[D], next(), 0.1));
        }
    }
    w
}

fn config(d_model: usize) -> serde_json::Value {
    serde_json::json!({
        "vocab_size": VOCAB, "decoder_vocab_size": VOCAB, "max_position_embeddings": MAX_POS,
        "encoder_layers": LAYERS, "encoder_ffn_dim": FFN, "encoder_attention_heads": HEADS,
        "decoder_layers": LAYERS, "decoder_ffn_dim": FFN, "decoder_attention_heads": HEADS,
        "use_cache": true, "is_encoder_decoder": true, "activation_function": "swish", "d_model": d_model,
        "decoder_start_token_id": PAD, "scale_embedding": true, "pad_token_id": PAD, "eos_token_id": EOS,
        "forced_eos_token_id": EOS, "share_encoder_decoder_embeddings": true, "model_type": "marian"
    })
}

/// A WordLevel tokenizer.json with Marian's `x </s>` template; ids line up with `weights`.
fn tokenizer_json(words: &[&str]) -> String {
    let mut vocab = serde_json::Map::new();
    vocab.insert("</s>".into(), EOS.into());
    vocab.insert("<unk>".into(), 1.into());
    for (i, w) in words.iter().enumerate() {
        vocab.insert(w.to_string(), (i + 2).into());
    }
    vocab.insert("<pad>".into(), PAD.into());
    let special = |t: &str, id: usize| serde_json::json!({"id": id, "content": t, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true});
    serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [special("</s>", EOS), special("<unk>", 1), special("<pad>", PAD)],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": {"type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [EOS], "tokens": ["</s>"]}}},
        "decoder": null,
        "model": {"type": "WordLevel", "unk_token": "<unk>", "vocab": vocab}
    })
    .to_string()
}

fn write_marian(dir: &Path, bias: &[(usize, f32)]) {
    candle_core::safetensors::save(&weights(bias), dir.join("model.safetensors")).unwrap();
    std::fs::write(dir.join("config.json"), config(D).to_string()).unwrap();
    std::fs::write(dir.join("tokenizer.json"), tokenizer_json(SOURCE)).unwrap();
    std::fs::write(dir.join("tokenizer_target.json"), tokenizer_json(TARGET)).unwrap();
}

/// Random weights would often pick </s> first and return "", which would make every output check vacuous; a
/// negative bias on </s> keeps decoding running until max_tokens, and one on <unk> keeps every generated id a
/// printable piece (skip_special_tokens drops <unk>), so word counts equal token counts. A large bias on <pad> makes it the raw argmax
/// at every step, so the translator's "never emit <pad>" rule decides every token.
const RUN_ON: &[(usize, f32)] = &[(EOS, -30.0), (1, -30.0), (PAD, 30.0)];

fn load(dir: &Path) -> Translator {
    Translator::load(dir, DeviceChoice::Cpu).unwrap()
}

fn no_cancel() -> AtomicBool {
    AtomicBool::new(false)
}

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

#[test]
fn translation_is_deterministic_in_the_target_vocabulary_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    write_marian(dir.path(), RUN_ON);
    let t = load(dir.path());
    let a = t.translate("please send the report", 8, &no_cancel()).unwrap();
    let again = t.translate("please send the report", 8, &no_cancel()).unwrap();
    assert_eq!(a, again, "same input, same model, different output (stale KV cache?)");
    let b = t.translate("hey how are you sir", 8, &no_cancel()).unwrap();
    assert_ne!(a, b, "output does not depend on the input");
    for out in [&a, &b] {
        // Every generated id is a target piece (</s> and <unk> are pushed down, <pad> is refused), so the count
        // is exact; a short count would mean <pad> slipped through and was dropped by skip_special_tokens.
        assert_eq!(words(out).len(), 8, "{out:?}");
        for w in words(out) {
            assert!(TARGET.contains(&w), "{w:?} in {out:?} is not a target-vocabulary piece");
        }
    }
    for max in [0, 1, 3] {
        let out = t.translate("please send the report", max, &no_cancel()).unwrap();
        assert_eq!(words(&out).len(), max, "max_tokens {max}: {out:?}");
        // Greedy decoding: a shorter budget is a prefix of the longer run.
        assert!(a.starts_with(&out), "{out:?} is not a prefix of {a:?}");
    }
    // Unknown words and empty input still translate (the source side is just </s>, or <unk>s).
    for text in ["", "zzz qqq", "   "] {
        let out = t.translate(text, 4, &no_cancel()).unwrap();
        assert_eq!(words(&out).len(), 4, "{text:?}: {out:?}");
    }
}

#[test]
fn end_of_sentence_stops_decoding() {
    let dir = tempfile::tempdir().unwrap();
    write_marian(dir.path(), &[(EOS, 30.0)]);
    let out = load(dir.path()).translate("please send the report", 8, &no_cancel()).unwrap();
    assert_eq!(out, "", "</s> must end the translation and not be printed");
}

#[test]
fn without_a_target_tokenizer_the_source_one_decodes() {
    let dir = tempfile::tempdir().unwrap();
    write_marian(dir.path(), RUN_ON);
    std::fs::remove_file(dir.path().join("tokenizer_target.json")).unwrap();
    let out = load(dir.path()).translate("please send the report", 5, &no_cancel()).unwrap();
    assert_eq!(words(&out).len(), 5, "{out:?}");
    assert!(words(&out).iter().all(|w| SOURCE.contains(w)), "{out:?}");
}

#[test]
fn cancelled_translation_returns_at_once() {
    let dir = tempfile::tempdir().unwrap();
    write_marian(dir.path(), RUN_ON);
    let t = load(dir.path());
    let cancel = AtomicBool::new(true);
    let start = Instant::now();
    let out = t.translate("please send the report", 10_000, &cancel).unwrap();
    assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
    assert_eq!(out, "");
    // The cancelled call must leave the model usable (its KV cache is reset per call).
    let a = t.translate("please send the report", 6, &no_cancel()).unwrap();
    let fresh = load(dir.path()).translate("please send the report", 6, &no_cancel()).unwrap();
    assert_eq!(a, fresh);
}

#[test]
fn decoding_stops_at_the_position_limit_instead_of_failing() {
    let dir = tempfile::tempdir().unwrap();
    write_marian(dir.path(), RUN_ON);
    let t = load(dir.path());
    // Asking for more tokens than the model has positions must give the longest translation it can, not an
    // index error that throws away everything generated so far.
    let out = t.translate("please send the report", MAX_POS + 20, &no_cancel()).unwrap();
    assert_eq!(words(&out).len(), MAX_POS, "{out:?}");
    let shorter = t.translate("please send the report", MAX_POS - 1, &no_cancel()).unwrap();
    assert!(out.starts_with(&shorter), "{shorter:?} vs {out:?}");
}

#[test]
fn source_longer_than_the_model_accepts_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    write_marian(dir.path(), RUN_ON);
    let t = load(dir.path());
    // MAX_POS words + </s> is one position too many; MAX_POS - 1 words + </s> fits exactly.
    let fits = vec!["hello"; MAX_POS - 1].join(" ");
    assert_eq!(words(&t.translate(&fits, 3, &no_cancel()).unwrap()).len(), 3);
    let long = vec!["hello"; MAX_POS].join(" ");
    let e = format!("{:#}", t.translate(&long, 3, &no_cancel()).err().expect("over-long input accepted"));
    assert!(e.contains(&(MAX_POS + 1).to_string()) && e.contains(&MAX_POS.to_string()), "{e}");
    assert!(e.contains("too long"), "{e}");
    // The error must not poison the model for the next call.
    assert_eq!(words(&t.translate("hello", 3, &no_cancel()).unwrap()).len(), 3);
}

fn load_err(dir: &Path) -> String {
    format!("{:#}", Translator::load(dir, DeviceChoice::Cpu).err().expect("load of a broken folder succeeded"))
}

#[test]
fn broken_folders_are_clear_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let shown = |f: &str| p.join(f).display().to_string();

    write_marian(p, RUN_ON);
    std::fs::remove_file(p.join("config.json")).unwrap();
    let e = load_err(p);
    assert!(e.contains(&shown("config.json")), "{e}");

    // A BERT config parses as JSON but is not Marian's.
    std::fs::write(p.join("config.json"), r#"{"model_type": "bert", "hidden_size": 16, "vocab_size": 15}"#).unwrap();
    let e = load_err(p);
    assert!(e.contains(&shown("config.json")) && e.contains("not a Marian config"), "{e}");
    std::fs::write(p.join("config.json"), "not json").unwrap();
    let e = load_err(p);
    assert!(e.contains(&shown("config.json")) && e.contains("not a Marian config"), "{e}");

    write_marian(p, RUN_ON);
    std::fs::remove_file(p.join("model.safetensors")).unwrap();
    let e = load_err(p);
    assert!(e.contains("missing model.safetensors") && e.contains(&p.display().to_string()), "{e}");

    std::fs::write(p.join("model.safetensors"), b"definitely not safetensors").unwrap();
    let e = load_err(p);
    assert!(e.contains(&shown("model.safetensors")), "{e}");

    // Weights for d_model 16 under a config that says 32: the error names the folder and the first tensor.
    write_marian(p, RUN_ON);
    std::fs::write(p.join("config.json"), config(2 * D).to_string()).unwrap();
    let e = load_err(p);
    assert!(e.contains(&p.display().to_string()) && e.contains("do not match"), "{e}");
    assert!(e.contains("final_logits_bias") || e.contains("model.shared.weight"), "{e}");

    // A checkpoint missing a layer's tensor names it.
    write_marian(p, RUN_ON);
    let mut w = weights(RUN_ON);
    w.remove("model.decoder.layers.1.fc2.weight").unwrap();
    candle_core::safetensors::save(&w, p.join("model.safetensors")).unwrap();
    let e = load_err(p);
    assert!(e.contains("model.decoder.layers.1.fc2.weight"), "{e}");

    write_marian(p, RUN_ON);
    std::fs::remove_file(p.join("tokenizer.json")).unwrap();
    let e = load_err(p);
    assert!(e.contains(&shown("tokenizer.json")), "{e}");
}
