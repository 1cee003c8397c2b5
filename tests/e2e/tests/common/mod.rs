//! Helpers shared by several window tests (each test file is its own crate; not every one uses every helper).
#![allow(dead_code)]

use std::path::PathBuf;

use registro_e2e::ready_or_skip;

/// [`ready_or_skip`] for `test`, then a temp folder and the path of `registro.db` in it, not created yet: the test
/// fills the store first or lets the app create it. `None` when the test is skipped. The folder goes when the
/// returned guard is dropped.
pub fn ready_temp_store(test: &str) -> Option<(tempfile::TempDir, PathBuf)> {
    if !ready_or_skip(test) {
        return None;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("registro.db");
    Some((dir, db))
}

/// A document from `crates/registro-formats/tests/fixtures`, the files the format readers are tested on.
pub fn format_fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../crates/registro-formats/tests/fixtures").join(name)
}
