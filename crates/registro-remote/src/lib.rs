//! A client for OpenAI-compatible completion servers (vLLM, SGLang, llama.cpp's server, llama-cpp-python).
//!
//! Only `/v1/completions` with a raw prompt is used: Registro renders the chat template itself, so the few-shot
//! prefix is byte-identical across requests and the server's prefix cache hits. Servers differ in what they honour
//! (`n`, `logprobs`, `logit_bias`, a tokenize endpoint) and some accept unknown fields with HTTP 200 and ignore them,
//! so [`Client::probe`] checks each capability by the *answer* to a tiny request.
//!
//! The API key comes from `REGISTRO_API_KEY` or the OS keyring ([`key_store`]) and is held in [`ApiKey`], whose
//! `Debug` prints no secret; every error text passes through
//! [`Client::scrub`] so a server echoing the key back cannot put it into a log, a run or a message.
#![forbid(unsafe_code)]
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};

pub mod key_store;

/// The largest answer read from a server: a completion of a few hundred tokens with logprobs is a few hundred KiB.
const MAX_BODY: u64 = 16 << 20;
/// Waits longer than this (a server's Retry-After included) are cut to it: a run must not sleep for an hour.
const MAX_WAIT: Duration = Duration::from_secs(60);

/// A bearer token. Never printed: `Debug` shows whether one is set, nothing more.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: &str) -> Option<Self> {
        let k = key.trim();
        (!k.is_empty()).then(|| ApiKey(k.to_string()))
    }

    /// `REGISTRO_API_KEY`, when set and not blank.
    pub fn from_env() -> Option<Self> {
        std::env::var("REGISTRO_API_KEY")
            .ok()
            .and_then(|k| Self::new(&k))
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(set)")
    }
}

/// Where the server is and how hard to try.
#[derive(Clone, Debug)]
pub struct Config {
    /// The API base, e.g. `http://127.0.0.1:8000/v1` (a URL without `/v1` gets it appended).
    pub url: String,
    /// The served model; `None` takes the first one `/v1/models` lists.
    pub model: Option<String>,
    pub api_key: Option<ApiKey>,
    /// Per request, from sending to the last byte of the answer.
    pub timeout: Duration,
    /// Requests sent at once by [`Client::complete_many`].
    pub max_in_flight: usize,
    /// Further tries after a failed one (429/5xx, a dropped connection, a timeout, a truncated answer).
    pub retries: u32,
    /// First backoff; doubled per try, with jitter, unless the server says `Retry-After`.
    pub backoff: Duration,
}

impl Config {
    /// Default settings for the server at `url`, with its API key from `REGISTRO_API_KEY` or the OS keyring.
    pub fn new(url: &str) -> Self {
        Config {
            url: url.to_string(),
            model: None,
            api_key: key_store::resolve(url).0,
            timeout: Duration::from_secs(120),
            max_in_flight: 8,
            retries: 4,
            backoff: Duration::from_millis(500),
        }
    }
}

/// What the server was found to honour, checked by the answers to tiny requests.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct Capabilities {
    /// The API base the probe talked to.
    pub url: String,
    /// Models `/v1/models` lists.
    pub models: Vec<String>,
    /// The model requests go to.
    pub model: String,
    /// `logprobs` returns per-token log-probabilities (reranking by model score).
    pub logprobs: bool,
    /// `n` > 1 returns that many choices (llama-cpp-python ignores it); otherwise candidates are seeded requests.
    pub n: bool,
    /// `echo` + `logprobs` scores the prompt itself (perplexity of a given text).
    pub echo_logprobs: bool,
    /// The tokenize endpoint found (`/tokenize`, `/extras/tokenize`), giving the server's own token ids.
    pub tokenize: Option<String>,
    /// A `logit_bias` of -100 on a token id really keeps that token out (bans of register markers).
    pub logit_bias: bool,
    /// What the probe could not use, in words.
    pub notes: Vec<String>,
}

