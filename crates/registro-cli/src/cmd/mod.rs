pub mod backend;
pub mod bench;
pub mod doctor;
pub mod eval;
pub mod generate;
pub mod import;
pub mod models;
pub mod project;
pub mod qa;
pub mod report;
pub mod review;
pub mod rewrite;
pub mod runs;
pub mod translate;

use std::path::PathBuf;

/// Global options every subcommand sees.
pub struct Ctx {
    pub db: Option<PathBuf>,
    pub json: bool,
}
