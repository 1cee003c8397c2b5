//! registro-core: the use cases of Registro, shared by the CLI and the Tauri app. It wires the focused crates
//! (store, metrics, engine, register, rewrite, report) together; the app and the CLI stay thin.

pub mod progress;
