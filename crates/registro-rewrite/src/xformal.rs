//! Evaluation on an XFORMAL / GYAFC-layout folder: `informal` (one sentence a line) and `formal.ref0` …
//! `formal.ref3` (aligned human rewrites; at least one). Users bring XFORMAL; Registro does not ship it.
//!
//! Reported as in Briakou et al. (2021): multi-reference BLEU against the formal references, self-BLEU against the
//! informal input (high = little changed), mean formality, mean perplexity when a fluency model is given, and
//! their GM (formality, multi-BLEU and fluency each mapped to (0, 1] as in [`crate::rerank`]).

use std::path::{Path, PathBuf};

use registro_metrics::metric::{corpus_stats, prepare_refs, Metric};
use registro_metrics::Bleu;
use serde::Serialize;

use crate::rerank::{fluency_unit, formality_unit};

#[derive(Debug, thiserror::Error)]
pub enum XformalError {
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}: no formal.ref0 … formal.ref3 beside `informal`; expected the XFORMAL/GYAFC layout")]
    NoRefs(PathBuf),
    #[error("{file}: {got} lines, but `informal` has {expected}")]
    Length { file: PathBuf, expected: usize, got: usize },
    #[error("metric: {0}")]
    Metric(String),
}

pub struct Folder {
    pub dir: PathBuf,
    pub informal: Vec<String>,
    /// Reference streams, `formal.ref0` first.
    pub refs: Vec<Vec<String>>,
}

fn read_lines(p: &Path) -> Result<Vec<String>, XformalError> {
    let t = std::fs::read_to_string(p).map_err(|e| XformalError::Io(p.to_path_buf(), e))?;
    Ok(t.lines().map(|l| l.trim_end_matches('\r').to_string()).collect())
}

pub fn load(dir: &Path) -> Result<Folder, XformalError> {
    let informal = read_lines(&dir.join("informal"))?;
    let mut refs = Vec::new();
    for k in 0..4 {
        let p = dir.join(format!("formal.ref{k}"));
        if !p.exists() {
            continue;
        }
        let r = read_lines(&p)?;
        if r.len() != informal.len() {
            return Err(XformalError::Length { file: p, expected: informal.len(), got: r.len() });
        }
        refs.push(r);
    }
    if refs.is_empty() {
        return Err(XformalError::NoRefs(dir.to_path_buf()));
    }
    Ok(Folder { dir: dir.to_path_buf(), informal, refs })
}

#[derive(Clone, Debug, Serialize)]
pub struct Evaluation {
    pub segments: usize,
    pub references: usize,
    pub multi_bleu: f64,
    pub self_bleu: f64,
    /// Multi-BLEU of the input itself (the "do nothing" baseline for this folder).
    pub input_multi_bleu: f64,
    pub formality: f64,
    pub input_formality: f64,
    pub perplexity: Option<f64>,
    pub gm: f64,
    pub bleu_signature: String,
}

fn bleu(hyps: &[String], refs: &[Vec<String>]) -> Result<(f64, String), XformalError> {
    let m = Bleu::default();
    let prepared = prepare_refs(&m, refs).map_err(|e| XformalError::Metric(e.to_string()))?;
    let stats = corpus_stats(&m, hyps, &prepared).map_err(|e| XformalError::Metric(e.to_string()))?;
    let sig = registro_metrics::signature(&m, &prepared.nrefs, &Default::default());
    Ok((m.score(&stats.sum()), sig))
}

/// Scores `outputs` (aligned with `folder.informal`). `formality` and `input_formality` are per-segment scores
/// from the formality scorer; `perplexity` per segment when a fluency model ran.
pub fn evaluate(
    folder: &Folder,
    outputs: &[String],
    formality: &[f32],
    input_formality: &[f32],
    perplexity: Option<&[f64]>,
) -> Result<Evaluation, XformalError> {
    if outputs.len() != folder.informal.len() {
        return Err(XformalError::Length { file: folder.dir.join("(outputs)"), expected: folder.informal.len(), got: outputs.len() });
    }
    let (multi_bleu, bleu_signature) = bleu(outputs, &folder.refs)?;
    let (input_multi_bleu, _) = bleu(&folder.informal, &folder.refs)?;
    let (self_bleu, _) = bleu(outputs, std::slice::from_ref(&folder.informal))?;
    let mean = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>() / v.len().max(1) as f64;
    let f = mean(formality);
    // Geometric mean of perplexities = exp(mean log ppl): one odd sentence should not dominate.
    let ppl = perplexity.map(|p| (p.iter().map(|x| x.max(1.0).ln()).sum::<f64>() / p.len().max(1) as f64).exp());
    let mut parts = vec![formality_unit(f as f32), (multi_bleu / 100.0).clamp(0.01, 1.0)];
    if let Some(p) = ppl {
        parts.push(fluency_unit(p));
    }
    let gm = (parts.iter().map(|x| x.ln()).sum::<f64>() / parts.len() as f64).exp();
    Ok(Evaluation {
        segments: outputs.len(),
        references: folder.refs.len(),
        multi_bleu,
        self_bleu,
        input_multi_bleu,
        formality: f,
        input_formality: mean(input_formality),
        perplexity: ppl,
        gm,
        bleu_signature,
    })
}
