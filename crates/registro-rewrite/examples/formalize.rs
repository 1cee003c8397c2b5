//! `cargo run -p registro-rewrite --example formalize -- pt < file`: formalizes stdin line by line and prints the
//! edits; handy for tuning the word lists.
use std::io::BufRead;

fn main() {
    let lang: registro_rewrite::Lang = std::env::args().nth(1).unwrap_or_else(|| "en".into()).parse().expect("language");
    let mut f = registro_rewrite::Formalizer::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let r = f.formalize(&line, lang);
        println!("{line}\n  → {}", r.text);
        for e in &r.edits {
            let k: Vec<&str> = e.kinds.iter().map(|k| k.label()).collect();
            println!("    {:?} → {:?} [{}]", e.before, e.after, k.join(","));
        }
    }
}
