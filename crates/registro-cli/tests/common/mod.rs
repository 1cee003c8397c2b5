//! What the tests of the built `registro` binary share: a scratch folder per test, and running the binary with a
//! time bound so a hang fails the test instead of stalling CI.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// An empty folder for test `name` of this test binary and process. It is removed when the test passes (a
/// real-model run leaves a few hundred MB there, and a CI machine runs the suite many times); a failing test keeps
/// it, and says where, for whoever reads the failure.
pub fn scratch(name: &str) -> Scratch {
    let binary = module_path!().split("::").next().unwrap_or("cli");
    let d = std::env::temp_dir().join(format!("registro-cli-{binary}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// A test's scratch folder; see [`scratch`].
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept the failing test's folder: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// `registro [--db DB] ARGS`, not influenced by the caller's `REGISTRO_DB`.
pub fn command(db: Option<&Path>, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_registro"));
    if let Some(db) = db {
        cmd.arg("--db").arg(db);
    }
    cmd.args(args).env_remove("REGISTRO_DB");
    cmd
}

/// Runs `cmd` to the end, killing it and failing the test after `limit`; stdout and stderr are drained while it
/// runs, so a chatty command cannot block on a full pipe.
pub fn run_bounded(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the registro binary starts");
    fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        let mut pipe = pipe.expect("piped");
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).ok();
            bytes
        })
    }
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
}

/// `registro --db DB ARGS`, bounded to 10 minutes (the real-model runs on a loaded 2-core machine).
pub fn registro(db: &Path, args: &[&str]) -> Output {
    run_bounded(command(Some(db), args), Duration::from_secs(600))
}

/// `registro --db DB ARGS` that must succeed and print JSON.
pub fn ok_json(db: &Path, args: &[&str]) -> serde_json::Value {
    let out = registro(db, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// The model every real-model test of the binary uses.
pub const SMALL_MODEL: &str = "qwen2.5-coder-0.5b-instruct";

/// `translate`'s options for what the real-model tests translate into: formal German, with the small model.
pub const FORMAL_GERMAN: [&str; 6] = ["--lang", "de", "--register", "formal", "--model", SMALL_MODEL];

/// A scratch folder for test `name` and the path of a database in it, when [`SMALL_MODEL`] is in the model cache;
/// `None` (the test skips, as [`model_missing`] says) when it is not.
pub fn small_model_scratch(name: &str) -> Option<(Scratch, PathBuf)> {
    if model_missing(SMALL_MODEL) {
        return None;
    }
    let dir = scratch(name);
    let db = dir.join("r.db");
    Some((dir, db))
}

/// `letters.txt` in `dir` with `n` lines, `line(i)` for i from 1: a plain-text document of `n` segments for
/// `translate --input`.
pub fn numbered_letters(dir: &Path, n: usize, line: impl Fn(usize) -> String) -> PathBuf {
    let lines: Vec<String> = (1..=n).map(line).collect();
    let path = dir.join("letters.txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Whether model `id` is missing from the model cache (`REGISTRO_MODELS`, else `~/.cache/registro/models`); says
/// how to fetch it, for the test that then skips. `scripts/test.sh` fetches it first, so CI never skips.
pub fn model_missing(id: &str) -> bool {
    let models = std::env::var_os("REGISTRO_MODELS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/registro/models")));
    let missing = !models.is_some_and(|m| m.join(id).exists());
    if missing {
        println!("skipped: {id} not fetched (registro models fetch {id})");
    }
    missing
}