/// One `/v1/completions` request.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub prompt: String,
    pub max_tokens: usize,
    /// 0 is greedy.
    pub temperature: f32,
    pub seed: Option<u64>,
    pub n: usize,
    pub logprobs: bool,
    pub echo: bool,
    pub stop: Vec<String>,
    /// (token id, bias) pairs; -100 bans.
    pub logit_bias: Vec<(u32, f32)>,
}

/// One choice of an answer.
#[derive(Clone, Debug)]
pub struct Completion {
    pub text: String,
    /// Per-token log-probabilities, when the server returned them.
    pub token_logprobs: Option<Vec<f32>>,
    pub tokens: Option<Vec<String>>,
    pub finish_reason: Option<String>,
}

pub struct Client {
    cfg: Config,
    /// `…/v1`, no trailing slash.
    base: String,
    /// The server root (`base` without `/v1`), where llama.cpp and vLLM put `/tokenize`.
    root: String,
    agent: ureq::Agent,
    net: Arc<registro_models::Network>,
    caps: Option<Capabilities>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Client({})", self.base)
    }
}

/// Requests on their way to the server ([`Client::send_all`]). Dropping it stops further sending.
pub struct InFlight {
    rx: mpsc::Receiver<(usize, Result<Vec<Completion>>)>,
    /// What the senders check before each request and between retries: set on a cancel or a drop.
    halt: Arc<AtomicBool>,
    left: usize,
}

