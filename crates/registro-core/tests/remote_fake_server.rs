//! The remote backend through the whole control layer against a scripted server that returns no logprobs and has no
//! tokenize endpoint (what some OpenAI-compatible proxies do): the document still translates into a stored run, the
//! run's parameters say what could not be done, and the API key appears nowhere in the store.
use std::time::Duration;

use registro_core::progress::CancelToken;
use registro_core::translate::{self as tr, remote, Controls, Lang, Options, Register};
use registro_store::{RunStatus, Store};

#[path = "../../registro-remote/testsupport/fake.rs"]
mod fake;
use fake::{Act, FakeServer};

const KEY: &str = "sk-never-store-me-77";

fn text(t: &str) -> Act {
    Act::json(
        200,
        &serde_json::json!({"choices": [{"text": t, "finish_reason": "stop"}]}).to_string(),
    )
}

#[test]
fn a_server_without_logprobs_or_tokenizer_still_translates_and_the_run_says_what_it_lacked() {
    let mut script = vec![
        Act::json(200, r#"{"data":[{"id":"Qwen/Qwen2.5-7B-Instruct"}]}"#),
        text(" Paris"),       // greedy probe: no logprobs
        text(" Paris"),       // n = 2 probe: one choice
        text(" Paris"),       // echo probe: no prompt echoed
        Act::json(404, "{}"), // /tokenize
        Act::json(404, "{}"), // /extras/tokenize
    ];
    // Two segments, two candidates each (greedy + one seeded request); the second segment's greedy answer comes
    // after a 503 with Retry-After.
    script.extend([text("Haben Sie morgen Zeit?"), text("Hast du morgen Zeit?")]);
    script.extend([
        Act::json(503, "busy").header("Retry-After", "0"),
        text("Vielen Dank für Ihre Hilfe."),
        text("Danke für deine Hilfe."),
    ]);
    let server = FakeServer::start(script);
    let mut cfg = remote::BackendConfig::new(&server.url());
    cfg.api_key = remote::ApiKey::new(KEY);
    cfg.max_in_flight = 1;
    cfg.backoff = Duration::from_millis(10);
    let mut gen = remote::RemoteGenerator::connect(cfg).unwrap();
    assert!(
        !gen.capabilities().logprobs
            && !gen.capabilities().n
            && gen.capabilities().tokenize.is_none()
    );

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let mut store = Store::open(&db).unwrap();
    let p = store.create_project("p").unwrap();
    let sources = vec![
        "Do you have time tomorrow?".to_string(),
        "Thank you for your help.".to_string(),
    ];
    let opts = Options {
        controls: "prompt,constrain,rerank,repair"
            .parse::<Controls>()
            .unwrap(),
        n_best: 2,
        ..Options::new(Lang::De, Register::Formal)
    };
    let mut t = tr::Translator::new(&mut gen, None);
    let target = tr::RunTarget {
        project_id: p.id,
        document_id: None,
    };
    let (run, segs) = tr::translate_and_store(
        &mut store,
        &target,
        &mut t,
        &sources,
        None,
        &opts,
        &mut |_| {},
        &CancelToken::new(),
    )
    .unwrap();
    // Without model scores the register decides: the formal candidate wins, the informal one is not chosen.
    assert_eq!(segs[0].text, "Haben Sie morgen Zeit?");
    assert_eq!(segs[1].text, "Vielen Dank für Ihre Hilfe.");
    assert!(segs.iter().all(|s| !s.flagged));
    let r = store.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Done);
    assert_eq!(
        r.model_id.as_deref(),
        Some(format!("remote:Qwen/Qwen2.5-7B-Instruct@{}", server.url()).as_str())
    );
    let notes = r.params["backend"]["notes"].to_string();
    assert!(
        notes.contains("reranked by register only") && notes.contains("bans are not sent"),
        "{notes}"
    );
    assert_eq!(
        r.params["backend"]["chat_template"].as_str().unwrap(),
        "built-in template for the family of \"Qwen2.5-7B-Instruct\""
    );
    // Every request carried the key; the raw prompt is rendered here (ChatML of Qwen), the same prefix each time.
    assert_eq!(
        server.last_header("authorization").as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    let bodies = server.bodies();
    let prompts: Vec<String> = bodies[6..]
        .iter()
        .filter_map(|b| {
            serde_json::from_str::<serde_json::Value>(b).ok()?["prompt"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert!(
        prompts
            .iter()
            .all(|p| p.starts_with("<|im_start|>system\n")),
        "{prompts:?}"
    );
    drop(store);
    let bytes = std::fs::read(&db).unwrap();
    assert!(
        !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
        "the API key reached the database"
    );
}

/// Fluency of a rewrite candidate on a server that echoes the prompt's log-probabilities as vLLM does (the first
/// token unscored, then the one generated token after the text): the perplexity is taken over the text's own
/// tokens only.
#[test]
fn a_rewrite_candidate_perplexity_counts_only_the_echoed_text() {
    use registro_core::rewrite::{self as rw, Method};
    let echo = |tokens: &[&str], lps: &[Option<f32>]| {
        Act::json(
            200,
            &serde_json::json!({"choices": [{"text": tokens.concat(), "finish_reason": "length",
                "logprobs": {"tokens": tokens, "token_logprobs": lps}}]})
            .to_string(),
        )
    };
    let server = FakeServer::start(vec![
        Act::json(200, r#"{"data":[{"id":"Qwen/Qwen2.5-7B-Instruct"}]}"#),
        echo(&["The", " capital", " of", " France", " is", " Paris"], &[None, Some(-2.0), Some(-0.5), Some(-1.0), Some(-0.3), Some(-0.2)]),
        text(" Paris"),
        echo(&["The", " capital", " of", " France", " is", " Paris"], &[None, Some(-2.0), Some(-0.5), Some(-1.0), Some(-0.3), Some(-0.2)]),
        Act::json(404, "{}"),
        Act::json(404, "{}"),
        echo(&["Thank", " you", " very", " much", ".", " It"], &[None, Some(-1.0), Some(-2.0), Some(-1.0), Some(-0.5), Some(-3.0)]),
    ]);
    let mut cfg = remote::BackendConfig::new(&server.url());
    cfg.api_key = None;
    cfg.max_in_flight = 1;
    let (neural, model) = rw::open_neural(Method::Llm, None, Some(cfg)).unwrap();
    assert!(model.unwrap().starts_with("remote:Qwen/Qwen2.5-7B-Instruct@"));
    let ppl = neural.unwrap().perplexity("Thank you very much.", rw::Lang::En).unwrap();
    // −(−1 − 2 − 1 − 0.5) / 4: the unscored first token and the generated " It" are not the text's.
    assert!((ppl - 1.125f64.exp()).abs() < 1e-4, "{ppl}");
}
