//! `registro eval` as both faces run it: `registro-eval` scores and stores, this module loads the model-based
//! scorers (Pang & Gimpel's Acc, Sim, PP) that the metrics asked for need, from the installed models, and hands
//! them in. Everything else of `registro_eval::eval` is re-exported as it is.

pub use registro_eval::eval::*;

use anyhow::Result;
use registro_metrics::evaluate::EvalConfig;
use registro_store::Store;

use crate::progress::{CancelToken, ProgressFn};

pub mod model_metrics;

/// Scores `loaded` with `cfg`, loading the models its metrics need once, and stores one run per system when a
/// store is given.
pub fn run_eval(
    store: Option<&mut Store>,
    project: &str,
    loaded: &LoadedEval,
    cfg: &EvalConfig,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> Result<EvalOutcome> {
    let scorers = model_metrics::ModelScorers::for_config(cfg)?;
    run_eval_with(store, project, loaded, cfg, &scorers.providers(), cancel, progress)
}

/// What both faces run: `request` checked and turned into the configuration for `loaded` in language `lang`
/// ([`eval_config`]), scored, and stored with every run as `params.request`, so a run says what it was asked.
pub fn run_eval_request(
    store: Option<&mut Store>,
    project: &str,
    loaded: &LoadedEval,
    lang: &str,
    request: &EvalRequest,
    cancel: &CancelToken,
    progress: ProgressFn,
) -> Result<EvalOutcome> {
    let cfg = eval_config(lang, loaded, request)?;
    let scorers = model_metrics::ModelScorers::for_config(&cfg)?;
    run_eval_request_with(store, project, loaded, &cfg, request, &scorers.providers(), cancel, progress)
}
