//! The control layer on an OpenAI-compatible server (vLLM, SGLang, llama.cpp's server): a [`Generator`] over
//! `registro-remote`. Registro renders the prompt itself (the model's family template, chosen by the served model's
//! name), so every segment of a document sends the same prefix bytes and the server's prefix cache hits.
//!
//! How each control maps: candidates are one greedy request plus `n - 1` sampled ones (one request with `n` where
//! the server honours it, else seeded requests), all in flight at once; bans and boosts are `logit_bias` on the
//! server's own token ids, for marker spellings that are one token (a bias cannot ban a sequence); reranking uses
//! the returned logprobs. Repair and flagging run here unchanged. What the server cannot do is in
//! the generator's `describe`, which the run's parameters keep.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;
use registro_engine::chat::ChatTemplate;
/// The backend's settings, under the name the faces use.
pub use registro_remote::Config as BackendConfig;
pub use registro_remote::{key_store, ApiKey, Capabilities, Config};
use registro_remote::{Client, Completion, Request};

use crate::backend::{GenRequest, Generated, Generator, OnDone};
use crate::constrain::Constraints;
use crate::prompt::ChatFormat;

/// A run's model id for a remote backend: `remote:<model>@<API base>` (what resume reconnects to).
pub const ID_PREFIX: &str = "remote:";

/// Sampling temperature of the candidates after the greedy one.
const SAMPLE_TEMPERATURE: f32 = 0.8;

pub struct RemoteGenerator {
    client: Arc<Client>,
    caps: Capabilities,
    format: ChatFormat,
    stops: Vec<String>,
    template: String,
    /// Constraints (as JSON) → token biases, and how many marker spellings could not be sent.
    bias_cache: HashMap<String, (Vec<(u32, f32)>, usize)>,
    unsent_markers: usize,
}

impl RemoteGenerator {
    /// Connects, probes what the server honours, and picks the chat template for the served model's family.
    pub fn connect(cfg: Config) -> anyhow::Result<Self> {
        let mut client = Client::new(cfg)?;
        let caps = client.probe()?;
        let name = caps
            .model
            .rsplit('/')
            .next()
            .unwrap_or(&caps.model)
            .to_string();
        let t = ChatTemplate::builtin(&name);
        let template = match &t.origin {
            registro_engine::chat::TemplateOrigin::BuiltIn(f)
                if ["qwen", "gemma", "llama"].iter().any(|p| f.starts_with(p)) =>
            {
                format!("built-in template for the family of {name:?}")
            }
            _ => format!("ChatML (no family recognised in the model name {name:?})"),
        };
        let format = ChatFormat::Template(t);
        Ok(RemoteGenerator {
            client: Arc::new(client),
            caps,
            stops: format.stops(),
            format,
            template,
            bias_cache: HashMap::new(),
            unsent_markers: 0,
        })
    }

    pub fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// What the run's parameters record about the backend: where, which model, what the server honoured, and what
    /// was not sent. Never the API key.
    fn description(&self) -> serde_json::Value {
        let mut notes = self.caps.notes.clone();
        if self.unsent_markers > 0 {
            notes.push(format!("{} marker spellings span several tokens and were not banned (a bias bans single tokens)", self.unsent_markers));
        }
        serde_json::json!({
            "kind": "openai-compatible",
            "url": self.caps.url,
            "model": self.caps.model,
            "chat_template": self.template,
            "capabilities": { "logprobs": self.caps.logprobs, "n": self.caps.n, "logit_bias": self.caps.logit_bias, "tokenize": self.caps.tokenize, "echo_logprobs": self.caps.echo_logprobs },
            "max_in_flight": self.client.config().max_in_flight,
            "notes": notes,
        })
    }

