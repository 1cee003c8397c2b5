//! The kept `register_repair` fuzz corpus replays through the fuzz target's own checks.

#[test]
fn register_repair_corpus_replays_without_panics() {
    let dir = registro_testkit::crate_dir().join("../../fuzz/corpus/register_repair");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        registro_register::fuzz::analyze_and_repair(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n >= 6, "only {n} inputs in {}", dir.display());
}
