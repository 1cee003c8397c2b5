//! What a local model is worth per target language, from the real binary: `registro models list` says it for every
//! language model (`--lang hi` in full, with how it was measured), `registro doctor` under each installed one, and
//! `--json` carries the verdicts — the same words core's `models::quality_for` gives the window.

mod common;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::{command, run_bounded, scratch};
use registro_core::models::{quality_for, quality_line, ModelSummary};
use registro_core::translate::Lang;

const SMALL: &str = "qwen2.5-coder-0.5b-instruct";
const DEFAULT: &str = "qwen2.5-coder-1.5b-instruct";

fn registro(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = command(Some(&dir.join("store.db")), args);
    cmd.env_remove("REGISTRO_DEVICE")
        .env_remove("REGISTRO_CATALOGUE")
        .env("REGISTRO_MODELS", dir.join("models"))
        .env("REGISTRO_SHARED_DATA", dir.join("shared"));
    let out = run_bounded(cmd, Duration::from_secs(30));
    assert!(out.status.success(), "registro {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The 0.5B model "installed": a file of its size in the cache (sparse, never loaded; nothing here hashes it).
fn install_small(dir: &Path) -> registro_core::models::Manifest {
    let m = registro_core::models::manager(&[]).manifest(SMALL).cloned().expect("shipped");
    let f = m.main_file();
    let path = dir.join("models").join(SMALL).join(&f.name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::File::create(&path).unwrap().set_len(f.bytes).unwrap();
    m
}

#[test]
fn models_list_and_doctor_say_what_each_language_model_is_worth_per_language() {
    let dir = scratch("list");
    let small = install_small(&dir);
    let default = registro_core::models::manager(&[]).manifest(DEFAULT).cloned().expect("shipped");

    // In full for one language, with the measurement behind it, for installed and downloadable models alike.
    let out = registro(&dir, &["models", "list", "--lang", "hi"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for m in [&small, &default] {
        let q = quality_for(m, Lang::Hi);
        let at = text.find(&format!("\n{} ", m.id)).unwrap_or_else(|| panic!("{} not listed:\n{text}", m.id));
        let below = &text[at..];
        assert!(below.contains(&format!("\n    {}\n", q.text)), "{}: no {:?} under it:\n{text}", m.id, q.text);
        for how in &q.measured {
            assert!(below.contains(&format!("measured {how}")), "{}: the measurement is not named:\n{text}", m.id);
        }
    }
    assert!(!text.contains("quality:"), "--lang replaces the summary line");
    // Embeddings and tokenizers translate nothing: no verdict.
    let minilm = text.find("\nall-minilm-l6-v2 ").expect("listed");
    assert!(!text[minilm..].lines().nth(1).unwrap_or_default().contains("with this model"), "{text}");

    // Every language in one line without --lang.
    let text = String::from_utf8_lossy(&registro(&dir, &["models", "list"]).stdout).to_string();
    let line = format!("    quality: {}", quality_line(&ModelSummary::quality_of(&small)));
    assert!(line.contains("not measured: ") && text.contains(&line), "no {line:?} in:\n{text}");

    // doctor: under the installed model only (the others are counted as not downloaded).
    let text = String::from_utf8_lossy(&registro(&dir, &["doctor", "--offline"]).stdout).to_string();
    let at = text.find(&format!("  {SMALL} ")).unwrap_or_else(|| panic!("{SMALL} not in doctor:\n{text}"));
    assert_eq!(text[at..].lines().nth(1), Some(line.as_str()), "{text}");
    assert!(!text.contains(&format!("  {DEFAULT} ")), "a model not downloaded is not listed by doctor:\n{text}");

    // --json: the manifest's table and the verdicts, the same as the window gets.
    let out = registro(&dir, &["--json", "models", "list"]);
    let all: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = all.as_array().unwrap().iter().find(|r| r["manifest"]["id"] == SMALL).expect("listed");
    let verdicts = row["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), Lang::ALL.len());
    for (v, l) in verdicts.iter().zip(Lang::ALL) {
        assert_eq!(v["text"], quality_for(&small, l).text, "{l:?}");
    }
    assert_eq!(row["manifest"]["quality"].as_array().map_or(0, Vec::len), small.quality.len());
    let _ = std::fs::remove_dir_all(&dir);
}
