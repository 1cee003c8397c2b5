//! Reading GGUF files with errors a user can act on, and load-time re-quantization of tensor types that have
//! no fast CPU kernel in candle.
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use candle_core::quantized::{gguf_file, GgmlDType, QStorage, QTensor};
use candle_core::Device;

/// An opened GGUF file: parsed header plus a reader positioned anywhere.
pub struct GgufFile {
    pub path: PathBuf,
    /// The header as `registro_gguf` checked it: every count, length, offset and shape is known to be sane.
    pub header: registro_gguf::Gguf,
    pub content: gguf_file::Content,
    reader: BufReader<File>,
    /// Convert Q5_0 → Q8_0 (bit-exact) when loading onto a CPU that lacks the packed Q5_0 kernel
    /// (`qmatmul.rs`); where it has one, Q5_0 stays Q5_0 (5.5 bits per weight to read instead of 8.5).
    pub requantize: bool,
}

impl GgufFile {
    pub fn open(path: &Path) -> Result<Self> {
        // Checked before candle parses it: candle's reader divides by a zero alignment, overflows on offsets near
        // 2^64 and sizes buffers from unchecked header values, which panics or aborts the whole app.
        let header = registro_gguf::read_file(path)?;
        let file = File::open(path).with_context(|| format!("cannot open model file {}", path.display()))?;
        let mut reader = BufReader::new(file);
        let content = gguf_file::Content::read(&mut reader)
            .map_err(|e| anyhow::anyhow!("{}: corrupt GGUF header: {e}", path.display()))?;
        // Both readers must place the data identically, or the checked extents would not be the ones read.
        if content.tensor_data_offset != header.data_offset || content.tensor_infos.len() != header.tensors.len() {
            bail!("{}: the GGUF header changed while it was being read; try again", path.display());
        }
        Ok(Self { path: path.to_path_buf(), header, content, reader, requantize: true })
    }

    pub fn architecture(&self) -> Result<String> {
        self.content
            .metadata
            .get("general.architecture")
            .and_then(|v| v.to_string().ok().cloned())
            .with_context(|| format!("{}: no general.architecture in GGUF metadata", self.path.display()))
    }

    pub fn has(&self, key: &str) -> bool {
        self.content.metadata.contains_key(key)
    }

    /// An integer of any width that fits in a u32 (ids, sizes): a negative or larger value is an error naming
    /// it, never truncated.
    pub fn u32(&self, key: &str) -> Result<usize> {
        let v = self.header.get(key).with_context(|| self.missing(key))?;
        let n = v.as_u64().and_then(|n| u32::try_from(n).ok()).with_context(|| {
            format!("{}: {key} is {}, expected an integer from 0 to {}", self.path.display(), v.describe(), u32::MAX)
        })?;
        Ok(n as usize)
    }

    pub fn f32(&self, key: &str) -> Result<f32> {
        let v = self.header.get(key).with_context(|| self.missing(key))?;
        let x = v
            .as_f64()
            .with_context(|| format!("{}: {key} is {}, expected a number", self.path.display(), v.describe()))?;
        Ok(x as f32)
    }

    pub fn u32_or(&self, key: &str, default: usize) -> usize {
        self.u32(key).unwrap_or(default)
    }

    pub fn f32_or(&self, key: &str, default: f32) -> f32 {
        self.f32(key).unwrap_or(default)
    }

    pub fn string(&self, key: &str) -> Option<String> {
        self.content.metadata.get(key).and_then(|v| v.to_string().ok().cloned())
    }

    fn missing(&self, key: &str) -> String {
        format!("{}: GGUF metadata lacks {key}", self.path.display())
    }

    pub fn has_tensor(&self, name: &str) -> bool {
        self.content.tensor_infos.contains_key(name)
    }

