//! Prefixes kept on disk between processes, as llama.cpp's `--prompt-cache` keeps a prompt's state: a document's
//! system text and contrastive examples (~800 tokens) take ~2.8 s to prefill with the 1.5B model on 2 cores, and
//! every `registro translate` run and every app start for the same language and register prefilled them again.
//! Read back, the same keys and values take tens of milliseconds.
//!
//! A stored prefix is only ever used for the exact tokens, model file and numerics it was computed with: the file's
//! name is a hash of all three, and the file repeats them, so a renamed or colliding file is refused. The data is
//! checked against a SHA-256 written beside it; a file that is truncated, corrupted or not a prefix at all is
//! removed and the prefix computed again: a bad cache file costs time, never a wrong translation.
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use anyhow::{bail, ensure, Context, Result};
use candle_core::safetensors::Load;
use candle_core::{DType, Device, Tensor};
use safetensors::{SafeTensors, View};
use sha2::{Digest, Sha256};

use super::{Model, Prefix};
use crate::decoder::KvCache;

/// Bumped whenever what a prefix file holds, or how the engine computes keys and values, changes: files of
/// another format are never read.
const FORMAT: &str = "registro-prefix-1";

/// A folder of stored prefixes, at most `max_bytes` in all: the least recently used go first.
#[derive(Clone, Debug)]
pub struct PrefixStore {
    dir: PathBuf,
    max_bytes: u64,
}

/// Where a prefix came from, for callers that report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixOrigin {
    Computed,
    Stored,
}

impl PrefixStore {
    /// 1 GiB holds about twenty 800-token prefixes of a 1.5B model (f16 keys and values, ~23 MB each).
    pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

    pub fn new(dir: impl Into<PathBuf>, max_bytes: u64) -> Self {
        Self { dir: dir.into(), max_bytes }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The prefix of `tokens`: read from the store when a valid file for this model holds it, else computed and
    /// written for the next process. What goes wrong with the store is returned as a note beside the prefix, never
    /// as an error: the prefix itself is always right.
    pub fn prefix(&self, model: &Model, tokens: &[u32]) -> Result<(Prefix, PrefixOrigin, Option<String>)> {
        // Stored prefixes are for the CPU, where a prefill takes seconds; and an empty prefix holds nothing.
        if !model.decoder.device().is_cpu() || tokens.is_empty() {
            return Ok((model.prefix(tokens)?, PrefixOrigin::Computed, None));
        }
        let identity = model_identity(model)?;
        let path = self.dir.join(format!("{}.safetensors", file_key(&identity, tokens)));
        let mut note = None;
        if path.exists() {
            match read(&path, model, &identity, tokens) {
                Ok(prefix) => {
                    // Touched so eviction keeps what is in use.
                    let _ = fs::File::options().write(true).open(&path).and_then(|f| f.set_modified(SystemTime::now()));
                    return Ok((prefix, PrefixOrigin::Stored, None));
                }
                Err(e) => {
                    note = Some(format!("stored prefix {} was not used and is computed again: {e:#}", path.display()));
                    let _ = fs::remove_file(&path);
                }
            }
        }
        let prefix = model.prefix(tokens)?;
        if let Err(e) = self.write(&path, &prefix, &identity) {
            let msg = format!("could not store the prefix in {}: {e:#}", self.dir.display());
            note = Some(note.map_or(msg.clone(), |n| format!("{n}; {msg}")));
        }
        Ok((prefix, PrefixOrigin::Computed, note))
    }

    fn write(&self, path: &Path, prefix: &Prefix, identity: &str) -> Result<()> {
        let Some(layers) = prefix.cache.shared_layers() else { bail!("the prefix is not a shared one") };
        fs::create_dir_all(&self.dir).with_context(|| format!("creating {}", self.dir.display()))?;
        // Keys and values were rounded to f16 when computed (llama.cpp's KV cache): stored as f16 they read back
        // bit for bit, at half the size.
        let f16 = super::super::decoder::f16_attention();
        let mut tensors: Vec<(String, Tensor)> = Vec::with_capacity(2 * layers.len() + 2);
        for (i, (k, v)) in layers.iter().enumerate() {
            tensors.push((format!("k.{i}"), if f16 { to_f16(k)? } else { k.clone() }));
            tensors.push((format!("v.{i}"), if f16 { to_f16(v)? } else { v.clone() }));
        }
        tensors.push(("tokens".into(), Tensor::new(prefix.tokens.as_slice(), &Device::Cpu)?));
        if let Some(l) = &prefix.last_logits {
            tensors.push(("last_logits".into(), Tensor::new(l.as_slice(), &Device::Cpu)?));
        }
        let metadata = HashMap::from([
            ("format".to_string(), FORMAT.to_string()),
            ("model".to_string(), identity.to_string()),
            ("sha256".to_string(), digest(tensors.iter().map(|(n, t)| (n.as_str(), t.data())))),
        ]);
        // Written under a temporary name and renamed: a crash mid-write leaves no half file under the real name.
        // Unique per process and call: two threads storing the same prefix never write one temporary file.
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let tmp = path.with_extension(format!("tmp{}-{}", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)));
        let written = safetensors::serialize_to_file(tensors.iter().map(|(n, t)| (n.as_str(), t)), Some(metadata), &tmp)
            .map_err(anyhow::Error::from)
            .and_then(|()| fs::rename(&tmp, path).map_err(anyhow::Error::from));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.with_context(|| format!("writing {}", path.display()))?;
        self.evict()
    }