impl InFlight {
    /// The next answer (its request's index and result), as it arrives. `None` once every request is answered,
    /// or as soon as `cancel` is set: after a cancel nothing more is sent and nothing more is handed out.
    pub fn next(&mut self, cancel: &AtomicBool) -> Option<(usize, Result<Vec<Completion>>)> {
        // The caller's flag is not shared with the sender threads, so it is copied to theirs while waiting.
        while self.left > 0 {
            if cancel.load(Ordering::SeqCst) {
                self.halt.store(true, Ordering::SeqCst);
                return None;
            }
            match self.rx.recv_timeout(Duration::from_millis(20)) {
                Ok(answer) => {
                    self.left -= 1;
                    return Some(answer);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
        None
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.halt.store(true, Ordering::SeqCst);
    }
}

/// Whether a failure is worth another try, and how long the server asked us to wait.
enum Failure {
    Retry(String, Option<Duration>),
    Fatal(String),
}

impl Client {
    /// Checks the URL (http or https, no credentials or query in it) and sets up the connection; sends nothing.
    pub fn new(cfg: Config) -> Result<Self> {
        let base = normalise_url(&cfg.url)?;
        let root = base.strip_suffix("/v1").unwrap_or(&base).to_string();
        let net = registro_models::net::global()?;
        let agent = net.agent(&base)?;
        anyhow::ensure!(
            cfg.max_in_flight >= 1,
            "requests in flight must be at least 1"
        );
        Ok(Client {
            cfg,
            base,
            root,
            agent,
            net,
            caps: None,
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn capabilities(&self) -> Option<&Capabilities> {
        self.caps.as_ref()
    }

    /// The model requests go to (after [`Client::probe`], the one it chose).
    pub fn model(&self) -> String {
        self.caps
            .as_ref()
            .map(|c| c.model.clone())
            .or_else(|| self.cfg.model.clone())
            .unwrap_or_default()
    }

    /// The same server, probe result and settings with another bound on requests in flight.
    pub fn with_max_in_flight(&self, k: usize) -> Client {
        Client {
            cfg: Config {
                max_in_flight: k.max(1),
                ..self.cfg.clone()
            },
            base: self.base.clone(),
            root: self.root.clone(),
            agent: self.agent.clone(),
            net: self.net.clone(),
            caps: self.caps.clone(),
        }
    }

    /// Removes the API key from a text that may quote a request back.
    pub fn scrub(&self, text: &str) -> String {
        match &self.cfg.api_key {
            Some(k) if k.0.len() >= 4 => text.replace(&k.0, "[api key]"),
            _ => text.to_string(),
        }
    }

    /// `/v1/models`.
    pub fn models(&self) -> Result<Vec<String>> {
        let v = self.send("GET", &format!("{}/models", self.base), None, None)?;
        let ids: Vec<String> = v
            .get("data")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        anyhow::ensure!(
            !ids.is_empty(),
            "{}/models lists no model (expected {{\"data\": [{{\"id\": …}}]}})",
            self.base
        );
        Ok(ids)
    }

    /// Lists the models, picks one, and checks what the server honours with tiny requests.
    pub fn probe(&mut self) -> Result<Capabilities> {
        let models = self
            .models()
            .with_context(|| format!("connecting to {}", self.base))?;
        let model = match &self.cfg.model {
            Some(m) if models.contains(m) => m.clone(),
            Some(m) => bail!("{} does not serve model {m:?}; it serves: {}. Pass one of these with --backend-model", self.base, models.join(", ")),
            None => models[0].clone(),
        };
        let mut caps = Capabilities {
            url: self.base.clone(),
            models,
            model,
            logprobs: false,
            n: false,
            echo_logprobs: false,
            tokenize: None,
            logit_bias: false,
            notes: Vec::new(),
        };
        self.caps = Some(caps.clone());
        const PROMPT: &str = "The capital of France is";
        // One choice of at most `max_tokens` tokens after PROMPT, drawn at `temperature`.
        let probe = |max_tokens: usize, temperature: f32| Request {
            prompt: PROMPT.into(),
            max_tokens,
            temperature,
            n: 1,
            ..Default::default()
        };
        // The probes are never cancelled.
        let never = AtomicBool::new(false);
        let first_text = |choices: Vec<Completion>| choices.into_iter().next().map(|c| c.text).unwrap_or_default();
        let greedy = Request { logprobs: true, ..probe(2, 0.0) };
        let first = self.complete(&greedy, &never).context("probing a greedy completion")?;
        let first = first
            .into_iter()
            .next()
            .context("the server answered a completion with no choice")?;
        caps.logprobs = first.token_logprobs.as_ref().is_some_and(|l| !l.is_empty());
        if !caps.logprobs {
            caps.notes
                .push("no token logprobs: candidates are reranked by register only".into());
        }
        let two = Request { n: 2, seed: Some(1), ..probe(1, 1.0) };
        caps.n = self.complete(&two, &never).map(|c| c.len() == 2).unwrap_or(false);
        if !caps.n {
            caps.notes
                .push("n > 1 ignored: candidates come from seeded requests".into());
        }
        let echo = Request { logprobs: true, echo: true, ..probe(1, 0.0) };
        let echoed = self
            .complete(&echo, &never)
            .ok()
            .and_then(|c| c.into_iter().next())
            .filter(|c| c.text.starts_with(PROMPT))
            .and_then(|c| c.token_logprobs)
            .filter(|l| l.len() > 2);
        // Some servers echo numbers that are not the prompt's log-probabilities (llama-cpp-python without
        // `logits_all` reports about −10 per token on this sentence, where a real model gives a few nats): a
        // perplexity from them would be nonsense, so such an echo does not count.
        let mean = echoed
            .as_ref()
            .map(|l| l.iter().map(|&x| x as f64).sum::<f64>() / l.len() as f64);
        caps.echo_logprobs = mean.is_some_and(|m| m > -6.0);
        if let Some(m) = mean.filter(|_| !caps.echo_logprobs) {
            caps.notes.push(format!(
                "prompt log-probabilities look wrong ({m:.1} nats per token on {PROMPT:?}): fluency is not scored on this server"
            ));
        }
        for (path, _) in TOKENIZE {
            if self
                .tokenize_at(path, "Hello world")
                .is_ok_and(|t| !t.is_empty())
            {
                caps.tokenize = Some(path.to_string());
                break;
            }
        }
        self.caps = Some(caps.clone());
        if caps.tokenize.is_none() {
            caps.notes.push(
                "no tokenize endpoint: marker bans are not sent (repair and flagging still apply)"
                    .into(),
            );
        } else {
            // A ban is real only if the greedy first token is gone once it carries -100.
            let one = probe(1, 0.0);
            let t = first_text(self.complete(&one, &never)?);
            let ids = if t.is_empty() {
                Vec::new()
            } else {
                self.tokenize(&t).unwrap_or_default()
            };
            if ids.len() == 1 {
                let banned = Request {
                    logit_bias: vec![(ids[0], -100.0)],
                    ..one
                };
                let t2 = first_text(self.complete(&banned, &never)?);
                caps.logit_bias = t2 != t;
            }
            if !caps.logit_bias {
                caps.notes.push("logit_bias is not honoured: marker bans are not sent (repair and flagging still apply)".into());
            }
        }
        self.caps = Some(caps.clone());
        Ok(caps)
    }

    /// The server's token ids for `text` (no BOS), through the endpoint the probe found.
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        let path = self
            .caps
            .as_ref()
            .and_then(|c| c.tokenize.clone())
            .context("this server has no tokenize endpoint")?;
        self.tokenize_at(&path, text)
    }

    fn tokenize_at(&self, path: &str, text: &str) -> Result<Vec<u32>> {
        let body = TOKENIZE
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, b)| b(&self.model(), text))
            .context("unknown tokenize endpoint")?;
        let url = format!("{}{path}", self.root);
        let v = self.send("POST", &url, Some(&body), None)?;
        let ids: Vec<u32> = v
            .get("tokens")
            .and_then(Value::as_array)
            .context("no \"tokens\" array")?
            .iter()
            .map(|t| {
                t.as_u64()
                    .and_then(|t| u32::try_from(t).ok())
                    .context("a token id is not a number")
            })
            .collect::<Result<_>>()?;
        // Some endpoints add the model's BOS token; an id that tokenizing nothing also yields is not part of the text.
        if !text.is_empty() {
            if let Ok(empty) = self.tokenize_at(path, "") {
                if let (Some(b), Some(f)) = (empty.first(), ids.first()) {
                    if b == f {
                        return Ok(ids[1..].to_vec());
                    }
                }
            }
        }
        Ok(ids)
    }

    /// One completion request (with retries); its choices in order.
    pub fn complete(&self, r: &Request, cancel: &AtomicBool) -> Result<Vec<Completion>> {
        let mut body = json!({
            "model": self.model(),
            "prompt": r.prompt,
            "max_tokens": r.max_tokens,
            "temperature": r.temperature,
            "n": r.n.max(1),
            "top_p": 1.0,
            // llama-cpp-python penalises repeats by default (1.1), which changes even greedy output; vLLM and
            // SGLang ignore the field.
            "repeat_penalty": 1.0,
            "stream": false,
        });
        if r.logprobs {
            body["logprobs"] = json!(1);
        }
        if r.echo {
            body["echo"] = json!(true);
        }
        if let Some(s) = r.seed {
            body["seed"] = json!(s);
        }
        if !r.stop.is_empty() {
            // OpenAI's API takes at most 4 stop strings; servers that check it refuse more.
            body["stop"] = json!(r.stop.iter().take(4).collect::<Vec<_>>());
        }
        if !r.logit_bias.is_empty() {
            let m: serde_json::Map<String, Value> = r
                .logit_bias
                .iter()
                .map(|(id, b)| (id.to_string(), json!(b)))
                .collect();
            body["logit_bias"] = Value::Object(m);
        }
        let url = format!("{}/completions", self.base);
        let v = self.send("POST", &url, Some(&body), Some(cancel))?;
        parse_choices(&v).with_context(|| format!("reading the answer of {url}"))
    }

    /// Many requests, at most `max_in_flight` at once; results in request order. Cancellation stops sending: the
    /// requests not answered by then come back as errors saying so.
    pub fn complete_many(
        self: &Arc<Self>,
        reqs: &[Request],
        cancel: &AtomicBool,
    ) -> Vec<Result<Vec<Completion>>> {
        let mut out: Vec<Option<Result<Vec<Completion>>>> = (0..reqs.len()).map(|_| None).collect();
        let mut pending = self.send_all(reqs.to_vec(), cancel);
        while let Some((i, r)) = pending.next(cancel) {
            out[i] = Some(r);
        }
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err(anyhow!("cancelled before an answer came"))))
            .collect()
    }

    /// Starts sending `reqs`, at most `max_in_flight` outstanding at any time; [`InFlight::next`] hands out each
    /// answer as it arrives, in whatever order the server finishes them. The senders are threads of their own, so
    /// a caller that stops listening (a cancel, an error) returns at once: nothing new is sent, and the answers
    /// still on their way are dropped.
    pub fn send_all(self: &Arc<Self>, reqs: Vec<Request>, cancel: &AtomicBool) -> InFlight {
        let halt = Arc::new(AtomicBool::new(cancel.load(Ordering::SeqCst)));
        let (tx, rx) = mpsc::channel();
        let left = reqs.len();
        let reqs = Arc::new(reqs);
        let next = Arc::new(AtomicUsize::new(0));
        for _ in 0..self.cfg.max_in_flight.min(left) {
            let (client, reqs, next, halt, tx) = (
                self.clone(),
                reqs.clone(),
                next.clone(),
                halt.clone(),
                tx.clone(),
            );
            std::thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= reqs.len() || halt.load(Ordering::SeqCst) {
                    break;
                }
                let r = client.complete(&reqs[i], &halt);
                if tx.send((i, r)).is_err() {
                    break;
                }
            });
        }
        InFlight { rx, halt, left }
    }

    /// Sends with retries; the answer's JSON.
    fn send(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
        cancel: Option<&AtomicBool>,
    ) -> Result<Value> {
        let started = Instant::now();
        let mut attempt = 0u32;
        loop {
            if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
                bail!("cancelled");
            }
            let failure = match self.send_once(method, url, body) {
                Ok(v) => return Ok(v),
                Err(f) => f,
            };
            let (why, wait) = match failure {
                Failure::Fatal(why) => bail!("{}", self.scrub(&why)),
                Failure::Retry(why, wait) => (why, wait),
            };
            if attempt >= self.cfg.retries {
                bail!(
                    "{} (after {} tries in {:.0}s; is the server overloaded or down? Check it, or raise the timeout)",
                    self.scrub(&why),
                    attempt + 1,
                    started.elapsed().as_secs_f64()
                );
            }
            let backoff = self.cfg.backoff.saturating_mul(1 << attempt.min(10));
            let wait = wait.unwrap_or(backoff + jitter(backoff)).min(MAX_WAIT);
            sleep_unless_cancelled(wait, cancel);
            attempt += 1;
        }
    }

    fn send_once(
        &self,
        method: &str,
        url: &str,
        body: Option<&Value>,
    ) -> std::result::Result<Value, Failure> {
        let mut req = self
            .agent
            .request(method, url)
            .timeout(self.cfg.timeout)
            .set("Accept", "application/json");
        if let Some(k) = &self.cfg.api_key {
            req = req.set("Authorization", &format!("Bearer {}", k.0));
        }
        let res = match body {
            Some(b) => req
                .set("Content-Type", "application/json")
                .send_string(&b.to_string()),
            None => req.call(),
        };
        match res {
            Ok(resp) => {
                let text = read_body(resp).map_err(|e| {
                    Failure::Retry(format!("{url}: the answer broke off: {e}"), None)
                })?;
                serde_json::from_str(&text).map_err(|e| {
                    Failure::Retry(
                        format!(
                            "{url}: the answer is not complete JSON ({e}); it began: {}",
                            excerpt(&text)
                        ),
                        None,
                    )
                })
            }
            Err(ureq::Error::Status(code, resp)) => {
                let wait = resp
                    .header("Retry-After")
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0);
                let wait = wait.map(Duration::from_secs_f64);
                let body = read_body(resp).unwrap_or_default();
                let msg = server_message(&body);
                let why = format!(
                    "{url} answered HTTP {code}{}",
                    if msg.is_empty() {
                        String::new()
                    } else {
                        format!(": {msg}")
                    }
                );
                match code {
                    401 | 403 => Err(Failure::Fatal(format!("{why}. The server refused the API key: store a valid one (registro backend key set --url URL, or Settings → Backends) or set REGISTRO_API_KEY"))),
                    404 => Err(Failure::Fatal(format!("{why}. Is this an OpenAI-compatible API base (ending in /v1)?"))),
                    408 | 425 | 429 | 500..=599 => Err(Failure::Retry(why, wait)),
                    _ => Err(Failure::Fatal(why)),
                }
            }
            Err(ureq::Error::Transport(t)) => {
                let timed_out =
                    format!("{t:?}").contains("TimedOut") || t.to_string().contains("timed out");
                if timed_out {
                    Err(Failure::Retry(
                        format!(
                            "{url}: no complete answer within {}s",
                            self.cfg.timeout.as_secs_f64()
                        ),
                        None,
                    ))
                } else {
                    Err(Failure::Retry(
                        format!("cannot reach {url}: {}", self.net.explain(url, &t)),
                        None,
                    ))
                }
            }
        }
    }
}

