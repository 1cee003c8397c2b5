//! The models behind Pang & Gimpel's Acc, Sim and PP in `registro eval --metrics acc,sim,pp,gm`, chosen by the
//! outputs' language, so both faces score the same files the same way:
//! - **Acc**: in English the PT16 formality regressor (lexical variant, formal at or above the XFORMAL threshold
//!   −1 on the −3…3 scale); in any other language the register analyzer (formal or informal markers; a sentence
//!   with none, or with both, is left out of Acc rather than counted either way). An English regressor cannot
//!   judge German: scoring German outputs with it put formal systems at −0.1 on average.
//! - **Sim**: cosine of sentence embeddings — all-MiniLM-L6-v2 in English, EmbeddingGemma-300M in any other
//!   language (and across languages: an English source against its translation) — when the model is installed,
//!   else chrF/100 to the input; chrF/100 is reported beside it in every case (`sim_chrf`).
//! - **PP**: perplexity under the default LLM (or `REGISTRO_EVAL_LM`), many outputs per forward pass.
//!
//! Each scorer's name goes into the scores' signature.
use std::sync::Mutex;

use anyhow::{Context, Result};
use registro_engine::bert::SentenceEncoder;
use registro_engine::{DeviceChoice, Model};
use registro_metrics::evaluate::{EvalConfig, ModelNeeds};
use registro_metrics::style::{ChrfSimilarity, FluencyScorer, FormalityScorer, ProviderError, Providers, SimilarityScorer};
use registro_register::analyze;

/// The scorers a configuration's model-based metrics need; [`ModelScorers::providers`] lends them to the metric
/// engine.
#[derive(Default)]
pub struct ModelScorers {
    formality: Option<Box<dyn FormalityScorer>>,
    similarity: Option<Box<dyn SimilarityScorer>>,
    fluency: Option<Box<dyn FluencyScorer>>,
}

impl ModelScorers {
    /// Loads what `cfg.metrics` asks for (GM asks for all three); nothing when no model-based metric is asked for.
    pub fn for_config(cfg: &EvalConfig) -> Result<Self> {
        let needs = ModelNeeds::of(&cfg.metrics);
        let english = cfg.lang.is_empty() || cfg.lang == "en";
        let mut s = Self::default();
        if needs.formality {
            s.formality = Some(if english {
                Box::new(Pt16Formality::new()?)
            } else {
                let lang: registro_register::Lang = cfg.lang.parse().map_err(|e| {
                    anyhow::anyhow!("acc in {}: {e} (the register analyzer covers the languages of `registro translate`)", cfg.lang)
                })?;
                Box::new(AnalyzerFormality(lang))
            });
        }
        if needs.similarity {
            s.similarity = Some(match english.then(EmbeddingSimilarity::load).flatten() {
                Some(e) => Box::new(e),
                None => match MultilingualSimilarity::load()? {
                    Some(m) => Box::new(m),
                    None => Box::new(ChrfSimilarity),
                },
            });
        }
        if needs.fluency {
            let id = std::env::var("REGISTRO_EVAL_LM").ok().filter(|v| !v.trim().is_empty()).unwrap_or_else(registro_generate::models::default_model);
            let model = registro_generate::models::load_llm(&id, Default::default(), None).with_context(|| format!("pp needs a language model ({id})"))?;
            s.fluency = Some(Box::new(LmFluency { model, id }));
        }
        Ok(s)
    }

    pub fn providers(&self) -> Providers<'_> {
        Providers { formality: self.formality.as_deref(), similarity: self.similarity.as_deref(), fluency: self.fluency.as_deref() }
    }
}

/// The English PT16 regressor as a probability of "formal": 0.5 exactly at the XFORMAL threshold, so that Acc
/// counts what `registro rewrite` counts.
struct Pt16Formality(Mutex<registro_rewrite::scorer::Scorer>);

impl Pt16Formality {
    fn new() -> Result<Self> {
        let s = registro_rewrite::scorer::Scorer::builtin(registro_rewrite::scorer::Variant::Lexical)?;
        Ok(Self(Mutex::new(s)))
    }
}

