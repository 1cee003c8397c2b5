//! "Open with Registro": the file a file manager (or a terminal) names when it starts the app — the desktop entry
//! runs `registro-app %f`, Windows passes the path of a double-clicked file the same way — is opened in the
//! Translate view as the source document.
//!
//! The page still never names a path: the file on the command line is registered as an import token at start-up,
//! exactly as if the user had picked it in the Import dialog (see [`crate::files`]), and [`startup_file`] hands that
//! token to the page once. What the page can do with it is what it could do after the Import dialog: import it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tauri::State;

use crate::error::CmdResult;
use crate::files::{Chosen, FileChoices, Purpose};
use crate::startup::{Level, Problem};

/// Options of the app that take a value (`--db FILE`): their value is not a file to open.
const OPTIONS_WITH_VALUE: &[&str] = &["--db", "--e2e-dialog-answers"];

/// The file named on the command line, if any: the first argument that is neither an option (`--x`, `--x=v`) nor
/// the value of one that takes a value; everything after `--` is a file. Relative paths are taken from the
/// working directory the app was started in. The path is not checked here (see [`StartupFile::from_args`]).
pub fn file_argument(args: impl IntoIterator<Item = OsString>) -> Option<PathBuf> {
    let mut args = args.into_iter();
    let mut options_done = false;
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if !options_done && text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && text.starts_with("--") {
            if OPTIONS_WITH_VALUE.contains(&&*text) {
                args.next();
            }
            continue;
        }
        if text.is_empty() {
            continue;
        }
        let path = PathBuf::from(&arg);
        return Some(std::path::absolute(&path).unwrap_or(path));
    }
    None
}

/// The import token for the file the app was started with, until the page takes it.
pub struct StartupFile(Mutex<Option<Chosen>>);

impl StartupFile {
    /// Registers the file named in the app's arguments (if any) with `files` as an import choice. A name that is
    /// not a readable file becomes a start-up warning for the window instead (an app started from a file manager
    /// has no terminal to print to).
    pub fn from_args(files: &FileChoices, problems: &mut Vec<Problem>) -> StartupFile {
        let chosen = file_argument(std::env::args_os().skip(1)).and_then(|path| match Self::issue(files, &path) {
            Ok(chosen) => Some(chosen),
            Err(why) => {
                eprintln!("registro-app: cannot open {}: {why}", path.display());
                problems.push(Problem {
                    level: Level::Warning,
                    message: format!("Registro was asked to open {}, but {why}.", path.display()),
                    fix: "Check the file, then import it in the Documents view (Import…) or open it with Registro again."
                        .into(),
                });
                None
            }
        });
        StartupFile(Mutex::new(chosen))
    }

    fn issue(files: &FileChoices, path: &Path) -> Result<Chosen, String> {
        let meta = std::fs::metadata(path).map_err(|e| format!("it cannot be read ({e})"))?;
        if !meta.is_file() {
            return Err("it is not a file".into());
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
        let token = files.issue(Purpose::Import, path.to_path_buf()).map_err(|e| e.0)?;
        Ok(Chosen { token, path: path.display().to_string(), name })
    }

    fn take(&self) -> Option<Chosen> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// The file the app was started with, as an import token (see [`crate::files::Chosen`]); `null` when there was
/// none or it was already handed out (a reload of the page does not import it twice).
#[tauri::command(async)]
pub fn startup_file(opened: State<'_, StartupFile>) -> CmdResult<Option<Chosen>> {
    Ok(opened.take())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_file_is_the_first_argument_that_is_not_an_option() {
        assert_eq!(file_argument(args(&["/home/u/contract.xlf"])), Some(PathBuf::from("/home/u/contract.xlf")));
        assert_eq!(
            file_argument(args(&["--db", "/tmp/r.db", "--e2e-dialog-answers", "/tmp/a.json", "/d/subs.srt"])),
            Some(PathBuf::from("/d/subs.srt"))
        );
        assert_eq!(file_argument(args(&["--db=/tmp/r.db", "--verbose", "/d/a.po"])), Some(PathBuf::from("/d/a.po")));
        assert_eq!(file_argument(args(&["--", "--odd name.md"])), Some(std::path::absolute("--odd name.md").unwrap()));
        assert_eq!(file_argument(args(&["--db", "/tmp/r.db"])), None, "the database is not a file to open");
        assert_eq!(file_argument(args(&[])), None);
    }

    #[test]
    fn a_relative_path_is_taken_from_the_working_directory() {
        let p = file_argument(args(&["notes/a.md"])).unwrap();
        assert!(p.is_absolute(), "{}", p.display());
        assert!(p.ends_with("notes/a.md"));
    }

    #[test]
    fn the_file_becomes_an_import_token_handed_out_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("okapi.xlf");
        std::fs::write(&file, "<xliff/>").unwrap();
        let files = FileChoices::new(std::time::Duration::from_secs(60), None);
        let chosen = StartupFile::issue(&files, &file).unwrap();
        assert_eq!(chosen.name, "okapi.xlf");
        let opened = StartupFile(Mutex::new(Some(chosen)));
        let token = opened.take().unwrap().token;
        assert!(opened.take().is_none(), "handed out once");
        let err = files.redeem(&token, &[Purpose::SaveText]).unwrap_err().0;
        assert!(err.contains("not to save a document"), "a file opened with Registro is never written to: {err}");
    }

    #[test]
    fn a_missing_file_or_a_folder_is_said_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let files = FileChoices::new(std::time::Duration::from_secs(60), None);
        assert!(StartupFile::issue(&files, &dir.path().join("gone.xlf")).unwrap_err().contains("cannot be read"));
        assert_eq!(StartupFile::issue(&files, dir.path()).unwrap_err(), "it is not a file");
    }
}
