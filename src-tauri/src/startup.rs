//! What went wrong at start-up, for the window to show: an app launched from a desktop menu has no terminal, so a
//! database that cannot open or a missing default model must be said in the window, with what to do.

use registro_core::models::{ModelManager, ModelState};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Nothing can be done until it is fixed (the database).
    Error,
    /// Some views will fail (a missing model).
    Warning,
    /// Worth knowing (a test harness pre-answers the dialogs).
    Info,
}

#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct Problem {
    pub level: Level,
    pub message: String,
    /// What the user can do about it.
    pub fix: String,
}

impl Problem {
    pub fn database(message: String) -> Problem {
        Problem {
            level: Level::Error,
            message,
            fix: "Start Registro with another database (--db FILE or REGISTRO_DB), or move this file away so a new \
                  one is created."
                .into(),
        }
    }
}

/// A warning when `id` is not usable from the cache; nothing is hashed, so this is quick enough for every start.
pub fn model_problem(manager: &ModelManager, id: &str) -> Option<Problem> {
    let status = match manager.status(id) {
        Ok(s) => s,
        Err(e) => {
            return Some(Problem {
                level: Level::Warning,
                message: format!("the default model cannot be used: {e:#}"),
                fix: "Set REGISTRO_DEFAULT_MODEL to one of the known ids (registro models list).".into(),
            })
        }
    };
    let why = match status.state {
        ModelState::Ready | ModelState::Unverified => return None,
        ModelState::Missing => "is not downloaded",
        ModelState::Partial => "is only partly downloaded",
        ModelState::Damaged => "is damaged (its files do not match their checksums)",
    };
    Some(Problem {
        level: Level::Warning,
        message: format!("Translate and LLM rewriting need the model {id}, which {why} (in {}).", status.dir.display()),
        fix: format!(
            "Download it in Settings → Models (from a terminal: `registro models fetch {id}`). Rules-based rewriting and the Dashboard work without it."
        ),
    })
}

/// A warning per catalogue manifest (`REGISTRO_CATALOGUE`) that was left out, so a mistyped mirror is not a model
/// that silently downloads from its shipped sources.
pub fn catalogue_problems(manager: &ModelManager) -> Vec<Problem> {
    manager
        .catalogue_problems()
        .iter()
        .map(|p| Problem {
            level: Level::Warning,
            message: format!("A model catalogue entry was left out: {p}"),
            fix: "Fix or remove that file in the REGISTRO_CATALOGUE folder, then restart Registro.".into(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_is_a_warning_that_says_what_to_run() {
        let dir = tempfile::tempdir().unwrap();
        let m = ModelManager::new(dir.path());
        let id = registro_core::models::DEFAULT_MODEL;
        let p = model_problem(&m, id).expect("an empty cache lacks the default model");
        assert_eq!(p.level, Level::Warning);
        assert!(p.message.contains(id) && p.message.contains("not downloaded"), "{}", p.message);
        assert!(p.fix.contains(&format!("registro models fetch {id}")), "{}", p.fix);
    }

    #[test]
    fn an_unknown_default_model_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = model_problem(&ModelManager::new(dir.path()), "no-such-model").unwrap();
        assert!(p.message.contains("no-such-model"), "{}", p.message);
    }
}
