//! registro-core: the document use cases of Registro, shared by the CLI and the Tauri app — translate, rewrite, QA,
//! documents, review and export, resume, projects — over generation (`registro-generate`), evaluation
//! (`registro-eval`) and a run's lifecycle (`registro-run`), so that the app and the CLI stay thin. Its modules form
//! layers (`tests/layers.rs`).
#![forbid(unsafe_code)]

pub mod bench;
pub mod doctor;
pub mod documents;
pub mod eval;
pub mod languages;
pub mod projects;
pub mod qa;
pub mod resegment;
pub mod resume;
pub mod review;
pub mod rewrite;
pub mod translate;

/// Where the shared test data lives (`$REGISTRO_SHARED_DATA`, set in a checkout by cargo and the scripts); one
/// lookup for every use case and face.
pub use registro_register::data::shared_data_dir;
// Evaluation and the Dashboard live in `registro-eval`, the progress and cancel types in `registro-run`; the faces
// reach them through core as before. `eval` is core's own module: it loads the model-based scorers and re-exports
// the rest.
pub use registro_eval::report;
// Generation (models, backends, prompts) lives in `registro-generate`.
pub use registro_generate::models;
pub use registro_run::{progress, run_state};
/// Where the app's run-time data (the translation example pools) is: `REGISTRO_DATA`, the app's resource
/// directory (told once at start with `set_resource_dir`), or beside the installed binary.
pub use registro_register::data::{data_dir, set_resource_dir};
/// Where models run: the faces choose once per process (`device::choose`, the CLI's `--device`); model loads that
/// say `DeviceChoice::Auto` get that choice.
pub use registro_engine::device;
/// The engine's thread pool; faces call `pool::prepare_process` first in `main`.
pub use registro_engine::pool;
