//! The only way a file path reaches a command: the backend opens the native dialog itself, and the page gets back
//! a one-time token for what the user picked. Commands that read or write files take that token, never a path, so
//! a script injected into the web view can neither read an SSH key into the store nor overwrite `~/.bashrc`: it
//! can at most open a dialog the user then has to answer.
//!
//! Tokens are 128 random bits, bound to what the file was picked for (a folder picked to import submissions
//! cannot be written into by the report export), used once, and expire.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::DialogExt;

use crate::error::{CmdError, CmdResult};

/// Long enough to pick an import file and then set its format and language; short enough that a token leaked
/// into the page's memory is soon worthless.
pub const TOKEN_TTL: Duration = Duration::from_secs(15 * 60);

/// What the user is picking a file for. It decides the dialog (open a file, open a folder, save) and which
/// command may redeem the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    /// A document to import (read).
    Import,
    /// A paired folder to import (read).
    ImportFolder,
    /// A folder of system submissions to score and store as runs (read).
    Submissions,
    /// A folder the Dashboard writes its tables, charts and report into.
    ReportFolder,
    /// A text file to save an exported document to.
    SaveText,
    /// An .svg or .png file to save a chart to.
    SaveChart,
    /// A GGUF model file to copy into the model cache (read).
    ImportModel,
}

enum DialogKind {
    OpenFile,
    OpenFolder,
    Save,
}

impl Purpose {
    fn dialog(self) -> DialogKind {
        match self {
            Purpose::Import | Purpose::ImportModel => DialogKind::OpenFile,
            Purpose::ImportFolder | Purpose::Submissions | Purpose::ReportFolder => DialogKind::OpenFolder,
            Purpose::SaveText | Purpose::SaveChart => DialogKind::Save,
        }
    }

    fn title(self) -> &'static str {
        match self {
            Purpose::Import => "Import a document",
            Purpose::ImportFolder => "Import a paired folder",
            Purpose::Submissions => "Import a folder of submissions",
            Purpose::ReportFolder => "Export the comparison into a folder",
            Purpose::SaveText => "Save the document",
            Purpose::SaveChart => "Save the chart",
            Purpose::ImportModel => "Import a GGUF model",
        }
    }

    /// Words for error messages: "chosen to <describe>".
    fn describe(self) -> &'static str {
        match self {
            Purpose::Import | Purpose::ImportFolder => "import a document",
            Purpose::Submissions => "import submissions",
            Purpose::ReportFolder => "export a report",
            Purpose::SaveText => "save a document",
            Purpose::SaveChart => "save a chart",
            Purpose::ImportModel => "import a model",
        }
    }
}

/// What the page gets back from a dialog: the token to pass to the file command, and the path and name to show.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct Chosen {
    pub token: String,
    pub path: String,
    pub name: String,
}

struct Entry {
    path: PathBuf,
    purpose: Purpose,
    issued: Instant,
}

/// Files the user picked and no command has used yet.
pub struct FileChoices {
    live: Mutex<HashMap<String, Entry>>,
    ttl: Duration,
    /// Pre-answered dialogs for the end-to-end tests (the native dialog cannot be driven by WebDriver). Read from
    /// the command line or environment at start-up only, so nothing in the web view can add answers.
    answers: Option<Mutex<VecDeque<Option<PathBuf>>>>,
}

impl FileChoices {
    pub fn new(ttl: Duration, answers: Option<Vec<Option<PathBuf>>>) -> Self {
        FileChoices { live: Mutex::default(), ttl, answers: answers.map(|a| Mutex::new(a.into())) }
    }

    /// Registers `path`, picked for `purpose`, and returns its token.
    pub fn issue(&self, purpose: Purpose, path: PathBuf) -> CmdResult<String> {
        self.issue_at(purpose, path, Instant::now())
    }

