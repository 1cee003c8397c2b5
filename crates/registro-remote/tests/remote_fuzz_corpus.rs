//! Replays the kept fuzz corpus of the completion-answer parser (fuzz/corpus/remote_answer): every file gives
//! choices or an error, and the seeds mean what they say.
use registro_remote::parse_completion;

#[test]
fn remote_answer_corpus_parses_or_fails_cleanly() {
    let mut ok = 0;
    for (p, bytes) in registro_testkit::fuzz_corpus("remote_answer") {
        if let Ok(choices) = parse_completion(&bytes) {
            ok += 1;
            assert!(!choices.is_empty(), "{}", p.display());
        }
    }
    assert!(ok >= 3, "fuzz/corpus/remote_answer holds fewer than 3 valid answers");
    let dir = registro_testkit::fuzz_corpus_dir("remote_answer");
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    // The null score of an echoed first prompt token is skipped, not a failure.
    assert_eq!(parse_completion(&read("echo-null-first.json")).unwrap()[0].token_logprobs.as_deref(), Some(&[-3.2f32][..]));
    assert!(format!("{:#}", parse_completion(&read("truncated.json")).unwrap_err()).contains("not JSON"));
    assert!(format!("{:#}", parse_completion(&read("error.json")).unwrap_err()).contains("no \"choices\""));
    assert!(parse_completion(&read("huge-logprob.json")).is_err(), "a logprob that is not a log-probability is refused");
}
