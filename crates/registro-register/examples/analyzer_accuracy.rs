//! Prints the analyzer's accuracy on the CoCoA-MT training references per language (pool and held-out parts).
//! `cargo run -p registro-register --example analyzer_accuracy [-- --misses]`
use registro_register::{data, eval, Lang};

fn main() {
    let show = std::env::args().any(|a| a == "--misses");
    for lang in Lang::ALL {
        let Some(dir) = data::cocoa_train_dir(lang) else {
            println!("skipped: no CoCoA-MT training data for {}", lang.code());
            continue;
        };
        let pairs = data::load_dir(&dir, lang).expect("load");
        let all = eval::accuracy(lang, &pairs);
        let (pool, held) = data::split(pairs);
        let (p, h) = (eval::accuracy(lang, &pool), eval::accuracy(lang, &held));
        println!(
            "{}: accuracy {:.4} ({}/{} contrastive pairs; formal {} informal {}) pool {:.4} held-out {:.4}; identical refs {} ({} NEUTRAL)",
            lang.code(), all.accuracy(), all.correct, all.pairs, all.formal_ok, all.informal_ok, p.accuracy(), h.accuracy(), all.identical, all.identical_neutral
        );
        if show {
            for (side, label, text) in &all.misses {
                println!("   {side} -> {label}: {text}");
            }
        }
    }
}
