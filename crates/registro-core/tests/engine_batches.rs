//! A document's requests through the resident engine (`EngineGenerator::generate_many`) with the real 0.5B model:
//! segments decoded together get what each gets alone, greedy and n-best alike, and a segment that cannot be
//! decoded gets its own error while the others still get their translations.
mod common;

use std::sync::atomic::AtomicBool;

use registro_core::translate::{Constraints, EngineGenerator, GenRequest, Generated, Generator};

const PREFIX: &str = "<|im_start|>system\nTranslate the user's English sentence into French, formally (vous). Answer with the translation only.<|im_end|>\n";

fn turn(sentence: &str) -> String {
    format!("<|im_start|>user\n{sentence}<|im_end|>\n<|im_start|>assistant\n")
}

fn request(turn: String, n: usize) -> GenRequest {
    GenRequest { prefix: PREFIX.to_string(), turn, n, max_tokens: 40, constraints: Constraints::default() }
}

fn run(gen: &mut EngineGenerator, requests: &[GenRequest]) -> Vec<Option<anyhow::Result<Vec<Generated>>>> {
    let mut got: Vec<Option<anyhow::Result<Vec<Generated>>>> = (0..requests.len()).map(|_| None).collect();
    gen.generate_many(requests, &AtomicBool::new(false), &mut |i, g| {
        assert!(got[i].is_none(), "request {i} reported twice");
        got[i] = Some(g);
        Ok(())
    })
    .unwrap();
    got
}

#[test]
fn a_segment_past_the_context_fails_alone_and_the_others_are_translated() {
    if !common::small_model_cached() {
        return;
    }
    let mut gen = EngineGenerator::load(common::SMALL_MODEL).unwrap();
    let sentences = ["Can you send me the report?", "Where did you park?", "Please call me when you arrive."];
    // Past the model's 32,768-token context: one token per " word".
    let too_long = turn(&" word".repeat(40_000));
    for n in [1, 3] {
        let mut requests: Vec<GenRequest> = sentences.iter().map(|s| request(turn(s), n)).collect();
        requests.insert(1, request(too_long.clone(), n));
        let got = run(&mut gen, &requests);
        for (i, g) in got.into_iter().enumerate() {
            let g = g.unwrap_or_else(|| panic!("n = {n}: request {i} never reported"));
            if i == 1 {
                let e = g.expect_err("a turn past the context cannot be decoded");
                assert!(format!("{e:#}").contains("context"), "n = {n}: {e:#}");
                continue;
            }
            let gens = g.unwrap_or_else(|e| panic!("n = {n}: request {i} failed beside the bad one: {e:#}"));
            assert_eq!(gens.len(), n, "n = {n}: request {i}");
            assert!(!gens[0].text.is_empty(), "n = {n}: request {i} has no translation");
            // The same request alone gives the same best candidate. (With n = 3 the long turn fails the shared
            // admission, so every search runs alone: what this case proves is that the others still get theirs; the
            // equality of side-by-side beams is `continuous_batching::beam_searches_together_find_what_each_finds_alone`.)
            let r = &requests[i];
            let alone = gen.generate(&r.prefix, &r.turn, r.n, r.max_tokens, &r.constraints, &AtomicBool::new(false)).unwrap();
            assert_eq!(gens[0].text, alone[0].text, "n = {n}: request {i} decoded beside others");
        }
    }
}

/// A document's prefix stored by one run (`REGISTRO_PREFIX_CACHE`, here a folder of the test's own) is read by the
/// next, which translates every segment exactly as the first did.
#[cfg(unix)]
#[test]
fn the_next_run_reads_the_stored_prefix_and_translates_the_same() {
    if !common::small_model_cached() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let store = || Some(registro_engine::PrefixStore::new(dir.path(), registro_engine::PrefixStore::DEFAULT_MAX_BYTES));
    let requests: Vec<GenRequest> = ["Can you send me the report?", "Where did you park?"].iter().map(|s| request(turn(s), 1)).collect();
    let texts = |got: Vec<Option<anyhow::Result<Vec<Generated>>>>| -> Vec<String> {
        got.into_iter().map(|g| g.expect("reported").expect("translated")[0].text.clone()).collect()
    };
    let first = texts(run(&mut EngineGenerator::load(common::SMALL_MODEL).unwrap().with_prefix_store(store()), &requests));
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "the run stored its one prefix");
    let stored = files[0].metadata().unwrap();
    let mut next = EngineGenerator::load(common::SMALL_MODEL).unwrap().with_prefix_store(store());
    let second = texts(run(&mut next, &requests));
    assert_eq!(first, second);
    // What `bench translate` prints beside its timings, so a reader knows the prefix was not prefilled.
    let notes = next.take_notes();
    assert!(notes.iter().any(|n| n.contains("1 read from disk, 0 computed")), "{notes:?}");
    assert!(next.take_notes().iter().any(|n| n.contains("0 read from disk, 0 computed")), "the counts are not per call");
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    let now = files[0].metadata().unwrap();
    // A prefix computed again is written under a temporary name and renamed over the old file: another inode.
    use std::os::unix::fs::MetadataExt;
    assert_eq!(now.ino(), stored.ino(), "the second run computed and stored the prefix again instead of reading it");
    assert!(now.modified().unwrap() >= stored.modified().unwrap(), "the read prefix was not marked as used");
}

/// What the app's window shows first: with `first_segment_first` the document's first segment is reported before
/// any other even when it is the longest (decoded among the others it finishes last); the CLI's default decodes
/// every segment together, and either way each segment gets the same translation.
#[test]
fn the_first_segment_is_reported_first_only_where_a_window_waits_for_it() {
    if !common::small_model_cached() {
        return;
    }
    let sentences = [
        "Thank you very much for the detailed report you sent us last week about the repairs to the roof and the windows.",
        "Hello.",
        "Where did you park?",
        "Yes.",
    ];
    let requests: Vec<GenRequest> = sentences.iter().map(|s| request(turn(s), 1)).collect();
    let in_order = |gen: &mut EngineGenerator| {
        let mut order = Vec::new();
        let mut texts = vec![String::new(); requests.len()];
        gen.generate_many(&requests, &AtomicBool::new(false), &mut |i, g| {
            order.push(i);
            texts[i] = g?.remove(0).text;
            Ok(())
        })
        .unwrap();
        (order, texts)
    };
    let (window_order, window_texts) = in_order(&mut EngineGenerator::load(common::SMALL_MODEL).unwrap().first_segment_first());
    let (file_order, file_texts) = in_order(&mut EngineGenerator::load(common::SMALL_MODEL).unwrap());
    assert_eq!(window_order[0], 0, "the window's first segment comes first: {window_order:?}");
    assert_ne!(file_order[0], 0, "decoded together, a short segment finishes before the long first one: {file_order:?}");
    assert_eq!(window_texts, file_texts);
}
