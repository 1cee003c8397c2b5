//! Writing GGUF bytes field by field, including fields no honest writer would produce: the crafted files of the
//! tests, the fuzzer's seeds, and a tiny valid decoder ([`tiny_decoder`]) to damage one field at a time.

/// Metadata and tensors in file order; [`Writer::finish`] lays them out as GGUF bytes.
#[derive(Clone, Debug)]
pub struct Writer {
    pub version: u32,
    /// Declared (tensor, metadata) counts, when they should differ from what is written.
    pub counts: Option<(u64, u64)>,
    /// Alignment used to lay out the data (set `general.alignment` separately to declare it).
    pub align: u64,
    pub kv: Vec<Kv>,
    pub tensors: Vec<Tensor>,
}

#[derive(Clone, Debug)]
pub struct Kv {
    pub key: String,
    /// Written instead of the key's true length.
    pub key_len: Option<u64>,
    /// GGUF value type id, then the value's bytes as they appear after it.
    pub ty: u32,
    pub value: Vec<u8>,
}

#[derive(Clone, Debug)]
pub struct Tensor {
    pub name: String,
    pub ne: Vec<u64>,
    pub ty: u32,
    pub data: Vec<u8>,
    /// Written instead of the computed offset.
    pub offset: Option<u64>,
}

impl Default for Writer {
    fn default() -> Self {
        Self { version: 3, counts: None, align: 32, kv: Vec::new(), tensors: Vec::new() }
    }
}

/// A length-prefixed GGUF string.
pub fn string_bytes(s: &str) -> Vec<u8> {
    let mut v = (s.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(s.as_bytes());
    v
}

impl Writer {
    /// Adds or replaces a metadata entry.
    pub fn set(&mut self, key: &str, ty: u32, value: Vec<u8>) -> &mut Self {
        match self.kv.iter_mut().find(|k| k.key == key) {
            Some(k) => {
                k.ty = ty;
                k.value = value;
            }
            None => self.kv.push(Kv { key: key.into(), key_len: None, ty, value }),
        }
        self
    }

    pub fn remove(&mut self, key: &str) -> &mut Self {
        self.kv.retain(|k| k.key != key);
        self
    }

    pub fn u32(&mut self, key: &str, v: u32) -> &mut Self {
        self.set(key, 4, v.to_le_bytes().to_vec())
    }

    pub fn i32(&mut self, key: &str, v: i32) -> &mut Self {
        self.set(key, 5, v.to_le_bytes().to_vec())
    }

    pub fn u64(&mut self, key: &str, v: u64) -> &mut Self {
        self.set(key, 10, v.to_le_bytes().to_vec())
    }

    pub fn f32(&mut self, key: &str, v: f32) -> &mut Self {
        self.set(key, 6, v.to_le_bytes().to_vec())
    }

    pub fn string(&mut self, key: &str, s: &str) -> &mut Self {
        self.set(key, 8, string_bytes(s))
    }

    pub fn strings(&mut self, key: &str, items: &[&str]) -> &mut Self {
        let mut v = 8u32.to_le_bytes().to_vec();
        v.extend_from_slice(&(items.len() as u64).to_le_bytes());
        for s in items {
            v.extend(string_bytes(s));
        }
        self.set(key, 9, v)
    }

    /// A tensor of F32 values.
    pub fn f32_tensor(&mut self, name: &str, ne: &[u64], values: &[f32]) -> &mut Self {
        let data = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.tensor(name, ne, 0, data)
    }

    pub fn tensor(&mut self, name: &str, ne: &[u64], ty: u32, data: Vec<u8>) -> &mut Self {
        self.tensors.push(Tensor { name: name.into(), ne: ne.to_vec(), ty, data, offset: None });
        self
    }

    pub fn tensor_mut(&mut self, name: &str) -> Option<&mut Tensor> {
        self.tensors.iter_mut().find(|t| t.name == name)
    }

    pub fn remove_tensor(&mut self, name: &str) -> &mut Self {
        self.tensors.retain(|t| t.name != name);
        self
    }

    pub fn finish(&self) -> Vec<u8> {
        let align = self.align.max(1) as usize;
        let pad = |n: usize| n.div_ceil(align) * align;
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&self.version.to_le_bytes());
        let (nt, nk) = self.counts.unwrap_or((self.tensors.len() as u64, self.kv.len() as u64));
        let len = |out: &mut Vec<u8>, n: u64| match self.version {
            1 => out.extend_from_slice(&(n as u32).to_le_bytes()),
            _ => out.extend_from_slice(&n.to_le_bytes()),
        };
        len(&mut out, nt);
        len(&mut out, nk);
        for kv in &self.kv {
            len(&mut out, kv.key_len.unwrap_or(kv.key.len() as u64));
            out.extend_from_slice(kv.key.as_bytes());
            out.extend_from_slice(&kv.ty.to_le_bytes());
            out.extend_from_slice(&kv.value);
        }
        let mut offset = 0usize;
        for t in &self.tensors {
            len(&mut out, t.name.len() as u64);
            out.extend_from_slice(t.name.as_bytes());
            out.extend_from_slice(&(t.ne.len() as u32).to_le_bytes());
            for &d in &t.ne {
                len(&mut out, d);
            }
            out.extend_from_slice(&t.ty.to_le_bytes());
            out.extend_from_slice(&t.offset.unwrap_or(offset as u64).to_le_bytes());
            offset = pad(offset + t.data.len());
        }
        out.resize(pad(out.len()), 0);
        for t in &self.tensors {
            out.extend_from_slice(&t.data);
            out.resize(pad(out.len()), 0);
        }
        out
    }
}