impl FormalityScorer for Pt16Formality {
    fn name(&self) -> String {
        "pt16-lexical(en)".into()
    }
    fn formality(&self, texts: &[String]) -> Result<Vec<f64>, ProviderError> {
        let mut s = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let threshold = registro_rewrite::xformal::FORMAL_THRESHOLD as f64;
        texts
            .iter()
            .map(|t| {
                let score = s.score(t, registro_rewrite::Lang::En, None)? as f64;
                Ok((0.5 + (score - threshold) / 6.0).clamp(0.0, 1.0))
            })
            .collect()
    }
}

/// The register analyzer as a formality scorer: 1 formal, 0 informal, NaN (cannot tell) for a sentence without
/// markers or with markers of both registers.
struct AnalyzerFormality(registro_register::Lang);

impl FormalityScorer for AnalyzerFormality {
    fn name(&self) -> String {
        format!("register-analyzer({})", self.0.code())
    }
    fn formality(&self, texts: &[String]) -> Result<Vec<f64>, ProviderError> {
        Ok(texts
            .iter()
            .map(|t| analyze(self.0, t).label.formality_sign().map_or(f64::NAN, |s| (s + 1.0) / 2.0))
            .collect())
    }
}

struct EmbeddingSimilarity(SentenceEncoder);

impl EmbeddingSimilarity {
    /// The English encoder, if installed (`registro models fetch all-minilm-l6-v2`).
    fn load() -> Option<Self> {
        let r = registro_generate::models::resolve("all-minilm-l6-v2").ok()?;
        SentenceEncoder::load(&r.dir, DeviceChoice::default()).ok().map(Self)
    }
}

impl SimilarityScorer for EmbeddingSimilarity {
    fn name(&self) -> String {
        "all-minilm-l6-v2-cosine".into()
    }
    fn similarity(&self, a: &[String], b: &[String]) -> Result<Vec<f64>, ProviderError> {
        let mut out = Vec::with_capacity(a.len());
        for (xa, xb) in a.chunks(64).zip(b.chunks(64)) {
            let texts: Vec<&str> = xa.iter().chain(xb).map(String::as_str).collect();
            let e = self.0.embed(&texts).map_err(|e| format!("{e:#}"))?;
            let (ea, eb) = e.split_at(xa.len());
            out.extend(ea.iter().zip(eb).map(|(u, v)| registro_engine::bert::cosine(u, v)));
        }
        Ok(out)
    }
}

/// EmbeddingGemma-300M: one space for 100+ languages, so Sim works for a German rewrite and for an English source
/// against its Japanese translation alike.
struct MultilingualSimilarity(std::sync::Arc<registro_generate::qe::MeaningCheck>);

impl MultilingualSimilarity {
    /// The installed model (in English, the fallback when all-MiniLM-L6-v2 is missing).
    fn load() -> Result<Option<Self>> {
        Ok(registro_generate::qe::MeaningCheck::installed_exact()?.map(Self))
    }
}

impl SimilarityScorer for MultilingualSimilarity {
    fn name(&self) -> String {
        format!("{}-cosine", self.0.id())
    }
    fn similarity(&self, a: &[String], b: &[String]) -> Result<Vec<f64>, ProviderError> {
        let (a, b): (Vec<&str>, Vec<&str>) = a.iter().zip(b).map(|(x, y)| (x.as_str(), y.as_str())).unzip();
        Ok(self.0.pair_similarities(&a, &b).map_err(|e| format!("{e:#}"))?)
    }
}

struct LmFluency {
    model: Model,
    id: String,
}

impl FluencyScorer for LmFluency {
    fn name(&self) -> String {
        self.id.clone()
    }
    fn perplexity(&self, texts: &[String]) -> Result<Vec<f64>, ProviderError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let per = self.model.perplexity_many(&refs).map_err(|e| format!("{e:#}"))?;
        per.into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|e| format!("output {}: {e:#}", i + 1).into()))
            .collect()
    }
}
