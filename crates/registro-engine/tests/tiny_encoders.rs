//! BERT sentence embeddings and XLM-R classification on tiny random-weight safetensors folders written by the
//! test, and all-MiniLM-L6-v2 against recorded reference embeddings when the real files are present.
mod common;
use common::{ones, rnd};

use std::collections::HashMap;
use std::path::Path;

use candle_core::Tensor;
use registro_engine::bert::{SentenceEncoder, SequenceClassifier};
use registro_engine::DeviceChoice;

const H: usize = 32;
const WORDS: &[&str] = &["hello", "world", "how", "are", "you", "please", "send", "the", "report", "thanks", "sir", "hey"];


fn encoder_weights(prefix: &str, vocab: usize, positions: usize) -> HashMap<String, Tensor> {
    let mut w = HashMap::new();
    let mut seed = 1;
    let put = |w: &mut HashMap<String, Tensor>, name: String, t: Tensor| {
        w.insert(format!("{prefix}{name}"), t);
    };
    let mut next = || {
        seed += 1;
        seed
    };
    put(&mut w, "embeddings.word_embeddings.weight".into(), rnd(&[vocab, H], next(), 0.5));
    put(&mut w, "embeddings.position_embeddings.weight".into(), rnd(&[positions, H], next(), 0.5));
    put(&mut w, "embeddings.token_type_embeddings.weight".into(), rnd(&[2, H], next(), 0.5));
    put(&mut w, "embeddings.LayerNorm.weight".into(), ones(H));
    put(&mut w, "embeddings.LayerNorm.bias".into(), rnd(&[H], next(), 0.1));
    for l in 0..2 {
        let p = format!("encoder.layer.{l}.");
        for n in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"] {
            put(&mut w, format!("{p}{n}.weight"), rnd(&[H, H], next(), 0.3));
            put(&mut w, format!("{p}{n}.bias"), rnd(&[H], next(), 0.1));
        }
        put(&mut w, format!("{p}intermediate.dense.weight"), rnd(&[4 * H, H], next(), 0.3));
        put(&mut w, format!("{p}intermediate.dense.bias"), rnd(&[4 * H], next(), 0.1));
        put(&mut w, format!("{p}output.dense.weight"), rnd(&[H, 4 * H], next(), 0.3));
        put(&mut w, format!("{p}output.dense.bias"), rnd(&[H], next(), 0.1));
        for n in ["attention.output.LayerNorm", "output.LayerNorm"] {
            put(&mut w, format!("{p}{n}.weight"), ones(H));
            put(&mut w, format!("{p}{n}.bias"), rnd(&[H], next(), 0.1));
        }
    }
    w
}

/// A WordPiece tokenizer.json over `WORDS` with BERT's [CLS] x [SEP] template.
fn tokenizer_json(cls: &str, sep: &str, pad: &str, unk: &str) -> String {
    let mut vocab = serde_json::Map::new();
    for (i, t) in [pad, unk, cls, sep].iter().chain(WORDS.iter()).enumerate() {
        vocab.insert(t.to_string(), i.into());
    }
    let special = |t: &str, id: usize| serde_json::json!({"id": id, "content": t, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true});
    serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [special(pad, 0), special(unk, 1), special(cls, 2), special(sep, 3)],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": cls, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": sep, "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": cls, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": sep, "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": sep, "type_id": 1}}],
            "special_tokens": {cls: {"id": cls, "ids": [2], "tokens": [cls]}, sep: {"id": sep, "ids": [3], "tokens": [sep]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": unk, "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab}
    })
    .to_string()
}

