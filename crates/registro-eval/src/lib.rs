//! Evaluation and the Dashboard, in their own crate so that Cargo keeps them from reaching into translation,
//! rewriting or documents: they read stored runs and files, and score them.
//!
//! - [`eval`]: `registro eval` — systems' outputs against references (BLEU, chrF, TER identical to sacrebleu,
//!   CoCoA-MT M-Acc, Pang & Gimpel's Acc/Sim/PP/GM), stored as runs. The model-based scorers (Acc, Sim, PP) come
//!   in as [`registro_metrics::style::Providers`]; `registro-core` loads them.
//! - [`report`]: the Dashboard over stored runs — compare, significance, charts, drill-down, human evaluation,
//!   report files.
//! - [`bench`]: the commands that time them (`registro bench dashboard`, `registro eval --bench-sacrebleu`), kept
//!   out of the product modules.
#![forbid(unsafe_code)]

pub mod bench;
pub mod eval;
pub mod report;

// The paths the modules have always used (`crate::progress`, `crate::shared_data_dir`).
pub(crate) use registro_register::data::shared_data_dir;
pub use registro_run::progress;
