//! Regenerates `src/lang/learned/<lang>.tsv`: words that CoCoA-MT's annotators marked as register phrases in the
//! *pool* part of the training data (never the held-out part), kept only when they occur more often inside a
//! marked phrase than outside one. `cargo run -p registro-register --example lexgen`
use std::collections::HashMap;

use registro_register::{data, Lang};

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || ('\u{0900}'..='\u{097F}').contains(&c)))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

/// (words inside [F]…[/F], words outside)
fn spans(annotated: &str) -> (Vec<String>, Vec<String>) {
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    let mut rest = annotated;
    while let Some(a) = rest.find("[F]") {
        outside.extend(words(&rest[..a]));
        let after = &rest[a + 3..];
        let b = after.find("[/F]").unwrap_or(after.len());
        inside.extend(words(&after[..b]));
        rest = after.get(b + 4..).unwrap_or("");
    }
    outside.extend(words(rest));
    (inside, outside)
}

fn main() {
    let out_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lang/learned");
    std::fs::create_dir_all(&out_dir).unwrap();
    for lang in [Lang::Es, Lang::It, Lang::Fr, Lang::Hi, Lang::De] {
        let Some(dir) = data::cocoa_train_dir(lang) else { continue };
        let (pool, _held) = data::split(data::load_dir(&dir, lang).unwrap());
        let mut inside: [HashMap<String, usize>; 2] = Default::default();
        let mut outside: HashMap<String, usize> = HashMap::new();
        for p in &pool {
            for (k, ann) in [&p.formal_annotated, &p.informal_annotated].into_iter().enumerate() {
                let Some(ann) = ann else { continue };
                let (i, o) = spans(ann);
                for w in i {
                    *inside[k].entry(w).or_default() += 1;
                }
                for w in o {
                    *outside.entry(w).or_default() += 1;
                }
            }
        }
        let mut lines = Vec::new();
        for (k, reg) in [(0, "formal"), (1, "informal")] {
            for (w, &n) in &inside[k] {
                let other = inside[1 - k].get(w).copied().unwrap_or(0);
                let out = outside.get(w).copied().unwrap_or(0);
                if other == 0 && out < n && w.chars().count() > 1 {
                    lines.push(format!("{w}\t{reg}"));
                }
            }
        }
        lines.sort();
        std::fs::write(out_dir.join(format!("{}.tsv", lang.code())), lines.join("\n") + "\n").unwrap();
        println!("{}: {} learned words", lang.code(), lines.len());
    }
}
