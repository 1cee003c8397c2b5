//! A damaged or hand-edited formality-scorer file is refused at load, naming the file and the field, instead of
//! panicking mid-document, failing at insert or pinning every score at the clamp.

use registro_rewrite::scorer::{Scorer, ScorerError};
use registro_rewrite::Lang;
use serde_json::Value;

const SURFACE: &str = include_str!("../data/scorer/surface.json");
const LEXICAL: &str = include_str!("../data/scorer/lexical.json");
const EMBEDDING: &str = include_str!("../data/scorer/embedding.json");

fn edited(src: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(src).unwrap();
    edit(&mut v);
    v.to_string()
}

/// Loads through a real file, as `--scorer FILE.json` does, and returns the error text.
fn load_err(json: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("registro-scorer-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("my-scorer.json");
    std::fs::write(&p, json).unwrap();
    let out = Scorer::load(&p);
    std::fs::remove_dir_all(&dir).ok();
    match out {
        Ok(_) => panic!("a bad scorer file was accepted"),
        Err(e) => e.to_string(),
    }
}

fn assert_names(err: &str, field: &str) {
    assert!(err.contains("my-scorer.json") && err.contains(&format!("field `{field}`")), "{err}");
}

#[test]
fn short_weight_vectors_are_refused() {
    for field in ["w_surface", "mean", "std"] {
        let json = edited(SURFACE, |v| {
            v[field].as_array_mut().unwrap().truncate(5);
        });
        let err = load_err(&json);
        assert_names(&err, field);
        assert!(err.contains("has 5 values but the model has 32 surface features"), "{err}");
    }
    let json = edited(LEXICAL, |v| {
        v["w_lexical"].as_array_mut().unwrap().truncate(100);
    });
    let err = load_err(&json);
    assert_names(&err, "w_lexical");
    assert!(err.contains("has 100 weights but lexical_buckets is 16384"), "{err}");
}

#[test]
fn zero_lexical_buckets_are_refused() {
    let json = edited(LEXICAL, |v| v["lexical_buckets"] = 0.into());
    let err = load_err(&json);
    assert_names(&err, "lexical_buckets");
}

#[test]
fn zero_negative_or_tiny_std_is_refused() {
    for bad in [0.0, -1.0, 1e-30] {
        let json = edited(SURFACE, |v| v["std"][3] = bad.into());
        let err = load_err(&json);
        assert_names(&err, "std[3]");
    }
}

#[test]
fn huge_or_non_finite_weights_are_refused() {
    // 1e39 overflows f32 to infinity on parse; 1e30 stays finite but would pin every score at ±3.5.
    for (field, bad) in [("w_surface", 1e39), ("w_surface", 1e30), ("mean", 1e39)] {
        let json = edited(SURFACE, |v| v[field][0] = bad.into());
        let err = load_err(&json);
        assert_names(&err, &format!("{field}[0]"));
    }
    let json = edited(SURFACE, |v| v["bias"] = 1e30.into());
    assert_names(&load_err(&json), "bias[0]");
    let json = edited(LEXICAL, |v| v["w_lexical"][7] = (-5e3).into());
    assert_names(&load_err(&json), "w_lexical[7]");
}

#[test]
fn embedding_variant_needs_its_weights_and_the_right_dimension() {
    let json = edited(EMBEDDING, |v| v["w_embedding"] = Value::Array(Vec::new()));
    assert_names(&load_err(&json), "w_embedding");
    let mut s = Scorer::from_json(EMBEDDING, "embedding.json").unwrap();
    let err = s.score("Dear Sir,", Lang::En, Some(&[0.1; 16])).unwrap_err();
    assert!(matches!(err, ScorerError::EmbeddingSize { expected: 384, got: 16, .. }), "{err}");
}

#[test]
fn a_device_or_a_folder_is_not_read_as_a_scorer() {
    let err = Scorer::load(std::path::Path::new("/dev/zero")).err().unwrap().to_string();
    assert!(err.contains("/dev/zero") && err.contains("not a regular file"), "{err}");
}

#[test]
fn shipped_models_still_load_and_score() {
    for src in [SURFACE, LEXICAL] {
        let mut s = Scorer::from_json(src, "builtin").unwrap();
        let y = s.score("I would be grateful for your reply.", Lang::En, None).unwrap();
        assert!(y.is_finite() && y.abs() < 3.5, "{y}");
    }
}

/// The kept fuzz corpus (fuzz/corpus/scorer_json, crash inputs included): every file either fails to load with an
/// error or scores any text within the clamp, as the fuzz target checks.
#[test]
fn fuzz_corpus_loads_or_fails_cleanly() {
    let mut n = 0;
    for (p, bytes) in registro_testkit::fuzz_corpus("scorer_json") {
        let Ok(text) = String::from_utf8(bytes) else { continue };
        n += 1;
        let Ok(mut s) = Scorer::from_json(&text, &p.display().to_string()) else { continue };
        let emb = vec![0.1f32; s.model.w_embedding.len()];
        for (t, lang) in [("hey u there?? lol", Lang::En), ("Sehr geehrte Damen und Herren,", Lang::De), ("", Lang::Ja)] {
            let y = s.score(t, lang, Some(&emb)).unwrap();
            assert!(y.is_finite() && (-3.5..=3.5).contains(&y), "{}: {y}", p.display());
        }
    }
    assert!(n > 0, "fuzz/corpus/scorer_json holds no text input");
}
