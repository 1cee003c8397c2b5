//! What several store tests share.
#![allow(dead_code)] // each test file uses its own share of these
use std::path::{Path, PathBuf};
use std::process::Command;

use registro_store::{NewRun, ProjectId, RunId, RunStatus, Store, Task};

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

/// A run of `task` by `system` over `total` segments, with no document, in `project`.
pub fn create_run(s: &Store, project: ProjectId, task: Task, system: &str, total: i64) -> RunId {
    let mut nr = NewRun::new(project, task, system);
    nr.total_segments = Some(total);
    s.create_run(&nr).unwrap()
}

/// This test binary again, as a child process that runs only `test`, with `env` naming the database `db`.
pub fn child_test(test: &str, env: &str, db: &Path) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", test, "--nocapture", "--test-threads=1"]).env(env, db);
    c
}

/// A fresh folder (deleted when dropped) and the path of a database `name` in it.
pub fn temp_db(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    (dir, path)
}

/// Opened again, the store at `path` shows `run` failed, with an error that starts with `cause` and says `says`,
/// and resuming it leaves exactly the segments `missing` to produce.
pub fn assert_failed_and_resumable(path: &Path, run: RunId, cause: &str, says: &str, missing: &[i64]) {
    let s = Store::open(path).unwrap();
    let r = s.run(run).unwrap();
    assert_eq!(r.status, RunStatus::Failed);
    let e = r.error.unwrap();
    assert!(e.starts_with(cause) && e.contains(says), "{e}");
    assert_eq!(s.resume_run(run).unwrap(), missing);
}
