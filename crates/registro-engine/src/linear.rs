//! A linear layer (no bias) over Registro's packed int8 kernels where they apply, candle's otherwise: the
//! decoder's quantized weights as the GGUF file stores them, and an encoder's trained float weights, kept as they
//! are or quantized at load (`Precision`).
use std::sync::Arc;

use anyhow::{bail, Result};
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{DType, Module, Tensor, D};

use crate::qmatmul::PackedWeight;

/// How a float model's linear layers compute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// The weights as trained: the numbers a reference implementation (sentence-transformers) computes.
    #[default]
    F32,
    /// Each weight quantized to Q8_0 at load and run by the packed int8 kernels on CPUs that have them (AVX-512
    /// VNNI), f32 elsewhere: faster, and a quarter of the weights' memory, for checks whose thresholds sit far
    /// above the rounding this adds.
    Int8,
}

/// A quantized weight: repacked for Registro's own kernels where they apply (`qmatmul.rs`: Q4_K, Q6_K, Q8_0
/// and Q5_0 on AVX-512 VNNI CPUs), otherwise candle's `QMatMul`, possibly with zero-padded rows. A packed weight keeps no
/// other copy: the packed kernels serve every batch size (they beat candle's AMX path on prefill too, 123 vs
/// 105 tok/s on Qwen2.5-1.5B, and dropping candle's copies took peak memory from 3.5 to under 2 GB).
pub(crate) struct Linear {
    weight: Weight,
    /// The activations' width (the weight's columns before any padding).
    k: usize,
}

/// Where a weight is multiplied.
enum Weight {
    /// In Registro's own tiles, read by the packed int8 kernels.
    Packed(PackedWeight),
    /// By candle's quantized kernels, its rows possibly zero-padded to `k_pad` columns.
    Quantized { w: QMatMul, k_pad: usize },
    /// By candle in f32, exactly as `candle_nn::Linear`.
    Float(candle_nn::Linear),
}

impl Linear {
    pub(crate) fn new(q: Arc<QTensor>) -> Result<(Self, Arc<QTensor>)> {
        let (_, k) = q.shape().dims2()?;
        if let Some(p) = PackedWeight::new(&q) {
            return Ok((Self { weight: Weight::Packed(p), k }, q));
        }
        // No packed kernel for this shape: candle's Q8_0 kernels beat its scalar Q5_0 code.
        let q = match q.device().is_cpu() && q.dtype() == GgmlDType::Q5_0 {
            true => Arc::new(crate::gguf::q5_0_to_q8_0(&q)?),
            false => q,
        };
        let q = match q.device().is_cpu() && pad_helps() {
            true => match crate::gguf::pad_q8_0_rows(&q, 256)? {
                Some(p) => Arc::new(p),
                None => q,
            },
            false => q,
        };
        let (_, k_pad) = q.shape().dims2()?;
        Ok((Self { weight: Weight::Quantized { w: QMatMul::from_arc(q.clone())?, k_pad }, k }, q))
    }

    /// A trained f32 (or f16/bf16) weight `(n, k)`. `Precision::Int8` quantizes it to Q8_0 and packs it for the int8
    /// kernels when this CPU has them; otherwise, and for `F32`, it stays a `candle_nn::Linear`, so f32 results are
    /// bit for bit what the model computes without Registro's kernels.
    pub(crate) fn from_float(w: Tensor, precision: Precision) -> Result<Self> {
        let (_, k) = w.dims2()?;
        // Q8_0 blocks are 32 wide: a narrower or ragged input dimension stays f32 rather than failing the load.
        if precision == Precision::Int8 && w.device().is_cpu() && k.is_multiple_of(32) {
            let q = QTensor::quantize(&w.to_dtype(DType::F32)?, GgmlDType::Q8_0)?;
            if let Some(p) = PackedWeight::new(&q) {
                return Ok(Self { weight: Weight::Packed(p), k });
            }
        }
        Ok(Self { weight: Weight::Float(candle_nn::Linear::new(w, None)), k })
    }

    pub(crate) fn forward(&self, x: &Tensor) -> Result<Tensor> {
        Ok(Self::forward_many(&[self], x)?.remove(0))
    }

