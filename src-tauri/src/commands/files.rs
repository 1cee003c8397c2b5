//! Choosing files, and the checks that keep paths out of every other command: the page asks the backend to open
//! a dialog and gets a one-time token for the file the user picked (see `crate::files`); models and formality
//! scorers are named by id, never by path.

use tauri::AppHandle;

use crate::error::{CmdError, CmdResult};
use crate::files::{Chosen, Purpose};
use crate::state::blocking;

/// Opens the native dialog for `purpose` and returns the token of the chosen file, or `null` when the user
/// cancelled. `default_name` pre-fills a save dialog (a bare file name).
#[tauri::command]
pub async fn choose_file(app: AppHandle, purpose: Purpose, default_name: Option<String>) -> CmdResult<Option<Chosen>> {
    let handle = app.clone();
    // The dialog blocks until it is answered: on the blocking pool, never on the main thread that draws it.
    blocking(app, move |state| state.files.choose(&handle, purpose, default_name.as_deref())).await
}

/// A model the page names: an id the model manager knows (shipped or imported with `registro models import`).
/// A path would let the page load any file on disk as a model.
pub fn model_id(id: &str) -> CmdResult<String> {
    let id = id.trim();
    let manager = registro_core::models::manager(&[]);
    if manager.manifest(id).is_some() {
        return Ok(id.to_string());
    }
    let known: Vec<&str> = manager.manifests().map(|m| m.id.as_str()).collect();
    let how = if id.contains(['/', '\\']) || id.ends_with(".gguf") {
        format!(
            "the app loads models by id, not by path; to use the file {id}, run `registro models import {id}` and pick \
             the id it prints"
        )
    } else {
        format!("unknown model id {id:?}")
    };
    Err(CmdError::msg(format!("{how} (known ids: {})", known.join(", "))))
}

/// A formality scorer the page names: a built-in one or `xlmr:<model id>`. Weights files (`*.json`) are for the
/// CLI (`--scorer FILE.json`), so the page cannot make the backend read a file of its choosing.
pub fn scorer(s: Option<&str>) -> CmdResult<registro_core::rewrite::ScorerChoice> {
    let s = s.map(str::trim).filter(|s| !s.is_empty()).unwrap_or("surface");
    if let Some(id) = s.strip_prefix("xlmr:") {
        model_id(id)?;
    } else if !matches!(s, "surface" | "lexical" | "embedding") {
        return Err(CmdError::msg(format!(
            "scorer {s:?}: the app offers the surface, lexical, embedding and xlmr:<model id> scorers; a weights file \
             can be used from the CLI (registro rewrite --scorer FILE.json)"
        )));
    }
    s.parse().map_err(CmdError::msg)
}

/// A scorer the page sent as core's type: the same choices as [`scorer`], never a file.
pub fn scorer_choice(c: registro_core::rewrite::ScorerChoice) -> CmdResult<registro_core::rewrite::ScorerChoice> {
    use registro_core::rewrite::ScorerChoice;
    match c {
        ScorerChoice::File(p) => scorer(Some(&p.display().to_string())),
        ScorerChoice::Xlmr(id) => scorer(Some(&format!("xlmr:{id}"))),
        other => Ok(other),
    }
}

/// The accepted purposes of each file command, in one place for the commands and their tests.
pub const IMPORT: &[Purpose] = &[Purpose::Import, Purpose::ImportFolder];
pub const SUBMISSIONS: &[Purpose] = &[Purpose::Submissions];
pub const REPORT_FOLDER: &[Purpose] = &[Purpose::ReportFolder];
pub const SAVE_TEXT: &[Purpose] = &[Purpose::SaveText];
pub const SAVE_CHART: &[Purpose] = &[Purpose::SaveChart];
pub const IMPORT_MODEL: &[Purpose] = &[Purpose::ImportModel];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_not_models() {
        for p in ["/etc/passwd", "/tmp/evil.gguf", "../models/x.gguf", "C:\\x.gguf"] {
            let e = model_id(p).unwrap_err().0;
            assert!(e.contains("by id, not by path") && e.contains("registro models import"), "{p}: {e}");
        }
        let e = model_id("no-such-model").unwrap_err().0;
        assert!(e.contains("unknown model id") && e.contains("qwen2.5-coder-1.5b-instruct"), "{e}");
        assert_eq!(model_id(" qwen2.5-coder-1.5b-instruct ").unwrap(), "qwen2.5-coder-1.5b-instruct");
    }

    #[test]
    fn scorer_files_are_refused() {
        for s in ["/home/u/.ssh/id_rsa.json", "w.json", "xlmr:/tmp/x"] {
            assert!(scorer(Some(s)).is_err(), "{s}");
        }
        assert!(scorer(Some("lexical")).is_ok());
        assert!(scorer(None).is_ok());
    }
}
