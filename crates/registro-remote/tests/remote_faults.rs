//! The client against a scripted HTTP server on 127.0.0.1 that misbehaves on purpose: 429/503 with Retry-After,
//! 500, a dropped connection, truncated JSON, a missing logprobs field, an answer slower than the timeout, a key
//! echoed back. Every test is bounded: few requests, short timeouts.
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use registro_remote::{ApiKey, Client, Config, Request};

#[path = "../testsupport/fake.rs"]
mod fake;
use fake::{Act, FakeServer};

fn ok_completion(text: &str) -> Act {
    Act::json(
        200,
        &format!(
            r#"{{"choices":[{{"text":{},"logprobs":{{"tokens":["x"],"token_logprobs":[-0.25]}},"finish_reason":"stop"}}]}}"#,
            serde_json::json!(text)
        ),
    )
}

fn client(s: &FakeServer, retries: u32, timeout_ms: u64) -> Client {
    let mut cfg = Config::new(&s.url());
    cfg.model = None;
    cfg.api_key = None;
    cfg.retries = retries;
    cfg.timeout = Duration::from_millis(timeout_ms);
    cfg.backoff = Duration::from_millis(20);
    Client::new(cfg).unwrap()
}

fn req() -> Request {
    Request {
        prompt: "Hi".into(),
        max_tokens: 4,
        n: 1,
        logprobs: true,
        ..Default::default()
    }
}

/// The error, with its causes, that completing [`req`] through `c` ends in.
fn complete_error(c: &Client) -> String {
    format!("{:#}", c.complete(&req(), &AtomicBool::new(false)).unwrap_err())
}

