//! Regenerates `src/vocab/<lang>.txt`: every word of the Latin-script target languages' references in the *pool* part
//! of the shipped example data (never the held-out part, on which `tests/english_left.rs` measures false flags). The
//! leftover-English check (`meaning.rs`) counts a word copied from the English source as English only when the
//! target language's references never use it. `cargo run --example vocabgen` (REGISTRO_DATA=data, as in a checkout)
use std::collections::BTreeSet;

use registro_register::{data, meaning};

fn main() {
    let out_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/vocab");
    std::fs::create_dir_all(&out_dir).unwrap();
    for lang in meaning::LATIN_TARGETS {
        let dir = data::examples_dir(lang).unwrap_or_else(|e| panic!("{e}"));
        let (pool, _held_out) = data::split(data::load_dir(&dir, lang).unwrap());
        let mut words = BTreeSet::new();
        for p in &pool {
            for text in [&p.formal, &p.informal] {
                words.extend(meaning::words(text).into_iter().map(|w| w.to_lowercase()));
            }
        }
        let body: String = words.iter().map(|w| format!("{w}\n")).collect();
        std::fs::write(out_dir.join(format!("{}.txt", lang.code())), body).unwrap();
        println!("{}: {} words from {} pool pairs", lang.code(), words.len(), pool.len());
    }
}
