//! Tokenizers: a Hugging Face `tokenizer.json`, or one rebuilt from the vocabulary a GGUF file carries in its
//! metadata, so that a single `.gguf` file is enough to run a model. Two GGUF styles are covered: gpt2-style
//! byte-level BPE (Qwen, Llama 3: tokens + merges + a pre-tokenizer regex) and SentencePiece/llama style (Gemma,
//! Llama 2: tokens + scores + types, byte fallback), rebuilt the way Hugging Face's converters build them so the
//! two agree token for token.
use std::path::Path;
use std::time::Instant;

use ahash::AHashMap;
use anyhow::{anyhow, bail, Context, Result};
use candle_core::quantized::gguf_file;
use serde_json::json;
use tokenizers::models::bpe::BPE;
use tokenizers::{
    AddedToken, DecoderWrapper, NormalizerWrapper, PostProcessorWrapper, PreTokenizerWrapper, Tokenizer,
};

use crate::gguf_meta::{meta_bool, meta_f32_array, meta_int_array, meta_string, meta_string_array, meta_u64, GgufMeta};

/// GGUF `tokenizer.ggml.token_type` values (llama.cpp's `llama_token_type`).
const TYPE_UNKNOWN: i64 = 2;
const TYPE_CONTROL: i64 = 3;
const TYPE_USER_DEFINED: i64 = 4;

/// Token strings that end a chat turn in the families Registro knows; generation stops on any present.
const END_OF_TURN_TOKENS: &[&str] = &["<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>", "<|end_of_text|>", "</s>", "<eos>"];

/// A tokenizer plus the special ids generation needs.
pub struct LoadedTokenizer {
    pub tokenizer: Tokenizer,
    pub bos_id: Option<u32>,
    pub eos_id: Option<u32>,
    /// Ids that end generation: the eos id and every end-of-turn marker present in the vocabulary.
    pub stop_ids: Vec<u32>,
    /// Whether the post-processor prepends the bos token when `encode(…, add_special_tokens = true)`.
    pub add_bos: bool,
    /// Where it came from, for messages ("GGUF metadata of x.gguf", "tokenizer.json at …").
    pub origin: String,
}

impl LoadedTokenizer {
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.tokenizer.token_to_id(token)
    }

    /// Token ids of `text`; special tokens written in the text (e.g. `<|im_start|>`) are recognised.
    pub fn encode(&self, text: &str, add_special_tokens: bool) -> Result<Vec<u32>> {
        let enc = self.tokenizer.encode(text, add_special_tokens).map_err(|e| anyhow!("tokenizing failed: {e}"))?;
        Ok(enc.get_ids().to_vec())
    }

    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> Result<String> {
        self.tokenizer.decode(ids, skip_special_tokens).map_err(|e| anyhow!("detokenizing failed: {e}"))
    }
}

/// Loads a Hugging Face `tokenizer.json`.
pub fn from_json_file(path: &Path) -> Result<LoadedTokenizer> {
    let tokenizer = Tokenizer::from_file(path).map_err(|e| anyhow!("{}: not a usable tokenizer.json: {e}", path.display()))?;
    let find = |names: &[&str]| names.iter().find_map(|n| tokenizer.token_to_id(n));
    let bos_id = find(&["<bos>", "<|begin_of_text|>", "<s>"]);
    let eos_id = find(&["<eos>", "<|end_of_text|>", "</s>", "<|endoftext|>"]);
    let stop_ids = stop_ids(&tokenizer, eos_id);
    // A tokenizer.json states bos insertion only through its post-processor; probe it instead of parsing it.
    let add_bos = match bos_id {
        Some(b) => tokenizer.encode("a", true).map(|e| e.get_ids().first() == Some(&b)).unwrap_or(false),
        None => false,
    };
    Ok(LoadedTokenizer { tokenizer, bos_id, eos_id, stop_ids, add_bos, origin: format!("tokenizer.json at {}", path.display()) })
}

