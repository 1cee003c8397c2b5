//! Rewriting a document in batches (each model step for several sentences at once: greedy rows of one decode,
//! perplexities of many candidates per forward pass, embeddings in one call) chooses, for every sentence, what the
//! one-sentence-at-a-time path chooses. Needs the real Qwen2.5-Coder-0.5B file (the README's test command fetches
//! it); skipped with a message otherwise.
use registro_core::progress::CancelToken;
use registro_core::rewrite::{rewrite, Lang, LlmBackend, Method, Options, RewriteOutcome, RewriteRequest, ScorerChoice};

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
fn batched_rewrites_choose_what_sentence_by_sentence_chooses() {
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
    for (a, b) in alone.sentences.iter().zip(&batched.sentences) {
        let view = |s: &registro_core::rewrite::SentenceResult| {
            s.candidates.iter().map(|c| (c.candidate.text.clone(), c.candidate.origin.clone(), c.candidate.also.clone(), c.candidate.scores.flags.len())).collect::<Vec<_>>()
        };
        // The same candidates (minimal edit, paraphrase, round trip, rules), flagged alike, in the same order.
        assert_eq!(view(a), view(b), "{:?}", a.input);
        for (x, y) in a.candidates.iter().zip(&b.candidates) {
            let (px, py) = (x.candidate.scores.perplexity.unwrap(), y.candidate.scores.perplexity.unwrap());
            assert!((px - py).abs() <= 1e-3 * px, "{:?}: perplexity {px} alone, {py} batched", x.candidate.text);
            assert!((x.candidate.scores.gm - y.candidate.scores.gm).abs() < 1e-3, "{:?}", x.candidate.text);
        }
    }
    assert_eq!(alone.best_texts(), batched.best_texts());
}
