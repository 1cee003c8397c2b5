//! Quality estimation of meaning: how close each candidate translation is to its English source, by the cosine of
//! their EmbeddingGemma-300M embeddings (one multilingual space, so a faithful German sentence lands next to its
//! English source and one that turned "Friday" into "lunedì" does not).
//!
//! The rule checks of `registro_register::meaning` catch what they can name (refusals, untranslated text, numbers,
//! dates, names); this catches drift they cannot name. Used by the reranker when the model is installed
//! (`registro models fetch embeddinggemma-300m`); without it translation works as before and the run's parameters
//! say the check was off.
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use registro_engine::embedding_gemma::{MultilingualEncoder, Precision, Task};
use registro_engine::DeviceChoice;

/// The model the check uses.
pub const MODEL: &str = "embeddinggemma-300m";

/// A chosen translation whose similarity to its source is below this is flagged. Calibrated with the reference
/// translations of the development split (the last 50 sources of each CoCoA-MT / IWSLT 2023 training domain file,
/// both registers: 200 pairs per language; Russian: the 30 pairs of `data/ru-dev`) against sentence-transformers'
/// EmbeddingGemma, as `scripts/calibrate-meaning-check.py` prints them: the 1st percentile of correct translations
/// is 0.80 (DE), 0.81 (ES), 0.80 (FR), 0.72 (HI), 0.70 (IT), 0.73 (JA), 0.71 (KO), 0.77 (NL), 0.75 (PT), 0.85 (RU),
/// 0.73 (VI), their median 0.84–0.92; below 0.70 are 1% of DE, IT and KO, 0.5% of VI, none elsewhere. Another
/// sentence's translation scores at most 0.57–0.65 (99th percentile; the highest 0.69, one pair of near-identical
/// Vietnamese chat lines 0.76). So about 1% of correct translations are flagged, and unrelated ones are not passed.
pub const DRIFT_BELOW: f64 = 0.70;

/// A candidate this much less similar to the source than its best sibling counts as unfaithful, like one that
/// drops a number: it never wins over a faithful one.
pub const DRIFT_MARGIN: f64 = 0.10;

pub struct MeaningCheck {
    encoder: MultilingualEncoder,
}

impl MeaningCheck {
    pub fn load(dir: &Path, device: DeviceChoice, precision: Precision) -> Result<Self> {
        let encoder = MultilingualEncoder::load_with(dir, device, precision).with_context(|| format!("meaning check: loading {MODEL}"))?;
        Ok(Self { encoder })
    }

    /// The installed model for translation's check, loaded once per process and shared (the window translates
    /// many times); `None` when it is not downloaded. A model that is there but fails to load is an error, not a
    /// silent `None`. Its linear layers run in int8 where the CPU has the packed kernels: the check runs on every
    /// candidate of every segment, and the rounding (similarities of 0.65 or more within 0.005 of f32, unrelated
    /// sentences' within 0.025: `real_models.rs`) is small beside [`DRIFT_BELOW`] and [`DRIFT_MARGIN`].
    pub fn installed() -> Result<Option<Arc<MeaningCheck>>> {
        static LOADED: Mutex<Option<Arc<MeaningCheck>>> = Mutex::new(None);
        Self::installed_in(&LOADED, Precision::Int8)
    }

    /// The installed model as trained (f32): the similarities sentence-transformers computes, for eval's Sim,
    /// whose numbers are compared with other tools'.
    pub fn installed_exact() -> Result<Option<Arc<MeaningCheck>>> {
        static LOADED: Mutex<Option<Arc<MeaningCheck>>> = Mutex::new(None);
        Self::installed_in(&LOADED, Precision::F32)
    }

    fn installed_in(slot: &Mutex<Option<Arc<MeaningCheck>>>, precision: Precision) -> Result<Option<Arc<MeaningCheck>>> {
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = slot.as_ref() {
            return Ok(Some(c.clone()));
        }
        let Ok(resolved) = crate::models::resolve(MODEL) else { return Ok(None) };
        let check = Arc::new(Self::load(&resolved.dir, DeviceChoice::default(), precision)?);
        *slot = Some(check.clone());
        Ok(Some(check))
    }

    pub fn id(&self) -> &'static str {
        MODEL
    }

    /// Unit-length sentence embeddings (the symmetric similarity task), in batches.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.encoder.embed(Task::Similarity, texts)
    }

    /// Cosine similarity of each candidate to `source`, in candidate order.
    pub fn similarities(&self, source: &str, candidates: &[&str]) -> Result<Vec<f64>> {
        let texts: Vec<&str> = std::iter::once(source).chain(candidates.iter().copied()).collect();
        let e = self.encoder.embed(Task::Similarity, &texts)?;
        Ok(e[1..].iter().map(|c| registro_engine::bert::cosine(&e[0], c)).collect())
    }

    /// Cosine similarity of `a[i]` and `b[i]` for every i (eval's Sim), all texts embedded in batches.
    pub fn pair_similarities(&self, a: &[&str], b: &[&str]) -> Result<Vec<f64>> {
        anyhow::ensure!(a.len() == b.len(), "{} texts against {}", a.len(), b.len());
        let texts: Vec<&str> = a.iter().chain(b).copied().collect();
        let e = self.encoder.embed(Task::Similarity, &texts)?;
        let (ea, eb) = e.split_at(a.len());
        Ok(ea.iter().zip(eb).map(|(x, y)| registro_engine::bert::cosine(x, y)).collect())
    }
}

/// Which candidates drift: those [`DRIFT_MARGIN`] below the best one.
pub fn drifting(similarities: &[f64]) -> Vec<bool> {
    let best = similarities.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    similarities.iter().map(|&s| s < best - DRIFT_MARGIN).collect()
}

/// The flag reason for a chosen translation this far from its source, if it is too far.
pub fn drift_flag(similarity: f64) -> Option<String> {
    (similarity < DRIFT_BELOW).then(|| {
        format!("meaning drift: similarity to the source {similarity:.2} ({MODEL}; below {DRIFT_BELOW:.2}): check the translation says what the source says")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_far_below_its_best_sibling_drifts_and_close_ones_do_not() {
        assert_eq!(drifting(&[0.91, 0.86, 0.70]), vec![false, false, true]);
        assert_eq!(drifting(&[0.5]), vec![false]);
        assert!(drift_flag(0.62).unwrap().contains("0.62"));
        assert!(drift_flag(0.85).is_none());
    }
}
