//! `registro generate` (text from a local GGUF model) and `registro bench engine` (candle vs llama.cpp).
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use registro_engine::{DeviceChoice, GenerateOptions, NoProcessor, Sampling};

use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// Model id from `registro models list`, or a path to a .gguf file
    #[arg(long)]
    model: String,
    #[arg(long)]
    prompt: String,
    /// Wrap the prompt as a user turn in the model's chat template
    #[arg(long)]
    chat: bool,
    #[arg(long, default_value_t = 128)]
    max_tokens: usize,
    /// Beam search with N beams (prints the N-best list)
    #[arg(long)]
    beam: Option<usize>,
    /// Sampling temperature (0 = greedy)
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    #[arg(long, default_value_t = 1.0)]
    top_p: f32,
    #[arg(long, default_value_t = 0)]
    top_k: usize,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Stop when this string appears (repeatable)
    #[arg(long)]
    stop: Vec<String>,
    /// tokenizer.json to use instead of the one beside the model / in the GGUF
    #[arg(long)]
    tokenizer: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    let json = ctx.json;
    let t0 = Instant::now();
    // Load time includes the kernels' one-time weight repacking, so the prompt rate below is the steady one.
    let model = registro_core::models::load_llm(&a.model, DeviceChoice::Auto, a.tokenizer.clone())?;
    let load_secs = t0.elapsed().as_secs_f64();
    let prompt = if a.chat {
        model.encode_chat(&[registro_engine::chat::ChatMessage::user(&a.prompt)])?
    } else {
        let mut p = model.bos_prefix();
        p.extend(model.encode(&a.prompt)?);
        p
    };
    let sampling = if a.temperature > 0.0 {
        Sampling::Sample { temperature: a.temperature, top_p: a.top_p, top_k: a.top_k, seed: a.seed }
    } else {
        Sampling::Greedy
    };
    let opts = GenerateOptions { max_tokens: a.max_tokens, sampling, stop_strings: a.stop.clone(), ..Default::default() };
    // Ctrl-C stops generation at the next token and prints what was generated so far.
    let cancel_token = crate::term::cancel_on_ctrl_c();
    let cancel = cancel_token.flag();
    if let Some(beam) = a.beam {
        let t = Instant::now();
        let hyps = model.nbest(None, &prompt, &opts, beam, beam, &mut NoProcessor, cancel)?;
        let secs = t.elapsed().as_secs_f64();
        if json {
            println!("{}", serde_json::json!({"model": model.info.path, "beam": beam, "hypotheses": hyps, "secs": secs}));
        } else {
            for (i, h) in hyps.iter().enumerate() {
                println!("#{} score {:.4} logprob {:.3} ({} tokens)\n{}\n", i + 1, h.score, h.logprob, h.tokens.len(), h.text);
            }
            eprintln!("beam {beam}: {:.2}s, load {:.2}s, device {}", secs, load_secs, model.info.device);
        }
        return Ok(());
    }
    let mut out = std::io::stdout();
    let mut on_token = |e: &registro_engine::TokenEvent| {
        if !json {
            let _ = out.write_all(e.text.as_bytes());
            let _ = out.flush();
        }
    };
    let g = model.generate(None, &prompt, &opts, &mut NoProcessor, &mut on_token, cancel)?;
    let prefill_tps = g.prompt_tokens as f64 / g.prefill_secs.max(1e-9);
    // The first generated token comes from the prefill logits; decode time covers the rest.
    let decode_tps = g.tokens.len().saturating_sub(1) as f64 / g.decode_secs.max(1e-9);
    if json {
        println!(
            "{}",
            serde_json::json!({
                "model": model.info.path, "device": model.info.device, "text": g.text, "tokens": g.tokens,
                "finish": g.finish, "prompt_tokens": g.prompt_tokens, "generated_tokens": g.tokens.len(),
                "prefill_tok_s": prefill_tps, "decode_tok_s": decode_tps, "load_secs": load_secs, "logprob": g.logprob,
            })
        );
    } else {
        println!();
        eprintln!(
            "prompt {} tok at {:.1} tok/s, {} generated at {:.1} tok/s ({:?}), load {:.2}s, device {}",
            g.prompt_tokens, prefill_tps, g.tokens.len(), decode_tps, g.finish, load_secs, model.info.device
        );
    }
    Ok(())
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Model id or .gguf path
    #[arg(long)]
    model: String,
    /// Segments in the document-throughput run
    #[arg(long, default_value_t = 50)]
    segments: usize,
    /// Tokens generated per segment in the document run
    #[arg(long, default_value_t = 16)]
    segment_tokens: usize,
    /// Rows decoded together in the document run
    #[arg(long, default_value_t = 50)]
    batch: usize,
    /// Tokens decoded in the decode measurement
    #[arg(long, default_value_t = 64)]
    decode_tokens: usize,
    /// Skip the llama.cpp comparison
    #[arg(long)]
    no_llama_cpp: bool,
}

pub fn bench(ctx: &Ctx, a: BenchArgs) -> Result<()> {
    let model = registro_core::models::resolve_llm(&a.model)?;
    let (path, tokenizer) = (model.main, model.tokenizer_json);
    let cfg = registro_engine::bench::BenchConfig {
        segments: a.segments,
        segment_tokens: a.segment_tokens,
        batch: a.batch,
        decode_tokens: a.decode_tokens,
        llama_cpp: !a.no_llama_cpp,
        device: DeviceChoice::Auto,
        tokenizer,
    };
    let report = registro_engine::bench::run(&path, &cfg)?;
    if ctx.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        report.print();
    }
    Ok(())
}
