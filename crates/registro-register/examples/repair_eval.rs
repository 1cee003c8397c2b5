//! Repair on the CoCoA-MT / IWSLT 2023 training references: round trips, exact matches with the other reference,
//! and how often the result carries the requested label.
//! `cargo run -p registro-register --example repair_eval [-- --lang pt] [--split pool|held-out] [--examples]`
//! Rules are tuned on the pool split; the held-out split (the translation development sources) reports.
use registro_register::{data, eval, Lang};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let show = args.iter().any(|a| a == "--examples");
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let only = value("--lang");
    let split = value("--split");
    for lang in Lang::ALL {
        if only.as_deref().is_some_and(|l| l != lang.code()) {
            continue;
        }
        let Some(dir) = data::cocoa_train_dir(lang) else {
            println!("skipped: no CoCoA-MT training data for {}", lang.code());
            continue;
        };
        let pairs = data::load_dir(&dir, lang).expect("load");
        let pairs = match split.as_deref() {
            Some("pool") => data::split(pairs).0,
            Some("held-out") => data::split(pairs).1,
            _ => pairs,
        };
        let s = eval::repair_stats(lang, &pairs);
        let pct = |n: usize| 100.0 * n as f64 / s.pairs as f64;
        println!(
            "{}: {} pairs | round trip F→I→F {:.1}% I→F→I {:.1}% | equals other ref: F→I {:.1}% I→F {:.1}% | labelled as asked: →I {:.1}% →F {:.1}%",
            lang.code(), s.pairs, pct(s.round_trip_formal), pct(s.round_trip_informal), pct(s.exact_to_informal), pct(s.exact_to_formal), pct(s.label_to_informal), pct(s.label_to_formal)
        );
        if show {
            println!("  informal → formal, where it differs from the formal reference:");
            for (i, got, want) in &s.examples {
                println!("   in:   {i}\n   got:  {got}\n   want: {want}");
            }
            println!("  formal → informal, where it differs from the informal reference:");
            let to_informal = |t: &str| registro_register::repair::convert(lang, t, registro_register::Register::Informal).text;
            for p in pairs.iter().filter(|p| p.contrastive() && to_informal(&p.formal) != p.informal).take(12) {
                println!("   in:   {}\n   got:  {}\n   want: {}", p.formal, to_informal(&p.formal), p.informal);
            }
        }
    }
}
