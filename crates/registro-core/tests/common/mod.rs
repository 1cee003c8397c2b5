//! What several core tests share.
#![allow(dead_code)] // each test file uses its own share of these

/// The small real model the end-to-end tests translate with (the README's test command fetches it).
pub const SMALL_MODEL: &str = "qwen2.5-coder-0.5b-instruct";

/// Whether [`SMALL_MODEL`] is in the model cache; when it is not, says that the test is skipped.
pub fn small_model_cached() -> bool {
    match registro_core::models::resolve(SMALL_MODEL) {
        Ok(_) => true,
        Err(e) => {
            println!("skipped: {SMALL_MODEL} is not in the model cache ({e:#})");
            false
        }
    }
}
