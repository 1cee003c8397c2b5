//! A run's lifecycle, below every use case: how it reports progress and is cancelled (`progress`), what state it
//! is in and how every face words it, whether it can be resumed, and how a panic inside it ends it `failed`
//! instead of leaving it `running` (`run_state`). Generation, the document use cases and evaluation depend on this
//! crate and on nothing of one another's.
#![forbid(unsafe_code)]

pub mod progress;
pub mod run_state;