    /// Applies several weights to the same input; the packed ones share one quantization of `x` and one pass
    /// over the thread pool.
    pub(crate) fn forward_many(ls: &[&Linear], x: &Tensor) -> Result<Vec<Tensor>> {
        let k = x.dim(D::Minus1)?;
        let rows = x.elem_count() / k;
        let packed: Vec<&PackedWeight> = ls.iter().filter_map(|l| if let Weight::Packed(p) = &l.weight { Some(p) } else { None }).collect();
        if let Some(p) = packed.iter().find(|p| p.k != k) {
            // A malformed file (candle's own path reports the same as a shape error).
            bail!("a {}×{} weight cannot take activations {} wide; the model file's shapes disagree", p.n, p.k, k);
        }
        let mut packed_outs = if packed.is_empty() {
            Vec::new()
        } else {
            crate::qmatmul::matmul(&packed, &x.flatten_all()?.to_vec1::<f32>()?, rows)
        }
        .into_iter();
        let mut dims = x.dims().to_vec();
        let mut outs = Vec::with_capacity(ls.len());
        for l in ls {
            outs.push(match &l.weight {
                Weight::Packed(p) => {
                    *dims.last_mut().unwrap() = p.n;
                    let out = packed_outs.next().expect("one output per packed weight");
                    Tensor::from_vec(out, dims.as_slice(), x.device())?
                }
                Weight::Quantized { w, k_pad } if *k_pad != l.k => w.forward(&x.pad_with_zeros(D::Minus1, 0, k_pad - l.k)?)?,
                Weight::Quantized { w, .. } => w.forward(x)?,
                Weight::Float(w) => w.forward(x)?,
            });
        }
        Ok(outs)
    }
}

/// Padding pays off where candle has tiled Q8_0 kernels (AVX512-VNNI / AVX-VNNI); `REGISTRO_NO_PAD=1` turns it
/// off for comparisons.
fn pad_helps() -> bool {
    if std::env::var("REGISTRO_NO_PAD").is_ok_and(|v| v == "1") {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vnni") || std::arch::is_x86_feature_detected!("avxvnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn weight_and_input() -> (Tensor, Tensor) {
        let dev = Device::Cpu;
        let w = Tensor::randn(0f32, 0.05, (48, 64), &dev).unwrap();
        let x = Tensor::randn(0f32, 1.0, (2, 5, 64), &dev).unwrap();
        (w, x)
    }

    #[test]
    fn a_float_weight_multiplies_as_candle_nn_does() {
        let (w, x) = weight_and_input();
        let ours = Linear::from_float(w.clone(), Precision::F32).unwrap().forward(&x).unwrap();
        let candle = candle_nn::Linear::new(w, None).forward(&x).unwrap();
        let (ours, candle) = (ours.flatten_all().unwrap().to_vec1::<f32>().unwrap(), candle.flatten_all().unwrap().to_vec1::<f32>().unwrap());
        assert_eq!(ours.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), candle.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn an_int8_weight_stays_within_quantization_error_of_the_float_one() {
        let (w, x) = weight_and_input();
        let int8 = Linear::from_float(w.clone(), Precision::Int8).unwrap();
        assert_eq!(matches!(int8.weight, Weight::Packed(_)), crate::qmatmul::available(), "packed exactly where the kernels run");
        let many = Linear::forward_many(&[&int8, &int8], &x).unwrap();
        let exact = Linear::from_float(w, Precision::F32).unwrap().forward(&x).unwrap();
        assert_eq!(many[0].dims(), exact.dims());
        let (a, b) = (many[0].flatten_all().unwrap().to_vec1::<f32>().unwrap(), exact.flatten_all().unwrap().to_vec1::<f32>().unwrap());
        let scale = b.iter().map(|v| v.abs()).fold(0f32, f32::max);
        let worst = a.iter().zip(&b).map(|(p, q)| (p - q).abs()).fold(0f32, f32::max);
        // Q8_0 weights and activations: ~1% of the largest output at most.
        assert!(worst < 0.02 * scale, "int8 differs by {worst} on outputs up to {scale}");
        assert_eq!(many[0].flatten_all().unwrap().to_vec1::<f32>().unwrap(), many[1].flatten_all().unwrap().to_vec1::<f32>().unwrap());
    }

    /// Q8_0 blocks are 32 wide: a model with a narrower input loads in "int8" with that layer in f32 instead of
    /// failing to load.
    #[test]
    fn a_layer_whose_input_is_not_a_multiple_of_32_stays_float_in_int8() {
        let w = Tensor::randn(0f32, 0.05, (32, 48), &Device::Cpu).unwrap();
        let l = Linear::from_float(w, Precision::Int8).unwrap();
        assert!(matches!(l.weight, Weight::Float(_)));
    }
}
