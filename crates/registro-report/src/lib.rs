//! registro-report: what the Dashboard and `registro report` show, computed from plain data: charts (plotters,
//! SVG and PNG), inter-rater agreement statistics, and table exports (CSV, JSON, LaTeX, one-file HTML).
//! No store, no models: callers hand in numbers, so everything here is testable on hand-made inputs.
#![forbid(unsafe_code)]

pub mod agreement;
pub mod charts;
pub mod html;
pub mod table;

use std::path::PathBuf;

pub use charts::{Chart, ImageFormat};
pub use table::{significance_legend, significance_marker, Cell, Column, Row, Table};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("invalid report input: {0}")]
    Invalid(String),
    #[error("chart rendering failed: {0}")]
    Chart(String),
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}