    /// Removes the least recently used prefix files until the folder holds at most `max_bytes`, and temporary files
    /// a killed process left behind an hour ago or more.
    fn evict(&self) -> Result<()> {
        let mut files = Vec::new();
        let now = SystemTime::now();
        for entry in fs::read_dir(&self.dir)?.flatten() {
            let p = entry.path();
            let Ok(m) = entry.metadata() else { continue };
            let modified = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            match p.extension().and_then(|e| e.to_str()) {
                Some("safetensors") => files.push((modified, m.len(), p)),
                Some(e) if e.starts_with("tmp") && now.duration_since(modified).is_ok_and(|age| age.as_secs() >= 3600) => {
                    let _ = fs::remove_file(&p);
                }
                _ => {}
            }
        }
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        files.sort();
        for (_, len, p) in files {
            if total <= self.max_bytes {
                break;
            }
            if fs::remove_file(&p).is_ok() {
                total -= len;
            }
        }
        Ok(())
    }
}

/// Everything that decides a prefix's keys and values besides its tokens: the model file (by path, size and
/// modification time: replacing the file changes them) and the kernels and rounding the engine runs it with.
fn model_identity(model: &Model) -> Result<String> {
    let path = &model.info.path;
    let meta = fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    let modified = meta.modified().ok().and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    let canonical = fs::canonicalize(path).unwrap_or_else(|_| path.clone());
    Ok(format!(
        "{FORMAT}|{}|{}|{modified}|{}|native={}|f16={}|threads={}",
        canonical.display(),
        meta.len(),
        model.numerics,
        crate::qmatmul::available(),
        super::super::decoder::f16_attention(),
        rayon::current_num_threads(),
    ))
}

/// Through `half`'s slice conversion (F16C, eight values at a time): candle's `to_dtype` converts one value per
/// call, and storing a 1.5B model's 800-token prefix took a second that way.
fn to_f16(t: &Tensor) -> Result<Tensor> {
    use half::slice::HalfFloatSliceExt;
    let values = t.flatten_all()?.to_vec1::<f32>()?;
    let mut halves = vec![half::f16::ZERO; values.len()];
    halves.convert_from_f32_slice(&values);
    Ok(Tensor::from_vec(halves, t.shape(), &Device::Cpu)?)
}

/// A stored f16 or f32 tensor's values as f32 (little-endian, as safetensors writes them).
fn f32_values(view: &safetensors::tensor::TensorView<'_>) -> Result<Vec<f32>> {
    use half::slice::HalfFloatSliceExt;
    let bytes = view.data();
    match view.dtype() {
        safetensors::Dtype::F16 => {
            let halves: Vec<half::f16> = bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]])).collect();
            let mut values = vec![0f32; halves.len()];
            halves.convert_to_f32_slice(&mut values);
            Ok(values)
        }
        safetensors::Dtype::F32 => Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()),
        other => bail!("keys and values stored as {other:?}, expected F16 or F32"),
    }
}

