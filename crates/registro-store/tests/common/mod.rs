#![allow(dead_code)]
use std::path::{Path, PathBuf};

/// The shared test data folder, or `None` (after printing a visible skip line) when it is absent.
pub fn shared_data(sub: &str, test: &str) -> Option<PathBuf> {
    let base = std::env::var_os("REGISTRO_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let p = base.join(sub);
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: {test}: shared data {} not found (set REGISTRO_SHARED_DATA)", p.display());
        None
    }
}

pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}
