//! Replays the kept fuzz corpus of the completion-answer parser (fuzz/corpus/remote_answer): every file gives
//! choices or an error, and the seeds mean what they say.
use registro_remote::parse_completion;

#[test]
fn remote_answer_corpus_parses_or_fails_cleanly() {
    let dir = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/remote_answer");
    let mut ok = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = entry.unwrap().path();
        if let Ok(choices) = parse_completion(&std::fs::read(&p).unwrap()) {
            ok += 1;
            assert!(!choices.is_empty(), "{}", p.display());
        }
    }
    assert!(ok >= 3, "{} holds fewer than 3 valid answers", dir.display());
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    // The null score of an echoed first prompt token is skipped, not a failure.
    assert_eq!(parse_completion(&read("echo-null-first.json")).unwrap()[0].token_logprobs.as_deref(), Some(&[-3.2f32][..]));
    assert!(format!("{:#}", parse_completion(&read("truncated.json")).unwrap_err()).contains("not JSON"));
    assert!(format!("{:#}", parse_completion(&read("error.json")).unwrap_err()).contains("no \"choices\""));
    assert!(parse_completion(&read("huge-logprob.json")).is_err(), "a logprob that is not a log-probability is refused");
}
