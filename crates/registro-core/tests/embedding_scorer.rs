//! The shipped embedding scorer (surface features + all-MiniLM-L6-v2) through the same path the app and CLI use:
//! it must reproduce the PT16 tune Spearman written in its weights file and order formal above informal text.
//! Needs the real MiniLM weights (the README's test command fetches them) and the shared PT16 data.
use std::path::PathBuf;

use registro_core::rewrite::{load_formality, load_pt16, Lang, ScorerChoice};
use registro_rewrite::scorer::spearman;

fn pt16_tune() -> Option<PathBuf> {
    let p = std::env::var_os("REGISTRO_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("{}/../../../shared/data", std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))))
        .join("pt16/tune.csv");
    p.exists().then_some(p)
}

#[test]
fn shipped_embedding_scorer_reproduces_its_pt16_tune_spearman() {
    let Some(tune) = pt16_tune() else {
        println!("skipped: PT16 not found (set REGISTRO_SHARED_DATA)");
        return;
    };
    let mut f = match load_formality(&"embedding".parse::<ScorerChoice>().unwrap()) {
        Ok(f) => f,
        Err(e) if format!("{e:#}").contains("all-minilm-l6-v2") => {
            println!("skipped: all-MiniLM-L6-v2 is not downloaded ({e:#}); run `registro models fetch all-minilm-l6-v2`");
            return;
        }
        Err(e) => panic!("{e:#}"),
    };
    let informal = f.formality("idk why u didnt call me lol!!!", Lang::En).unwrap();
    let formal = f.formality("I do not know why you did not call me.", Lang::En).unwrap();
    assert!(formal > informal + 0.5, "formal {formal:.2} vs informal {informal:.2}");

    let rows = load_pt16(&tune).unwrap();
    let gold: Vec<f32> = rows.iter().map(|e| e.label).collect();
    let pred: Vec<f32> = rows.iter().map(|e| f.formality(&e.text, Lang::En).unwrap()).collect();
    let rho = spearman(&pred, &gold);
    println!("embedding scorer Spearman on PT16 tune: {rho:.4}");
    let shipped: serde_json::Value =
        serde_json::from_str(include_str!("../../registro-rewrite/data/scorer/embedding.json")).unwrap();
    let recorded = shipped["report"]["tune_spearman"].as_f64().unwrap();
    assert!((rho - recorded).abs() < 2e-3, "rescored ρ {rho:.4} vs recorded {recorded:.4}");
    assert!(rho > 0.72, "ρ {rho:.4}");
}
