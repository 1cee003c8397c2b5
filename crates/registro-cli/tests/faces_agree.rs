//! The two faces score the same files the same way: `registro eval --submissions DIR` and the app's "Import a
//! folder…" (which calls `eval_config` with no user settings, then `run_eval`) give identical reports. Before the
//! defaults moved into the core, the app silently fell back to the 13a tokenizer for Japanese where the CLI refused.
//! And they ask for the same translation and rewrite: the CLI's flags and the window's form (core's defaults, then
//! what the user changed, as the page sends it) give one request, stored the same, with the same results.
use std::process::Command;
use std::time::Duration;

#[path = "../../registro-remote/testsupport/fake.rs"]
mod fake;

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
    use registro_core::translate::{request, Lang, Options, Register, TranslateRequest, TranslateSource, MAX_N_BEST};
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
        let mut app_req = TranslateRequest::new(lang, register);
        app_req.options.n_best = n_best;
        let source = TranslateSource { text: "Hello there.".into(), ..Default::default() };
        let app_err = format!("{:#}", request::prepare(&store, &app_req, &source).unwrap_err());
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
    for side in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{side}", db.display()));
    }
    let _ = std::fs::remove_file(&input);
    // The window's own default is core's, and core's default passes its own check.
    Options::new(Lang::De, Register::Formal).validate().unwrap();
}

/// A scratch file name of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("registro-faces-{}-{name}", std::process::id()))
}