/// Widths of [`tiny_decoder`].
pub const TINY_VOCAB: u64 = 32;
pub const TINY_HIDDEN: u64 = 16;

/// The widths of a generated decoder.
#[derive(Clone, Copy, Debug)]
pub struct TinyDims {
    pub vocab: u64,
    pub hidden: u64,
    pub ffn: u64,
    pub heads: u64,
    pub kv_heads: u64,
    pub head_dim: u64,
    pub layers: u64,
}

impl TinyDims {
    /// Two layers, hidden 16, two heads of 8 sharing one KV head, vocabulary 32.
    pub const TINY: TinyDims =
        TinyDims { vocab: TINY_VOCAB, hidden: TINY_HIDDEN, ffn: 32, heads: 2, kv_heads: 1, head_dim: 8, layers: 2 };
    /// The smallest decoder there is (under 2 KB): the fuzzer's seed.
    pub const MINIMAL: TinyDims =
        TinyDims { vocab: 4, hidden: 2, ffn: 2, heads: 1, kv_heads: 1, head_dim: 2, layers: 1 };
}

/// A valid decoder of `arch` (`qwen2`, `qwen3`, `llama`, `gemma3`) with [`TinyDims::TINY`] widths and small
/// deterministic F32 weights: every tensor the engine loads for that architecture, and the metadata that
/// describes them.
pub fn tiny_decoder(arch: &str) -> Writer {
    tiny_decoder_with(arch, TinyDims::TINY)
}

pub fn tiny_decoder_with(arch: &str, d: TinyDims) -> Writer {
    let mut w = Writer::default();
    let layers = d.layers;
    let (h, f, hd) = (d.hidden, d.ffn, d.head_dim);
    let (q, kv) = (d.heads * hd, d.kv_heads * hd);
    w.string("general.architecture", arch).string("general.name", &format!("tiny-{arch}"));
    w.u32(&format!("{arch}.block_count"), layers as u32)
        .u32(&format!("{arch}.embedding_length"), h as u32)
        .u32(&format!("{arch}.feed_forward_length"), f as u32)
        .u32(&format!("{arch}.attention.head_count"), d.heads as u32)
        .u32(&format!("{arch}.attention.head_count_kv"), d.kv_heads as u32)
        .u32(&format!("{arch}.context_length"), 256)
        .f32(&format!("{arch}.attention.layer_norm_rms_epsilon"), 1e-6)
        .f32(&format!("{arch}.rope.freq_base"), 10_000.0);
    if hd * d.heads != h {
        w.u32(&format!("{arch}.attention.key_length"), hd as u32);
    }
    let mut seed = 1u64;
    let mut values = |n: u64, scale: f32| -> Vec<f32> {
        (0..n)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
            })
            .collect()
    };
    let ones = |n: u64| vec![1.0f32; n as usize];
    let vocab = d.vocab;
    w.f32_tensor("token_embd.weight", &[h, vocab], &values(h * vocab, 1.0));
    w.f32_tensor("output_norm.weight", &[h], &ones(h));
    if arch != "qwen2" {
        w.f32_tensor("output.weight", &[h, vocab], &values(h * vocab, 0.5));
    }
    for l in 0..layers {
        let p = |n: &str| format!("blk.{l}.{n}");
        w.f32_tensor(&p("attn_q.weight"), &[h, q], &values(h * q, 0.3));
        w.f32_tensor(&p("attn_k.weight"), &[h, kv], &values(h * kv, 0.3));
        w.f32_tensor(&p("attn_v.weight"), &[h, kv], &values(h * kv, 0.3));
        w.f32_tensor(&p("attn_output.weight"), &[q, h], &values(q * h, 0.3));
        w.f32_tensor(&p("ffn_gate.weight"), &[h, f], &values(h * f, 0.3));
        w.f32_tensor(&p("ffn_up.weight"), &[h, f], &values(h * f, 0.3));
        w.f32_tensor(&p("ffn_down.weight"), &[f, h], &values(f * h, 0.3));
        w.f32_tensor(&p("attn_norm.weight"), &[h], &ones(h));
        w.f32_tensor(&p("ffn_norm.weight"), &[h], &ones(h));
        if arch == "qwen2" {
            w.f32_tensor(&p("attn_q.bias"), &[q], &values(q, 0.1));
            w.f32_tensor(&p("attn_k.bias"), &[kv], &values(kv, 0.1));
            w.f32_tensor(&p("attn_v.bias"), &[kv], &values(kv, 0.1));
        }
        if arch == "qwen3" || arch == "gemma3" {
            w.f32_tensor(&p("attn_q_norm.weight"), &[hd], &ones(hd));
            w.f32_tensor(&p("attn_k_norm.weight"), &[hd], &ones(hd));
        }
        if arch == "gemma3" {
            w.f32_tensor(&p("post_attention_norm.weight"), &[h], &ones(h));
            w.f32_tensor(&p("post_ffw_norm.weight"), &[h], &ones(h));
        }
    }
    w
}
