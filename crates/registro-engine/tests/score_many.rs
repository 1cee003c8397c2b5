//! Perplexity of many texts in one pass gives each text the perplexity it gets alone, on every architecture: the
//! rewrite pipeline ranks candidates by it, so batching must not change a choice.
mod common;

use std::sync::Arc;

use candle_core::quantized::GgmlDType;
use registro_engine::{LoadOptions, Model};

#[test]
fn perplexity_of_many_texts_equals_one_at_a_time() {
    let long: String = (0..150).map(|i| char::from(b'A' + (i * 7 % 26) as u8)).collect();
    // The tiny models' character vocabulary has the capital letters but no space.
    let texts = ["HELLOTHERE", "ALONGERSENTENCEWITHMOREWORDSINITTHANTHEFIRSTONE", "", "X", long.as_str(), "SHORTONE", "HELLOTHERE"];
    for arch in ["qwen2", "qwen3", "llama", "gemma3"] {
        let dir = tempfile::tempdir().unwrap();
        let path = common::tiny_gguf(dir.path(), arch, GgmlDType::Q8_0);
        let m = Model::load(&path, &LoadOptions::default()).unwrap().with_codec(Arc::new(common::CharCodec));
        let many = m.perplexity_many(&texts).unwrap();
        assert_eq!(many.len(), texts.len());
        // On the CPU a text's rows compute the same whatever rows share the pass (0 difference on every text
        // here). On a GPU cuBLAS chooses its kernels by the product's shape, so the same rows in a pass of three
        // sum in another order than alone: on an H100, up to 7.9e-4 of the perplexity on these random models
        // (whose perplexities run to 33,000, where a rounding moves most), with or without padding, 0.0008 nats
        // a token.
        let tolerance = if m.info.device.starts_with("cpu") { 1e-4 } else { 2e-3 };
        for (t, p) in texts.iter().zip(&many) {
            let alone = m.perplexity(t).unwrap();
            let p = *p.as_ref().unwrap();
            if alone.is_infinite() {
                assert!(p.is_infinite(), "{arch} {t:?}: {p} vs {alone}");
            } else {
                assert!((p - alone).abs() <= tolerance * alone, "{arch} {t:?} on {}: {p} vs {alone}", m.info.device);
            }
        }
        // A text the model cannot encode fails the call with the tokenizer's error, not a wrong number.
        assert!(m.perplexity_many(&["ok", "tab\there"]).is_err(), "{arch}");
    }
}