/// Builds the tokenizer stored in a GGUF file's metadata.
pub fn from_gguf_file(path: &Path) -> Result<LoadedTokenizer> {
    let meta = GgufMeta::read(path)?;
    from_gguf(&meta.content, &path.display().to_string())
}

/// Builds the tokenizer from already-parsed GGUF metadata; `label` names the file in errors.
pub fn from_gguf(content: &gguf_file::Content, label: &str) -> Result<LoadedTokenizer> {
    let model = meta_string(content, "tokenizer.ggml.model")
        .ok_or_else(|| anyhow!("{label}: GGUF metadata has no tokenizer (tokenizer.ggml.model is missing); use a tokenizer.json beside it"))?;
    let mut tokens = meta_string_array(content, "tokenizer.ggml.tokens")
        .ok_or_else(|| anyhow!("{label}: GGUF metadata has no vocabulary (tokenizer.ggml.tokens is missing or not a string array)"))?;
    if tokens.is_empty() {
        bail!("{label}: GGUF vocabulary (tokenizer.ggml.tokens) is empty");
    }
    let types = meta_int_array(content, "tokenizer.ggml.token_type").unwrap_or_else(|| vec![1; tokens.len()]);
    if types.len() != tokens.len() {
        bail!("{label}: tokenizer.ggml.token_type has {} entries for {} tokens", types.len(), tokens.len());
    }
    let id = |key: &str| meta_u64(content, key).map(|v| v as u32).filter(|&v| (v as usize) < tokens.len());
    let bos_id = id("tokenizer.ggml.bos_token_id");
    let eos_id = id("tokenizer.ggml.eos_token_id");
    let unk_id = id("tokenizer.ggml.unknown_token_id");

    let mut tokenizer = match model.as_str() {
        "gpt2" => {
            let merges = meta_string_array(content, "tokenizer.ggml.merges")
                .ok_or_else(|| anyhow!("{label}: gpt2-style GGUF tokenizer without tokenizer.ggml.merges"))?;
            let pre = meta_string(content, "tokenizer.ggml.pre").unwrap_or_else(|| "default".into());
            build_byte_level_bpe(&tokens, &merges, &pre).with_context(|| format!("{label}: building the BPE tokenizer"))?
        }
        "llama" => {
            let scores = meta_f32_array(content, "tokenizer.ggml.scores")
                .ok_or_else(|| anyhow!("{label}: SentencePiece-style GGUF tokenizer without tokenizer.ggml.scores"))?;
            if scores.len() != tokens.len() {
                bail!("{label}: tokenizer.ggml.scores has {} entries for {} tokens", scores.len(), tokens.len());
            }
            let add_space_prefix = meta_bool(content, "tokenizer.ggml.add_space_prefix").unwrap_or(true);
            // llama.cpp's converter writes whitespace-run pieces with spaces; SentencePiece (and Hugging Face)
            // spell them with U+2581, which is what the normaliser produces.
            tokens = tokens.iter().map(|t| t.replace(' ', "\u{2581}")).collect();
            // It also scores control and user-defined pieces -1000 where SentencePiece has 0; the merge ranking
            // needs SentencePiece's scores.
            let scores: Vec<f32> = scores
                .iter()
                .zip(&types)
                .map(|(&s, &t)| if t == TYPE_CONTROL || t == TYPE_USER_DEFINED { 0.0 } else { s })
                .collect();
            let unk = unk_id.map(|i| tokens[i as usize].clone());
            build_sentencepiece_bpe(&tokens, &scores, unk, add_space_prefix)
                .with_context(|| format!("{label}: building the SentencePiece tokenizer"))?
        }
        other => bail!("{label}: unsupported GGUF tokenizer model {other:?} (supported: gpt2, llama)"),
    };

    // Control and user-defined tokens are matched whole in the input before the model sees it, as Hugging Face
    // does with its added tokens; ids stay those of the vocabulary.
    let mut special = Vec::new();
    let mut user = Vec::new();
    for (tok, ty) in tokens.iter().zip(&types) {
        match *ty {
            // Matched in the raw text (normalized = false), as in Hugging Face's converted tokenizers.
            TYPE_CONTROL | TYPE_UNKNOWN => special.push(AddedToken::from(tok.clone(), true).normalized(false)),
            TYPE_USER_DEFINED => user.push(AddedToken::from(tok.clone(), false).normalized(false)),
            _ => {}
        }
    }
    tokenizer.add_special_tokens(&special);
    tokenizer.add_tokens(&user);

    let add_bos = meta_bool(content, "tokenizer.ggml.add_bos_token").unwrap_or(model == "llama") && bos_id.is_some();
    if add_bos {
        let bos = &tokens[bos_id.unwrap() as usize];
        let template: PostProcessorWrapper = serde_json::from_value(json!({
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {bos: {"id": bos, "ids": [bos_id.unwrap()], "tokens": [bos]}}
        }))?;
        tokenizer.with_post_processor(Some(template));
    }
    let stop_ids = stop_ids(&tokenizer, eos_id);
    Ok(LoadedTokenizer { tokenizer, bos_id, eos_id, stop_ids, add_bos, origin: format!("GGUF metadata of {label}") })
}

