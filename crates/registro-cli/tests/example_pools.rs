//! The translation example pools ship with Registro and are found beside the installed binary, with no checkout
//! and no `REGISTRO_*` variable: the binary is laid out as a package installs it (`usr/bin/registro`,
//! `usr/share/registro/examples/…`) in a scratch folder and run from there. A pool that is missing is an error that
//! says what is missing and how to fix it, before any model loads; `--no-examples` is the explicit way past it, and
//! a run records which pool it used (or that it used none).
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::run_bounded;

/// The repository's `data/` folder, the app's run-time data in a checkout.
fn repo_data() -> PathBuf {
    registro_testkit::crate_dir().join("../../data").canonicalize().unwrap()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// `root/usr/bin/registro` (a hard link to the built binary where the file system allows, else a copy) and
/// `root/usr/share/registro/examples`, as the .deb installs them.
fn installed_layout(root: &Path) -> PathBuf {
    let bin = root.join("usr/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("registro");
    let built = env!("CARGO_BIN_EXE_registro");
    if std::fs::hard_link(built, &exe).is_err() {
        std::fs::copy(built, &exe).unwrap();
    }
    copy_tree(&repo_data().join("examples"), &root.join("usr/share/registro/examples"));
    exe
}

/// The installed binary run from `cwd`, with none of the checkout's variables (cargo sets `REGISTRO_DATA` and
/// `REGISTRO_SHARED_DATA` for tests) and an empty home, as a user's first run sees it; the model cache is kept.
fn installed(exe: &Path, cwd: &Path, args: &[&str]) -> Command {
    let home = cwd.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = Command::new(exe);
    cmd.args(args).current_dir(cwd).env("HOME", &home).env("XDG_DATA_HOME", home.join(".local/share"));
    for (k, _) in std::env::vars_os() {
        if k.to_str().is_some_and(|k| k.starts_with("REGISTRO_") && k != "REGISTRO_MODELS") {
            cmd.env_remove(&k);
        }
    }
    if std::env::var_os("REGISTRO_MODELS").is_none() {
        // The caller's model cache (the platform default under the real home), since HOME is emptied.
        if let Some(c) = dirs_cache() {
            cmd.env("REGISTRO_MODELS", c);
        }
    }
    cmd
}

fn dirs_cache() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|c| c.join("registro/models"))
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn an_installed_binary_finds_every_pool_beside_itself_and_a_missing_one_is_an_error() {
    let root = common::scratch("installed");
    let exe = installed_layout(&root);
    let cwd = common::scratch("installed-cwd");

    let report = json(&run_bounded(installed(&exe, &cwd, &["doctor", "--offline", "--json"]), Duration::from_secs(120)));
    let ex = &report["examples"];
    assert_eq!(ex["found_by"], "beside the binary", "{ex}");
    let want_dir = root.join("usr/share/registro").canonicalize().unwrap();
    assert_eq!(ex["data_dir"].as_str().unwrap(), want_dir.to_str().unwrap());
    let pools = ex["pools"].as_array().unwrap();
    assert_eq!(pools.len(), 11, "one pool per target language: {ex}");
    for p in pools {
        assert_eq!(p["ok"], true, "{p}");
        // The smallest shipped pool (IWSLT 2023's 400 sources, less the held-out lines) still has hundreds.
        let min = if p["lang"] == "ru" { 10 } else { 100 };
        assert!(p["pairs"].as_u64().unwrap() >= min, "{p}");
    }
    let it = pools.iter().find(|p| p["lang"] == "it").unwrap();
    assert!(it["detail"].as_str().unwrap().contains("cocoa-mt/en-it"), "{it}");

    // The Italian pool removed: doctor says so, and a translation stops before loading a model, naming the fix.
    std::fs::remove_dir_all(root.join("usr/share/registro/examples/cocoa-mt/en-it")).unwrap();
    let report = json(&run_bounded(installed(&exe, &cwd, &["doctor", "--offline", "--json"]), Duration::from_secs(120)));
    let it = report["examples"]["pools"].as_array().unwrap().iter().find(|p| p["lang"] == "it").unwrap().clone();
    assert_eq!(it["ok"], false, "{it}");
    let out = run_bounded(
        installed(&exe, &cwd, &["--db", "r.db", "translate", "--lang", "it", "--register", "formal", "--model", "no-such-model", "Hello"]),
        Duration::from_secs(120),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Italian translation examples are missing") && err.contains("--no-examples") && err.contains("REGISTRO_DATA"), "{err}");
    assert!(!err.contains("no-such-model"), "the pool is checked before the model is looked up: {err}");

    // No data folder at all (the binary moved away from it): the error lists where it looked.
    std::fs::remove_dir_all(root.join("usr/share/registro")).unwrap();
    let out = run_bounded(
        installed(&exe, &cwd, &["--db", "r.db", "translate", "--lang", "de", "--register", "formal", "--model", "no-such-model", "Hello"]),
        Duration::from_secs(120),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("translation examples were not found") && err.contains("share/registro/examples"), "{err}");
}

#[test]
fn a_run_names_the_pool_it_used_or_that_it_chose_none() {
    let Some((dir, _db)) = common::small_model_scratch("pool-params") else { return };
    let exe = installed_layout(&dir);
    let cwd = dir.join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let db = cwd.join("r.db");
    let db = db.to_str().unwrap();
    let translate = |extra: &[&str]| {
        let mut args = vec!["--db", db, "translate", "--lang", "it", "--register", "formal", "--model", common::SMALL_MODEL];
        args.extend_from_slice(&["--no-meaning-check", "--n-best", "1", "--json"]);
        args.extend_from_slice(extra);
        args.push("Can you send me the file by Friday?");
        let out = json(&run_bounded(installed(&exe, &cwd, &args), Duration::from_secs(600)));
        let run = json(&run_bounded(installed(&exe, &cwd, &["--db", db, "runs", "show", &out["run_id"].to_string(), "--json"]), Duration::from_secs(60)));
        run["run"]["params"]["fewshot_pool"].as_str().unwrap().to_string()
    };
    let with = translate(&[]);
    assert!(with.contains("cocoa-mt/en-it") && with.contains("beside the binary"), "{with}");
    let without = translate(&["--no-examples"]);
    assert_eq!(without, registro_core::translate::NO_EXAMPLES);
}
