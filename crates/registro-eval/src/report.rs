//! The Dashboard's use cases over stored runs: list and filter runs, compare N systems against a baseline
//! (tables with 95% CIs and significance, charts), drill into segments, run a blind human evaluation and measure
//! its agreement, and write everything to files (`registro report`).
//!
//! The work is split in three steps so the app can keep the expensive part:
//! 1. [`load`] reads runs, outputs, sources and references from the store ([`ComparisonData`]);
//! 2. [`prepare`] computes everything per segment once (metric sufficient statistics, sentence scores, M-Acc
//!    labels, formality scores, register markers' inputs, lexical overlap between systems) ([`Prepared`]);
//! 3. [`compare`] aggregates: corpus scores, paired significance against the chosen baseline, tables and charts.
//!    Changing the baseline or the bootstrap settings only repeats this step.

mod charts;
mod compare;
mod computed;
mod data;
mod direction;
mod drilldown;
mod export;
mod human;
mod led;
mod prepare;
mod resampled;
mod runs;
mod significance;
mod stats;

pub use compare::{compare, compare_with, complete_table, complete_tables, ChartLabel, CompareOptions, Comparison, MetricChoice, NamedChart, PendingTable, SystemInfo, CI_METHOD};
pub use data::{load, CompareRequest, ComparisonData, SystemData};
pub use direction::{formality_direction, metric_direction, register_side, stored_metric_direction, Direction};
pub use drilldown::{drilldown, DrillOptions, DrillPage, DrillSegment, DrillSort, OutputView, Token, TokenClass};
pub use export::{write_report, ReportFiles};
pub use human::{
    human_summary, rating_items, save_ratings, HumanSummary, Rating, RatingItem, RatingOutput, ScaleSummary,
    FLUENCY_SCALE, FORMALITY_SCALE, MEANING_SCALE,
};
pub use prepare::{prepare, prepare_stored, prepare_stored_with, store_computed, Prepared, SentenceMetric};
pub use runs::{list_runs, RunPage, RunQuery, RunSummary, DEFAULT_PAGE, MAX_PAGE};
pub use significance::{PairedResult, PairedTest};
pub use stats::{store_run_statistics, StoredStatistics, MAX_SEGMENTS};
pub use registro_report::{Chart, ImageFormat, Table};
