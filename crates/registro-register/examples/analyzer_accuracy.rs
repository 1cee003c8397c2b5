//! Prints the analyzer's accuracy on the CoCoA-MT training references per language (pool and held-out parts).
//! `cargo run -p registro-register --example analyzer_accuracy [-- --misses [LANG]]`
//! `--misses` lists every misclassified reference (held-out ones tagged `[held]`) with its markers, so a miss
//! can be told apart as a rule gap or a data error, and every reference that reads as the wrong register for its own
//! (what a translator would see flagged) with the markers that make it so; an optional language code restricts the
//! output.
use registro_register::{analyze, data, eval, Label, Lang, Register, Verdict};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--misses");
    let only: Option<Lang> = args.iter().filter(|a| !a.starts_with("--")).find_map(|a| a.parse().ok());
    for lang in Lang::ALL {
        if only.is_some_and(|l| l != lang) {
            continue;
        }
        let Some(dir) = data::cocoa_train_dir(lang) else {
            println!("skipped: no CoCoA-MT training data for {}", lang.code());
            continue;
        };
        let pairs = data::load_dir(&dir, lang).expect("load");
        let all = eval::accuracy(lang, &pairs);
        let (pool, held) = data::split(pairs);
        let (p, h) = (eval::accuracy(lang, &pool), eval::accuracy(lang, &held));
        println!(
            "{}: accuracy {:.4} ({}/{} contrastive pairs; formal {} informal {}) pool {:.4} held-out {:.4} ({}/{}; formal {} informal {}); identical refs {} ({} NEUTRAL)",
            lang.code(), all.accuracy(), all.correct, all.pairs, all.formal_ok, all.informal_ok, p.accuracy(), h.accuracy(),
            h.correct, h.pairs, h.formal_ok, h.informal_ok, all.identical, all.identical_neutral
        );
        // What a translator would see: a reference flagged as the wrong register for the register it was written in.
        let wrong = |text: &str, reg| analyze(lang, text).verdict(reg) == Verdict::Wrong;
        let contrastive: Vec<_> = pool.iter().chain(held.iter()).filter(|p| p.contrastive()).collect();
        let (wf, wi) = (
            contrastive.iter().filter(|p| wrong(&p.formal, Register::Formal)).count(),
            contrastive.iter().filter(|p| wrong(&p.informal, Register::Informal)).count(),
        );
        println!("{}: references flagged as the wrong register for their own: formal {wf}/{n}, informal {wi}/{n}", lang.code(), n = contrastive.len());
        if show {
            for p in &contrastive {
                for (side, text, reg) in [("formal", &p.formal, Register::Formal), ("informal", &p.informal, Register::Informal)] {
                    if wrong(text, reg) {
                        let a = analyze(lang, text);
                        let bad: Vec<&str> = a.wrong_markers(reg).filter(|m| m.strong).map(|m| m.text.as_str()).collect();
                        println!("   flagged {side}: {text}\n        wrong markers [{}]", bad.join(" "));
                    }
                }
            }
        }
        if show {
            for (part, tag) in [(&pool, ""), (&held, "[held] ")] {
                for pair in part.iter().filter(|p| p.contrastive()) {
                    for (side, text, want) in [("formal", &pair.formal, Label::Formal), ("informal", &pair.informal, Label::Informal)] {
                        let a = analyze(lang, text);
                        if a.label != want {
                            let marks: Vec<String> = a
                                .markers
                                .iter()
                                .map(|m| format!("{}:{}{}", m.text, if m.register.is_formal_side() { "F" } else { "I" }, if m.strong { "" } else { "?" }))
                                .collect();
                            println!("   {tag}{side} -> {}: {text}\n        markers [{}]", a.label.as_str(), marks.join(" "));
                        }
                    }
                }
            }
        }
    }
}
