//! The remote backend against a real OpenAI-compatible server: llama-cpp-python's (pinned in scripts/test.sh, built
//! once into ~/.cache/registro/venv-llama) serving the same Qwen2.5-Coder-0.5B GGUF the local engine runs, on
//! 127.0.0.1, killed when each test ends.
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use registro_core::progress::{CancelToken, ProgressFn};
use registro_core::translate::{
    self as tr, prompt, remote, Constraints, Controls, Generator, Lang, Options, Register,
};
use registro_store::{RunStatus, Store};
use registro_testkit::llama_server::LlamaServer;

const MODEL: &str = "qwen2.5-coder-0.5b-instruct";

/// One server at a time: three llama.cpp servers and the engine loading at once on 2 cores only slow each other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The server on the 0.5B GGUF at `port` (0: a free one), logging into the temp dir.
fn start(port: u16) -> LlamaServer {
    let gguf = registro_core::models::resolve(MODEL)
        .expect("the 0.5B model is in the model cache (registro models fetch)")
        .main;
    LlamaServer::start(&gguf, port, &std::env::temp_dir())
}

/// What every test connects with; `retries` and `backoff` are the caller's.
fn config(s: &LlamaServer) -> remote::BackendConfig {
    let mut cfg = remote::BackendConfig::new(&s.url());
    cfg.api_key = None;
    cfg.timeout = Duration::from_secs(120);
    cfg
}

fn connect(s: &LlamaServer, retries: u32) -> remote::RemoteGenerator {
    let mut cfg = config(s);
    cfg.retries = retries;
    cfg.backoff = Duration::from_millis(100);
    remote::RemoteGenerator::connect(cfg).unwrap()
}

/// The greedy continuation of `p` (at most 40 tokens) under `c`.
fn greedy(g: &mut dyn Generator, p: &prompt::Prompt, c: &Constraints) -> tr::Generated {
    g.generate(&p.prefix, &p.turn, 1, 40, c, &AtomicBool::new(false))
        .unwrap()
        .remove(0)
}

/// Greedy text and the summed token log-probabilities of the same prompts agree between the candle engine and
/// llama.cpp. Neither side biases here (no constraints), so both report the model's own distribution: llama.cpp's
/// logprobs are taken from the raw logits, the engine's from the logits after its processors (none here).
#[test]
fn greedy_text_and_logprobs_match_the_local_engine() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let server = start(0);
    let mut remote = connect(&server, 1);
    let caps = remote.capabilities().clone();
    assert!(
        caps.logprobs && caps.logit_bias && caps.tokenize.is_some(),
        "{caps:?}"
    );
    assert!(
        !caps.n,
        "llama-cpp-python ignores n, and the probe must see that"
    );
    let mut local = tr::EngineGenerator::load(MODEL).unwrap();
    let mut agree = 0;
    let sources = [
        "Thank you for your help.",
        "Where do you live?",
        "Can you send me the report by Friday?",
        "We will meet tomorrow.",
    ];
    for src in sources {
        let spec = prompt::PromptSpec {
            lang: Lang::De,
            register: Register::Formal,
            instruct: true,
            gender: None,
            shots: &[],
        };
        let p = prompt::build(local.chat_format(), &spec, src).unwrap();
        let a = greedy(&mut local, &p, &Constraints::default());
        let b = greedy(&mut remote, &p, &Constraints::default());
        println!(
            "{src}\n  local  {:?} {} tokens, logprob {:.4}\n  remote {:?} {} tokens, logprob {:.4}",
            a.text, a.tokens, a.logprob, b.text, b.tokens, b.logprob
        );
        if a.text == b.text {
            agree += 1;
            // Two implementations of the same quantised kernels round differently; per token the scores agree to
            // a few hundredths of a nat.
            let per_token = (a.logprob - b.logprob).abs() / b.tokens.max(1) as f32;
            assert!(
                per_token < 0.05,
                "{src}: logprob {} vs {} ({per_token} per token)",
                a.logprob,
                b.logprob
            );
        }
    }
    // Greedy search flips on near-ties when two kernels round differently; all but one must agree exactly.
    assert!(
        agree >= sources.len() - 1,
        "only {agree} of {} greedy outputs agree",
        sources.len()
    );
}

