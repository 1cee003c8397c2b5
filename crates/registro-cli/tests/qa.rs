//! `registro qa RUN_ID` on a run stored in a real SQLite file: the human report, --json, --termbase, --fix, and a
//! non-zero exit while an error blocks the export.
mod common;

use std::path::Path;
use std::process::Output;

use common::registro;

use registro_store::Store;
use registro_testkit::StoredTranslation;


fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A formal EN→DE run over a stored document: one informal segment, one changed number.
fn store_run(db: &Path) -> i64 {
    let mut store = Store::open(db).unwrap();
    let project = store.create_project("client").unwrap().id;
    let pairs = [
        ("Can you send me the invoice?", "Können Sie mir die Rechnung schicken?"),
        ("Do you have time on the 3rd?", "Hast du am 4. Zeit?"),
        ("Where do you want to go?", "Wohin möchten Sie gehen?"),
    ];
    StoredTranslation { project, doc_name: "mail.txt", target_lang: "de", register: Some("formal"), pairs: &pairs, params: None }
        .store(&mut store)
}

#[test]
fn qa_reports_fixes_and_exits_non_zero_while_errors_remain() {
    let dir = common::scratch("report");
    let db = dir.join("r.db");
    let run = store_run(&db).to_string();

    let o = registro(&db, &["qa", &run]);
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert!(out.contains("register: MIXED — Sie ×2, du ×1; dominant Sie; the document should be formal; deviating segments: 2"), "{out}");
    assert!(out.contains("2 error(s), 0 warning(s)"), "{out}");
    assert!(
        out.contains("register        du in a formal document (Sie): \"Hast\", \"du\""),
        "{out}"
    );
    assert!(
        out.contains("number          numbers differ: 3 missing; 4 not in the source"),
        "{out}"
    );
    assert_eq!(
        err.trim(),
        format!("error: run {run}: 2 error(s) block an export (see the report above)")
    );

    let tb = dir.join("terms.csv");
    std::fs::write(
        &tb,
        "source,target,forbidden\ninvoice,Rechnung,Faktura\ntime,Zeit,\n",
    )
    .unwrap();
    let o = registro(
        &db,
        &["--json", "qa", &run, "--termbase", tb.to_str().unwrap()],
    );
    let j: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o).0));
    assert_eq!(j["blocking"], true);
    assert_eq!(j["report"]["terms"]["source_occurrences"], 2);
    assert_eq!(j["report"]["terms"]["missing"], 0);
    assert_eq!(
        j["report"]["consistency"]["deviating"],
        serde_json::json!([1])
    );
    assert_eq!(j["report"]["issues"][0]["spans"][1]["text"], "du");

    // --fix repairs the du segment; the changed number still blocks.
    let o = registro(&db, &["qa", &run, "--fix"]);
    let (out, _) = text(&o);
    assert!(!o.status.success());
    assert!(
        out.contains("fix: 1 segment(s) repaired") && out.contains("→ Haben Sie am 4. Zeit?"),
        "{out}"
    );
    assert!(out.contains("register: consistent (Sie ×3)"), "{out}");
    let store = Store::open(&db).unwrap();
    assert_eq!(
        store.output(run.parse().unwrap(), 1).unwrap().unwrap().text,
        "Haben Sie am 4. Zeit?"
    );

    // Bad input: a termbase that is not one, a run that does not exist.
    let bad = dir.join("terms.tbx");
    std::fs::write(&bad, "<martif><text>\n<body><termEntry></body>").unwrap();
    let (_, err) = text(&registro(
        &db,
        &["qa", &run, "--termbase", bad.to_str().unwrap()],
    ));
    assert!(
        err.starts_with(&format!("error: {}:2: not well-formed XML", bad.display())),
        "{err}"
    );
    let o = registro(&db, &["qa", "4242"]);
    assert!(
        !o.status.success() && text(&o).1.contains("4242"),
        "{:?}",
        text(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `translate --termbase` with the real 0.5B model on a PO document: the forbidden term the model writes without
/// the termbase is banned with it, the run records the termbase, and `registro qa` confirms it.
#[test]
fn translate_with_a_termbase_bans_the_forbidden_term() {
    let Some((dir, db)) = common::small_model_scratch("terms") else { return };
    let po = dir.join("app.po");
    std::fs::write(
        &po,
        "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n\
         msgid \"Please sign the contract and send it back.\"\nmsgstr \"\"\n\n\
         msgid \"Your contract ends in May.\"\nmsgstr \"\"\n",
    )
    .unwrap();
    let tb = dir.join("terms.tsv");
    std::fs::write(
        &tb,
        "source\ttarget\tforbidden\ncontract\tKontrakt\tVertrag\n",
    )
    .unwrap();
    let forbidden_after = |with_termbase: bool| {
        let out = dir.join(format!("app.{with_termbase}.po"));
        let mut args = vec!["--json", "translate"];
        args.extend(common::FORMAL_GERMAN);
        args.extend([
            "--controls",
            "prompt,constrain",
            "--input",
            po.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ]);
        if with_termbase {
            args.extend(["--termbase", tb.to_str().unwrap()]);
        }
        let o = registro(&db, &args);
        assert!(o.status.success(), "{:?}", text(&o));
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let run = j["run_id"].to_string();
        let shown = registro(&db, &["--json", "runs", "show", &run]);
        let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
        assert_eq!(
            shown["run"]["params"]["termbase"]["entries"].as_i64(),
            with_termbase.then_some(1),
            "{shown}"
        );
        let q = registro(
            &db,
            &["--json", "qa", &run, "--termbase", tb.to_str().unwrap()],
        );
        let q: serde_json::Value = serde_json::from_slice(&q.stdout).unwrap();
        assert_eq!(q["report"]["terms"]["source_occurrences"], 2, "{q}");
        q["report"]["terms"]["forbidden"].as_u64().unwrap()
    };
    assert!(
        forbidden_after(false) > 0,
        "without the termbase the model writes \"Vertrag\""
    );
    assert_eq!(forbidden_after(true), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
