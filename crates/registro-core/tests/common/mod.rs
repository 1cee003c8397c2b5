//! What several core tests share.
#![allow(dead_code)] // each test file uses its own share of these

pub mod scripted;

/// The small real model the end-to-end tests translate with (the README's test command fetches it).
pub const SMALL_MODEL: &str = "qwen2.5-coder-0.5b-instruct";

/// Whether [`SMALL_MODEL`] is in the model cache; when it is not, says that the test is skipped.
pub fn small_model_cached() -> bool {
    match registro_core::models::resolve(SMALL_MODEL) {
        Ok(_) => true,
        Err(e) => {
            println!("skipped: {SMALL_MODEL} is not in the model cache ({e:#})");
            false
        }
    }
}

/// Translates `sources`, stored as document `doc` of `project`, into formal German with [`SMALL_MODEL`] under
/// `controls` (greedy, at most 32 tokens a segment) and stores the run. The model is dropped before this returns,
/// so a resume that follows loads the run's own.
pub fn translate_with_small_model(
    store: &mut registro_store::Store,
    project: i64,
    doc: i64,
    sources: &[&str],
    controls: &str,
    progress: registro_core::progress::ProgressFn<'_>,
    cancel: &registro_core::progress::CancelToken,
) -> (i64, Vec<registro_core::translate::SegmentOut>) {
    use registro_core::translate::{self as tr, Controls, Lang, Options, Register};
    let mut gen = tr::EngineGenerator::load(SMALL_MODEL).unwrap();
    let mut t = tr::Translator::new(&mut gen, None);
    let opts = Options { controls: controls.parse::<Controls>().unwrap(), n_best: 1, max_tokens: 32, ..Options::new(Lang::De, Register::Formal) };
    let texts: Vec<String> = sources.iter().map(|s| s.to_string()).collect();
    let target = tr::RunTarget { project_id: project, document_id: Some(doc) };
    tr::translate_and_store(store, &target, &mut t, &texts, None, &opts, progress, cancel).unwrap()
}
