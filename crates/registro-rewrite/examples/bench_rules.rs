//! `cargo run --release -p registro-rewrite --example bench_rules -- [PT16_CSV]` (the CLI's `registro bench rules`
//! runs the same loop).
fn main() {
    let corpus: Vec<String> = match std::env::args().nth(1) {
        Some(p) => registro_rewrite::scorer::load_pt16(std::path::Path::new(&p)).expect("PT16 csv").into_iter().map(|e| e.text).collect(),
        None => registro_rewrite::bench::sample_corpus(registro_rewrite::Lang::En),
    };
    let t = registro_rewrite::bench::throughput(&corpus, registro_rewrite::Lang::En, std::time::Duration::from_secs(3));
    println!("{t:?}");
}
