//! GGUF metadata without the tensors: enough to identify a file a user opens by path (architecture, name,
//! tokenizer, chat template) and to reject damaged files with an error that names them.
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use candle_core::quantized::gguf_file::{self, Value};

/// The parsed header of a GGUF file.
pub struct GgufMeta {
    pub path: PathBuf,
    /// The header as `registro_gguf` checked it (counts, lengths, alignment, tensor extents).
    pub header: registro_gguf::Gguf,
    pub content: gguf_file::Content,
    pub file_len: u64,
}

impl GgufMeta {
    /// Checks the header with `registro_gguf` (so a damaged or hostile file is an error, not a panic or an abort in
    /// candle's reader, and a truncated download is caught here rather than when its last tensor is first used),
    /// then parses it with candle for the tokenizer and chat template readers.
    pub fn read(path: &Path) -> Result<Self> {
        let header = registro_gguf::read_file(path)?;
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let content = gguf_file::Content::read(&mut BufReader::new(file))
            .map_err(|e| anyhow!("{}: damaged or truncated GGUF header: {e}", path.display()))?;
        Ok(Self { path: path.to_path_buf(), file_len: header.file_len, header, content })
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.content.metadata.get(key)
    }

    pub fn string(&self, key: &str) -> Option<String> {
        meta_string(&self.content, key)
    }

    /// `general.architecture`, required by every GGUF writer.
    pub fn architecture(&self) -> Result<String> {
        self.string("general.architecture")
            .ok_or_else(|| anyhow!("{}: GGUF metadata lacks general.architecture", self.path.display()))
    }

    pub fn name(&self) -> Option<String> {
        self.string("general.name")
    }

    pub fn chat_template(&self) -> Option<String> {
        self.string("tokenizer.chat_template")
    }

    /// Number of parameters (elements over all tensors), for display.
    pub fn parameter_count(&self) -> u64 {
        self.header.parameter_count()
    }
}

pub fn meta_string(content: &gguf_file::Content, key: &str) -> Option<String> {
    content.metadata.get(key).and_then(|v| v.to_string().ok().cloned())
}

/// Integer metadata of any width: writers disagree on u32 vs i32 vs u64 for ids and flags.
pub fn meta_u64(content: &gguf_file::Content, key: &str) -> Option<u64> {
    match content.metadata.get(key)? {
        Value::U8(v) => Some(*v as u64),
        Value::I8(v) => u64::try_from(*v).ok(),
        Value::U16(v) => Some(*v as u64),
        Value::I16(v) => u64::try_from(*v).ok(),
        Value::U32(v) => Some(*v as u64),
        Value::I32(v) => u64::try_from(*v).ok(),
        Value::U64(v) => Some(*v),
        Value::I64(v) => u64::try_from(*v).ok(),
        _ => None,
    }
}

pub fn meta_bool(content: &gguf_file::Content, key: &str) -> Option<bool> {
    match content.metadata.get(key)? {
        Value::Bool(b) => Some(*b),
        other => meta_u64_value(other).map(|v| v != 0),
    }
}

fn meta_u64_value(v: &Value) -> Option<u64> {
    match v {
        Value::U8(v) => Some(*v as u64),
        Value::U32(v) => Some(*v as u64),
        Value::I32(v) => u64::try_from(*v).ok(),
        Value::U64(v) => Some(*v),
        _ => None,
    }
}

/// An array of integers (token types), widened to i64.
pub fn meta_int_array(content: &gguf_file::Content, key: &str) -> Option<Vec<i64>> {
    let arr = content.metadata.get(key)?.to_vec().ok()?;
    arr.iter()
        .map(|v| match v {
            Value::U8(v) => Some(*v as i64),
            Value::I8(v) => Some(*v as i64),
            Value::U16(v) => Some(*v as i64),
            Value::I16(v) => Some(*v as i64),
            Value::U32(v) => Some(*v as i64),
            Value::I32(v) => Some(*v as i64),
            Value::U64(v) => Some(*v as i64),
            Value::I64(v) => Some(*v),
            _ => None,
        })
        .collect()
}

pub fn meta_f32_array(content: &gguf_file::Content, key: &str) -> Option<Vec<f32>> {
    let arr = content.metadata.get(key)?.to_vec().ok()?;
    arr.iter()
        .map(|v| match v {
            Value::F32(v) => Some(*v),
            Value::F64(v) => Some(*v as f32),
            _ => None,
        })
        .collect()
}

pub fn meta_string_array(content: &gguf_file::Content, key: &str) -> Option<Vec<String>> {
    let arr = content.metadata.get(key)?.to_vec().ok()?;
    arr.iter().map(|v| v.to_string().ok().cloned()).collect()
}
