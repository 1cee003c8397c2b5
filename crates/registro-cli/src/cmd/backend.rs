//! `--backend URL` (every command that runs a model) and `registro bench backend`: the control layer on an
//! OpenAI-compatible server instead of the local engine.
use std::time::Duration;

use registro_core::translate::remote::{self, ApiKey, BackendConfig as Config};

use super::Ctx;

#[derive(clap::Args, Clone, Debug)]
pub struct BackendArgs {
    /// An OpenAI-compatible server's API base (vLLM, SGLang, llama.cpp server), e.g. http://127.0.0.1:8000/v1.
    /// The API key, if the server needs one, comes from REGISTRO_API_KEY
    #[arg(long, env = "REGISTRO_BACKEND")]
    pub backend: Option<String>,
    /// The served model to use [default: the first one the server lists]
    #[arg(long, env = "REGISTRO_BACKEND_MODEL")]
    pub backend_model: Option<String>,
    /// Requests sent to the backend at once
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub max_in_flight: u16,
    /// Seconds one backend request may take before it is retried
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub backend_timeout: u32,
}

impl BackendArgs {
    /// The backend's settings, or `None` for the local engine.
    pub fn config(&self) -> Option<Config> {
        let url = self.backend.as_deref().filter(|u| !u.trim().is_empty())?;
        let mut cfg = Config::new(url);
        cfg.model = self.backend_model.clone().filter(|m| !m.trim().is_empty());
        cfg.api_key = ApiKey::from_env();
        cfg.max_in_flight = self.max_in_flight as usize;
        cfg.timeout = Duration::from_secs(self.backend_timeout as u64);
        Some(cfg)
    }
}

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(flatten)]
    backend: BackendArgs,
    /// Levels of requests in flight to measure
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8")]
    in_flight: Vec<usize>,
    /// Requests per level
    #[arg(long, default_value_t = 16)]
    requests: usize,
    /// Tokens per request at most
    #[arg(long, default_value_t = 32)]
    max_tokens: usize,
}

pub fn bench(ctx: &Ctx, a: BenchArgs) -> anyhow::Result<()> {
    let cfg = a
        .backend
        .config()
        .ok_or_else(|| anyhow::anyhow!("pass --backend URL (or set REGISTRO_BACKEND)"))?;
    anyhow::ensure!(
        a.requests >= 1 && a.requests <= 10_000,
        "--requests must be between 1 and 10000"
    );
    anyhow::ensure!(
        a.in_flight.iter().all(|&k| (1..=256).contains(&k)),
        "--in-flight levels must be between 1 and 256"
    );
    let cancel = crate::term::cancel_on_ctrl_c();
    let (caps, points) =
        remote::throughput(cfg, &a.in_flight, a.requests, a.max_tokens, cancel.flag())?;
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
        "{:>9} {:>9} {:>9} {:>9} {:>9}",
        "in flight", "requests", "seconds", "tok/s", "req/s"
    );
    for p in &points {
        println!(
            "{:>9} {:>9} {:>9.2} {:>9.1} {:>9.2}",
            p.in_flight, p.requests, p.seconds, p.tokens_per_second, p.requests_per_second
        );
    }
    Ok(())
}
