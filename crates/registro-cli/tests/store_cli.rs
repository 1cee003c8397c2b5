//! The built `registro` binary: project create/list, import, runs list with --json, and errors on stderr.

mod common;

use std::path::{Path, PathBuf};

use common::{ok_json, registro, scratch};




#[test]
fn project_import_runs_round_trip() {
    let dir = scratch("roundtrip");
    let db = dir.join("r.db");
    let p = ok_json(&db, &["--json", "project", "create", "letters"]);
    assert_eq!(p["name"], "letters");

    let text = dir.join("draft.txt");
    std::fs::write(&text, "hey, wanna meet?\n\nthx a lot\n").unwrap();
    let imp = ok_json(&db, &["--json", "import", text.to_str().unwrap(), "--project", "letters"]);
    assert_eq!(imp["segments"], 2);
    assert_eq!(imp["documents"][0]["name"], "draft.txt");

    let list = ok_json(&db, &["--json", "project", "list"]);
    assert_eq!(list[0]["name"], "letters");
    assert_eq!(list[0]["documents"], 1);

    let human = registro(&db, &["project", "list"]);
    let human = String::from_utf8(human.stdout).unwrap();
    assert!(human.contains("letters") && human.contains("documents"), "{human}");

    let runs = ok_json(&db, &["--json", "runs", "list", "--project", "letters"]);
    assert_eq!(runs, serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_go_to_stderr_with_a_failing_exit_code() {
    let dir = scratch("errors");
    let db = dir.join("r.db");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, b"ok\nbad \xfe\n").unwrap();
    assert!(registro(&db, &["project", "create", "p"]).status.success());
    let out = registro(&db, &["import", bad.to_str().unwrap(), "--project", "p"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid UTF-8 at line 2, byte offset 7"), "{err}");
    assert!(out.stdout.is_empty());
    // Nothing was imported.
    let list = ok_json(&db, &["--json", "project", "list"]);
    assert_eq!(list[0]["documents"], 0);

    let out = registro(&db, &["runs", "show", "42"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("run 42 not found"));
    let out = registro(&db, &["import", bad.to_str().unwrap(), "--project", "nope"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("project \"nope\" not found"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn imports_the_real_cocoa_folder() {
    let base = std::env::var_os("REGISTRO_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let folder = base.join("cocoa-mt/test/en-de");
    if !folder.is_dir() {
        eprintln!("skipped: imports_the_real_cocoa_folder: {} not found", folder.display());
        return;
    }
    let dir = scratch("cocoa");
    let db = dir.join("r.db");
    assert!(registro(&db, &["project", "create", "cocoa"]).status.success());
    let imp = ok_json(&db, &["--json", "import", folder.to_str().unwrap(), "-p", "cocoa"]);
    assert_eq!(imp["documents"].as_array().unwrap().len(), 3);
    assert_eq!(imp["segments"], 600);
    let _ = std::fs::remove_dir_all(&dir);
}
