//! Split and Join in the review grid: the translator moves a sentence boundary the splitter got wrong. The change is
//! made to the document, so every run over it is renumbered with it (`Store::resegment`); a document imported from a
//! file is checked against that file first, so Export can still place every translation (`documents::Imported`).
//! A split leaves both halves untranslated for the run to translate again (`resume`); a join keeps the two
//! translations, joined, for the translator to smooth.

use anyhow::Context;
use registro_store::{Output, Resegment, RunFilter, RunId, Store, Task};
use serde::Serialize;

use crate::documents;
use crate::translate::{check, Lang, Register};

/// What a split or join changed.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct Resegmented {
    pub document_id: i64,
    /// The document's segment count now.
    pub segments: usize,
    /// Segments of `run` without a translation now (the halves of a split), to be translated again.
    pub untranslated: Vec<usize>,
}

fn document_of(store: &Store, run: RunId) -> anyhow::Result<i64> {
    store.run(run)?.document_id.with_context(|| {
        format!("run {run} translated pasted text, which is not stored as a document: import the text as a document to split or join its segments")
    })
}

/// The runs over `doc` with their register overrides (segment index → register) moved by `remap`; a run without
/// overrides is left alone.
fn remapped_params(store: &Store, doc: i64, remap: impl Fn(i64) -> Vec<i64>) -> anyhow::Result<Vec<(RunId, serde_json::Value)>> {
    let runs = store.list_runs(&RunFilter { document_id: Some(doc), ..Default::default() })?;
    let mut out = Vec::new();
    for r in runs {
        let Some(overrides) = r.params.get("register_overrides").and_then(|o| o.as_object()).filter(|o| !o.is_empty()) else { continue };
        let mut moved = serde_json::Map::new();
        for (k, v) in overrides {
            let Ok(i) = k.parse::<i64>() else { continue };
            for j in remap(i) {
                moved.insert(j.to_string(), v.clone());
            }
        }
        let mut params = r.params.clone();
        params["register_overrides"] = serde_json::Value::Object(moved);
        out.push((r.id, params));
    }
    Ok(out)
}

/// Splits segment `index` of run `run`'s document before character `at` of its source (both halves must hold
/// text). Every run over the document loses its translation of that segment: both halves are translated again.
pub fn split_segment(store: &mut Store, run: RunId, index: usize, at: usize) -> anyhow::Result<Resegmented> {
    let doc = document_of(store, run)?;
    let mut segments = store.segment_texts(doc)?;
    let source = segments.get(index).with_context(|| format!("the document has {} segments; there is no segment {}", segments.len(), index + 1))?;
    let byte = source.char_indices().nth(at).map_or(source.len(), |(b, _)| b);
    let (first, second) = (source[..byte].trim().to_string(), source[byte..].trim().to_string());
    let has_text = |s: &str| s.chars().any(char::is_alphanumeric);
    anyhow::ensure!(
        has_text(&first) && has_text(&second),
        "segment {} cannot be split there: both parts must hold text (put the cursor between two words)",
        index + 1
    );
    segments.splice(index..=index, [first.clone(), second.clone()]);
    if let Some(file) = documents::stored_file(store, doc)? {
        file.check_segments(&segments)?;
    }
    let index = index as i64;
    let params = remapped_params(store, doc, |i| if i < index { vec![i] } else if i == index { vec![i, i + 1] } else { vec![i + 1] })?;
    store.resegment(doc, &Resegment::Split { index, first, second }, &params)?;
    Ok(Resegmented { document_id: doc, segments: segments.len(), untranslated: store.missing_segments(run)?.into_iter().map(|i| i as usize).collect() })
}

/// Joins segments `index` and `index + 1` of run `run`'s document into one. Each run over the document keeps both
/// translations, joined (re-checked against its register); a run missing either has the joined segment to
/// translate again. Sentences in different parts of an imported file (paragraphs, cells, cues) are not joined.
pub fn join_segments(store: &mut Store, run: RunId, index: usize) -> anyhow::Result<Resegmented> {
    let doc = document_of(store, run)?;
    let mut segments = store.segment_texts(doc)?;
    anyhow::ensure!(index + 1 < segments.len(), "segment {} is the last one: there is no next segment to join it with", index + 1);
    let gap = match documents::stored_file(store, doc)? {
        Some(file) => file.join_gap(&segments, index)?,
        None => " ".to_string(),
    };
    let text = format!("{}{gap}{}", segments[index].trim_end(), segments[index + 1].trim_start());
    segments.splice(index..=index + 1, [text.clone()]);
    let mut outputs = Vec::new();
    for r in store.list_runs(&RunFilter { document_id: Some(doc), ..Default::default() })? {
        let (Some(a), Some(b)) = (store.output(r.id, index as i64)?, store.output(r.id, index as i64 + 1)?) else { continue };
        let lang = r.target_lang.as_deref().and_then(|l| l.parse::<Lang>().ok());
        // Japanese and Chinese sentences follow each other without a space.
        let sep = if matches!(r.target_lang.as_deref(), Some("ja" | "zh")) { "" } else { " " };
        let joined = format!("{}{sep}{}", a.text.trim(), b.text.trim());
        let mut o = Output::new(index as i64, joined.clone());
        o.candidates = serde_json::json!({ "source": text, "joined_from": [a.text, b.text] });
        if let (Task::Translate, Some(lang)) = (r.task, lang) {
            let register: Register = r.register.as_deref().unwrap_or("formal").parse().unwrap_or(Register::Formal);
            let c = check(lang, register, &joined);
            o.detected_register = Some(c.analysis.label.as_str().to_lowercase());
            // Each half passed or was flagged on its own; a flag on either stays until the translator clears it.
            o.flagged = c.flagged || a.flagged || b.flagged;
            o.flag_reason = c.flag_reason.or(a.flag_reason).or(b.flag_reason);
        }
        outputs.push((r.id, o));
    }
    let at = index as i64;
    let params = remapped_params(store, doc, |i| if i <= at { vec![i] } else if i == at + 1 { vec![] } else { vec![i - 1] })?;
    store.resegment(doc, &Resegment::Join { index: at, text, outputs }, &params)?;
    Ok(Resegmented { document_id: doc, segments: segments.len(), untranslated: store.missing_segments(run)?.into_iter().map(|i| i as usize).collect() })
}