/// Tokenize endpoints in the order tried, with the body each expects: llama.cpp's server, vLLM, llama-cpp-python.
#[allow(clippy::type_complexity)]
const TOKENIZE: &[(&str, fn(&str, &str) -> Value)] = &[
    (
        "/tokenize",
        |model, text| json!({ "content": text, "model": model, "prompt": text, "add_special": false, "add_special_tokens": false }),
    ),
    (
        "/extras/tokenize",
        |model, text| json!({ "input": text, "model": model }),
    ),
];

fn normalise_url(url: &str) -> Result<String> {
    let u = url.trim().trim_end_matches('/');
    let (scheme, rest) = u.split_once("://").with_context(|| {
        format!("backend URL {u:?} has no scheme; expected e.g. http://127.0.0.1:8000/v1")
    })?;
    anyhow::ensure!(
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"),
        "backend URL must start with http:// or https:// (got {scheme}://)"
    );
    let authority = rest.split('/').next().unwrap_or_default();
    anyhow::ensure!(!authority.is_empty(), "backend URL {u:?} names no host");
    anyhow::ensure!(
        !authority.contains('@'),
        "backend URL must not carry credentials (they would end up in runs and logs); pass the key in REGISTRO_API_KEY"
    );
    anyhow::ensure!(
        !rest.contains(['?', '#']),
        "backend URL must not have a query or fragment"
    );
    anyhow::ensure!(
        !u.chars().any(char::is_whitespace),
        "backend URL {u:?} contains spaces"
    );
    Ok(if u.ends_with("/v1") {
        u.to_string()
    } else {
        format!("{u}/v1")
    })
}

