//! registro-rewrite: informal → formal rewriting without ML. [`rules`] is the XFORMAL/RT18 rule-based formalizer
//! (every change recorded with its type and span); [`scorer`] is a formality regressor trained on PT16 with
//! language-independent surface features plus per-language lexicons, so it applies zero-shot beyond English.
#![forbid(unsafe_code)]

pub mod bench;
pub mod content;
pub mod features;
mod lang;
pub mod lexicon;
pub mod pipeline;
pub mod prompt;
pub mod rerank;
pub mod rules;
pub mod scorer;
mod tokens;
pub mod xformal;

pub use lang::{Lang, UnknownLang};
pub use rules::{formalize, Edit, EditKind, Formalized, Formalizer};