    fn issue_at(&self, purpose: Purpose, path: PathBuf, now: Instant) -> CmdResult<String> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|e| CmdError::msg(format!("no randomness from the operating system: {e}")))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        // Every token needs a dialog the user answered, so the map stays small; dropping expired ones keeps it so.
        live.retain(|_, e| now.duration_since(e.issued) < self.ttl);
        live.insert(token.clone(), Entry { path, purpose, issued: now });
        Ok(token)
    }

    /// The path behind `token` when it was picked for one of `accepted`; the token is spent either way, so a
    /// guessed or replayed token gets one refusal and nothing else.
    pub fn redeem(&self, token: &str, accepted: &[Purpose]) -> CmdResult<PathBuf> {
        self.redeem_at(token, accepted, Instant::now())
    }

    fn redeem_at(&self, token: &str, accepted: &[Purpose], now: Instant) -> CmdResult<PathBuf> {
        let entry = self.live.lock().unwrap_or_else(|p| p.into_inner()).remove(token.trim());
        let Some(entry) = entry else {
            return Err(CmdError::msg(
                "refused: that is not a file you chose in a Registro dialog (unknown or already used file choice); \
                 choose the file again",
            ));
        };
        if now.duration_since(entry.issued) >= self.ttl {
            return Err(CmdError::msg(format!(
                "the choice of {} expired after {} minutes: choose the file again",
                entry.path.display(),
                self.ttl.as_secs() / 60
            )));
        }
        if !accepted.contains(&entry.purpose) {
            let wanted = accepted.first().map_or("do this", |p| p.describe());
            return Err(CmdError::msg(format!(
                "refused: {} was chosen to {}, not to {wanted}; choose the file again",
                entry.path.display(),
                entry.purpose.describe()
            )));
        }
        Ok(entry.path)
    }

    /// Asks the user for a file (or takes the next pre-answered one) and returns its token, or `None` when the
    /// dialog was cancelled. Blocks until the dialog closes: call it off the main thread.
    pub fn choose(&self, app: &AppHandle, purpose: Purpose, default_name: Option<&str>) -> CmdResult<Option<Chosen>> {
        let picked = match &self.answers {
            Some(queue) => queue
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .pop_front()
                .ok_or_else(|| CmdError::msg("every pre-answered dialog (--e2e-dialog-answers) has been used"))?,
            None => native_dialog(app, purpose, default_name)?,
        };
        let Some(path) = picked else { return Ok(None) };
        let name =
            path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
        let shown = path.display().to_string();
        Ok(Some(Chosen { token: self.issue(purpose, path)?, path: shown, name }))
    }

    /// Tokens for files the user dropped onto the window. Dropping is picking, as in a dialog: each file gets an
    /// import token (a folder a paired-folder one), nothing more, so what the page does with a drop is exactly what
    /// it could do after the Import dialog. Links and other non-files are skipped.
    pub fn dropped(&self, paths: &[PathBuf]) -> Vec<Chosen> {
        paths
            .iter()
            .filter_map(|path| {
                let meta = std::fs::metadata(path).ok()?;
                let purpose = if meta.is_dir() { Purpose::ImportFolder } else if meta.is_file() { Purpose::Import } else { return None };
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
                Some(Chosen { token: self.issue(purpose, path.clone()).ok()?, path: path.display().to_string(), name })
            })
            .collect()
    }

    pub fn pre_answered(&self) -> bool {
        self.answers.is_some()
    }
}

fn native_dialog(app: &AppHandle, purpose: Purpose, default_name: Option<&str>) -> CmdResult<Option<PathBuf>> {
    let mut d = app.dialog().file().set_title(purpose.title());
    if let Some(window) = app.get_webview_window("main") {
        d = d.set_parent(&window);
    }
    // The page suggests a name; only a bare file name, so it cannot steer the dialog to another folder.
    if let Some(name) = default_name.map(str::trim).filter(|n| is_bare_file_name(n)) {
        d = d.set_file_name(name);
    }
    if purpose == Purpose::SaveChart {
        d = d.add_filter("SVG or PNG image", &["svg", "png"]);
    }
    if purpose == Purpose::ImportModel {
        d = d.add_filter("GGUF model", &["gguf"]);
    }
    let picked = match purpose.dialog() {
        DialogKind::OpenFile => d.blocking_pick_file(),
        DialogKind::OpenFolder => d.blocking_pick_folder(),
        DialogKind::Save => d.blocking_save_file(),
    };
    picked
        .map(|p| {
            p.into_path()
                .map_err(|e| CmdError::msg(format!("the dialog returned a location that is not a local file: {e}")))
        })
        .transpose()
}

fn is_bare_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && Path::new(name).file_name().is_some_and(|f| f == name)
        && !name.contains(['/', '\\'])
}