fn read_body(resp: ureq::Response) -> std::io::Result<String> {
    let mut buf = Vec::new();
    resp.into_reader()
        .take(MAX_BODY + 1)
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_BODY {
        return Err(std::io::Error::other(format!(
            "answer larger than {} MiB",
            MAX_BODY >> 20
        )));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The error a server put in its body (`{"error": {"message": …}}` or text), short.
fn server_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let e = v
            .get("error")
            .cloned()
            .or_else(|| v.get("detail").cloned())
            .or_else(|| v.get("message").cloned())?;
        Some(
            e.get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| {
                    e.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| e.to_string())
                }),
        )
    });
    excerpt(&from_json.unwrap_or_else(|| body.trim().to_string()))
}

fn excerpt(s: &str) -> String {
    let s: String = s
        .chars()
        .filter(|c| !c.is_control() || *c == ' ')
        .take(200)
        .collect();
    if s.is_empty() {
        "(empty)".into()
    } else {
        s
    }
}

/// The choices of a `/v1/completions` answer body (untrusted server text: any bytes give choices or an error).
pub fn parse_completion(body: &[u8]) -> Result<Vec<Completion>> {
    let v: Value = serde_json::from_slice(body).context("the answer is not JSON")?;
    parse_choices(&v)
}

fn parse_choices(v: &Value) -> Result<Vec<Completion>> {
    let choices = v
        .get("choices")
        .and_then(Value::as_array)
        .context("no \"choices\" array")?;
    anyhow::ensure!(!choices.is_empty(), "\"choices\" is empty");
    choices
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let text = c
                .get("text")
                .and_then(Value::as_str)
                .with_context(|| format!("choice {i} has no \"text\""))?
                .to_string();
            let lp = c.get("logprobs").filter(|l| !l.is_null());
            let logprobs_array = |key: &str| lp.and_then(|l| l.get(key)).and_then(Value::as_array);
            // A null entry (the first echoed prompt token) carries no score.
            let token_logprobs = logprobs_array("token_logprobs")
                .map(|a| a.iter().filter_map(Value::as_f64).map(|x| x as f32).collect::<Vec<f32>>());
            let tokens = logprobs_array("tokens").map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect());
            if let Some(l) = &token_logprobs {
                anyhow::ensure!(
                    l.iter().all(|x| x.is_finite() && *x <= 1e-3),
                    "choice {i} has a token logprob that is not a log-probability"
                );
            }
            let finish_reason = c
                .get("finish_reason")
                .and_then(Value::as_str)
                .map(str::to_string);
            Ok(Completion {
                text,
                token_logprobs,
                tokens,
                finish_reason,
            })
        })
        .collect()
}

