//! `registro bench …`: each benchmark's arguments and body live with the subcommand it measures.
use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    which: Which,
}

#[derive(clap::Subcommand)]
enum Which {
    /// Candle engine vs llama.cpp: prefill, decode, document throughput
    Engine(super::generate::BenchArgs),
    /// `registro eval` vs the sacrebleu CLI
    Eval(super::eval::BenchArgs),
    /// Rule-based formalizer throughput
    Rules(super::rewrite::BenchArgs),
    /// Register-controlled translation: M-Acc/BLEU per control step
    Translate(super::translate::BenchArgs),
    /// Dashboard load time for many runs
    Dashboard(super::report::BenchArgs),
    /// An OpenAI-compatible backend: throughput per number of requests in flight
    Backend(super::backend::BenchArgs),
}

pub fn run(ctx: &Ctx, args: Args) -> anyhow::Result<()> {
    match args.which {
        Which::Engine(a) => super::generate::bench(ctx, a),
        Which::Eval(a) => super::eval::bench(ctx, a),
        Which::Rules(a) => super::rewrite::bench(ctx, a),
        Which::Translate(a) => super::translate::bench(ctx, a),
        Which::Dashboard(a) => super::report::bench(ctx, a),
        Which::Backend(a) => super::backend::bench(ctx, a),
    }
}