fn write_bert(dir: &Path) {
    let vocab = 4 + WORDS.len();
    candle_core::safetensors::save(&encoder_weights("", vocab, 64), dir.join("model.safetensors")).unwrap();
    let cfg = serde_json::json!({"vocab_size": vocab, "hidden_size": H, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 4 * H, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "max_position_embeddings": 64,
        "type_vocab_size": 2, "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0, "model_type": "bert"});
    std::fs::write(dir.join("config.json"), cfg.to_string()).unwrap();
    std::fs::write(dir.join("tokenizer.json"), tokenizer_json("[CLS]", "[SEP]", "[PAD]", "[UNK]")).unwrap();
    std::fs::write(dir.join("modules.json"), r#"[{"type":"sentence_transformers.models.Pooling"},{"type":"sentence_transformers.models.Normalize"}]"#).unwrap();
}

#[test]
fn bert_embeddings_are_normalised_and_batch_independent() {
    let dir = tempfile::tempdir().unwrap();
    write_bert(dir.path());
    let enc = SentenceEncoder::load(dir.path(), DeviceChoice::Cpu).unwrap();
    let texts = ["hello world", "please send the report thanks sir", "hey"];
    let batch = enc.embed(&texts).unwrap();
    assert_eq!(batch.len(), 3);
    for (t, e) in texts.iter().zip(&batch) {
        assert_eq!(e.len(), H);
        let norm: f32 = e.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
        // Padding in a batch must not change a sentence's embedding.
        let single = enc.embed(&[t]).unwrap().remove(0);
        let diff = e.iter().zip(&single).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(diff < 1e-5, "{t}: batch vs single differ by {diff}");
    }
    let cos: f32 = batch[0].iter().zip(&batch[1]).map(|(a, b)| a * b).sum();
    assert!(cos < 0.9999, "different sentences gave the same embedding");
}

#[test]
fn xlm_roberta_classifier_gives_probabilities_per_label() {
    let dir = tempfile::tempdir().unwrap();
    let vocab = 4 + WORDS.len();
    let mut w = encoder_weights("roberta.", vocab, 66);
    w.insert("classifier.dense.weight".into(), rnd(&[H, H], 99, 0.5));
    w.insert("classifier.dense.bias".into(), rnd(&[H], 98, 0.1));
    w.insert("classifier.out_proj.weight".into(), rnd(&[2, H], 97, 2.0));
    w.insert("classifier.out_proj.bias".into(), rnd(&[2], 96, 0.1));
    candle_core::safetensors::save(&w, dir.path().join("model.safetensors")).unwrap();
    let cfg = serde_json::json!({"vocab_size": vocab, "hidden_size": H, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 4 * H, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": 66, "type_vocab_size": 2, "layer_norm_eps": 1e-5, "pad_token_id": 1,
        "position_embedding_type": "absolute", "model_type": "xlm-roberta", "id2label": {"0": "formal", "1": "informal"}});
    std::fs::write(dir.path().join("config.json"), cfg.to_string()).unwrap();
    std::fs::write(dir.path().join("tokenizer.json"), tokenizer_json("<s>", "</s>", "<pad>", "<unk>")).unwrap();
    let c = SequenceClassifier::load(dir.path(), DeviceChoice::Cpu).unwrap();
    assert_eq!(c.labels, vec!["formal", "informal"]);
    let texts = ["hey how are you", "please send the report sir"];
    let p = c.classify(&texts).unwrap();
    for (t, row) in texts.iter().zip(&p) {
        assert_eq!(row.len(), 2);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        let single = c.classify(&[t]).unwrap().remove(0);
        assert!((single[0] - row[0]).abs() < 1e-5, "{t}: batch vs single");
    }
    assert!((p[0][0] - p[1][0]).abs() > 1e-6, "classifier ignores its input");

    // A BERT model_type is refused with a message naming the supported types.
    let raw = std::fs::read_to_string(dir.path().join("config.json")).unwrap().replace("xlm-roberta", "bert");
    std::fs::write(dir.path().join("config.json"), raw).unwrap();
    let e = format!("{:#}", SequenceClassifier::load(dir.path(), DeviceChoice::Cpu).err().unwrap());
    assert!(e.contains("not supported") && e.contains("xlm-roberta"), "{e}");
}

#[test]
fn encoder_folder_without_weights_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    write_bert(dir.path());
    std::fs::remove_file(dir.path().join("model.safetensors")).unwrap();
    let e = format!("{:#}", SentenceEncoder::load(dir.path(), DeviceChoice::Cpu).err().unwrap());
    assert!(e.contains("missing model.safetensors"), "{e}");
}

/// A two-layer Gemma 3 encoder with random weights (one sliding, one full-attention layer, grouped key/value heads;
/// every input width a multiple of 32, so `Precision::Int8` packs its layers where the int8 kernels run).
fn tiny_gemma_encoder() -> registro_engine::embedding_gemma::Gemma3Encoder {
    let (cfg, w) = tiny_gemma_weights();
    let vb = candle_nn::VarBuilder::from_tensors(w, candle_core::DType::F32, &candle_core::Device::Cpu);
    registro_engine::embedding_gemma::Gemma3Encoder::new(&cfg, vb).unwrap()
}

fn tiny_gemma_weights() -> (registro_engine::embedding_gemma::Config, HashMap<String, Tensor>) {
    use registro_engine::embedding_gemma::Config;
    let cfg: Config = serde_json::from_value(serde_json::json!({
        "head_dim": 16, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 32, "intermediate_size": 64,
        "num_attention_heads": 2, "num_hidden_layers": 2, "num_key_value_heads": 1, "rms_norm_eps": 1e-6,
        "rope_theta": 1e6, "rope_local_base_freq": 1e4, "vocab_size": 20, "query_pre_attn_scalar": 16,
        "layer_types": ["sliding_attention", "full_attention"], "use_bidirectional_attention": true
    }))
    .unwrap();
    let mut w = HashMap::new();
    let mut seed = 100;
    let mut put = |name: String, shape: &[usize]| {
        seed += 1;
        w.insert(name, rnd(shape, seed, 0.4));
    };
    put("embed_tokens.weight".into(), &[20, 32]);
    put("norm.weight".into(), &[32]);
    for l in 0..2 {
        let p = format!("layers.{l}.");
        for (n, shape) in [
            ("self_attn.q_proj.weight", [32, 32]),
            ("self_attn.k_proj.weight", [16, 32]),
            ("self_attn.v_proj.weight", [16, 32]),
            ("self_attn.o_proj.weight", [32, 32]),
            ("mlp.gate_proj.weight", [64, 32]),
            ("mlp.up_proj.weight", [64, 32]),
            ("mlp.down_proj.weight", [32, 64]),
        ] {
            put(format!("{p}{n}"), &shape);
        }
        put(format!("{p}self_attn.q_norm.weight"), &[16]);
        put(format!("{p}self_attn.k_norm.weight"), &[16]);
        for n in ["input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"] {
            put(format!("{p}{n}.weight"), &[32]);
        }
    }
    (cfg, w)
}

fn hidden(enc: &registro_engine::embedding_gemma::Gemma3Encoder, rows: &[&[u32]]) -> Vec<Vec<Vec<f32>>> {
    let len = rows.iter().map(|r| r.len()).max().unwrap();
    let ids: Vec<u32> = rows.iter().flat_map(|r| r.iter().copied().chain(std::iter::repeat(0).take(len - r.len()))).collect();
    let mask: Vec<u32> = rows.iter().flat_map(|r| std::iter::repeat(1).take(r.len()).chain(std::iter::repeat(0).take(len - r.len()))).collect();
    let dev = candle_core::Device::Cpu;
    let ids = Tensor::from_vec(ids, (rows.len(), len), &dev).unwrap();
    let mask = Tensor::from_vec(mask, (rows.len(), len), &dev).unwrap();
    enc.forward(&ids, &mask).unwrap().to_vec3::<f32>().unwrap()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// An embedding model reads the whole sentence: the first token's state depends on the last word (a causal mask
/// would leave it unchanged), and padding a sentence in a batch changes none of its real tokens' states.
#[test]
fn gemma_encoder_attends_both_ways_and_ignores_padding() {
    let enc = tiny_gemma_encoder();
    let a = hidden(&enc, &[&[2, 5, 7, 9, 1]]);
    let b = hidden(&enc, &[&[2, 5, 7, 11, 1]]);
    assert!(max_diff(&a[0][0], &b[0][0]) > 1e-3, "the first token must see a later word");
    let batch = hidden(&enc, &[&[2, 5, 7, 9, 1], &[2, 3, 1]]);
    let short = hidden(&enc, &[&[2, 3, 1]]);
    for t in 0..3 {
        assert!(max_diff(&batch[1][t], &short[0][t]) < 1e-5, "padding leaked into token {t}");
    }
    assert!(max_diff(&batch[0][4], &a[0][4]) < 1e-5);
}

/// A model loaded from its file reads token embeddings from the mapped table, not a copy: the hidden states are
/// bit for bit those of the same tensors held in memory, in both precisions; a token id past the table is an error,
/// not a read past it; and a table whose shape disagrees with config.json is refused at load, naming both.
#[test]
fn gemma_encoder_from_its_file_reads_the_mapped_table_exactly() {
    use registro_engine::embedding_gemma::{Gemma3Encoder, Precision};
    let (cfg, w) = tiny_gemma_weights();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.safetensors");
    candle_core::safetensors::save(&w, &path).unwrap();
    let rows: &[&[u32]] = &[&[2, 5, 7, 19, 1], &[0, 3, 1]];
    for precision in [Precision::F32, Precision::Int8] {
        let vb = candle_nn::VarBuilder::from_tensors(w.clone(), candle_core::DType::F32, &candle_core::Device::Cpu);
        let in_memory = Gemma3Encoder::with_precision(&cfg, vb, precision).unwrap();
        let mapped = Gemma3Encoder::from_file(&cfg, &path, &candle_core::Device::Cpu, precision).unwrap();
        assert_eq!(hidden(&mapped, rows), hidden(&in_memory, rows), "{precision:?}");
        let outside = Tensor::from_vec(vec![3u32, 20], (1, 2), &candle_core::Device::Cpu).unwrap();
        let mask = Tensor::from_vec(vec![1u32, 1], (1, 2), &candle_core::Device::Cpu).unwrap();
        let e = format!("{:#}", mapped.forward(&outside, &mask).err().expect("id 20 of a 20-row table"));
        assert!(e.contains("token id 20") && e.contains("20 rows"), "{e}");
    }
    let mut wrong = w.clone();
    wrong.insert("embed_tokens.weight".into(), rnd(&[19, 32], 7, 0.4));
    candle_core::safetensors::save(&wrong, &path).unwrap();
    let e = format!("{:#}", Gemma3Encoder::from_file(&cfg, &path, &candle_core::Device::Cpu, Precision::F32).err().expect("refused"));
    assert!(e.contains("embed_tokens.weight") && e.contains("[19, 32]") && e.contains("(20, 32)"), "{e}");
}

/// A causal Gemma 3 checkpoint is refused by name rather than producing meaningless embeddings.
#[test]
fn a_causal_gemma_config_is_refused_as_an_embedding_model() {
    let cfg: registro_engine::embedding_gemma::Config = serde_json::from_value(serde_json::json!({
        "head_dim": 8, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 16, "intermediate_size": 24,
        "num_attention_heads": 2, "num_hidden_layers": 1, "num_key_value_heads": 1, "rms_norm_eps": 1e-6,
        "rope_theta": 1e6, "rope_local_base_freq": 1e4, "vocab_size": 20, "query_pre_attn_scalar": 8
    }))
    .unwrap();
    let vb = candle_nn::VarBuilder::zeros(candle_core::DType::F32, &candle_core::Device::Cpu);
    let err = registro_engine::embedding_gemma::Gemma3Encoder::new(&cfg, vb).err().expect("refused");
    assert!(format!("{err:#}").contains("use_bidirectional_attention"), "{err:#}");
}