/// Up to half of `d`, from the clock's nanoseconds: enough to keep many clients from retrying in step.
fn jitter(d: Duration) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|t| t.subsec_nanos())
        .unwrap_or(0);
    d.mul_f64((nanos % 1000) as f64 / 2000.0)
}

fn sleep_unless_cancelled(d: Duration, cancel: Option<&AtomicBool>) {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return;
        }
        std::thread::sleep((end - Instant::now()).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_and_get_v1() {
        assert_eq!(
            normalise_url("http://127.0.0.1:8000").unwrap(),
            "http://127.0.0.1:8000/v1"
        );
        assert_eq!(
            normalise_url("https://h.example/v1/").unwrap(),
            "https://h.example/v1"
        );
        for bad in [
            "127.0.0.1:8000",
            "ftp://h/v1",
            "http://user:secret@h/v1",
            "http:///v1",
            "http://h/v1?key=1",
        ] {
            let e = normalise_url(bad).unwrap_err().to_string();
            assert!(!e.contains("secret"), "{e}");
        }
    }

    #[test]
    fn the_key_never_prints() {
        let k = ApiKey::new("sk-verysecret").unwrap();
        assert_eq!(format!("{k:?}"), "ApiKey(set)");
        let mut cfg = Config::new("http://127.0.0.1:9/v1");
        cfg.api_key = Some(k);
        assert!(!format!("{cfg:?}").contains("verysecret"));
    }

    #[test]
    fn choices_with_and_without_logprobs() {
        let v = json!({"choices": [{"text": " Hallo", "logprobs": {"tokens": [" Hallo"], "token_logprobs": [-0.5]}}, {"text": "x"}]});
        let c = parse_choices(&v).unwrap();
        assert_eq!(c[0].token_logprobs.as_deref(), Some(&[-0.5f32][..]));
        assert!(c[1].token_logprobs.is_none());
        assert!(parse_choices(
            &json!({"choices": [{"text": "a", "logprobs": {"token_logprobs": [3.0]}}]})
        )
        .is_err());
        assert!(parse_choices(&json!({"id": 1})).is_err());
    }
}
