//! GGUF-built tokenizers against the published tokenizer.json files, token for token, on the real model files
//! (skipped with a message when the cache lacks them: `registro models fetch qwen2.5-coder-0.5b-instruct
//! gemma-3-270m qwen3-tokenizer gemma3-tokenizer`), plus bad-file errors on generated GGUF files.
use std::path::PathBuf;

use candle_core::quantized::gguf_file::{self, Value};
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use registro_models::default_root;
use registro_engine::tokenizer;

const SAMPLE: &[&str] = &[
    "Could you please send me the report by Friday? Thanks a lot!",
    "Könnten Sie mir bitte den Bericht bis Freitag schicken? Grüße, Jürgen",
    "¿Podrías enviarme el informe antes del viernes? ¡Muchas gracias, señor Núñez!",
    "Pourriez-vous m'envoyer le rapport avant vendredi ? Ça m'aiderait beaucoup.",
    "क्या आप कृपया शुक्रवार तक रिपोर्ट भेज सकते हैं? धन्यवाद।",
    "Potresti mandarmi il rapporto entro venerdì? Perché è già tardi.",
    "金曜日までに報告書を送っていただけますか？よろしくお願いいたします。",
    "Você poderia me enviar o relatório até sexta-feira? Obrigado, João.",
    "Emoji 😀👍🏽🇩🇪 and ZWJ 👨‍👩‍👧 sequences",
    "whitespace   runs\t\ttabs\n\n\nnewlines    and  trailing   ",
    "  leading spaces, numbers 1234567 3.14159, code: fn main() { println!(\"hi\"); }",
    "Mixed: Straße naïve café coöperate – “quotes” — ‘single’ … ½ ² ℃",
];

fn cached(id: &str, file: &str) -> Option<PathBuf> {
    let p = default_root().join(id).join(file);
    if p.is_file() {
        Some(p)
    } else {
        println!("skipped: {} is not in the model cache (registro models fetch {id})", p.display());
        None
    }
}

fn agree(gguf: PathBuf, json: PathBuf) {
    let t0 = std::time::Instant::now();
    let from_gguf = tokenizer::from_gguf_file(&gguf).unwrap();
    println!("built tokenizer from {} in {:.2} s", gguf.display(), t0.elapsed().as_secs_f64());
    let from_json = tokenizer::from_json_file(&json).unwrap();
    let all = SAMPLE.join("\n");
    for text in SAMPLE.iter().copied().chain([all.as_str()]) {
        let a = from_gguf.encode(text, false).unwrap();
        let b = from_json.encode(text, false).unwrap();
        assert_eq!(a, b, "token ids differ for {text:?}");
        assert_eq!(from_gguf.decode(&a, false).unwrap(), from_json.decode(&b, false).unwrap(), "decoding differs for {text:?}");
    }
    // With special tokens added (bos for Gemma) both agree too.
    assert_eq!(from_gguf.encode(SAMPLE[0], true).unwrap(), from_json.encode(SAMPLE[0], true).unwrap());
}

/// [`agree`] on the GGUF file `gguf` and the tokenizer.json `json` (each a model id and a file in the cache); the
/// GGUF file's path for the test's own checks, or `None` (skipped, with a message) when either is missing.
fn agree_cached(gguf: (&str, &str), json: (&str, &str)) -> Option<PathBuf> {
    let (Some(g), Some(j)) = (cached(gguf.0, gguf.1), cached(json.0, json.1)) else {
        return None;
    };
    agree(g.clone(), j);
    Some(g)
}

