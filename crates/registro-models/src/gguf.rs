//! Just enough of a GGUF header to name a model file a user opens by path (its architecture and name) and to
//! refuse a truncated one before it is listed or imported. Loading the tensors is the engine's job.
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use candle_core::quantized::gguf_file;

pub(crate) struct GgufIdentity {
    pub architecture: String,
    pub name: Option<String>,
}

pub(crate) fn identify(path: &Path) -> Result<GgufIdentity> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let file_len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut reader = BufReader::new(file);
    let mut magic = [0u8; 4];
    if file_len < 4 || reader.read_exact(&mut magic).is_err() {
        bail!("{}: empty or truncated file (no GGUF header)", path.display());
    }
    if &magic != b"GGUF" {
        bail!("{}: not a GGUF file (starts with {:?}, expected \"GGUF\")", path.display(), String::from_utf8_lossy(&magic));
    }
    reader.seek(SeekFrom::Start(0))?;
    let content = gguf_file::Content::read(&mut reader)
        .map_err(|e| anyhow!("{}: damaged or truncated GGUF header: {e}", path.display()))?;
    // A truncated download parses fine (the header is at the front); only the tensor extents tell.
    let mut needed = content.tensor_data_offset;
    for info in content.tensor_infos.values() {
        let bytes = info.shape.elem_count() / info.ggml_dtype.block_size() * info.ggml_dtype.type_size();
        needed = needed.max(content.tensor_data_offset + info.offset + bytes as u64);
    }
    if needed > file_len {
        bail!("{}: truncated GGUF file ({file_len} bytes, but its tensors need {needed}); download it again", path.display());
    }
    let string = |key: &str| content.metadata.get(key).and_then(|v| v.to_string().ok().cloned());
    let architecture = string("general.architecture")
        .ok_or_else(|| anyhow!("{}: GGUF metadata lacks general.architecture", path.display()))?;
    Ok(GgufIdentity { architecture, name: string("general.name") })
}