#[test]
fn retry_after_is_honoured_on_429_and_503() {
    let s = FakeServer::start(vec![
        Act::json(429, r#"{"error":{"message":"slow down"}}"#).header("Retry-After", "1"),
        Act::json(503, "overloaded").header("Retry-After", "0"),
        ok_completion("Hallo"),
    ]);
    let c = client(&s, 3, 5000);
    let t0 = Instant::now();
    let out = c.complete(&req(), &AtomicBool::new(false)).unwrap();
    assert_eq!(out[0].text, "Hallo");
    // The 1 s the server asked for, not the 20 ms backoff.
    assert!(
        t0.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(s.requests(), 3);
}

#[test]
fn a_500_that_persists_is_an_error_quoting_the_server_after_bounded_tries() {
    let s = FakeServer::start(vec![
        Act::json(
            500,
            r#"{"error":{"message":"CUDA out of memory"}}"#
        );
        3
    ]);
    let c = client(&s, 2, 5000);
    let e = complete_error(&c);
    assert!(
        e.contains("HTTP 500") && e.contains("CUDA out of memory") && e.contains("after 3 tries"),
        "{e}"
    );
    assert_eq!(s.requests(), 3);
}

#[test]
fn a_dropped_connection_and_truncated_json_are_retried() {
    let s = FakeServer::start(vec![
        Act::Drop,
        Act::Truncate(r#"{"choices":[{"text":"Hal"#.into()),
        ok_completion("Hallo"),
    ]);
    let c = client(&s, 3, 5000);
    assert_eq!(
        c.complete(&req(), &AtomicBool::new(false)).unwrap()[0].text,
        "Hallo"
    );
    assert_eq!(s.requests(), 3);
}

#[test]
fn truncated_json_every_time_names_the_url_and_what_came() {
    let s = FakeServer::start(vec![Act::json(200, r#"{"choices":[{"text":"Hal"#); 2]);
    let c = client(&s, 1, 5000);
    let e = complete_error(&c);
    assert!(
        e.contains("/v1/completions")
            && e.contains("not complete JSON")
            && e.contains("{\"choices\""),
        "{e}"
    );
}

#[test]
fn a_missing_logprobs_field_is_no_score_not_an_error() {
    let s = FakeServer::start(vec![Act::json(
        200,
        r#"{"choices":[{"text":"Hallo","finish_reason":"stop"}]}"#,
    )]);
    let c = client(&s, 0, 5000);
    let out = c.complete(&req(), &AtomicBool::new(false)).unwrap();
    assert_eq!(out[0].text, "Hallo");
    assert!(out[0].token_logprobs.is_none());
}

#[test]
fn an_answer_slower_than_the_timeout_fails_in_bounded_time() {
    let s = FakeServer::start(vec![ok_completion("late").delay(Duration::from_secs(3)); 2]);
    let c = client(&s, 1, 300);
    let t0 = Instant::now();
    let e = complete_error(&c);
    assert!(
        e.contains("within 0.3s") && e.contains("after 2 tries"),
        "{e}"
    );
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
}

#[test]
fn a_refused_key_is_not_retried_and_never_echoed() {
    let s = FakeServer::start(vec![Act::json(
        401,
        r#"{"error":{"message":"invalid key sk-topsecret-123"}}"#,
    )]);
    let mut cfg = Config::new(&s.url());
    cfg.api_key = ApiKey::new("sk-topsecret-123");
    cfg.retries = 3;
    let c = Client::new(cfg).unwrap();
    let e = complete_error(&c);
    assert!(
        e.contains("HTTP 401") && e.contains("REGISTRO_API_KEY"),
        "{e}"
    );
    assert!(!e.contains("topsecret"), "{e}");
    assert_eq!(s.requests(), 1);
    assert_eq!(
        s.last_header("authorization").as_deref(),
        Some("Bearer sk-topsecret-123")
    );
}

#[test]
fn nobody_listening_says_cannot_reach() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut cfg = Config::new(&format!("http://127.0.0.1:{port}/v1"));
    cfg.retries = 1;
    cfg.backoff = Duration::from_millis(10);
    let e = format!("{:#}", Client::new(cfg).unwrap().models().unwrap_err());
    assert!(
        e.contains("cannot reach") && e.contains(&port.to_string()),
        "{e}"
    );
}

#[test]
fn requests_in_flight_are_bounded_and_results_keep_their_order() {
    let acts: Vec<Act> = (0..12)
        .map(|i| {
            ok_completion(&format!("r{i}"))
                .delay(Duration::from_millis(150))
                .echo_prompt()
        })
        .collect();
    let s = FakeServer::start(acts);
    let mut cfg = client(&s, 0, 5000).config().clone();
    cfg.max_in_flight = 4;
    let c = Arc::new(Client::new(cfg).unwrap());
    let reqs: Vec<Request> = (0..12)
        .map(|i| Request {
            prompt: format!("p{i}"),
            ..req()
        })
        .collect();
    let t0 = Instant::now();
    let out = c.complete_many(&reqs, &AtomicBool::new(false));
    let took = t0.elapsed();
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r.as_ref().unwrap()[0].text, format!("p{i}"));
    }
    assert!(
        s.max_concurrent() <= 4 && s.max_concurrent() >= 2,
        "{}",
        s.max_concurrent()
    );
    // 12 answers of 150 ms, 4 at a time: about 3 rounds, far from 12 in a row.
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[test]
fn cancellation_stops_sending() {
    let s = FakeServer::start(vec![ok_completion("x"); 8]);
    let c = Arc::new(client(&s, 0, 5000));
    let cancel = AtomicBool::new(true);
    let out = c.complete_many(&vec![req(); 8], &cancel);
    assert!(out.iter().all(|r| r.is_err()));
    assert_eq!(s.requests(), 0);
}

#[test]
fn the_probe_finds_what_a_server_ignores() {
    // A server like llama-cpp-python: one choice whatever `n` says, logprobs, no tokenize endpoint.
    let mut acts = vec![Act::json(
        200,
        r#"{"object":"list","data":[{"id":"tiny"}]}"#,
    )];
    acts.push(ok_completion(" Paris"));
    acts.push(ok_completion(" Paris"));
    acts.push(ok_completion("The capital of France is Paris"));
    acts.push(Act::json(404, "not found"));
    acts.push(Act::json(404, "not found"));
    let s = FakeServer::start(acts);
    let mut c = client(&s, 0, 5000);
    let caps = c.probe().unwrap();
    assert_eq!(caps.model, "tiny");
    assert!(caps.logprobs);
    assert!(!caps.n);
    assert!(caps.tokenize.is_none() && !caps.logit_bias);
    assert!(
        caps.notes.iter().any(|n| n.contains("seeded requests")),
        "{:?}",
        caps.notes
    );
    assert!(
        caps.notes.iter().any(|n| n.contains("bans are not sent")),
        "{:?}",
        caps.notes
    );
}

#[test]
fn the_probe_refuses_a_model_the_server_does_not_serve() {
    let s = FakeServer::start(vec![Act::json(200, r#"{"data":[{"id":"a"},{"id":"b"}]}"#)]);
    let mut cfg = client(&s, 0, 5000).config().clone();
    cfg.model = Some("qwen-72b".into());
    let e = format!("{:#}", Client::new(cfg).unwrap().probe().unwrap_err());
    assert!(
        e.contains("qwen-72b") && e.contains("a, b") && e.contains("--backend-model"),
        "{e}"
    );
}

/// The prompt of a completion request body.
fn prompt_of(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body).unwrap_or_default()["prompt"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn answers_are_handed_out_as_they_arrive_each_with_its_own_request() {
    // The answer to prompt pN (N = 0..3) comes after (4 − N) × 150 ms: the last one sent is the first back.
    let s = FakeServer::start_with(vec![], |_, body| {
        let p = prompt_of(body);
        let n: u64 = p[1..].parse().unwrap_or(0);
        ok_completion(&format!("answer to {p}")).delay(Duration::from_millis((4 - n) * 150))
    });
    let c = Arc::new(client(&s, 0, 5000));
    let reqs: Vec<Request> = (0..4)
        .map(|i| Request {
            prompt: format!("p{i}"),
            ..req()
        })
        .collect();
    let mut pending = c.send_all(reqs, &AtomicBool::new(false));
    let mut order = Vec::new();
    while let Some((i, r)) = pending.next(&AtomicBool::new(false)) {
        assert_eq!(r.unwrap()[0].text, format!("answer to p{i}"));
        order.push(i);
    }
    assert_eq!(order, [3, 2, 1, 0]);
}

#[test]
fn a_cancel_while_requests_are_in_flight_stops_sending_and_returns_at_once() {
    let s = FakeServer::start_with(vec![], |_, _| {
        ok_completion("x").delay(Duration::from_millis(300))
    });
    let mut cfg = client(&s, 0, 5000).config().clone();
    cfg.max_in_flight = 2;
    let c = Arc::new(Client::new(cfg).unwrap());
    let cancel = AtomicBool::new(false);
    let mut pending = c.send_all(vec![req(); 10], &cancel);
    assert!(pending.next(&cancel).unwrap().1.is_ok());
    cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    let t0 = Instant::now();
    assert!(pending.next(&cancel).is_none());
    // No waiting for the answers still on their way.
    assert!(
        t0.elapsed() < Duration::from_millis(150),
        "{:?}",
        t0.elapsed()
    );
    drop(pending);
    std::thread::sleep(Duration::from_millis(800));
    // The two sent first, and at most one more each that a sender took before it saw the cancel.
    assert!(
        s.requests() <= 4,
        "{} requests after the cancel",
        s.requests()
    );
}