fn stop_ids(tokenizer: &Tokenizer, eos_id: Option<u32>) -> Vec<u32> {
    let mut ids: Vec<u32> = eos_id.into_iter().collect();
    for t in END_OF_TURN_TOKENS {
        if let Some(i) = tokenizer.token_to_id(t) {
            if !ids.contains(&i) {
                ids.push(i);
            }
        }
    }
    ids
}

/// The split regex Hugging Face's tokenizer.json uses for a llama.cpp `tokenizer.ggml.pre` name.
fn pre_tokenizer_regex(pre: &str) -> Option<&'static str> {
    const QWEN2: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
    const LLAMA3: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
    match pre {
        "qwen2" | "deepseek-r1-qwen" => Some(QWEN2),
        "llama3" | "llama-bpe" | "smaug-bpe" => Some(LLAMA3),
        _ => None,
    }
}

fn build_byte_level_bpe(tokens: &[String], merges: &[String], pre: &str) -> Result<Tokenizer> {
    let vocab: AHashMap<String, u32> = tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
    let merges = merges
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| anyhow!("merge #{i} {m:?} is not two tokens separated by a space"))
        })
        .collect::<Result<Vec<_>>>()?;
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| anyhow!("invalid BPE vocabulary/merges: {e}"))?;
    let mut tokenizer = Tokenizer::new(bpe);
    let pre_tokenizer = match pre_tokenizer_regex(pre) {
        Some(re) => json!({"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": re}, "behavior": "Isolated", "invert": false},
            {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}),
        // GPT-2's own regex, built into the ByteLevel pre-tokenizer.
        None => json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}),
    };
    let pre_tokenizer: PreTokenizerWrapper = serde_json::from_value(pre_tokenizer)?;
    tokenizer.with_pre_tokenizer(Some(pre_tokenizer));
    if pre.starts_with("qwen2") || pre == "deepseek-r1-qwen" {
        // Qwen's tokenizer.json normalises to NFC; llama.cpp's pre name is the only hint the GGUF gives.
        let nfc: NormalizerWrapper = serde_json::from_value(json!({"type": "NFC"}))?;
        tokenizer.with_normalizer(Some(nfc));
    }
    let decoder: DecoderWrapper =
        serde_json::from_value(json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}))?;
    tokenizer.with_decoder(Some(decoder));
    let post: PostProcessorWrapper =
        serde_json::from_value(json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}))?;
    tokenizer.with_post_processor(Some(post));
    Ok(tokenizer)
}

