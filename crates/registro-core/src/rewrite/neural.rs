//! The engine-backed side of rewriting: translation for the round trip, chat generation for the LLM rewrite and
//! perplexity for fluency, all through `registro-engine`.

use super::{Method, Neural};

pub fn backend(method: Method, model: Option<&str>) -> anyhow::Result<Box<dyn Neural>> {
    let _ = model;
    anyhow::bail!("--method {}: the engine does not serve this yet in this build", method.name())
}
