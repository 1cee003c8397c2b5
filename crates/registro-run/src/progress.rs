//! Progress reporting and cancellation for long operations. The CLI prints progress; the app forwards it through a
//! Tauri channel. Cancellation is cooperative: long loops check the token between segments.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Clone, Debug, serde::Serialize, ts_rs::TS)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    pub message: String,
}

#[derive(Clone, Default, Debug)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst)
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    /// The raw flag, for crates (like the engine) that take an `&AtomicBool` and know nothing of this type.
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// A sink for progress events; `&mut |p| …` closures are the usual implementation.
pub type ProgressFn<'a> = &'a mut dyn FnMut(Progress);
