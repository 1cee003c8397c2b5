//! registro-metrics: the metric engine of Registro, with no ML dependencies.
//!
//! Corpus metrics follow sacrebleu's design: each reduces a segment to sufficient statistics ([`metric::Metric`]),
//! corpus scores and resampling tests aggregate those, and a signature string makes every score reproducible.
//! BLEU, chrF and TER reproduce sacrebleu 2.6.0 to the last printed digit. Model-based scores (formality,
//! similarity, fluency) plug in through the traits in [`style`].
#![forbid(unsafe_code)]

pub mod bleu;
pub mod chrf;
pub mod correlation;
pub mod descriptor;
pub mod distance;
pub mod edits;
pub mod evaluate;
pub mod fxhash;
pub mod ja;
pub mod macc;
pub mod metric;
pub mod nprand;
mod npfloat;
pub mod significance;
pub mod style;
pub mod ter;
pub mod text;
pub mod tokenize;

pub use bleu::{Bleu, BleuScore, Smooth};
pub use chrf::Chrf;
pub use descriptor::{bleu_tokenizer, Better, MetricDescriptor, Scope, TokenizerRule};
pub use metric::{
    clip_interval, corpus_stats, prepare_refs, signature, Metric, NRefs, PreparedRefs, SegmentStats, SigResampling,
};
pub use ter::Ter;
pub use tokenize::Tokenizer;

#[derive(Debug, thiserror::Error)]
pub enum MetricError {
    #[error("{what}: expected {expected} lines, got {got}")]
    LengthMismatch {
        what: String,
        expected: usize,
        got: usize,
    },
    #[error("{0}")]
    Input(String),
}