/// A banned marker that is one token on the server never appears (logit_bias -100 on the server's own token id);
/// spellings of several tokens cannot be banned by a bias, and the run's description says how many were not.
#[test]
fn bans_really_ban_through_the_server() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let server = start(0);
    let mut remote = connect(&server, 1);
    let spec = prompt::PromptSpec {
        lang: Lang::De,
        register: Register::Informal,
        instruct: true,
        gender: None,
        shots: &[],
    };
    let c = tr::constrain::for_register(Lang::De, Register::Formal);
    // Which spellings the server can ban: " du", "du", " dich"… when each is a single token.
    let single: Vec<String> = c
        .ban
        .iter()
        .flat_map(|w| [format!(" {w}"), w.clone()])
        .filter(|v| remote.client().tokenize(v).unwrap().len() == 1)
        .collect();
    assert!(single.iter().any(|v| v == " du"), "{single:?}");
    let mut banned_something = false;
    for src in [
        "Do you have time tomorrow?",
        "Can you help me?",
        "Where do you live?",
    ] {
        let p = prompt::build(remote.chat_format(), &spec, src).unwrap();
        let free = greedy(&mut remote, &p, &Constraints::default());
        let held = greedy(&mut remote, &p, &c);
        println!("{src}: free {:?} / with bans {:?}", free.text, held.text);
        let has = |text: &str, v: &str| {
            let w = v.trim_start();
            let words: Vec<&str> = text.split(|ch: char| !ch.is_alphanumeric()).collect();
            if v.starts_with(' ') {
                text.contains(v)
            } else {
                words.first() == Some(&w)
            }
        };
        for v in &single {
            assert!(
                !has(&held.text, v),
                "{src}: banned {v:?} in {:?}",
                held.text
            );
            banned_something |= has(&free.text, v);
        }
    }
    assert!(
        banned_something,
        "the unconstrained outputs never used a bannable marker, so the bans were not tested"
    );
    let d = remote.describe();
    assert_eq!(d["capabilities"]["logit_bias"], true, "{d}");
    assert!(
        d["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("were not banned")),
        "{d}"
    );
}

fn document(store: &mut Store, sources: &[&str]) -> (i64, i64) {
    let p = store.create_project("p").unwrap();
    (p.id, registro_testkit::store_text_document(store, p.id, "mail", sources))
}

/// A document translates through the server into a stored run; then the server is killed mid-document, once two
/// segments are stored while the others are still in flight: the run ends failed with what was stored, and resume
/// (a new server on the same port) produces exactly the missing segments, each segment stored once.
#[test]
fn a_document_translates_through_the_server_and_resumes_after_the_server_is_killed() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut server = start(0);
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("t.db")).unwrap();
    let sources = [
        "Do you have time tomorrow?",
        "Thank you for your help.",
        "Where do you live?",
        "Please call me back.",
        "See you soon.",
    ];
    let (project, doc) = document(&mut store, &sources);
    let texts: Vec<String> = sources.iter().map(|s| s.to_string()).collect();
    let opts = Options {
        controls: "prompt,constrain,rerank,repair"
            .parse::<Controls>()
            .unwrap(),
        n_best: 2,
        max_tokens: 40,
        ..Options::new(Lang::De, Register::Formal)
    };

    let target = tr::RunTarget {
        project_id: project,
        document_id: Some(doc),
    };
    // A new run of the document, translated through `gen`.
    let translate = |store: &mut Store, gen: &mut remote::RemoteGenerator, progress: ProgressFn| {
        let mut t = tr::Translator::new(gen, None);
        tr::translate_and_store(
            store,
            &target,
            &mut t,
            &texts,
            None,
            &opts,
            progress,
            &CancelToken::new(),
        )
    };

    // 1. The whole document, stored.
    let (run, segs) = translate(&mut store, &mut connect(&server, 1), &mut |_| {}).unwrap();
    let r = store.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Done);
    assert!(
        r.model_id.as_deref().unwrap().starts_with("remote:"),
        "{:?}",
        r.model_id
    );
    assert_eq!(r.params["backend"]["url"], server.url());
    let outs = store.outputs(run).unwrap();
    assert_eq!(outs.len(), sources.len());
    for (o, s) in outs.iter().zip(&segs) {
        // Flagged exactly where the analyzer still finds the wrong register after repair, or an output check failed
        // (the 0.5B model leaves English in place: "Sie haben Zeit tomorrow." is flagged for it).
        let meaning = registro_register::meaning::check(tr::Lang::De, &s.source, &o.text);
        assert_eq!(
            o.flagged,
            matches!(s.verdict, tr::Verdict::Wrong | tr::Verdict::Uncertain) || !meaning.is_empty(),
            "{:?} ({:?})",
            o.text,
            s.flag_reason
        );
        assert!(!o.text.is_empty());
    }
    println!(
        "{:?}",
        outs.iter()
            .map(|o| (&o.text, o.flagged))
            .collect::<Vec<_>>()
    );

    // 2. The server dies once two segments are stored; the rest of the document is in flight then (up to 8
    // requests outstanding), and an answer that was already on its way may still be stored.
    let port = server.port;
    let mut gen = connect(&server, 1);
    assert_eq!(gen.describe()["max_in_flight"], 8);
    let mut done = 0;
    let err = translate(&mut store, &mut gen, &mut |_| {
        done += 1;
        if done == 2 {
            server.kill();
        }
    })
    .unwrap_err();
    assert!(format!("{err:#}").contains("cannot reach"), "{err:#}");
    let killed = store
        .list_runs(&Default::default())
        .unwrap()
        .into_iter()
        .find(|r| r.id != run)
        .unwrap();
    assert_eq!(killed.status, RunStatus::Failed);
    let before = store.outputs(killed.id).unwrap();
    assert!(
        (2..sources.len()).contains(&before.len()),
        "{} segments stored before the kill",
        before.len()
    );
    assert_eq!(
        done,
        before.len(),
        "every stored segment was reported, and only those"
    );

    // 3. A new server on the same address; resume reconnects from the run's model id.
    let _server = start(port);
    let out =
        registro_core::resume::resume_run(&mut store, killed.id, &mut |_| {}, &CancelToken::new())
            .unwrap();
    assert_eq!(out.produced, sources.len() - before.len());
    assert_eq!(out.run.status, RunStatus::Done);
    let after = store.outputs(killed.id).unwrap();
    let idx: Vec<i64> = after.iter().map(|o| o.segment_index).collect();
    assert_eq!(
        idx,
        (0..sources.len() as i64).collect::<Vec<_>>(),
        "each segment exactly once"
    );
    for b in &before {
        assert_eq!(
            after
                .iter()
                .find(|a| a.segment_index == b.segment_index)
                .unwrap()
                .text,
            b.text,
            "a finished segment was rewritten"
        );
    }
}