/// SentencePiece BPE as Hugging Face converts it: a BPE model whose merges are every split of a vocabulary piece
/// into two pieces, ranked by the score of the merged piece (then longer left, longer right), with byte fallback.
fn build_sentencepiece_bpe(tokens: &[String], scores: &[f32], unk: Option<String>, add_space_prefix: bool) -> Result<Tokenizer> {
    let vocab: AHashMap<String, u32> = tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
    let merges = sentencepiece_merges(tokens, scores, &vocab);
    let mut builder = BPE::builder().vocab_and_merges(vocab, merges).byte_fallback(true).fuse_unk(true);
    if let Some(unk) = unk {
        builder = builder.unk_token(unk);
    }
    let bpe = builder.build().map_err(|e| anyhow!("invalid SentencePiece vocabulary: {e}"))?;
    let mut tokenizer = Tokenizer::new(bpe);
    let normalizer = if add_space_prefix {
        json!({"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u{2581}"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"}]})
    } else {
        json!({"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"})
    };
    let normalizer: NormalizerWrapper = serde_json::from_value(normalizer)?;
    tokenizer.with_normalizer(Some(normalizer));
    // Gemma's tokenizer.json splits on literal spaces, which the normaliser has already replaced: the whole
    // text is one word. Keeping the same (no-op) split keeps offsets identical to the JSON tokenizer.
    let pre: PreTokenizerWrapper = serde_json::from_value(
        json!({"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": false}),
    )?;
    tokenizer.with_pre_tokenizer(Some(pre));
    let mut decoders = vec![
        json!({"type": "Replace", "pattern": {"String": "\u{2581}"}, "content": " "}),
        json!({"type": "ByteFallback"}),
        json!({"type": "Fuse"}),
    ];
    if add_space_prefix {
        decoders.push(json!({"type": "Strip", "content": " ", "start": 1, "stop": 0}));
    }
    let decoder: DecoderWrapper = serde_json::from_value(json!({"type": "Sequence", "decoders": decoders}))?;
    tokenizer.with_decoder(Some(decoder));
    Ok(tokenizer)
}

/// Hugging Face's `generate_merges` (SentencePieceExtractor): for each piece in vocabulary order, its splits into
/// two pieces sorted by the ids of the halves; then all merges stably sorted by (score, len(left), len(right))
/// descending.
pub(crate) fn sentencepiece_merges(tokens: &[String], scores: &[f32], vocab: &AHashMap<String, u32>) -> Vec<(String, String)> {
    struct M {
        l: u32,
        r: u32,
        score: f32,
        ll: usize,
        lr: usize,
    }
    let mut merges: Vec<M> = Vec::new();
    let mut local: Vec<M> = Vec::new();
    for (piece, &score) in tokens.iter().zip(scores) {
        local.clear();
        let n_chars = piece.chars().count();
        for (k, (byte_idx, _)) in piece.char_indices().enumerate().skip(1) {
            let (l, r) = piece.split_at(byte_idx);
            if let (Some(&li), Some(&ri)) = (vocab.get(l), vocab.get(r)) {
                local.push(M { l: li, r: ri, score, ll: k, lr: n_chars - k });
            }
        }
        local.sort_by_key(|m| (m.l, m.r));
        merges.append(&mut local);
    }
    merges.sort_by(|a, b| {
        b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal).then(b.ll.cmp(&a.ll)).then(b.lr.cmp(&a.lr))
    });
    merges.into_iter().map(|m| (tokens[m.l as usize].clone(), tokens[m.r as usize].clone())).collect()
}

/// Times building the tokenizer of a GGUF file (metadata parse + build), for `registro bench` style reports.
pub fn time_from_gguf(path: &Path) -> Result<(LoadedTokenizer, f64, f64)> {
    let t0 = Instant::now();
    let meta = GgufMeta::read(path)?;
    let parse = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let tok = from_gguf(&meta.content, &path.display().to_string())?;
    Ok((tok, parse, t1.elapsed().as_secs_f64()))
}