#[test]
fn qwen_gguf_tokenizer_matches_tokenizer_json() {
    let Some(g) = agree_cached(
        ("qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
        ("qwen3-tokenizer", "tokenizer.json"),
    ) else {
        return;
    };
    let tok = tokenizer::from_gguf_file(&g).unwrap();
    assert_eq!(tok.token_id("<|im_start|>"), Some(151644));
    assert_eq!(tok.token_id("<|im_end|>"), Some(151645));
    assert!(tok.stop_ids.contains(&151645));
    assert!(!tok.add_bos);
    let ids = tok.encode("<|im_start|>user\nHallo<|im_end|>", false).unwrap();
    assert_eq!(ids[0], 151644);
    assert_eq!(*ids.last().unwrap(), 151645);
    let text = tok.decode(&ids, false).unwrap();
    assert_eq!(text, "<|im_start|>user\nHallo<|im_end|>");
}

#[test]
fn gemma3_gguf_tokenizer_matches_tokenizer_json() {
    let Some(g) = agree_cached(("gemma-3-270m", "gemma-3-270m-q4_k_m.gguf"), ("gemma3-tokenizer", "tokenizer.json")) else {
        return;
    };
    let tok = tokenizer::from_gguf_file(&g).unwrap();
    assert_eq!(tok.bos_id, Some(2));
    assert!(tok.add_bos);
    let ids = tok.encode("<start_of_turn>user\nHi<end_of_turn>", true).unwrap();
    assert_eq!(ids[0], 2);
    assert_eq!(ids[1], tok.token_id("<start_of_turn>").unwrap());
    assert!(tok.stop_ids.contains(&tok.token_id("<end_of_turn>").unwrap()));
}

#[test]
fn qwen_1_5b_file_has_the_same_vocabulary() {
    agree_cached(
        ("qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
        ("qwen3-tokenizer", "tokenizer.json"),
    );
}

/// Writes a GGUF file with `metadata` and one small F32 tensor.
fn write_gguf(path: &std::path::Path, metadata: &[(&str, Value)]) {
    let t = Tensor::arange(0f32, 64f32, &Device::Cpu).unwrap().reshape((2, 32)).unwrap();
    let q = QTensor::quantize(&t, GgmlDType::F32).unwrap();
    let mut f = std::fs::File::create(path).unwrap();
    let md: Vec<(&str, &Value)> = metadata.iter().map(|(k, v)| (*k, v)).collect();
    gguf_file::write(&mut f, &md, &[("w", &q)]).unwrap();
}

fn tiny_llama_metadata() -> Vec<(&'static str, Value)> {
    // Each word is reachable by merges ranked by score, as SentencePiece BPE requires.
    let pieces = [
        "<pad>", "<eos>", "<bos>", "<unk>", "▁", "h", "e", "l", "o", "w", "r", "d", "he", "ll", "hell", "hello", "▁hello",
        "or", "wor", "worl", "world", "▁world",
    ];
    let tokens: Vec<Value> = pieces.iter().map(|p| Value::String(p.to_string())).collect();
    let scores: Vec<Value> = (0..pieces.len()).map(|i| Value::F32(if i < 4 { 0.0 } else { -(i as f32) })).collect();
    let types: Vec<Value> = (0..pieces.len()).map(|i| Value::I32(if i < 4 { 3 } else { 1 })).collect();
    vec![
        ("general.architecture", Value::String("llama".into())),
        ("tokenizer.ggml.model", Value::String("llama".into())),
        ("tokenizer.ggml.tokens", Value::Array(tokens)),
        ("tokenizer.ggml.scores", Value::Array(scores)),
        ("tokenizer.ggml.token_type", Value::Array(types)),
        ("tokenizer.ggml.bos_token_id", Value::U32(2)),
        ("tokenizer.ggml.eos_token_id", Value::U32(1)),
        ("tokenizer.ggml.unknown_token_id", Value::U32(3)),
        ("tokenizer.ggml.add_bos_token", Value::Bool(true)),
    ]
}

#[test]
fn sentencepiece_tokenizer_from_generated_gguf() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("tiny.gguf");
    write_gguf(&p, &tiny_llama_metadata());
    let tok = tokenizer::from_gguf_file(&p).unwrap();
    let ids = tok.encode("hello world", true).unwrap();
    let pieces: Vec<String> = ids.iter().map(|&i| tok.tokenizer.id_to_token(i).unwrap()).collect();
    // llama-style: a space prefix is added (add_space_prefix defaults to true), bos first.
    assert_eq!(pieces, ["<bos>", "▁hello", "▁world"]);
    assert_eq!(tok.decode(&ids, true).unwrap(), "hello world");
}

#[test]
fn damaged_gguf_files_get_clear_errors_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    // Wrong magic.
    let bad = tmp.path().join("notgguf.gguf");
    std::fs::write(&bad, b"PK\x03\x04 this is a zip, not a model").unwrap();
    let err = format!("{:#}", tokenizer::from_gguf_file(&bad).err().unwrap());
    assert!(err.contains("notgguf.gguf") && err.contains("not a GGUF file"), "{err}");
    // Truncated: a valid file cut inside its tensor data.
    let good = tmp.path().join("good.gguf");
    write_gguf(&good, &tiny_llama_metadata());
    let bytes = std::fs::read(&good).unwrap();
    let cut = tmp.path().join("cut.gguf");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let err = format!("{:#}", tokenizer::from_gguf_file(&cut).err().unwrap());
    assert!(err.contains("cut.gguf") && err.contains("truncated"), "{err}");
    // Cut inside the header.
    let head = tmp.path().join("head.gguf");
    std::fs::write(&head, &bytes[..40]).unwrap();
    let err = format!("{:#}", tokenizer::from_gguf_file(&head).err().unwrap());
    assert!(err.contains("head.gguf") && (err.contains("truncated") || err.contains("damaged")), "{err}");
    // Empty.
    let empty = tmp.path().join("empty.gguf");
    std::fs::write(&empty, b"").unwrap();
    let err = format!("{:#}", tokenizer::from_gguf_file(&empty).err().unwrap());
    assert!(err.contains("empty.gguf") && err.contains("empty or truncated"), "{err}");
    // No tokenizer metadata.
    let bare = tmp.path().join("bare.gguf");
    write_gguf(&bare, &[("general.architecture", Value::String("qwen2".into()))]);
    let err = format!("{:#}", tokenizer::from_gguf_file(&bare).err().unwrap());
    assert!(err.contains("bare.gguf") && err.contains("no tokenizer"), "{err}");
    // Unknown tokenizer model.
    let odd = tmp.path().join("odd.gguf");
    write_gguf(&odd, &[
        ("general.architecture", Value::String("bert".into())),
        ("tokenizer.ggml.model", Value::String("bert".into())),
        ("tokenizer.ggml.tokens", Value::Array(vec![Value::String("[CLS]".into())])),
    ]);
    let err = format!("{:#}", tokenizer::from_gguf_file(&odd).err().unwrap());
    assert!(err.contains("odd.gguf") && err.contains("unsupported GGUF tokenizer model"), "{err}");
    // Opening any of them through the manager's resolve reports the same.
    let mgr = registro_models::ModelManager::new(tmp.path().join("cache"));
    let err = format!("{:#}", mgr.resolve(cut.to_str().unwrap()).unwrap_err());
    assert!(err.contains("cut.gguf") && err.contains("truncated"), "{err}");
    let ok = mgr.resolve(good.to_str().unwrap()).unwrap();
    assert_eq!(ok.architecture, "llama");
}

