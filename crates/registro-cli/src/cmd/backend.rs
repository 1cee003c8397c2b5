//! `--backend URL` (every command that runs a model), `registro backend key set|clear` (the API key in the OS
//! keyring) and `registro bench backend`: the control layer on an OpenAI-compatible server instead of the local
//! engine.
use std::io::IsTerminal;
use std::time::Duration;

use registro_core::translate::remote::{self, key_store, BackendConfig as Config};

use super::Ctx;

#[derive(clap::Args, Clone, Debug)]
pub struct BackendArgs {
    /// An OpenAI-compatible server's API base (vLLM, SGLang, llama.cpp server), e.g. http://127.0.0.1:8000/v1.
    /// The API key, if the server needs one, comes from REGISTRO_API_KEY, else from the OS keyring (`registro
    /// backend key set`)
    #[arg(long, env = "REGISTRO_BACKEND")]
    pub backend: Option<String>,
    /// The served model to use [default: the first one the server lists]
    #[arg(long, env = "REGISTRO_BACKEND_MODEL")]
    pub backend_model: Option<String>,
    /// Requests outstanding at once, across the document's segments
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub max_in_flight: u16,
    /// Seconds one backend request may take before it is retried
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub backend_timeout: u32,
}

impl BackendArgs {
    /// The backend's settings (its key from REGISTRO_API_KEY or the keyring), or `None` for the local engine.
    pub fn config(&self) -> Option<Config> {
        let url = self.backend.as_deref().filter(|u| !u.trim().is_empty())?;
        let mut cfg = Config::new(url);
        cfg.model = self.backend_model.clone().filter(|m| !m.trim().is_empty());
        cfg.max_in_flight = self.max_in_flight as usize;
        cfg.timeout = Duration::from_secs(self.backend_timeout as u64);
        Some(cfg)
    }
}

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    backend: BackendArgs,
    /// Bounds on requests in flight to measure (across the segments of the document)
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8")]
    in_flight: Vec<usize>,
    /// Segments of the document translated at each bound
    #[arg(long, default_value_t = 16)]
    segments: usize,
    /// Candidates per segment (a request each where the server ignores `n`)
    #[arg(long, default_value_t = 1)]
    candidates: usize,
    /// Tokens per candidate at most
    #[arg(long, default_value_t = 32)]
    max_tokens: usize,
}

pub fn bench(ctx: &Ctx, a: BenchArgs) -> anyhow::Result<()> {
    let cfg = a
        .backend
        .config()
        .ok_or_else(|| anyhow::anyhow!("pass --backend URL (or set REGISTRO_BACKEND)"))?;
    anyhow::ensure!(
        (1..=10_000).contains(&a.segments),
        "--segments must be between 1 and 10000"
    );
    anyhow::ensure!(
        (1..=16).contains(&a.candidates),
        "--candidates must be between 1 and 16"
    );
    anyhow::ensure!(
        a.in_flight.iter().all(|&k| (1..=256).contains(&k)),
        "--in-flight levels must be between 1 and 256"
    );
    let cancel = crate::term::cancel_on_ctrl_c();
    let (caps, points) = remote::throughput(
        cfg,
        &a.in_flight,
        a.segments,
        a.candidates,
        a.max_tokens,
        cancel.flag(),
    )?;
    if ctx.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "capabilities": caps, "points": points })
            )?
        );
        return Ok(());
    }
    println!("backend {} model {}", caps.url, caps.model);
    println!(
        "{:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "in flight", "segments", "requests", "seconds", "tok/s", "seg/s"
    );
    for p in &points {
        println!(
            "{:>9} {:>9} {:>9} {:>9.2} {:>9.1} {:>9.2}",
            p.in_flight,
            p.segments,
            p.requests,
            p.seconds,
            p.tokens_per_second,
            p.segments_per_second
        );
    }
    Ok(())
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// The backend's API key in the OS keyring (used when REGISTRO_API_KEY is not set)
    Key {
        #[command(subcommand)]
        action: KeyAction,
    },
}

#[derive(clap::Subcommand)]
pub enum KeyAction {
    /// Store the key for a backend: typed at a hidden prompt, or one line on stdin
    Set {
        /// The backend's API base, e.g. https://llm.example.com/v1
        #[arg(long)]
        url: String,
    },
    /// Remove the stored key of a backend
    Clear {
        #[arg(long)]
        url: String,
    },
}

pub fn run(ctx: &Ctx, command: Command) -> anyhow::Result<()> {
    let Command::Key { action } = command;
    let (url, done) = match action {
        KeyAction::Set { url } => {
            let text = if std::io::stdin().is_terminal() {
                rpassword::prompt_password(format!("API key for {url}: "))?
            } else {
                let mut line = String::new();
                std::io::stdin().read_line(&mut line)?;
                line
            };
            key_store::store_key(&url, &text)?;
            (url, "stored")
        }
        KeyAction::Clear { url } => {
            let removed = key_store::clear_key(&url)?;
            (url, if removed { "removed" } else { "none stored" })
        }
    };
    if ctx.json {
        println!("{}", serde_json::json!({ "url": url, "key": done }));
    } else {
        println!("API key for {url}: {done} (OS keyring)");
    }
    Ok(())
}