fn file_key(identity: &str, tokens: &[u32]) -> String {
    let mut h = Sha256::new();
    h.update(identity.as_bytes());
    for t in tokens {
        h.update(t.to_le_bytes());
    }
    hex(&h.finalize())
}

/// SHA-256 over the tensors' names and bytes in name order: the same whatever order the file lays them out in.
fn digest<'a, B: AsRef<[u8]>>(tensors: impl Iterator<Item = (&'a str, B)>) -> String {
    let mut named: Vec<(&str, B)> = tensors.collect();
    named.sort_by(|a, b| a.0.cmp(b.0));
    let mut h = Sha256::new();
    for (name, bytes) in named {
        h.update(name.as_bytes());
        h.update([0]);
        h.update((bytes.as_ref().len() as u64).to_le_bytes());
        h.update(bytes.as_ref());
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads and checks a stored prefix: format, model identity, tokens, checksum, and every layer's shape against the
/// model's, before anything is built from it.
fn read(path: &Path, model: &Model, identity: &str, tokens: &[u32]) -> Result<Prefix> {
    let dims = &model.decoder.cfg.dims;
    let (n_layer, kv_heads, head_dim) = (dims.n_layer, dims.n_kv_head, dims.head_dim);
    let kv_bytes = 2 * n_layer * kv_heads * tokens.len() * head_dim * 4;
    // The largest file this prefix can be (f32 keys and values, tokens, logits, a header): a larger one is not
    // read into memory at all.
    let bound = kv_bytes as u64 + 4 * (tokens.len() + dims.vocab) as u64 + (1 << 20);
    let file = fs::File::open(path)?;
    let meta = file.metadata()?;
    // Not a FIFO or a device behind a link: reading one could block or never end.
    ensure!(meta.is_file(), "not a regular file");
    ensure!(meta.len() <= bound, "{} bytes, more than the {bound} a prefix of {} tokens can take", meta.len(), tokens.len());
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, bound + 1), &mut bytes)?;
    ensure!(bytes.len() as u64 <= bound, "grew past {bound} bytes while being read");
    let (_, header) = SafeTensors::read_metadata(&bytes).context("not a safetensors file")?;
    let meta = header.metadata().clone().unwrap_or_default();
    let field = |k: &str| meta.get(k).map(String::as_str).unwrap_or("");
    ensure!(field("format") == FORMAT, "format {:?}, expected {FORMAT:?}", field("format"));
    ensure!(field("model") == identity, "computed for another model or engine setting");
    let st = SafeTensors::deserialize(&bytes).context("not a safetensors file")?;
    let views = st.tensors();
    ensure!(digest(views.iter().map(|(n, v)| (n.as_str(), v.data()))) == field("sha256"), "its data does not match its checksum");
    let stored_tokens: Vec<u32> = st.tensor("tokens")?.load(&Device::Cpu)?.to_vec1()?;
    ensure!(stored_tokens == tokens, "holds another prompt");
    let device = model.decoder.device();
    let mut layers = Vec::with_capacity(n_layer);
    let load_layer = |name: String| -> Result<Tensor> {
        let view = st.tensor(&name).with_context(|| format!("no tensor {name}"))?;
        ensure!(
            view.shape() == [1, kv_heads, tokens.len(), head_dim],
            "{name} has shape {:?}, the model needs [1, {kv_heads}, {}, {head_dim}]",
            view.shape(),
            tokens.len()
        );
        Ok(Tensor::from_vec(f32_values(&view)?, view.shape(), device)?)
    };
    for i in 0..n_layer {
        layers.push((load_layer(format!("k.{i}"))?, load_layer(format!("v.{i}"))?));
    }
    ensure!(views.len() == 2 * n_layer + 1 + usize::from(views.iter().any(|(n, _)| n == "last_logits")), "holds tensors the model has no layers for");
    let last_logits = match st.tensor("last_logits") {
        Ok(v) => {
            ensure!(v.shape() == [dims.vocab], "last_logits has shape {:?}, the vocabulary is {}", v.shape(), dims.vocab);
            Some(v.load(&Device::Cpu)?.to_dtype(DType::F32)?.to_vec1()?)
        }
        Err(_) => None,
    };
    Ok(Prefix { cache: KvCache::from_shared_layers(layers, tokens.len()), tokens: tokens.to_vec(), last_logits })
}
