//! The two faces score the same files the same way: `registro eval --submissions DIR` and the app's "Import a
//! folder…" (which calls `eval_config` with no user settings, then `run_eval`) give identical reports. Before the
//! defaults moved into the core, the app silently fell back to the 13a tokenizer for Japanese where the CLI refused.
use std::process::Command;

use registro_core::eval::{discover_submissions, eval_config, run_eval, EvalSettings};
use registro_core::progress::CancelToken;

#[test]
fn the_cli_and_the_app_score_a_submissions_folder_identically() {
    let Some(dir) = registro_core::shared_data_dir().map(|d| d.join("iwslt2022-umd/en-de")).filter(|d| d.is_dir()) else {
        println!("skipped: IWSLT 2022 EN-DE submissions not found (set REGISTRO_SHARED_DATA)");
        return;
    };
    let db = std::env::temp_dir().join(format!("registro-faces-{}.db", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_registro"))
        .arg("--db")
        .arg(&db)
        .args(["--json", "eval", "--no-store", "--submissions"])
        .arg(&dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&db);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    // What the Tauri command `dashboard_import_submissions` runs.
    let loaded = discover_submissions(&dir, None).unwrap();
    let lang = loaded.lang.clone().unwrap_or_default();
    let cfg = eval_config(&lang, &loaded, &EvalSettings::default()).unwrap();
    let app = run_eval(None, "submissions", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
    let app: Vec<serde_json::Value> = app
        .reports
        .into_iter()
        .map(|mut r| {
            r.sentences = None;
            // Through text, as the CLI's numbers reach the test: serde_json's float parsing is not always
            // correctly rounded, so both sides take the same path.
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap()
        })
        .collect();

    let cli = cli.as_array().expect("a JSON list of system reports");
    assert_eq!(cli.len(), app.len());
    assert!(app.len() >= 10, "five systems × two registers, got {}", app.len());
    for (c, a) in cli.iter().zip(&app) {
        assert_eq!(c, a, "the faces disagree on {}", a["system"]);
        // Scores and signatures are what a user compares; make sure they are really there.
        assert!(a["bleu"]["score"].as_f64().is_some_and(|s| s > 0.0), "{a}");
        assert!(a["bleu"]["signature"].as_str().is_some_and(|s| s.contains("tok:13a")), "{a}");
    }
}

/// Issue 40: the CLI took any `--n-best` (`.max(1)`) where the window clamped to 1..8, and rewrite's `--n` was
/// uncapped in the CLI. Both limits, and "respectful is Japanese only", now live in core: the CLI refuses before
/// loading a model with core's own words, and the request the window builds (`request::prepare`) is refused the same.
#[test]
fn the_cli_and_the_app_refuse_the_same_translation_limits() {
    use registro_core::translate::{request, Lang, Options, Register, MAX_N_BEST};
    let db = std::env::temp_dir().join(format!("registro-faces-limits-{}.db", std::process::id()));
    let store = registro_store::Store::open(&db).unwrap();
    let input = std::env::temp_dir().join(format!("registro-faces-limits-{}.txt", std::process::id()));
    std::fs::write(&input, "Hello there.\n").unwrap();
    let cases = [
        (Lang::De, Register::Formal, MAX_N_BEST + 1, vec!["--n-best".to_string(), (MAX_N_BEST + 1).to_string()]),
        (Lang::De, Register::Formal, 0, vec!["--n-best".to_string(), "0".to_string()]),
        (Lang::It, Register::Respectful, 4, vec!["--register".to_string(), "respectful".to_string()]),
    ];
    for (lang, register, n_best, flags) in cases {
        let app_req = request::Request {
            text: "Hello there.".into(),
            document_id: None,
            overrides: Default::default(),
            contrastive: false,
            opts: Options { n_best, ..Options::new(lang, register) },
        };
        let app_err = format!("{:#}", request::prepare(&store, &app_req).unwrap_err());
        let out = Command::new(env!("CARGO_BIN_EXE_registro"))
            .arg("--db")
            .arg(&db)
            .args(["translate", "--lang", lang.code(), "--no-store", "--model", "no-such-model-is-loaded", "--input"])
            .arg(&input)
            .args(&flags)
            .output()
            .unwrap();
        let cli_err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flags:?} must be refused");
        assert!(cli_err.contains(&app_err), "{flags:?}: the CLI says {cli_err:?}, the window {app_err:?}");
    }
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_file(&input);
    // The window's own default is core's, and core's default passes its own check.
    Options::new(Lang::De, Register::Formal).validate().unwrap();
}
