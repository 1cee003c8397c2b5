//! Registro's inference engine, on candle.
//!
//! # Decoder LLMs (GGUF: qwen2, qwen3, llama, gemma3)
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use registro_engine::{Model, LoadOptions, GenerateOptions, Sampling, SequenceBias, NoProcessor};
//! # fn main() -> anyhow::Result<()> {
//! let model = Model::load("qwen.gguf".as_ref(), &LoadOptions::default())?; // device: Auto → CPU here
//! let cancel = AtomicBool::new(false);
//! // Shared system prompt + few-shot block: computed once, reused by every segment.
//! let prefix = model.prefix(&model.encode("<|im_start|>system\nTranslate formally.<|im_end|>\n")?)?;
//! let prompts: Vec<Vec<u32>> = ["Hi!", "Thanks."].iter().map(|s| model.encode(s)).collect::<Result<_, _>>()?;
//! let opts = GenerateOptions { max_tokens: 64, stop_strings: vec!["\n\n".into()], ..Default::default() };
//! let mut ban = SequenceBias::new();
//! ban.ban(&model.encode(" du")?); // ban (or boost with a finite bias) token sequences
//! let outs = model.generate_batch(Some(&prefix), &prompts, &opts, &mut ban, &mut |ev| print!("{}", ev.text), &cancel)?;
//! // single prompt: model.generate(prefix, prompt, opts, processor, on_token, cancel)
//! let best = model.nbest(Some(&prefix), &prompts[0], &opts, 4, 4, &mut NoProcessor, &cancel)?; // beam 4, 4-best
//! let ppl = model.perplexity("Sehr geehrte Damen und Herren")?;
//! let lp = model.score_text("Translate: Hi →", " Hallo")?.total(); // log p(text | context)
//! # let _ = (outs, best, ppl, lp, Sampling::Greedy); Ok(()) }
//! ```
//! * [`Model`] is `Clone + Send + Sync` (weights behind an `Arc`); all per-sequence state lives in [`Prefix`] /
//!   the KV cache, so one loaded model serves many threads.
//! * Sampling: [`Sampling::Greedy`] or `Sample { temperature, top_p, top_k, seed }` (reproducible per seed).
//! * [`LogitsProcessor`] is the hook to ban/boost; [`SequenceBias`] handles multi-token sequences.
//! * Streaming: the `on_token` callback gets each token and the newly complete text; `cancel` stops between
//!   tokens with `FinishReason::Cancelled` and the partial output.
//! * Text: `LoadOptions::tokenizer` / `tokenizer.json` beside the `.gguf`, else the vocabulary in the GGUF
//!   metadata (`tokenizer::from_gguf`), or any [`TextCodec`] via [`Model::with_codec`]. Chat prompts:
//!   [`Model::encode_chat`] renders the file's template (`model.info.chat`).
//! * Q8_0 rows whose width is not a multiple of 256 are zero-padded at load so candle's tiled VNNI kernels
//!   apply (exact; `REGISTRO_NO_PAD=1` disables).
//! * Devices: [`DeviceChoice`] (`auto|cpu|cuda[:N]|metal[:N]`); cargo features `cuda`, `metal`, `mkl`,
//!   `accelerate` forward to candle. On the CPU, Q5_0 tensors are converted to Q8_0 at load (exact).
//!
//! # Encoders
//! * [`bert::SentenceEncoder`]: BERT-family sentence embeddings from safetensors (all-MiniLM-L6-v2, mean
//!   pooling + L2 normalisation as its sentence-transformers config says).
//! * [`embedding_gemma::MultilingualEncoder`]: EmbeddingGemma-300M, multilingual sentence embeddings (a Gemma 3
//!   text model with bidirectional attention, mean pooling, two Dense layers, L2 normalisation; task prompts).
//! * [`bert::SequenceClassifier`]: XLM-RoBERTa sequence classification (formality classifiers).
//! * [`marian::Translator`]: Marian seq2seq (opus-mt) from safetensors + tokenizer files.
mod alloc;
pub mod bench;
pub mod bert;
pub mod chat;
pub mod decoder;
pub mod device;
pub mod embedding_gemma;
pub mod gguf;
pub mod gguf_meta;
pub mod linear;
pub mod llm;
pub mod logits;
mod qmatmul;
pub mod pool;
pub mod sense;
pub mod marian;
pub mod text;
pub mod tokenizer;

pub use decoder::Arch;
pub use device::DeviceChoice;
pub use llm::{
    BatchStats, FinishReason, GenerateOptions, Generation, Hypothesis, LoadOptions, Model, ModelInfo, OnToken, Prefix, PrefixOrigin, PrefixStore,
    TokenEvent, TokenScores,
};
pub use logits::{Chain, LogitsProcessor, NoProcessor, Sampling, SequenceBias};
pub use text::{HfTokenizer, TextCodec};
