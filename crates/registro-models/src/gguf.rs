//! Just enough of a GGUF header to name a model file a user opens by path (its architecture and name), read by
//! `registro-gguf`, which checks every count, size and offset against the file before trusting it: a crafted or
//! truncated file is refused with what is wrong, before it is listed or imported. Loading the tensors is the
//! engine's job.
use std::path::Path;

use anyhow::Result;

pub(crate) struct GgufIdentity {
    pub architecture: String,
    pub name: Option<String>,
}

pub(crate) fn identify(path: &Path) -> Result<GgufIdentity> {
    let g = registro_gguf::read_file(path)?;
    Ok(GgufIdentity { architecture: g.architecture()?.to_string(), name: g.name().map(str::to_string) })
}
