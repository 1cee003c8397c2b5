//! Rewriting a document in batches (each model step for several sentences at once: greedy rows of one decode,
//! perplexities of many candidates per forward pass, embeddings in one call) scores and chooses, for every sentence
//! that got the same candidates, what the one-sentence-at-a-time path does. Needs the real Qwen2.5-Coder-0.5B file (the README's test command fetches
//! it); skipped with a message otherwise.
use registro_core::progress::CancelToken;
use registro_core::rewrite::{rewrite, Lang, LlmBackend, Method, Options, RewriteOutcome, RewriteRequest, ScorerChoice, SentenceResult};

const MODEL: &str = "qwen2.5-coder-0.5b-instruct";

fn run(rows: usize, req: &RewriteRequest) -> Option<(RewriteOutcome, Vec<u64>)> {
    let mut nn = match LlmBackend::load(MODEL) {
        Ok(n) => n.with_batch_rows(rows),
        Err(e) => {
            println!("skipped: {MODEL} is not available ({e:#}); run `registro models fetch {MODEL}`");
            return None;
        }
    };
    let mut seen = Vec::new();
    let out = rewrite(None, req, Some(&mut nn), &CancelToken::new(), &mut |p| seen.push(p.done)).unwrap();
    Some((out, seen))
}

#[test]
fn batched_rewrites_choose_what_sentence_by_sentence_chooses_from_the_same_candidates() {
    let sentences = [
        "u coming to the party at 8 tonight?? gonna be awesome lol",
        "i dont think Mike likes the new API tbh",
        "thx for the help, ill send u the files b4 friday",
        "that movie was sooo boring, never watching it again",
        "can u check if the server is down? it keeps crashing and i have no idea why, its driving me nuts",
    ];
    let req = RewriteRequest {
        sentences: sentences.iter().map(|s| s.to_string()).collect(),
        options: Options { n: 1, roundtrip: true, ..Options::new(Lang::En, Method::Llm) },
        model: Some(MODEL.into()),
        scorer: ScorerChoice::Surface,
        project: None,
        document_id: None,
    };
    let Some((alone, _)) = run(1, &req) else { return };
    let (batched, progress) = run(3, &req).unwrap();
    // Every sentence is reported once, in order, though they finish three at a time.
    assert_eq!(progress, (1..=sentences.len() as u64).collect::<Vec<_>>());
    assert_eq!(batched.sentences.len(), sentences.len());
    // Greedy rows decoded together can part from the one-row decode at a near tie (the engine's batched arithmetic
    // sums in another order), so a candidate's text may differ. Where a sentence got the same candidates, the scores,
    // flags, order and choice must be the same: nothing in the choice depends on the batch.
    let texts = |s: &SentenceResult| {
        let mut t: Vec<String> = s.candidates.iter().map(|c| c.candidate.text.clone()).collect();
        t.sort();
        t
    };
    let mut same = 0;
    for (a, b) in alone.sentences.iter().zip(&batched.sentences) {
        if texts(a) != texts(b) {
            println!("{:?}: other candidates when batched\n  alone   {:?}\n  batched {:?}", a.input, texts(a), texts(b));
            continue;
        }
        same += 1;
        for (x, y) in a.candidates.iter().zip(&b.candidates) {
            assert_eq!(x.candidate.text, y.candidate.text, "{:?}: another order", a.input);
            assert_eq!(x.candidate.scores.flags.len(), y.candidate.scores.flags.len(), "{:?}", x.candidate.text);
            let (px, py) = (x.candidate.scores.perplexity.unwrap(), y.candidate.scores.perplexity.unwrap());
            assert!((px - py).abs() <= 1e-3 * px, "{:?}: perplexity {px} alone, {py} batched", x.candidate.text);
            assert!((x.candidate.scores.gm - y.candidate.scores.gm).abs() < 1e-3, "{:?}", x.candidate.text);
        }
    }
    println!("{same} of {} sentences got the same candidates batched", sentences.len());
    assert!(same > 0, "no sentence got the same candidates batched and alone");
}
