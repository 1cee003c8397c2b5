//! A translation as the window asks for it: pasted lines or a stored document, the document's register with
//! per-sentence overrides, or both registers side by side. Checked here before a model is loaded, so a bad request
//! is refused at once, and run here, so a face only parses and presents.

use std::collections::BTreeMap;

use crate::progress::{CancelToken, ProgressFn};
use registro_store::{RunId, Store};

use super::{translate_and_store, translate_contrastive_and_store, Options, Register, RunTarget, SegmentOut, Translator};

/// What to translate and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// Pasted text, one segment per line (ignored when `document_id` is set).
    pub text: String,
    pub document_id: Option<i64>,
    /// Segment index → register, overriding `opts.register` for that sentence.
    pub overrides: BTreeMap<usize, Register>,
    /// Both registers as two linked runs (the grid's two target columns); overrides do not apply.
    pub contrastive: bool,
    pub opts: Options,
}

/// A request's sources and the register of each, ready for a model.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub sources: Vec<String>,
    pub registers: Vec<Register>,
}

/// The request's segments and registers; refuses options out of their limits ([`Options::validate`]), empty text
/// and an override for a segment that does not exist.
pub fn prepare(store: &Store, req: &Request) -> anyhow::Result<Prepared> {
    req.opts.validate()?;
    let sources = match req.document_id {
        Some(doc) => store.segment_texts(doc)?,
        None => req.text.lines().map(str::to_string).collect(),
    };
    anyhow::ensure!(!sources.iter().all(|s| s.trim().is_empty()), "nothing to translate: paste some text or pick a document");
    let mut registers = vec![req.opts.register; sources.len()];
    for (&i, &r) in &req.overrides {
        let slot = registers.get_mut(i).ok_or_else(|| anyhow::anyhow!("register override for segment {} of {}", i + 1, sources.len()))?;
        *slot = r;
    }
    Ok(Prepared { sources, registers })
}

/// Translates a prepared request into a stored run of `project` (the formal run of a contrastive pair) and returns
/// it with its segments.
pub fn run(
    store: &mut Store,
    project: i64,
    tr: &mut Translator<'_>,
    req: &Request,
    prepared: &Prepared,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> anyhow::Result<(RunId, Vec<SegmentOut>)> {
    let target = RunTarget { project_id: project, document_id: req.document_id };
    if req.contrastive {
        let (runs, pairs) = translate_contrastive_and_store(store, &target, tr, &prepared.sources, &req.opts, progress, cancel)?;
        return Ok((runs[0], pairs.into_iter().map(|p| p.formal).collect()));
    }
    translate_and_store(store, &target, tr, &prepared.sources, Some(&prepared.registers), &req.opts, progress, cancel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translate::Lang;

    #[test]
    fn a_request_is_checked_before_any_model_is_loaded() {
        let store = Store::open_in_memory().unwrap();
        let mut req = Request {
            text: "Hello.\nSee you.".into(),
            document_id: None,
            overrides: BTreeMap::from([(1, Register::Informal)]),
            contrastive: false,
            opts: Options::new(Lang::De, Register::Formal),
        };
        let p = prepare(&store, &req).unwrap();
        assert_eq!(p.sources, ["Hello.", "See you."]);
        assert_eq!(p.registers, [Register::Formal, Register::Informal]);
        req.overrides.insert(5, Register::Informal);
        assert!(prepare(&store, &req).unwrap_err().to_string().contains("segment 6 of 2"));
        req.text = " \n".into();
        assert!(prepare(&store, &req).unwrap_err().to_string().contains("nothing to translate"));
    }
}
