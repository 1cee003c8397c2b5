//! What every long-running use case shares, below all of them: how it reports progress and how it is cancelled.
//! Generation, the document use cases and evaluation depend on this crate and on nothing of one another's.
#![forbid(unsafe_code)]

pub mod progress;
