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

/// What the server answers the connect-time probe with: its model, and none of logprobs, `n`, echo or tokenize.
fn probe_answers() -> Vec<Act> {
    vec![
        Act::json(200, r#"{"data":[{"id":"Qwen/Qwen2.5-7B-Instruct"}]}"#),
        text(" Paris"),       // greedy probe: no logprobs
        text(" Paris"),       // n = 2 probe: one choice
        text(" Paris"),       // echo probe: no prompt echoed
        Act::json(404, "{}"), // /tokenize
        Act::json(404, "{}"), // /extras/tokenize
    ]
}

/// `sources` translated through `gen` into a stored run of a new project, without a document.
fn translate_stored(
    store: &mut Store,
    gen: &mut remote::RemoteGenerator,
    sources: &[String],
    opts: &Options,
    progress: registro_core::progress::ProgressFn<'_>,
) -> (i64, Vec<tr::SegmentOut>) {
    let p = store.create_project("p").unwrap();
    let mut t = tr::Translator::new(gen, None);
    let target = tr::RunTarget {
        project_id: p.id,
        document_id: None,
    };
    tr::translate_and_store(
        store,
        &target,
        &mut t,
        sources,
        None,
        opts,
        progress,
        &CancelToken::new(),
    )
    .unwrap()
}

#[test]
fn a_server_without_logprobs_or_tokenizer_still_translates_and_the_run_says_what_it_lacked() {
    let mut script = probe_answers();
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
    let (run, segs) = translate_stored(&mut store, &mut gen, &sources, &opts, &mut |_| {});
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

/// A document for the in-flight test: each source and the formal translation the scripted server gives it.
const DOC: [(&str, &str); 6] = [
    ("Do you have time tomorrow?", "Haben Sie morgen Zeit?"),
    ("Thank you for your help.", "Vielen Dank für Ihre Hilfe."),
    ("Where do you live?", "Wo wohnen Sie?"),
    ("Please call me back.", "Bitte rufen Sie mich zurück."),
    (
        "Can you send me the report?",
        "Können Sie mir den Bericht schicken?",
    ),
    ("Could you help me?", "Könnten Sie mir helfen?"),
];

/// Answers a completion by the source sentence in its prompt, the first segment last: 100 ms per place from the end
/// of the document, so answers arrive in the opposite order to the one they were sent in.
fn by_prompt(path: &str, body: &str) -> Act {
    if !path.ends_with("/completions") {
        return Act::json(404, "{}");
    }
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let prompt = v["prompt"].as_str().unwrap_or_default();
    match DOC.iter().position(|(en, _)| prompt.contains(en)) {
        Some(i) => text(DOC[i].1).delay(Duration::from_millis(100 * (DOC.len() - i) as u64)),
        None => Act::json(400, r#"{"error":{"message":"unknown prompt"}}"#),
    }
}

/// Segments are in flight together across the document: answers that come back out of order are each stored under
/// their own segment as they arrive, and a segment whose request got a 503 (Retry-After 2 s) does not hold up the
/// others, which are all stored before it.
#[test]
fn segments_answered_out_of_order_are_stored_under_their_own_segment_and_a_503_blocks_no_other() {
    let mut script = probe_answers();
    // The first completion request to arrive, whichever segment it is for.
    script.push(Act::json(503, r#"{"error":{"message":"busy"}}"#).header("Retry-After", "2"));
    let server = FakeServer::start_with(script, by_prompt);
    let mut cfg = remote::BackendConfig::new(&server.url());
    cfg.api_key = None;
    cfg.max_in_flight = 8;
    let mut gen = remote::RemoteGenerator::connect(cfg).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("t.db")).unwrap();
    let sources: Vec<String> = DOC.iter().map(|(en, _)| en.to_string()).collect();
    // Two candidates per segment without early exit: 12 requests, a segment done when both of its answers are in.
    let opts = Options {
        controls: "prompt,rerank,repair".parse::<Controls>().unwrap(),
        n_best: 2,
        early_exit: false,
        // The order segments are stored in is what this test is about; the second opinion holds a segment back
        // until it is read (tests/back_translation.rs).
        back_translation: false,
        ..Options::new(Lang::De, Register::Formal)
    };
    let mut stored_order: Vec<String> = Vec::new();
    let (run, _) = translate_stored(&mut store, &mut gen, &sources, &opts, &mut |p| stored_order.push(p.message));
    assert_eq!(store.run(run).unwrap().status, RunStatus::Done);
    let outs = store.outputs(run).unwrap();
    assert_eq!(outs.len(), DOC.len());
    for o in &outs {
        assert_eq!(
            o.text,
            DOC[o.segment_index as usize].1,
            "segment {} got another segment's answer",
            o.segment_index + 1
        );
    }
    // Which segment met the 503: its prompt was sent three times (two candidates and the retry).
    let bodies = server.bodies();
    let sent = |en: &str| bodies.iter().filter(|b| b.contains(en)).count();
    let waited: Vec<usize> = (0..DOC.len()).filter(|&i| sent(DOC[i].0) == 3).collect();
    assert_eq!(waited.len(), 1, "{waited:?}");
    assert!(DOC
        .iter()
        .enumerate()
        .all(|(i, (en, _))| i == waited[0] || sent(en) == 2));
    assert_eq!(stored_order.len(), DOC.len());
    assert_eq!(
        stored_order.last().unwrap(),
        &format!("segment {}", waited[0] + 1),
        "{stored_order:?}"
    );
    // Stored as answered, not in document order: the first segment's answer is the slowest of the rest.
    let without_503: Vec<&String> = stored_order
        .iter()
        .filter(|m| **m != format!("segment {}", waited[0] + 1))
        .collect();
    assert_ne!(
        without_503.first().map(|m| m.as_str()),
        Some("segment 1"),
        "{stored_order:?}"
    );
    assert!(
        (2..=8).contains(&server.max_concurrent()),
        "{}",
        server.max_concurrent()
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
    // The probe's greedy request and its echo request get the same echoed answer.
    let probe_echo = echo(
        &["The", " capital", " of", " France", " is", " Paris"],
        &[
            None,
            Some(-2.0),
            Some(-0.5),
            Some(-1.0),
            Some(-0.3),
            Some(-0.2),
        ],
    );
    let server = FakeServer::start(vec![
        Act::json(200, r#"{"data":[{"id":"Qwen/Qwen2.5-7B-Instruct"}]}"#),
        probe_echo.clone(),
        text(" Paris"),
        probe_echo.clone(),
        Act::json(404, "{}"),
        Act::json(404, "{}"),
        echo(
            &["Thank", " you", " very", " much", ".", " It"],
            &[
                None,
                Some(-1.0),
                Some(-2.0),
                Some(-1.0),
                Some(-0.5),
                Some(-3.0),
            ],
        ),
    ]);
    let mut cfg = remote::BackendConfig::new(&server.url());
    cfg.api_key = None;
    cfg.max_in_flight = 1;
    let (neural, model) = rw::open_neural(Method::Llm, None, Some(cfg)).unwrap();
    assert!(model
        .unwrap()
        .starts_with("remote:Qwen/Qwen2.5-7B-Instruct@"));
    let ppl = neural
        .unwrap()
        .perplexity("Thank you very much.", rw::Lang::En)
        .unwrap();
    // −(−1 − 2 − 1 − 0.5) / 4: the unscored first token and the generated " It" are not the text's.
    assert!((ppl - 1.125f64.exp()).abs() < 1e-4, "{ppl}");
}
