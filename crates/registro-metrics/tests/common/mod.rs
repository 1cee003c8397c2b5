//! What the metric tests that read the shared data share.
#![allow(dead_code)] // each test file uses its own share of these

use std::path::PathBuf;

/// The folder `sub` of the shared test data (`REGISTRO_SHARED_DATA`, else `shared/data` beside the checkout) when
/// it holds `needed` (`""`: when it is a folder at all); otherwise `None`, after printing a visible skip line.
pub fn shared_data(sub: &str, needed: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("REGISTRO_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../../../shared/data"))
        .join(sub);
    let there = if needed.is_empty() { dir.is_dir() } else { dir.join(needed).exists() };
    if there {
        Some(dir)
    } else {
        println!("skipped: {} not found (set REGISTRO_SHARED_DATA)", dir.join(needed).display());
        None
    }
}