    fn bias(&mut self, c: &Constraints) -> anyhow::Result<Vec<(u32, f32)>> {
        if c.is_empty() || !self.caps.logit_bias {
            return Ok(Vec::new());
        }
        let key = serde_json::to_string(c)?;
        if let Some((b, _)) = self.bias_cache.get(&key) {
            return Ok(b.clone());
        }
        // The same spellings the engine bans: after a space and at the start (Japanese endings anywhere).
        let variants = |w: &str| -> Vec<String> {
            if w.starts_with('-')
                || !w.is_ascii() && w.chars().any(|c| ('\u{3040}'..='\u{30FF}').contains(&c))
            {
                vec![w.to_string()]
            } else {
                vec![format!(" {w}"), w.to_string()]
            }
        };
        let mut out: Vec<(u32, f32)> = Vec::new();
        let mut unsent = 0;
        let words = c
            .ban
            .iter()
            .map(|w| (w, -100.0f32))
            .chain(c.boost.iter().map(|(w, b)| (w, *b)));
        for (w, bias) in words {
            for v in variants(w) {
                let ids = self
                    .client
                    .tokenize(&v)
                    .with_context(|| format!("tokenizing the marker {v:?} on the server"))?;
                match ids.as_slice() {
                    [id] if !out.iter().any(|(x, _)| x == id) => out.push((*id, bias)),
                    [_] => {}
                    _ => unsent += 1,
                }
            }
        }
        // OpenAI's API caps logit_bias at 300 entries; the bans come first.
        out.truncate(300);
        self.unsent_markers = self.unsent_markers.max(unsent);
        self.bias_cache.insert(key, (out.clone(), unsent));
        Ok(out)
    }
}

fn generated(c: Completion) -> Generated {
    let (logprob, tokens) = match &c.token_logprobs {
        Some(l) if !l.is_empty() => (l.iter().sum(), l.len()),
        _ => (0.0, 1),
    };
    Generated {
        text: c.text.trim().to_string(),
        logprob,
        tokens,
    }
}

impl Generator for RemoteGenerator {
    fn id(&self) -> String {
        format!("{ID_PREFIX}{}@{}", self.caps.model, self.caps.url)
    }

    fn chat_format(&self) -> &ChatFormat {
        &self.format
    }

    fn describe(&self) -> serde_json::Value {
        self.description()
    }

    fn generate(
        &mut self,
        prefix: &str,
        turn: &str,
        n: usize,
        max_tokens: usize,
        constraints: &Constraints,
        cancel: &AtomicBool,
    ) -> anyhow::Result<Vec<Generated>> {
        let reqs = self.requests_for(&GenRequest {
            prefix: prefix.to_string(),
            turn: turn.to_string(),
            n,
            max_tokens,
            constraints: constraints.clone(),
        })?;
        let answers = self.client.complete_many(&reqs, cancel);
        self.merge(answers)
    }

    /// Every segment's requests go out together, at most `max_in_flight` outstanding across segments (a server
    /// batches what it has in flight, so a document keeps it busy), and a segment is reported the moment its
    /// last answer is in, so the caller stores it at once, in whatever order the server finishes them.
    fn generate_many(
        &mut self,
        requests: &[GenRequest],
        cancel: &AtomicBool,
        on_done: OnDone<'_>,
    ) -> anyhow::Result<()> {
        let mut flat: Vec<Request> = Vec::new();
        // For each flat request: its segment and its place among that segment's requests.
        let mut owner: Vec<(usize, usize)> = Vec::new();
        let mut answers: Vec<Vec<Option<anyhow::Result<Vec<Completion>>>>> = Vec::new();
        for (seg, r) in requests.iter().enumerate() {
            let reqs = self.requests_for(r)?;
            owner.extend((0..reqs.len()).map(|k| (seg, k)));
            answers.push((0..reqs.len()).map(|_| None).collect());
            flat.extend(reqs);
        }
        let mut pending = self.client.send_all(flat, cancel);
        while let Some((i, answer)) = pending.next(cancel) {
            let (seg, k) = owner[i];
            answers[seg][k] = Some(answer);
            if answers[seg].iter().all(Option::is_some) {
                let got = std::mem::take(&mut answers[seg])
                    .into_iter()
                    .flatten()
                    .collect();
                // A segment whose answers came in as the cancel did is not reported: the caller would store it
                // after the user asked to stop.
                if cancel.load(Ordering::SeqCst) {
                    break;
                }
                on_done(seg, self.merge(got))?;
            }
        }
        if !cancel.load(Ordering::SeqCst) {
            let left = answers.iter().filter(|a| !a.is_empty()).count();
            anyhow::ensure!(
                left == 0,
                "the requests to {} stopped with {left} segments unanswered",
                self.caps.url
            );
        }
        Ok(())
    }
}