/// Runs the CLI with `args` and returns its standard output as JSON.
fn cli_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_registro")).args(args).output().unwrap();
    assert!(out.status.success(), "registro {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("registro {args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// What the window sends: the form starts from core's defaults (the `translate_defaults` / `rewrite_defaults`
/// commands), the user changes some fields, and the page sends it back as JSON, which Tauri deserialises.
fn through_the_page<T: serde::Serialize + serde::de::DeserializeOwned>(form: T) -> T {
    let json = serde_json::to_string(&form).unwrap();
    serde_json::from_str(&json).unwrap()
}

/// Issue 40: the CLI's flags and the window's form build one `TranslateRequest` and one `RewriteRequest`, so the
/// stored parameters are the same whichever face asked. `--dry-run` prints what the flags make, as the run stores it.
#[test]
fn the_cli_flags_and_the_window_form_build_the_same_requests() {
    use registro_core::rewrite::{Method, RewriteRequest, ScorerChoice, Weights};
    use registro_core::translate::{Control, Controls, Gender, Lang, Register, TranslateRequest};

    let cli = cli_json(&[
        "translate", "--lang", "it", "--register", "informal", "--n-best", "6", "--controls", "prompt,fewshot,rerank", "--gender",
        "feminine", "--document-examples", "fixed", "--no-examples", "--contrastive", "--dry-run",
    ]);
    let mut form: TranslateRequest = through_the_page(registro_core::translate::TranslateRequest::default());
    form.options.lang = Lang::It;
    form.options.register = Register::Informal;
    form.options.n_best = 6;
    form.options.controls = Controls(vec![Control::Prompt, Control::Fewshot, Control::Rerank]);
    form.options.gender = Some(Gender::Feminine);
    form.options.fixed_document_examples = true;
    form.examples = false;
    form.contrastive = true;
    let app = through_the_page(form);
    app.validate().unwrap();
    assert_eq!(cli, serde_json::to_value(&app).unwrap(), "the faces ask for different translations");
    // Everything the window did not touch is core's default, as the CLI's flags left them.
    assert_eq!(cli["model"], registro_core::models::default_model());
    assert_eq!(cli["sentence_examples"], registro_core::translate::SENTENCE_EXAMPLES);

    let cli = cli_json(&[
        "rewrite", "--lang", "fr", "--method", "llm", "--n", "3", "--roundtrip", "--keep", "Acme", "--weights", "1,1,0.5,2", "--scorer",
        "lexical", "--no-fluency", "--dry-run",
    ]);
    let mut form: RewriteRequest = through_the_page(RewriteRequest::default());
    form.options.lang = "fr".parse().unwrap();
    form.options.method = Method::Llm;
    form.options.n = 3;
    form.options.roundtrip = true;
    form.options.keep = vec!["Acme".into()];
    form.options.weights = Weights { formality: 1.0, meaning: 1.0, fluency: 0.5, consensus: 2.0 };
    form.options.fluency = false;
    form.scorer = ScorerChoice::Lexical;
    let app = through_the_page(form);
    app.validate().unwrap();
    assert_eq!(cli, serde_json::to_value(&app).unwrap(), "the faces ask for different rewrites");
    // The defaults both start from: the tuned weights, once, in core.
    let d = cli_json(&["rewrite", "--dry-run"]);
    assert_eq!(d, serde_json::to_value(RewriteRequest::default()).unwrap());
    assert_eq!(d["weights"], serde_json::json!({"formality": 1.0, "meaning": 0.5, "fluency": 0.5, "consensus": 6.0}));
}

const SOURCES: [&str; 3] = ["Could you send me report 1 tomorrow?", "Could you check invoice 2 today?", "Could you sign contract 3 this week?"];

/// A vLLM-like server answering each sentence with a formal German one naming its number.
fn respond(path: &str, body: &str) -> fake::Act {
    fake::vllm_qwen(path, body, |turn| match turn.and_then(|t| SOURCES.iter().position(|s| t.contains(s))) {
        Some(i) => fake::completion(&format!("Könnten Sie bitte Nummer {} erledigen?", i + 1)),
        None => fake::completion(" Paris"),
    })
}

/// A real run through each face, on a scripted OpenAI-compatible server (translate) and the rules (rewrite): the CLI
/// binary with its flags, and the core functions the Tauri commands call with the request the form sends. The
/// stored requests and the results are the same, and the window's run over pasted text is over a stored document
/// (so it can be resumed), as the CLI's always was.
#[test]
fn a_translation_and_a_rewrite_run_the_same_through_either_face() {
    use registro_core::progress::CancelToken;
    use registro_core::rewrite::{self as rw, RewriteRequest, RewriteSource};
    use registro_core::translate::{self as tr, request, Lang, Register, TranslateRequest, TranslateSource};

    let server = fake::FakeServer::start_with(Vec::new(), respond);
    let url = server.url();
    let (cli_db, app_db, input) = (scratch("cli.db"), scratch("app.db"), scratch("input.txt"));
    std::fs::write(&input, SOURCES.join("\n") + "\n").unwrap();
    let cli = cli_json(&[
        "--db", cli_db.to_str().unwrap(), "--json", "translate", "--lang", "de", "--backend", &url, "--no-meaning-check", "--input",
        input.to_str().unwrap(),
    ]);
    let cli_store = registro_store::Store::open(&cli_db).unwrap();
    let cli_run = cli_store.run(cli["run_id"].as_i64().unwrap()).unwrap();

    // The window: core's defaults, German, the connected backend, no meaning check; the text pasted.
    let mut form = TranslateRequest::new(Lang::De, Register::Formal);
    form.meaning_check = false;
    let req = through_the_page(form);
    let source = TranslateSource { text: SOURCES.join("\n"), ..Default::default() };
    let mut store = registro_store::Store::open(&app_db).unwrap();
    let project = tr::project_id(&store, "default").unwrap();
    let prepared = request::prepare(&store, &req, &source).unwrap();
    let mut cfg = tr::remote::BackendConfig::new(&url);
    cfg.timeout = Duration::from_secs(30);
    let mut gen = tr::open_generator(None, Some(cfg)).unwrap();
    let mut t = tr::Translator::new(gen.as_mut(), req.pool().unwrap()).with_meaning_check(req.meaning().unwrap());
    let (app_run, segs) = request::run(&mut store, project, &mut t, &req, &source, &prepared, &mut |_| {}, &CancelToken::new()).unwrap();
    let app_run = store.run(app_run).unwrap();

    assert_eq!(cli_run.params["request"], app_run.params["request"], "the faces stored different requests");
    assert!(app_run.params["request"]["model"].as_str().is_some_and(|m| m.starts_with("remote:")), "{}", app_run.params);
    assert_eq!(cli_store.output_texts(cli_run.id).unwrap(), store.output_texts(app_run.id).unwrap());
    assert_eq!(segs.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(), ["Könnten Sie bitte Nummer 1 erledigen?", "Könnten Sie bitte Nummer 2 erledigen?", "Könnten Sie bitte Nummer 3 erledigen?"]);
    assert!(app_run.document_id.is_some(), "pasted text is stored as a document");
    assert_eq!(registro_core::resume::resume_blocker(&app_run), None, "the window's run over pasted text can be resumed");

    // Rewriting by the rules needs no model.
    let cli = cli_json(&["--db", cli_db.to_str().unwrap(), "--json", "rewrite", "--lang", "en", "--input", input.to_str().unwrap()]);
    let cli_run = cli_store.run(cli["run_id"].as_i64().unwrap()).unwrap();
    let sentences = RewriteSource { text: SOURCES.join("\n"), document_id: None }.sentences(&store).unwrap();
    let req = RewriteRequest { sentences, project: Some("default".into()), ..through_the_page(RewriteRequest::default()) };
    let out = rw::rewrite(Some(&mut store), &req, None, &CancelToken::new(), &mut |_| {}).unwrap();
    let app_run = store.run(out.run_id.unwrap()).unwrap();
    assert_eq!(cli_run.params["request"], app_run.params["request"], "the faces stored different rewrite requests");
    assert_eq!(cli_store.output_texts(cli_run.id).unwrap(), store.output_texts(app_run.id).unwrap());

    drop((cli_store, store));
    for f in [cli_db, app_db, input] {
        let _ = std::fs::remove_file(f);
    }
}
