//! `registro eval` streams its files: scores read chunk by chunk equal the scores of the whole files in memory
//! (sentence scores, significance and M-Acc included), the stored run holds every output and segment value, and a
//! bad line deep in a long file is reported with its file and line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use registro_core::eval::registro_metrics::evaluate::{evaluate, EvalConfig, MetricName, SigTest, SystemInput, TestSet};
use registro_core::eval::{load_files, read_lines, run_eval, EvalFiles};
use registro_core::progress::CancelToken;
use registro_store::Store;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("registro-eval-stream-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Deterministic German-like segments: a reference of 3–9 words and hypotheses that drop, swap or replace some,
/// so every metric sees partial matches (and, with the annotated references, formal and informal pronouns).
fn write_test_set(dir: &Path, lines: usize, systems: usize) -> (PathBuf, Vec<PathBuf>, PathBuf, PathBuf) {
    const WORDS: &[&str] = &[
        "der", "die", "das", "Haus", "ist", "groß", "klein", "wir", "gehen", "heute", "morgen", "nach", "Hause",
        "Zeit", "haben", "möchten", "gerne", "Kaffee", "trinken", "wirklich", "sehr", "gut", "schlecht", "Stadt",
        "Bahnhof", "fahren", "Zug", "spät", "früh", "Buch", "lesen", "schön", "Wetter", "Straße", "Freund",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut refs = String::new();
    let (mut formal, mut informal) = (String::new(), String::new());
    let mut hyps = vec![String::new(); systems];
    for i in 0..lines {
        let mut words: Vec<&str> = (0..3 + next(7)).map(|_| WORDS[next(WORDS.len())]).collect();
        let polite = i % 3 != 0;
        words.insert(0, if polite { "Sie" } else { "du" });
        refs += &words.join(" ");
        refs.push('\n');
        formal += &format!("[F]Sie[/F] {}\n", words[1..].join(" "));
        informal += &format!("[F]du[/F] {}\n", words[1..].join(" "));
        for h in hyps.iter_mut() {
            let mut w = words.clone();
            let (len, at) = (w.len(), next(w.len()));
            match next(4) {
                0 => w[at] = WORDS[next(WORDS.len())],
                1 if len > 2 => {
                    w.remove(at);
                }
                2 => w.swap(0, len - 1),
                _ => {}
            }
            *h += &w.join(" ");
            h.push('\n');
        }
    }
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let hyp_paths = hyps.iter().enumerate().map(|(k, h)| write(&format!("sys{k}.de"), h)).collect();
    (write("ref.de", &refs), hyp_paths, write("formal.annotated.de", &formal), write("informal.annotated.de", &informal))
}

/// The reports of the whole files in memory: what `registro eval` computed before it streamed.
fn whole_file_reports(files: &EvalFiles, cfg: &EvalConfig) -> Vec<registro_core::eval::registro_metrics::evaluate::SystemReport> {
    let ts = Arc::new(TestSet {
        key: "ref.de".into(),
        refs: vec![("ref.de".into(), read_lines(&files.refs[0]).unwrap())],
        formal_annotated: files.formal_annotated.as_deref().map(|p| read_lines(p).unwrap()),
        informal_annotated: files.informal_annotated.as_deref().map(|p| read_lines(p).unwrap()),
        source: None,
    });
    let systems: Vec<SystemInput> = files
        .hyps
        .iter()
        .map(|h| SystemInput {
            name: h.file_name().unwrap().to_string_lossy().into_owned(),
            lines: read_lines(h).unwrap(),
            register: files.register,
            test_set: ts.clone(),
        })
        .collect();
    evaluate(&systems, cfg).unwrap()
}

#[test]
fn a_multi_megabyte_pair_streams_to_the_whole_file_scores_and_is_stored_whole() {
    let dir = scratch("big");
    let lines = 120_000;
    let (reference, hyps, _, _) = write_test_set(&dir, lines, 1);
    assert!(std::fs::metadata(&hyps[0]).unwrap().len() > 3 << 20, "the test is about a multi-MB file");
    let files = EvalFiles { hyps: hyps.clone(), refs: vec![reference], ..Default::default() };
    let cfg = EvalConfig {
        metrics: vec![MetricName::Bleu, MetricName::Chrf, MetricName::ChrfPlusPlus, MetricName::Ter],
        lang: "de".into(),
        ..EvalConfig::default()
    };
    let mut store = Store::open_in_memory().unwrap();
    let loaded = load_files(&files).unwrap();
    let streamed = run_eval(Some(&mut store), "p", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
    let whole = whole_file_reports(&files, &cfg);
    assert_eq!(streamed.reports, whole, "streamed scores differ from the whole-file scores");
    let bleu = streamed.reports[0].bleu.as_ref().unwrap();
    assert!(bleu.score > 20.0 && bleu.score < 95.0, "a partly matching corpus, BLEU {}", bleu.score);
    assert_eq!(streamed.reports[0].segments, lines);

    // Every output and every segment value is stored, and a second run on the same files reuses the test set.
    let run = streamed.run_ids[0];
    let texts = store.output_texts(run).unwrap();
    assert_eq!(texts.len(), lines);
    assert_eq!(texts[lines - 1].as_deref(), read_lines(&hyps[0]).unwrap().last().map(String::as_str));
    assert_eq!(store.segment_metrics(run, "TER", None).unwrap().len(), lines);
    assert_eq!(store.run(run).unwrap().completed_segments, lines as i64);
    let again = run_eval(Some(&mut store), "p", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
    let doc = |id| store.run(id).unwrap().document_id;
    assert!(doc(run).is_some());
    assert_eq!(doc(run), doc(again.run_ids[0]), "the same references are one test set");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn paired_tests_and_m_acc_over_many_chunks_equal_the_whole_file_path() {
    let dir = scratch("sig");
    let (reference, hyps, formal, informal) = write_test_set(&dir, 9_000, 3);
    let files = EvalFiles {
        hyps,
        refs: vec![reference],
        formal_annotated: Some(formal),
        informal_annotated: Some(informal),
        register: Some("formal".parse().unwrap()),
        ..Default::default()
    };
    let loaded = load_files(&files).unwrap();
    for significance in [SigTest::Bootstrap(50), SigTest::Randomization(50)] {
        let cfg = EvalConfig {
            metrics: vec![MetricName::Bleu, MetricName::Chrf, MetricName::Ter, MetricName::MAcc],
            lang: "de".into(),
            significance: Some(significance),
            ..EvalConfig::default()
        };
        let streamed = run_eval(None, "p", &loaded, &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
        assert_eq!(streamed.reports, whole_file_reports(&files, &cfg), "{significance:?}");
        let second = &streamed.reports[1];
        assert!(second.bleu.as_ref().unwrap().significance.as_ref().unwrap().p_value.is_some());
        let m = second.m_acc.as_ref().unwrap();
        assert!(m.result.counts.formal > 0 && m.result.counts.informal > 0, "{:?}", m.result.counts);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_line_deep_in_a_long_file_names_the_file_and_line() {
    let dir = scratch("bad");
    let (reference, hyps, _, _) = write_test_set(&dir, 20_000, 1);
    let mut bytes = std::fs::read(&hyps[0]).unwrap();
    let at = bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').nth(14_999).unwrap().0 + 1;
    bytes.splice(at..at, [0xff, 0xfe]);
    std::fs::write(&hyps[0], &bytes).unwrap();
    let files = EvalFiles { hyps: hyps.clone(), refs: vec![reference.clone()], ..Default::default() };
    let loaded = load_files(&files).unwrap();
    let mut store = Store::open_in_memory().unwrap();
    let err = run_eval(Some(&mut store), "p", &loaded, &EvalConfig::default(), &CancelToken::new(), &mut |_| {})
        .err()
        .expect("refused");
    let err = format!("{err:#}");
    assert!(err.contains("sys0.de: not valid UTF-8 (line 15001"), "{err}");

    // One line short, far past the first chunk: both files and both counts are named.
    let mut short = read_lines(&reference).unwrap();
    short.pop();
    std::fs::write(&hyps[0], short.join("\n") + "\n").unwrap();
    let err = run_eval(None, "p", &loaded, &EvalConfig::default(), &CancelToken::new(), &mut |_| {}).err().unwrap();
    let err = format!("{err:#}");
    assert!(err.contains("expected 20000 lines, got 19999") && err.contains("sys0.de has 19999"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