impl RemoteGenerator {
    /// One segment's requests: a greedy one, and `n - 1` sampled candidates (one request with `n` where the server
    /// honours it, else seeded requests).
    fn requests_for(&mut self, r: &GenRequest) -> anyhow::Result<Vec<Request>> {
        let logit_bias = self.bias(&r.constraints)?;
        let greedy = Request {
            prompt: format!("{}{}", r.prefix, r.turn),
            max_tokens: r.max_tokens,
            temperature: 0.0,
            seed: Some(0),
            n: 1,
            logprobs: self.caps.logprobs,
            echo: false,
            stop: self.stops.clone(),
            logit_bias,
        };
        let mut reqs = vec![greedy.clone()];
        let more = r.n.saturating_sub(1);
        if more > 0 && self.caps.n {
            reqs.push(Request {
                temperature: SAMPLE_TEMPERATURE,
                seed: Some(1),
                n: more,
                ..greedy.clone()
            });
        } else {
            reqs.extend((1..=more as u64).map(|s| Request {
                temperature: SAMPLE_TEMPERATURE,
                seed: Some(s),
                ..greedy.clone()
            }));
        }
        Ok(reqs)
    }

    /// A segment's candidates from its requests' answers (greedy first, duplicates dropped); any failed request
    /// fails the segment.
    fn merge(
        &self,
        answers: Vec<anyhow::Result<Vec<Completion>>>,
    ) -> anyhow::Result<Vec<Generated>> {
        let mut out: Vec<Generated> = Vec::new();
        for r in answers {
            for c in r.with_context(|| format!("the backend {}", self.caps.url))? {
                let g = generated(c);
                if !out.iter().any(|o| o.text == g.text) {
                    out.push(g);
                }
            }
        }
        Ok(out)
    }
}

/// The generator a face asked for: the backend when one is configured, else the local model (`model`, or the
/// default one).
pub fn open_generator(
    model: Option<&str>,
    backend: Option<Config>,
) -> anyhow::Result<Box<dyn Generator>> {
    match backend {
        Some(cfg) => Ok(Box::new(RemoteGenerator::connect(cfg)?)),
        None => {
            let m = model
                .map(str::to_string)
                .unwrap_or_else(crate::models::default_model);
            Ok(Box::new(crate::backend::EngineGenerator::load(&m)?))
        }
    }
}

/// What Settings → Backends does on Test connection: a key typed there goes into the OS keyring (never the store,
/// a settings file or a run), then the server is probed with the key `REGISTRO_API_KEY` or the keyring gives,
/// failing within seconds since a person is waiting. Returns the generator, the settings later runs use (the
/// probed model pinned, normal retries and timeout) and where the key came from.
pub fn connect_from_settings(
    url: &str,
    model: Option<&str>,
    new_key: Option<&str>,
) -> anyhow::Result<(RemoteGenerator, Config, key_store::KeySource)> {
    if let Some(k) = new_key.filter(|k| !k.trim().is_empty()) {
        key_store::store_key(url, k)?;
    }
    let (api_key, source) = key_store::resolve(url);
    let mut cfg = Config {
        model: model
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string),
        api_key,
        ..Config::new(url.trim())
    };
    let (retries, timeout) = (cfg.retries, cfg.timeout);
    cfg.retries = 1;
    cfg.timeout = std::time::Duration::from_secs(30);
    let gen = RemoteGenerator::connect(cfg.clone())?;
    cfg.model = Some(gen.caps.model.clone());
    cfg.retries = retries;
    cfg.timeout = timeout;
    Ok((gen, cfg, source))
}

/// The generator a stored run was made with: its local model, or its remote backend (API key from
/// `REGISTRO_API_KEY` or the keyring, as when it ran).
pub fn open_for_run(model_id: &str) -> anyhow::Result<Box<dyn Generator>> {
    match parse_id(model_id) {
        Some((model, url)) => {
            let mut cfg = Config::new(&url);
            cfg.model = Some(model);
            Ok(Box::new(RemoteGenerator::connect(cfg).with_context(
                || format!("reconnecting to the run's backend {url}"),
            )?))
        }
        None => Ok(Box::new(crate::backend::EngineGenerator::load(model_id)?)),
    }
}

