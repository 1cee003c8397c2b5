//! Repair on the CoCoA-MT training references: round trips, exact matches with the other reference, and how
//! often the result carries the requested label. `cargo run -p registro-register --example repair_eval [-- --examples]`
use registro_register::{data, eval, Lang};

fn main() {
    let show = std::env::args().any(|a| a == "--examples");
    for lang in Lang::ALL {
        let Some(dir) = data::cocoa_train_dir(lang) else {
            println!("skipped: no CoCoA-MT training data for {}", lang.code());
            continue;
        };
        let pairs = data::load_dir(&dir, lang).expect("load");
        let s = eval::repair_stats(lang, &pairs);
        let pct = |n: usize| 100.0 * n as f64 / s.pairs as f64;
        println!(
            "{}: {} pairs | round trip F→I→F {:.1}% I→F→I {:.1}% | equals other ref: F→I {:.1}% I→F {:.1}% | labelled as asked: →I {:.1}% →F {:.1}%",
            lang.code(), s.pairs, pct(s.round_trip_formal), pct(s.round_trip_informal), pct(s.exact_to_informal), pct(s.exact_to_formal), pct(s.label_to_informal), pct(s.label_to_formal)
        );
        if show {
            for (i, got, want) in &s.examples {
                println!("   in:   {i}\n   got:  {got}\n   want: {want}");
            }
        }
    }
}
