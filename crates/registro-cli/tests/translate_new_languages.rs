//! EN→NL/PT/KO/VI/RU formal with the real 0.5B model through the built binary: each run is stored with its target
//! language and register, every segment carries the analyzer's label and flag, a wrong register is never returned
//! unflagged, and a candidate the meaning checks reject (refusal, untranslated, changed number) is never chosen
//! over one they accept.
mod common;

use common::ok_json as registro;


#[test]
fn formal_translation_into_the_new_languages_is_stored_with_register_flags() {
    let Some((_dir, db)) = common::small_model_scratch("newlangs") else { return };
    for lang in ["nl", "pt", "ko", "vi", "ru"] {
        let out = registro(
            &db,
            &[
                "translate",
                "--lang",
                lang,
                "--register",
                "formal",
                "--model",
                "qwen2.5-coder-0.5b-instruct",
                "--json",
                "Do you have 2 tickets for Friday?",
            ],
        );
        let seg = &out["segments"][0];
        let (verdict, flagged) = (seg["verdict"].as_str().unwrap(), seg["flagged"].as_bool().unwrap());
        assert!(
            ["FORMAL", "INFORMAL", "NEUTRAL", "MIXED"].contains(&seg["analysis"]["label"].as_str().unwrap()),
            "{lang}: {seg}"
        );
        assert!(
            verdict != "wrong" || flagged,
            "{lang}: a wrong register came back unflagged: {seg}"
        );
        assert!(
            !flagged || !seg["flag_reason"].as_str().unwrap_or("").is_empty(),
            "{lang}: flagged without a reason"
        );
        let cands = seg["candidates"].as_array().unwrap();
        let chosen = cands.iter().find(|c| c["chosen"] == true).unwrap();
        // A meaning problem costs 100 points of score; an accepted candidate stays above -50.
        if cands.iter().any(|c| c["score"].as_f64().unwrap() > -50.0) {
            assert!(
                chosen["score"].as_f64().unwrap() > -50.0,
                "{lang}: an unfaithful candidate was chosen: {seg}"
            );
        }
        let run = registro(&db, &["runs", "show", &out["run_id"].to_string(), "--json"]);
        assert_eq!(run["run"]["target_lang"], lang);
        assert_eq!(run["run"]["register"], "formal");
        assert_eq!(run["run"]["status"], "done");
        println!(
            "{lang}: {} [{}{}]",
            seg["text"],
            verdict,
            if flagged {
                format!(", flagged: {}", seg["flag_reason"])
            } else {
                String::new()
            }
        );
    }
}
