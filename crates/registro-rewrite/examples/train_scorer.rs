//! Retrains the built-in formality scorers on PT16 and writes `data/scorer/{surface,lexical}.json`:
//! `cargo run -p registro-rewrite --example train_scorer -- [PT16_DIR] [OUT_DIR]`.
//! (`registro rewrite train-scorer` does the same and adds the embedding variant through the engine.)
use std::path::PathBuf;

use registro_rewrite::scorer::{load_pt16, save, train, Variant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let data = PathBuf::from(args.next().unwrap_or_else(|| "../shared/data/pt16".into()));
    let out = PathBuf::from(args.next().unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/data/scorer").into()));
    let tr = load_pt16(&data.join("train.csv"))?;
    let tu = load_pt16(&data.join("tune.csv"))?;
    for v in [Variant::Surface, Variant::Lexical] {
        let t0 = std::time::Instant::now();
        let m = train(&tr, &tu, v, None)?;
        let r = &m.report;
        println!(
            "{:8} λ={:<5} Spearman tune {:.4} (Pearson {:.4}, train ρ {:.4}) n={}/{} in {:.2}s; grid {:?}",
            v.name(), m.lambda, r.tune_spearman, r.tune_pearson, r.train_spearman, r.train_n, r.tune_n,
            t0.elapsed().as_secs_f64(), r.lambda_grid.iter().map(|(l, s)| format!("{l}:{s:.3}")).collect::<Vec<_>>()
        );
        save(&m, &out.join(format!("{}.json", v.name())))?;
    }
    Ok(())
}