/// The rewrite pipeline on the server: rules, the model's minimal edit and a paraphrase come back as candidates, and
/// the stored run names the server, so it resumes there. llama-cpp-python echoes prompt log-probabilities that are
/// not the model's (about −10 nats per token on plain English without `logits_all`): the probe must not trust them,
/// and asking for fluency there is a clear error that says how to run without it.
#[test]
fn the_rewrite_pipeline_runs_on_the_server_and_refuses_a_fluency_it_cannot_measure() {
    use registro_core::rewrite::{self as rw, Method};
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let server = start(0);
    let cfg = config(&server);
    assert!(
        !connect(&server, 1).capabilities().echo_logprobs,
        "llama-cpp-python's echoed prompt scores were trusted"
    );
    let (neural, model) = rw::open_neural(Method::Llm, None, Some(cfg)).unwrap();
    let mut neural = neural.expect("the LLM method opens the server");
    let model = model.expect("the run records the server");
    assert!(
        model.starts_with("remote:") && model.ends_with(&server.url()),
        "{model}"
    );
    let mut req = rw::RewriteRequest {
        sentences: vec!["thx for the help, ill send u the files b4 friday".into()],
        options: rw::Options::new(rw::Lang::En, Method::Llm),
        model: Some(model.clone()),
        scorer: rw::ScorerChoice::Surface,
        project: None,
        document_id: None,
    };
    let mut rewrite = |req: &rw::RewriteRequest| {
        rw::rewrite(
            None,
            req,
            Some(neural.as_mut()),
            &CancelToken::new(),
            &mut |_| {},
        )
    };
    let err = rewrite(&req).unwrap_err();
    assert!(format!("{err:#}").contains("--no-fluency"), "{err:#}");
    req.options.fluency = false;
    let out = rewrite(&req).unwrap();
    let s = &out.sentences[0];
    let origins: Vec<&str> = s
        .candidates
        .iter()
        .flat_map(|c| {
            std::iter::once(c.candidate.origin.as_str())
                .chain(c.candidate.also.iter().map(String::as_str))
        })
        .collect();
    for want in ["rules", "llm-minimal", "llm-paraphrase#1"] {
        assert!(origins.contains(&want), "{want} missing from {origins:?}");
    }
    println!(
        "on the server: {:?} ({})",
        s.candidates[0].candidate.text, s.candidates[0].candidate.origin
    );
    assert!(
        s.candidates[0].candidate.scores.formality > s.formality_before,
        "{:?}",
        s.candidates[0]
    );
    // A stored run's model id reconnects to the same server (what `registro runs resume` does).
    assert!(rw::neural_backend(Method::Llm, Some(&model)).is_ok());
}
