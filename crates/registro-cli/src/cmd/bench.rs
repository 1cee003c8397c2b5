//! `registro bench …`: each benchmark's arguments and body live with the subcommand it measures.
use super::Ctx;

#[derive(clap::Subcommand)]
pub enum Command {
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

pub fn run(ctx: &Ctx, command: Command) -> anyhow::Result<()> {
    match command {
        Command::Engine(a) => super::generate::bench(ctx, a),
        Command::Eval(a) => super::eval::bench(ctx, a),
        Command::Rules(a) => super::rewrite::bench(ctx, a),
        Command::Translate(a) => super::translate::bench(ctx, a),
        Command::Dashboard(a) => super::report::bench(ctx, a),
        Command::Backend(a) => super::backend::bench(ctx, a),
    }
}
