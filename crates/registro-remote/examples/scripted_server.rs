//! The scripted OpenAI-compatible server of the fault tests, serving on 127.0.0.1 until killed, for
//! `registro bench backend`: every completion is answered after a fixed delay, a stand-in for a busy server's
//! latency whose capacity is never the limit, so the benchmark shows what requests in flight across segments buy
//! on the client's side alone.
//!
//! `cargo run --release -p registro-remote --example scripted_server -- PORT DELAY_MS`
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

#[path = "../testsupport/fake.rs"]
mod fake;
use fake::{Act, FakeServer};

static DELAY_MS: AtomicU64 = AtomicU64::new(200);

fn answer(path: &str, _body: &str) -> Act {
    if path.ends_with("/models") {
        return Act::json(200, r#"{"data":[{"id":"scripted-qwen2.5"}]}"#);
    }
    if !path.ends_with("/completions") {
        return Act::json(404, r#"{"error":{"message":"no such endpoint"}}"#);
    }
    // Eight tokens with their log-probabilities, as a server answering `logprobs: 1` gives them.
    let body = serde_json::json!({"choices": [{"text": " Vielen Dank für Ihre Bestellung.", "finish_reason": "stop",
        "logprobs": {"tokens": [" Vielen", " Dank", " für", " Ihre", " Best", "ell", "ung", "."],
                     "token_logprobs": [-0.4, -0.1, -0.2, -0.3, -0.9, -0.1, -0.05, -0.2]}}]});
    Act::json(200, &body.to_string()).delay(Duration::from_millis(DELAY_MS.load(Ordering::Relaxed)))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(8090);
    if let Some(ms) = args.next().and_then(|d| d.parse().ok()) {
        DELAY_MS.store(ms, Ordering::Relaxed);
    }
    let server = FakeServer::start_on(port, vec![], Some(answer));
    println!(
        "scripted server at {} ({} ms per completion)",
        server.url(),
        DELAY_MS.load(Ordering::Relaxed)
    );
    loop {
        std::thread::park();
    }
}
