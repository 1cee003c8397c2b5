//! The rules with a model: same rewrite, now with a perplexity per sentence, so rules, round trip and LLM can be
//! compared on the same fluency metric. Needs the real Qwen2.5-Coder-0.5B file (the README's test command
//! fetches it); skipped with a message otherwise.
use registro_core::progress::CancelToken;
use registro_core::rewrite::{neural_backend, rewrite, Lang, Method, Options, RewriteRequest, ScorerChoice, Weights};

fn request(model: Option<&str>) -> RewriteRequest {
    RewriteRequest {
        sentences: vec!["i dont know why u didnt call me!!!".into(), "thats sooo cool lol".into()],
        options: Options { n: 1, weights: Weights::default(), ..Options::new(Lang::En, Method::Rules) },
        model: model.map(str::to_string),
        scorer: ScorerChoice::Surface,
        project: None,
        document_id: None,
    }
}

#[test]
fn rules_with_a_model_add_perplexity_and_keep_the_text() {
    let id = "qwen2.5-coder-0.5b-instruct";
    let mut neural = match neural_backend(Method::Rules, Some(id)) {
        Ok(n) => n.expect("a model was named"),
        Err(e) => {
            println!("skipped: {id} is not available ({e:#}); run `registro models fetch {id}`");
            return;
        }
    };
    assert!(neural_backend(Method::Rules, None).unwrap().is_none(), "rules alone must not load a model");
    let cancel = CancelToken::new();
    let plain = rewrite(None, &request(None), None, &cancel, &mut |_| {}).unwrap();
    let scored = rewrite(None, &request(Some(id)), Some(neural.as_mut()), &cancel, &mut |_| {}).unwrap();
    assert_eq!(plain.best_texts(), scored.best_texts(), "fluency scoring must not change the rules' output");
    assert!(plain.summary.perplexity.is_none());
    let ppl = scored.summary.perplexity.expect("perplexity with a model");
    assert!(ppl > 1.0 && ppl.is_finite(), "perplexity {ppl}");
}
