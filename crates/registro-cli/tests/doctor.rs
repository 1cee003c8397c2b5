//! `registro doctor` reports what a bug report needs, from the real binary; `--device` refuses nonsense with the
//! accepted values and falls back to the CPU, saying why, when the GPU asked for cannot be used.

mod common;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::{command, run_bounded, scratch};


/// Runs `registro` with a private model cache and shared-data folder, killed after 30 s.
fn registro(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = command(None, args);
    cmd.env_remove("REGISTRO_DEVICE")
        .env("REGISTRO_MODELS", dir.join("models"))
        .env("REGISTRO_SHARED_DATA", dir.join("shared"))
        .envs(env.iter().copied());
    run_bounded(cmd, Duration::from_secs(30))
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn doctor_reports_build_machine_models_store_and_data_without_writing() {
    let dir = scratch("report");
    std::fs::create_dir_all(dir.join("shared/cocoa-mt")).unwrap();
    std::fs::create_dir_all(dir.join("shared/pt16")).unwrap();
    let db = dir.join("store.db");
    let db_s = db.to_str().unwrap();

    let r = json(&registro(&dir, &["--db", db_s, "--json", "doctor", "--offline"], &[]));
    assert_eq!(r["version"], env!("CARGO_PKG_VERSION"));
    if Path::new(&format!("{}/../../.git", std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))).exists() {
        let commit = r["commit"].as_str().unwrap();
        assert!(commit.len() >= 7 && commit.chars().take(7).all(|c| c.is_ascii_hexdigit()), "commit {commit:?}");
    }
    assert!(r["os"].as_str().unwrap().starts_with(std::env::consts::OS));
    assert!(r["backends"].as_array().unwrap().iter().any(|b| b == "cpu"));
    if cfg!(target_arch = "x86_64") {
        let feats: Vec<&str> =
            r["cpu"]["features"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
        assert!(feats.contains(&"avx512vnni") && feats.contains(&"avx2"), "{feats:?}");
        let vnni = r["cpu"]["features"].as_array().unwrap().iter().any(|f| f["name"] == "avx512vnni" && f["present"] == true);
        let kernels = r["cpu"]["kernels"].as_str().unwrap();
        assert_eq!(kernels.starts_with("Registro's packed kernels"), vnni, "{kernels}");
    }
    // An empty cache: every known model is listed as missing, nothing is created or hashed.
    let models = r["models"].as_array().unwrap();
    assert!(!models.is_empty() && models.iter().all(|m| m["state"] == "missing"), "{models:?}");
    assert!(models.iter().any(|m| m["id"] == "qwen2.5-coder-1.5b-instruct"));
    // The store is looked at, not created.
    assert_eq!(r["store"]["path"], db_s);
    assert!(r["store"]["schema_version"].is_null() && !db.exists(), "{}", r["store"]);
    assert_eq!(r["store"]["supported_version"], registro_store::SCHEMA_VERSION);
    assert!(r["sources"].is_null(), "--offline asked no source");
    assert!(r["network"].as_str().unwrap().starts_with("TLS trust: "), "{}", r["network"]);
    assert_eq!(r["shared_data"]["sets"], serde_json::json!(["cocoa-mt", "pt16"]));

    // Once the store exists its schema version shows.
    assert!(registro(&dir, &["--db", db_s, "project", "create", "p"], &[]).status.success());
    let r = json(&registro(&dir, &["--db", db_s, "--json", "doctor", "--offline"], &[]));
    assert_eq!(r["store"]["schema_version"], registro_store::SCHEMA_VERSION);
    assert_eq!(r["store"]["status"], "ok");

    // The text a user pastes: one fact per line.
    let out = registro(&dir, &["--db", db_s, "doctor", "--offline"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    for line in ["registro ", "os:", "cpu:", "kernels:", "backends:", "device:", "models:", "store:", "network:", "shared data:"] {
        assert!(text.lines().any(|l| l.starts_with(line)), "no {line:?} line in:\n{text}");
    }
    assert!(text.contains(&format!("schema {} of {}", registro_store::SCHEMA_VERSION, registro_store::SCHEMA_VERSION)), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn doctor_says_what_is_wrong_with_a_store_that_is_not_ours_and_leaves_it_alone() {
    let dir = scratch("foreign");
    let db = dir.join("notes.db");
    std::fs::write(&db, "my shopping list\n").unwrap();
    let r = json(&registro(&dir, &["--db", db.to_str().unwrap(), "--json", "doctor", "--offline"], &[]));
    assert!(r["store"]["status"].as_str().unwrap().contains("not a SQLite database"), "{}", r["store"]);
    assert_eq!(std::fs::read_to_string(&db).unwrap(), "my shopping list\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Model sources are asked through the same network settings downloads use: a real server on loopback answers
/// (even a 404 proves the host is reachable), a closed port is reported unreachable with the error.
#[test]
fn doctor_checks_each_model_source() {
    let dir = scratch("sources");
    let (port, server) = registro_testkit::one_404_server();
    let closed = registro_testkit::free_port();
    let hf = format!("http://127.0.0.1:{port}");
    let npm = format!("http://127.0.0.1:{closed}");
    let db = dir.join("s.db");
    let out = registro(
        &dir,
        &["--db", db.to_str().unwrap(), "--json", "doctor"],
        // Every source on 127.0.0.1: the test never reaches the internet.
        &[("HF_ENDPOINT", &hf), ("NPM_CONFIG_REGISTRY", &npm), ("PIP_INDEX_URL", &npm), ("HTTPS_PROXY", ""), ("HTTP_PROXY", ""), ("ALL_PROXY", "")],
    );
    server.join().unwrap();
    let r = json(&out);
    let sources = r["sources"].as_array().expect("sources checked");
    let find = |name: &str| sources.iter().find(|s| s["source"] == name).unwrap_or_else(|| panic!("no {name} in {sources:?}"));
    assert_eq!(find("Hugging Face")["reachable"], true, "{sources:?}");
    assert!(find("Hugging Face")["detail"].as_str().unwrap().starts_with("HTTP 404"));
    assert_eq!(find("npm")["reachable"], false);
    assert!(find("npm")["detail"].as_str().unwrap().contains("network error"), "{sources:?}");
    assert_eq!(find("PyPI")["reachable"], false);
    assert!(sources.iter().all(|s| s["source"] != "PyPI files"), "a custom index serves its own files: {sources:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_device_is_refused_with_the_accepted_values() {
    let dir = scratch("baddev");
    for (dev, says) in [("tpu", "unknown device \"tpu\""), ("cuda:x", "bad device index"), ("cpu:2", "takes no device index")] {
        let out = registro(&dir, &["--device", dev, "doctor", "--offline"], &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{dev}: {err}");
        assert!(err.contains(says) && err.contains("expected auto, cpu, cuda, cuda:N or metal"), "{dev}: {err}");
    }
    // The same from the environment.
    let out = registro(&dir, &["doctor", "--offline"], &[("REGISTRO_DEVICE", "quantum")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown device \"quantum\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_gpu_that_cannot_be_used_falls_back_to_the_cpu_and_says_why() {
    let dir = scratch("fallback");
    let db = dir.join("f.db");
    let out = registro(&dir, &["--db", db.to_str().unwrap(), "--device", "cuda:1", "--json", "doctor", "--offline"], &[]);
    let r = json(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    // This build or this machine has no usable cuda:1 (a CUDA build on a machine with two GPUs is not a test box).
    assert!(err.contains("warning: --device cuda:1:") && err.contains("using the CPU instead"), "{err}");
    assert!(r["device"].as_str().unwrap().starts_with("cpu"), "{}", r["device"]);
    let note = r["device_note"].as_str().unwrap();
    if r["backends"].as_array().unwrap().iter().all(|b| b != "cuda") {
        assert!(note.contains("this build has no CUDA support") && note.contains("--features cuda"), "{note}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
