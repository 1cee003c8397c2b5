//! Generation, below every use case that generates text: which model (`models`: the catalogue, downloads,
//! loading, stored prefixes), through which backend (`backend`: the [`backend::Generator`] trait and the candle
//! engine; `remote`: an OpenAI-compatible server — vLLM, SGLang, llama.cpp), with which prompt (`prompt`,
//! `fewshot`: the register instruction and the retrieved CoCoA-MT / IWSLT examples; `budget`: how many fit),
//! under which constraints (`constrain`: the other register's markers banned, terms required), and whether the
//! meaning survived (`qe`: the multilingual meaning check).
//!
//! Translation (`registro-core::translate`) and rewriting (`registro-core::rewrite`) both build on this crate;
//! Cargo keeps it from reaching back into either.
#![forbid(unsafe_code)]

pub mod back_translation;
pub mod backend;
pub mod budget;
pub mod constrain;
pub mod fewshot;
pub mod models;
pub mod prompt;
pub mod qe;
pub mod remote;

pub use backend::{EngineGenerator, GenRequest, Generated, Generator};
pub use registro_run::progress;
