//! `cargo run -p registro-engine --example bench_engine -- MODEL.gguf [TOKENIZER.json] [--no-llama-cpp]`: the
//! same measurement as `registro bench engine`, without building the whole app.
use registro_engine::bench::{run, BenchConfig};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let model = args.first().ok_or_else(|| anyhow::anyhow!("usage: bench_engine MODEL.gguf [TOKENIZER.json] [--no-llama-cpp]"))?;
    let tokenizer = args.iter().skip(1).find(|a| a.ends_with(".json")).map(Into::into);
    let cfg = BenchConfig {
        segments: 50,
        segment_tokens: 16,
        batch: 50,
        decode_tokens: 64,
        llama_cpp: !args.iter().any(|a| a == "--no-llama-cpp"),
        device: registro_engine::DeviceChoice::Auto,
        tokenizer,
    };
    run(model.as_ref(), &cfg)?.print();
    Ok(())
}
