//! Replays the kept fuzz corpora of the importers (fuzz/corpus/import_*, crash inputs included) through the same
//! checks as the fuzz targets (`registro_store::import::fuzz`), so every input that once found a bug, and every
//! shape the fuzzer learned, stays a regression test of plain `cargo test`.

use registro_store::import::fuzz;

/// Runs `check` on every input of the corpus, naming the input that breaks a property.
fn replay(target: &str, check: impl Fn(&[u8])) {
    for (p, bytes) in registro_testkit::fuzz_corpus(target) {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes))).unwrap_or_else(|_| panic!("{} breaks a property", p.display()));
    }
}

#[test]
fn text_corpus() {
    replay("import_text", fuzz::text);
}

#[test]
fn table_corpus() {
    replay("import_table", fuzz::table);
}

#[test]
fn jsonl_corpus() {
    replay("import_jsonl", fuzz::jsonl);
}

#[test]
fn paired_corpus() {
    let parsed = std::cell::Cell::new(0);
    replay("import_paired", |d| parsed.set(parsed.get() + fuzz::paired(d) as usize));
    assert!(parsed.get() > 0, "the paired corpus should hold valid folders too");
}
