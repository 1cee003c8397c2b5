//! Helpers shared by several window tests (each test file is its own crate; not every one uses every helper).
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use registro_e2e::{ready_or_skip, temp_project, Session};

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

/// A format fixture imported into a new project, listed on the Translate tab, with the next file dialog answered by
/// the export's destination.
pub struct FixtureToTranslate {
    /// The project's folder; removed when this is dropped.
    pub dir: tempfile::TempDir,
    /// The imported fixture.
    pub fixture: PathBuf,
    /// Where the export is written: `exported` in the project's folder.
    pub exported: PathBuf,
    pub session: Session,
    /// The Documents view's result line of the import.
    pub imported: String,
}

/// [`ready_or_skip`] for `test`, then project `project` with [`format_fixture`] `fixture` imported through Browse…
/// and the Translate tab open on it (see [`FixtureToTranslate`]). `None` when the test is skipped.
pub fn fixture_to_translate(test: &str, project: &str, fixture: &str, exported: &str) -> Option<FixtureToTranslate> {
    const WAIT: Duration = Duration::from_secs(30);
    if !ready_or_skip(test) {
        return None;
    }
    let (dir, db) = temp_project(project);
    let fixture = format_fixture(fixture);
    let exported = dir.path().join(exported);
    let session = Session::in_project(&db, dir.path(), &[Some(fixture.as_path()), Some(exported.as_path())], project, None).unwrap();
    let imported = session.import_browsed().unwrap();
    session.click_css(r#"[data-testid="tab-translate"]"#, WAIT).unwrap();
    session.wait_for(r#"[data-testid="translate-document"] option:nth-child(2)"#, WAIT).unwrap();
    Some(FixtureToTranslate { dir, fixture, exported, session, imported })
}