/// (model, API base) of a remote run's model id.
pub fn parse_id(model_id: &str) -> Option<(String, String)> {
    let rest = model_id.strip_prefix(ID_PREFIX)?;
    let at = rest.rfind("@http")?;
    Some((rest[..at].to_string(), rest[at + 1..].to_string()))
}

/// Throughput at one bound on requests in flight.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ThroughputPoint {
    pub in_flight: usize,
    pub segments: usize,
    /// HTTP requests sent: one per segment and candidate where the server ignores `n`.
    pub requests: usize,
    pub seconds: f64,
    pub generated_tokens: usize,
    pub tokens_per_second: f64,
    pub segments_per_second: f64,
}

/// How translation throughput grows with requests in flight: the same document of `segments` sentences (German,
/// formal, each different), `candidates` per segment, sent through [`Generator::generate_many`] — the path
/// `registro translate --backend` takes — at each bound in `in_flight`.
pub fn throughput(
    cfg: Config,
    in_flight: &[usize],
    segments: usize,
    candidates: usize,
    max_tokens: usize,
    cancel: &AtomicBool,
) -> anyhow::Result<(Capabilities, Vec<ThroughputPoint>)> {
    const SENTENCES: &[&str] = &[
        "Thank you for your order, it will ship tomorrow.",
        "Could you send me the invoice again, please?",
        "Your appointment has been moved to Friday morning.",
        "We are sorry that the parcel arrived damaged.",
        "Please let me know if you need anything else.",
        "The meeting room on the second floor is free after lunch.",
        "Have you already tried restarting the router?",
        "I will call you back as soon as I have the results.",
    ];
    let mut gen = RemoteGenerator::connect(cfg)?;
    let spec = crate::prompt::PromptSpec {
        lang: registro_register::Lang::De,
        register: registro_register::Register::Formal,
        instruct: true,
        gender: None,
        shots: &[],
    };
    let doc: Vec<GenRequest> = (0..segments)
        .map(|i| {
            let p = crate::prompt::build(
                &gen.format,
                &spec,
                &format!("{} ({})", SENTENCES[i % SENTENCES.len()], i + 1),
            )?;
            Ok(GenRequest {
                prefix: p.prefix,
                turn: p.turn,
                n: candidates.max(1),
                max_tokens,
                constraints: Constraints::default(),
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let requests: usize = doc
        .iter()
        .map(|r| gen.requests_for(r).map(|q| q.len()))
        .sum::<anyhow::Result<usize>>()?;
    // One segment first so the server has loaded the model and cached the shared prefix before anything is timed.
    gen.generate_many(&doc[..1], cancel, &mut |_, g| g.map(|_| ()))?;
    let mut points = Vec::new();
    for &k in in_flight {
        gen.client = Arc::new(gen.client.with_max_in_flight(k));
        let t0 = std::time::Instant::now();
        let (mut tokens, mut done) = (0, 0);
        gen.generate_many(&doc, cancel, &mut |_, g| {
            tokens += g?.iter().map(|g| g.tokens).sum::<usize>();
            done += 1;
            Ok(())
        })?;
        anyhow::ensure!(done == doc.len(), "cancelled");
        let seconds = t0.elapsed().as_secs_f64();
        points.push(ThroughputPoint {
            in_flight: k,
            segments,
            requests,
            seconds,
            generated_tokens: tokens,
            tokens_per_second: tokens as f64 / seconds,
            segments_per_second: segments as f64 / seconds,
        });
    }
    Ok((gen.caps, points))
}

#[cfg(test)]
mod tests {
    #[test]
    fn run_ids_round_trip() {
        assert_eq!(
            crate::remote::parse_id("remote:Qwen/Qwen2.5-7B@x@http://h:8000/v1"),
            Some(("Qwen/Qwen2.5-7B@x".into(), "http://h:8000/v1".into()))
        );
        assert_eq!(crate::remote::parse_id("qwen2.5-coder-1.5b-instruct"), None);
    }
}