#[test]
fn import_a_gguf_then_resolve_and_remove_it() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("My-Tiny-Model.Q4.gguf");
    // Import accepts only decoders the engine can run (a tokenizer-only file would be refused).
    std::fs::write(&src, registro_gguf::write::tiny_decoder("llama").finish()).unwrap();
    let mgr = registro_models::ModelManager::new(tmp.path().join("cache"));
    let m = mgr.import(&src, None, &mut |_| {}, &std::sync::atomic::AtomicBool::new(false)).unwrap();
    assert_eq!(m.id, "my-tiny-model.q4");
    // A fresh manager sees the imported manifest.
    let mgr = registro_models::ModelManager::new(tmp.path().join("cache"));
    let r = mgr.resolve("my-tiny-model.q4").unwrap();
    assert_eq!(r.architecture, "llama");
    assert_eq!(std::fs::read(&r.main).unwrap(), std::fs::read(&src).unwrap());
    assert_eq!(mgr.status("my-tiny-model.q4").unwrap().state, registro_models::ModelState::Ready);
    let freed = mgr.remove("my-tiny-model.q4").unwrap();
    assert!(freed >= std::fs::metadata(&src).unwrap().len());
    assert!(registro_models::ModelManager::new(tmp.path().join("cache")).resolve("my-tiny-model.q4").is_err());
    // Importing a foreign file under a shipped id is refused.
    let err = mgr.import(&src, Some("gemma-3-270m"), &mut |_| {}, &std::sync::atomic::AtomicBool::new(false)).unwrap_err();
    assert!(err.to_string().contains("does not match model gemma-3-270m"), "{err}");
}
