//! Issue 40: `registro eval` and the Dashboard print the same BLEU for one Japanese run. The Dashboard tokenized
//! Japanese by characters when the IPADIC dictionary was missing (and Chinese always), where eval used ja-mecab or
//! refused; both now take BLEU's tokenizer from one rule (`registro_metrics::bleu_tokenizer`), so they agree on the
//! number — or, without the dictionary, refuse with the same words.
use std::path::Path;
use std::process::Command;

use registro_core::report::{self, CompareOptions, CompareRequest};

const REFS: [&str; 6] = [
    "明日の会議は午後三時に始まります。",
    "この資料を確認していただけますか。",
    "駅までの道を教えてください。",
    "新しいプロジェクトについて話し合いましょう。",
    "昨日はとても寒かったです。",
    "お客様からの質問に答えました。",
];
const HYPS: [&str; 6] = [
    "明日の会議は午後三時から始まります。",
    "この資料を確認してもらえますか。",
    "駅への道を教えてください。",
    "新しいプロジェクトについて話しましょう。",
    "昨日はすごく寒かったです。",
    "お客様の質問に答えました。",
];

fn write_lines(path: &Path, lines: &[&str]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn the_cli_and_the_dashboard_print_the_same_bleu_for_a_japanese_run() {
    let dir = std::env::temp_dir().join(format!("registro-faces-ja-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, reference, hyp, db) = (dir.join("test.en"), dir.join("test.ref.ja"), dir.join("system.ja"), dir.join("runs.db"));
    write_lines(&src, &["The meeting tomorrow starts at three.", "Could you check this?", "Tell me the way.", "Let's talk.", "It was cold.", "I answered."]);
    write_lines(&reference, &REFS);
    write_lines(&hyp, &HYPS);

    // The CLI scores the file and stores it as a run.
    let out = Command::new(env!("CARGO_BIN_EXE_registro"))
        .arg("--db")
        .arg(&db)
        .args(["--json", "eval", "--lang", "ja", "--hyp"])
        .arg(&hyp)
        .arg("--ref")
        .arg(&reference)
        .arg("--src")
        .arg(&src)
        .output()
        .unwrap();
    let dictionary = registro_core::eval::registro_metrics::bleu_tokenizer("ja");
    let Ok(_) = dictionary else {
        // Without the IPADIC dictionary both faces refuse, with the same words (no other tokenizer's number).
        let words = dictionary.err().unwrap();
        assert!(!out.status.success(), "eval must refuse Japanese without its tokenizer");
        assert!(String::from_utf8_lossy(&out.stderr).contains(&words), "{}", String::from_utf8_lossy(&out.stderr));
        println!("IPADIC dictionary missing: both faces refuse ({words})");
        std::fs::remove_dir_all(&dir).ok();
        return;
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cli_bleu = cli[0]["bleu"]["score"].as_f64().expect("the CLI prints BLEU");
    let signature = cli[0]["bleu"]["signature"].as_str().unwrap().to_string();
    assert!(signature.contains(&format!("tok:{}", registro_metrics_ja_signature())), "{signature}");
    assert!(cli_bleu > 10.0 && cli_bleu < 100.0, "near-paraphrases score between: {cli_bleu}");

    // What the window's `dashboard_compare` runs over the stored run.
    let mut store = registro_store::Store::open(&db).unwrap();
    let runs: Vec<i64> = store.list_runs(&Default::default()).unwrap().iter().map(|r| r.id).collect();
    assert_eq!(runs.len(), 1, "one stored eval run");
    let data = report::load(&store, &CompareRequest { runs: runs.clone(), baseline: None, reference: None }).unwrap();
    let prep = report::prepare_stored(data, &mut store).unwrap();
    let cmp = report::compare(&prep, &CompareOptions { bootstrap: 0, ..Default::default() }).unwrap();
    let corpus = cmp.table("corpus").expect("the corpus table");
    let col = corpus.columns.iter().position(|c| c.key == "bleu").expect("a BLEU column");
    let dash_bleu = corpus.rows[0].cells[col].value.expect("the Dashboard shows BLEU");
    assert_eq!(
        format!("{cli_bleu:.4}"),
        format!("{dash_bleu:.4}"),
        "eval printed {cli_bleu}, the Dashboard {dash_bleu} for the same Japanese run"
    );
    assert!((cli_bleu - dash_bleu).abs() < 1e-9, "eval {cli_bleu} vs Dashboard {dash_bleu}");
    // The Dashboard's note names the same tokenizer eval's signature does.
    let note = corpus.notes.iter().find(|n| n.starts_with("BLEU:")).expect("BLEU's signature note");
    assert!(note.contains(&format!("tok:{}", registro_metrics_ja_signature())), "{note}");
    std::fs::remove_dir_all(&dir).ok();
}

fn registro_metrics_ja_signature() -> &'static str {
    registro_core::eval::registro_metrics::ja::SIGNATURE
}

/// One `EvalRequest` from either face: the CLI's flags and the JSON the window sends (`dashboard_import_submissions`'
/// `request`, fields left out taking core's defaults) score the same files to the same report and store the same run
/// parameters, and a request over the limits is refused by both with core's words.
#[test]
fn the_cli_flags_and_the_window_request_are_one_eval_request() {
    use registro_core::eval::{eval_config, load_files, run_eval_request, EvalFiles, EvalRequest};
    use registro_core::progress::CancelToken;
    let dir = std::env::temp_dir().join(format!("registro-faces-request-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (reference, a, b) = (dir.join("ref.de"), dir.join("a.de"), dir.join("b.de"));
    let refs = ["Kannst du mir helfen?", "Wo ist der Bahnhof?", "Vielen Dank für alles.", "Bis morgen früh.", "Das Wetter ist schön."];
    write_lines(&reference, &refs);
    write_lines(&a, &["Kannst du mir helfen?", "Wo ist der Bahnhof?", "Vielen Dank.", "Bis morgen.", "Das Wetter ist gut."]);
    write_lines(&b, &["Können Sie mir helfen?", "Wo ist der Bahnhof bitte?", "Danke für alles.", "Bis morgen früh.", "Es ist schön."]);
    let cli_db = dir.join("cli.db");
    let cli = |flags: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_registro"))
            .arg("--db")
            .arg(&cli_db)
            .args(["--json", "eval", "--lang", "de", "--hyp"])
            .args([&a, &b])
            .arg("--ref")
            .arg(&reference)
            .args(flags)
            .output()
            .unwrap()
    };
    let out = cli(&["--metrics", "bleu,chrf++", "--paired-bs", "--seed", "7", "--smooth", "floor"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut cli_reports: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let cli_runs: Vec<i64> = cli_reports.iter_mut().map(|r| r.as_object_mut().unwrap().remove("run_id").unwrap().as_i64().unwrap()).collect();

    // The window's form: what it leaves out (the tokenizer, the sample count's unit…) is core's default.
    let window: EvalRequest =
        serde_json::from_str(r#"{"metrics": ["bleu", "chrf++"], "paired_bs": 1000, "seed": 7, "smooth": "floor"}"#).unwrap();
    let loaded = load_files(&EvalFiles { hyps: vec![a.clone(), b.clone()], refs: vec![reference.clone()], ..Default::default() }).unwrap();
    // What `dashboard_import_submissions` runs.
    let mut store = registro_store::Store::open(dir.join("app.db")).unwrap();
    let app = run_eval_request(Some(&mut store), "default", &loaded, "de", &window, &CancelToken::new(), &mut |_| {}).unwrap();
    let app_reports: Vec<serde_json::Value> = app
        .reports
        .into_iter()
        .map(|mut r| {
            r.sentences = None;
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap()
        })
        .collect();
    assert_eq!(cli_reports, app_reports, "the same request scores the same");
    assert!(app_reports[1]["chrf_pp"]["signature"].as_str().unwrap().contains("bs:1000|seed:7"), "{}", app_reports[1]);
    assert!(app_reports[1]["bleu"]["signature"].as_str().unwrap().contains("smooth:floor"), "{}", app_reports[1]);
    assert!(app_reports[1]["bleu"]["significance"]["p_value"].as_f64().is_some(), "a paired test ran");

    let cli_store = registro_store::Store::open(&cli_db).unwrap();
    for (c, w) in cli_runs.iter().zip(&app.run_ids) {
        assert_eq!(cli_store.run(*c).unwrap().params, store.run(*w).unwrap().params, "the same stored parameters");
    }
    // Each run stores the request it was scored with, core's defaults filled in, and it reads back as that request.
    let stored: EvalRequest = serde_json::from_value(store.run(app.run_ids[0]).unwrap().params["request"].clone()).unwrap();
    assert_eq!(stored, window);
    assert_eq!((stored.smooth.as_str(), stored.paired_bs, stored.tokenize.as_deref()), ("floor", Some(1000), None));

    // Over the limits: both faces refuse before scoring, in core's words.
    let too_few: EvalRequest = serde_json::from_str(r#"{"paired_bs": 5}"#).unwrap();
    let app_err = format!("{:#}", eval_config("de", &loaded, &too_few).unwrap_err());
    let out = cli(&["--paired-bs", "5"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(&app_err), "the CLI says {:?}, core {app_err:?}", String::from_utf8_lossy(&out.stderr));
    assert!(app_err.contains("between 10 and 1000000"), "{app_err}");
    std::fs::remove_dir_all(&dir).ok();
}
