//! `registro`: the headless face of Registro. Each subcommand lives in its own module under `cmd/` and only
//! parses arguments, calls `registro-core` (or a focused crate) and prints; no logic of its own.
#![forbid(unsafe_code)]

mod cmd;
mod term;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "registro", version, about = "Register-aware rewriting, translation and evaluation")]
struct Cli {
    /// SQLite store to use (default: the platform data dir, e.g. ~/.local/share/registro/registro.db)
    #[arg(long, global = true, env = "REGISTRO_DB")]
    db: Option<PathBuf>,
    /// Print machine-readable JSON instead of tables
    #[arg(long, global = true)]
    json: bool,
    /// Where models run: auto (the first GPU this build supports, else the CPU), cpu, cuda[:N] or metal. A GPU that
    /// cannot be used is reported and the CPU taken instead
    #[arg(long, global = true, env = "REGISTRO_DEVICE", default_value = "auto")]
    device: registro_engine::DeviceChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create and list projects
    #[command(subcommand)]
    Project(cmd::project::Command),
    /// Import a document (text, TSV/CSV, JSONL, or a paired CoCoA-MT / XFORMAL folder)
    Import(cmd::import::Args),
    /// List, show and export stored runs
    #[command(subcommand)]
    Runs(cmd::runs::Command),
    /// Score hypotheses against references (BLEU, chrF, TER, M-Acc, style metrics, significance)
    Eval(cmd::eval::Args),
    /// Manage model files: list, fetch, verify, import, rm
    #[command(subcommand)]
    Models(cmd::models::Command),
    /// Generate text with a local model
    Generate(cmd::generate::Args),
    /// Translate English into a target language in a requested register
    Translate(cmd::translate::Args),
    /// Rewrite informal text formally
    Rewrite(cmd::rewrite::Args),
    /// Check a translation run: register consistency (with --fix), numbers, tags, untranslated, length, terms
    Qa(cmd::qa::Args),
    /// Review a translate run: show, edit, repair, approve (an open flag needs --override), export (QA errors need
    /// --anyway)
    #[command(subcommand)]
    Review(cmd::review::Command),
    /// Write comparison tables and charts for stored runs
    Report(cmd::report::Args),
    /// Benchmarks that print numbers
    #[command(subcommand)]
    Bench(cmd::bench::Command),
    /// Remote backends: the API key in the OS keyring
    #[command(subcommand)]
    Backend(cmd::backend::Command),
    /// Version, CPU/GPU, devices, models, store, network and data: what a bug report needs
    Doctor(cmd::doctor::Args),
}

fn main() -> ExitCode {
    registro_core::pool::prepare_process();
    let cli = Cli::parse();
    if cli.device != registro_engine::DeviceChoice::Auto {
        let chosen = registro_core::device::choose(cli.device);
        if let Some(why) = &chosen.fallback {
            eprintln!("warning: --device {}: {why}", chosen.requested);
        }
    }
    let ctx = cmd::Ctx { db: cli.db, json: cli.json };
    let result = match cli.command {
        Command::Project(a) => cmd::project::run(&ctx, a),
        Command::Import(a) => cmd::import::run(&ctx, a),
        Command::Runs(a) => cmd::runs::run(&ctx, a),
        Command::Eval(a) => cmd::eval::run(&ctx, a),
        Command::Models(a) => cmd::models::run(&ctx, a),
        Command::Generate(a) => cmd::generate::run(&ctx, a),
        Command::Translate(a) => cmd::translate::run(&ctx, a),
        Command::Rewrite(a) => cmd::rewrite::run(&ctx, a),
        Command::Qa(a) => cmd::qa::run(&ctx, a),
        Command::Review(a) => cmd::review::run(&ctx, a),
        Command::Report(a) => cmd::report::run(&ctx, a),
        Command::Bench(a) => cmd::bench::run(&ctx, a),
        Command::Backend(a) => cmd::backend::run(&ctx, a),
        Command::Doctor(a) => cmd::doctor::run(&ctx, a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