/// The pre-answered dialogs of an end-to-end test: `--e2e-dialog-answers FILE` on the command line (or
/// `REGISTRO_E2E_DIALOG_ANSWERS=FILE`), a JSON array whose entries are the paths the "user" picks, in order
/// (`null` = Cancel). `Ok(None)` when neither is given.
pub fn dialog_answers_from_args() -> anyhow::Result<Option<Vec<Option<PathBuf>>>> {
    let mut file = std::env::var_os("REGISTRO_E2E_DIALOG_ANSWERS").filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--e2e-dialog-answers" {
            file = Some(PathBuf::from(args.next().context("--e2e-dialog-answers needs a file")?));
        } else if let Some(p) = arg.to_str().and_then(|a| a.strip_prefix("--e2e-dialog-answers=")) {
            file = Some(PathBuf::from(p));
        }
    }
    let Some(file) = file else { return Ok(None) };
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("cannot read the dialog answers {}", file.display()))?;
    let answers: Vec<Option<PathBuf>> = serde_json::from_str(&text)
        .with_context(|| format!("{}: expected a JSON array of paths (or null for Cancel)", file.display()))?;
    Ok(Some(answers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> FileChoices {
        FileChoices::new(Duration::from_secs(60), None)
    }

    #[test]
    fn a_token_gives_its_path_once() {
        let s = store();
        let t = s.issue(Purpose::SaveText, PathBuf::from("/home/u/out.txt")).unwrap();
        assert_eq!(t.len(), 32, "128 random bits as hex");
        assert_eq!(s.redeem(&t, &[Purpose::SaveText]).unwrap(), PathBuf::from("/home/u/out.txt"));
        let again = s.redeem(&t, &[Purpose::SaveText]).unwrap_err().0;
        assert!(again.contains("already used") && again.contains("choose the file again"), "{again}");
    }

    #[test]
    fn a_dropped_file_can_be_imported_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("contract.docx");
        std::fs::write(&file, b"x").unwrap();
        let s = store();
        let chosen = s.dropped(&[file.clone(), dir.path().to_path_buf(), dir.path().join("gone.xlf")]);
        assert_eq!(chosen.len(), 2, "a path that does not exist is skipped");
        assert_eq!(chosen[0].name, "contract.docx");
        let err = s.redeem(&chosen[0].token, &[Purpose::SaveText]).unwrap_err().0;
        assert!(err.contains("not to save a document"), "a dropped file is never a place to write: {err}");
        let again = s.dropped(&[file.clone()]);
        assert_eq!(s.redeem(&again[0].token, crate::commands::files::IMPORT).unwrap(), file);
        assert_eq!(s.redeem(&chosen[1].token, crate::commands::files::IMPORT).unwrap(), dir.path());
    }

    #[test]
    fn tokens_differ_for_the_same_file() {
        let s = store();
        let a = s.issue(Purpose::Import, PathBuf::from("/x")).unwrap();
        let b = s.issue(Purpose::Import, PathBuf::from("/x")).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn a_path_or_made_up_token_is_refused() {
        let s = store();
        s.issue(Purpose::SaveText, PathBuf::from("/home/u/out.txt")).unwrap();
        for forged in ["/home/u/out.txt", "/etc/passwd", "~/.bashrc", "", "00000000000000000000000000000000"] {
            let e = s.redeem(forged, &[Purpose::SaveText]).unwrap_err().0;
            assert!(e.starts_with("refused: that is not a file you chose"), "{forged:?}: {e}");
        }
    }

    #[test]
    fn an_expired_token_is_refused_and_spent() {
        let s = store();
        let t0 = Instant::now();
        let t = s.issue_at(Purpose::Import, PathBuf::from("/data/doc.txt"), t0).unwrap();
        let e = s.redeem_at(&t, &[Purpose::Import], t0 + Duration::from_secs(61)).unwrap_err().0;
        assert!(e.contains("/data/doc.txt") && e.contains("expired"), "{e}");
        assert!(s.redeem_at(&t, &[Purpose::Import], t0).is_err(), "an expired token does not come back");
        // Just inside the limit it still works.
        let t = s.issue_at(Purpose::Import, PathBuf::from("/data/doc.txt"), t0).unwrap();
        assert!(s.redeem_at(&t, &[Purpose::Import], t0 + Duration::from_secs(59)).is_ok());
    }

    #[test]
    fn a_token_only_serves_what_it_was_picked_for() {
        let s = store();
        let t = s.issue(Purpose::Submissions, PathBuf::from("/data/subs")).unwrap();
        let e = s.redeem(&t, &[Purpose::ReportFolder]).unwrap_err().0;
        assert!(e.contains("chosen to import submissions, not to export a report"), "{e}");
        assert!(s.redeem(&t, &[Purpose::Submissions]).is_err(), "a refused token is spent");
    }

    #[test]
    fn expired_tokens_are_dropped_when_new_ones_are_issued() {
        let s = store();
        let t0 = Instant::now();
        for _ in 0..100 {
            s.issue_at(Purpose::Import, PathBuf::from("/x"), t0).unwrap();
        }
        s.issue_at(Purpose::Import, PathBuf::from("/x"), t0 + Duration::from_secs(120)).unwrap();
        assert_eq!(s.live.lock().unwrap().len(), 1);
    }

    #[test]
    fn suggested_names_cannot_name_another_folder() {
        assert!(is_bare_file_name("translation.de.txt"));
        for bad in ["", "../.bashrc", "/etc/passwd", "a/b.txt", "..", ".", "a\\b"] {
            assert!(!is_bare_file_name(bad), "{bad:?}");
        }
    }
}
