//! The LLM rewrite pipeline on a real model: rules first, the model's minimal edit and a paraphrase, all scored on
//! formality, meaning, fluency and agreement, content checked, and the best by that joint score shown first.
//! Needs the real Qwen2.5-Coder-0.5B file (the README's test command fetches it); skipped with a message otherwise.
use registro_core::progress::CancelToken;
use registro_core::rewrite::{evaluate_xformal, neural_backend, rewrite, Lang, Method, Neural, Options, RewriteRequest, ScorerChoice};

const MODEL: &str = "qwen2.5-coder-0.5b-instruct";

fn request(sentences: &[&str], keep: &[&str]) -> RewriteRequest {
    RewriteRequest {
        sentences: sentences.iter().map(|s| s.to_string()).collect(),
        options: Options { n: 1, keep: keep.iter().map(|s| s.to_string()).collect(), ..Options::new(Lang::En, Method::Llm) },
        model: Some(MODEL.into()),
        scorer: ScorerChoice::Surface,
        project: None,
        document_id: None,
    }
}

/// The model behind the LLM method, or `None` (with a message) where it is not downloaded.
fn backend() -> Option<Box<dyn Neural>> {
    match neural_backend(Method::Llm, Some(MODEL)) {
        Ok(n) => Some(n.expect("the LLM method loads a model")),
        Err(e) => {
            println!("skipped: {MODEL} is not available ({e:#}); run `registro models fetch {MODEL}`");
            None
        }
    }
}

#[test]
fn the_llm_pipeline_offers_rules_minimal_edit_and_paraphrase_and_shows_the_best_first() {
    let Some(mut neural) = backend() else { return };
    let inputs = ["u coming to the party at 8 tonight?? gonna be awesome lol", "i dont think Mike likes the new API tbh"];
    let out = rewrite(None, &request(&inputs, &["API"]), Some(neural.as_mut()), &CancelToken::new(), &mut |_| {}).unwrap();
    assert_eq!(out.sentences.len(), 2);
    for s in &out.sentences {
        let origins: Vec<&str> =
            s.candidates.iter().flat_map(|c| std::iter::once(c.candidate.origin.as_str()).chain(c.candidate.also.iter().map(String::as_str))).collect();
        for want in ["rules", "llm-minimal", "llm-paraphrase#1"] {
            assert!(origins.contains(&want), "{want} missing from {origins:?} for {:?}", s.input);
        }
        // Every candidate carries every axis the choice used.
        for c in &s.candidates {
            let sc = &c.candidate.scores;
            assert!(sc.perplexity.is_some_and(|p| p > 1.0), "{sc:?}");
            assert!(sc.gm > 0.0 && sc.gm <= 1.0, "{sc:?}");
            if s.candidates.len() >= 3 {
                assert!(sc.consensus.is_some(), "{sc:?}");
            }
        }
        // Best first: no unflagged candidate scores above the chosen one, and the chosen one is unflagged whenever
        // any candidate is (the rules' output keeps the content, so there always is one).
        let first = &s.candidates[0].candidate;
        assert!(first.scores.flags.is_empty(), "{:?} chosen with flags {:?}", first.text, first.scores.flags);
        for c in s.candidates.iter().filter(|c| c.candidate.scores.flags.is_empty()) {
            assert!(c.candidate.scores.gm <= first.scores.gm + 1e-12, "{:?} beats the chosen {:?}", c.candidate.text, first.text);
        }
        assert!(first.scores.formality > s.formality_before, "{:?} is not more formal than {:?}", first.text, s.input);
    }
    // Content the writer needs survives in what is shown first: the time, the name and the locked word.
    let best = out.best_texts();
    assert!(best[0].contains('8'), "{best:?}");
    assert!(best[1].contains("Mike") && best[1].contains("API"), "{best:?}");
}

#[test]
fn every_step_is_scored_on_a_folder_with_pang_and_gimpel() {
    let Some(mut neural) = backend() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("informal"), "thx for the help, ill send u the files b4 friday\nthat movie was sooo boring lol\n").unwrap();
    std::fs::write(dir.path().join("formal.ref0"), "Thank you for your help; I will send you the files before Friday.\nThat movie was very boring.\n").unwrap();
    std::fs::write(dir.path().join("formal.ref1"), "Thanks for the help. I will send you the files before Friday.\nThe film was extremely boring.\n").unwrap();
    let r = evaluate_xformal(None, dir.path(), request(&[], &[]), Some(neural.as_mut()), &CancelToken::new(), &mut |_| {}).unwrap();
    let steps: Vec<&str> = r.steps.iter().map(|s| s.step.as_str()).collect();
    for want in ["chosen", "rules", "llm-minimal", "llm-paraphrase#1", "input"] {
        assert!(steps.contains(&want), "{want} missing from {steps:?}");
    }
    let step = |name: &str| &r.steps.iter().find(|s| s.step == name).unwrap().evaluation;
    // Copying the input is the floor of "how much is kept", and the rules beat it on the references here.
    assert!((step("input").chrf_to_input - 100.0).abs() < 1e-9);
    assert!(step("rules").multi_bleu > step("input").multi_bleu, "{:?}", r.steps);
    // Pang & Gimpel's GM exists wherever perplexity was measured, and not for the copied input.
    assert!(step("chosen").pg_gm.is_some() && step("input").pg_gm.is_none());
    assert_eq!(r.evaluation.multi_bleu, step("chosen").multi_bleu);
}