    /// Loads a tensor as stored (re-quantizing Q5_0 to Q8_0 on a CPU without the packed kernels, see
    /// `q5_0_to_q8_0`).
    pub fn qtensor(&mut self, name: &str, device: &Device) -> Result<QTensor> {
        let path = self.path.display().to_string();
        let info = self.content.tensor_infos.get(name).with_context(|| format!("{path}: missing tensor {name}"))?;
        let requant =
            self.requantize && device.is_cpu() && info.ggml_dtype == GgmlDType::Q5_0 && !crate::qmatmul::available();
        let t = self
            .content
            .tensor(&mut self.reader, name, if requant { &Device::Cpu } else { device })
            .map_err(|e| anyhow::anyhow!("{path}: cannot read tensor {name}: {e}"))?;
        if requant {
            return q5_0_to_q8_0(&t);
        }
        Ok(t)
    }

    pub fn dequantized(&mut self, name: &str, device: &Device) -> Result<candle_core::Tensor> {
        let t = self.qtensor(name, device)?;
        Ok(t.dequantize(device)?)
    }
}

/// Q5_0 and Q8_0 share the block size (32) and the f16 scale, and Q5_0's 5-bit values (-16..=15) fit in Q8_0's
/// int8, so this conversion is exact; candle has SIMD kernels for Q8_0 but only scalar code for Q5_0. Used
/// where Registro's packed kernels are unavailable or a weight's shape does not fit their tiles.
pub fn q5_0_to_q8_0(t: &QTensor) -> Result<QTensor> {
    let src = t.data()?;
    const IN: usize = 22; // f16 d + u32 qh + 16 nibble bytes
    const OUT: usize = 34; // f16 d + 32 int8
    if src.len() % IN != 0 {
        bail!("Q5_0 tensor has {} bytes, not a multiple of the block size", src.len());
    }
    let blocks = src.len() / IN;
    let mut out = vec![0u8; blocks * OUT];
    for b in 0..blocks {
        let i = &src[b * IN..(b + 1) * IN];
        let o = &mut out[b * OUT..(b + 1) * OUT];
        o[0] = i[0];
        o[1] = i[1];
        let qh = u32::from_le_bytes([i[2], i[3], i[4], i[5]]);
        let qs = &i[6..22];
        for j in 0..16 {
            let lo = (qs[j] & 0x0f) | ((((qh >> j) & 1) as u8) << 4);
            let hi = (qs[j] >> 4) | ((((qh >> (j + 16)) & 1) as u8) << 4);
            o[2 + j] = (lo as i8 - 16) as u8;
            o[2 + j + 16] = (hi as i8 - 16) as u8;
        }
    }
    let storage = QStorage::from_data(std::borrow::Cow::Owned(out), &Device::Cpu, GgmlDType::Q8_0)?;
    Ok(QTensor::new(storage, t.shape().clone())?)
}

/// candle's tiled x86 kernels (AVX512-VNNI / AVX-VNNI) need the inner dimension to be a multiple of 256; models
/// with 896- or 640-wide rows (Qwen2.5-0.5B, Gemma-3-270M) fall back to one dot product per output element.
/// Appending zero blocks to every Q8_0 row (and zero columns to the activations) changes no result and lets
/// them use the fast path. Returns None when no padding is needed or possible.
pub fn pad_q8_0_rows(t: &QTensor, align: usize) -> Result<Option<QTensor>> {
    if t.dtype() != GgmlDType::Q8_0 {
        return Ok(None);
    }
    let (n, k) = t.shape().dims2()?;
    if k % align == 0 || k % 32 != 0 {
        return Ok(None);
    }
    let k_pad = k.div_ceil(align) * align;
    const B: usize = 34;
    let src = t.data()?;
    let (row_in, row_out) = (k / 32 * B, k_pad / 32 * B);
    let mut out = vec![0u8; n * row_out];
    for r in 0..n {
        out[r * row_out..r * row_out + row_in].copy_from_slice(&src[r * row_in..(r + 1) * row_in]);
    }
    let storage = QStorage::from_data(std::borrow::Cow::Owned(out), &Device::Cpu, GgmlDType::Q8_0)?;
    Ok(Some(QTensor::new(storage, (n, k_pad))?))
}
