//! registro-core: the use cases of Registro, shared by the CLI and the Tauri app. It wires the focused crates
//! (store, metrics, engine, register, rewrite, report) together so that the app and the CLI stay thin.

pub mod eval;
pub mod models;
pub mod progress;
pub mod projects;
pub mod report;
pub mod rewrite;
pub mod translate;
