//! Benchmarks of evaluation and the Dashboard: the fixtures they run on and the timings they print. The CLI's
//! `registro bench dashboard` and `registro eval --bench-sacrebleu` call them; tests reuse the fixtures.

mod dashboard;
mod sacrebleu;

pub use dashboard::{bench_fixture, review_fixture, time_dashboard, DashboardTimings, ReviewFixture};
pub use sacrebleu::{compare_with_sacrebleu, SacrebleuComparison};
