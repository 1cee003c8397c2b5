//! Crafted model files a user might download and open: each is refused by the validator, by `Model::load` and by
//! the metadata reader with the same message naming the file and the bad field — before candle's GGUF reader,
//! which panics (alignment 0, a 0-dimension tensor, offsets near 2^64) or aborts the process on a
//! multi-terabyte allocation (block_count 0xFFFFFFFF, huge lengths), ever sees them.
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use registro_engine::gguf_meta::GgufMeta;
use registro_engine::{GenerateOptions, LoadOptions, Model, NoProcessor};
use registro_gguf::write::{tiny_decoder, Writer};

type Craft = fn(&mut Writer);

/// (file name, damage, what the error must say, whether the damage is structural — caught by any GGUF reader —
/// rather than a decoder that disagrees with itself).
const CASES: &[(&str, Craft, &str, bool)] = &[
    (
        "alignment-0",
        |w| {
            w.u32("general.alignment", 0);
        },
        "general.alignment is 0",
        true,
    ),
    (
        "alignment-3",
        |w| {
            w.u32("general.alignment", 3);
        },
        "general.alignment is 3",
        true,
    ),
    (
        "zero-dims",
        |w| w.tensor_mut("token_embd.weight").unwrap().ne.clear(),
        "token_embd.weight has 0 dimensions",
        true,
    ),
    ("zero-dim-value", |w| w.tensor_mut("output_norm.weight").unwrap().ne = vec![16, 0], "at least 1", true),
    (
        "offset-2^64",
        |w| w.tensor_mut("blk.1.ffn_down.weight").unwrap().offset = Some(u64::MAX - 31),
        "overflows 64 bits",
        true,
    ),
    (
        "elements-2^96",
        |w| w.tensor_mut("output_norm.weight").unwrap().ne = vec![1 << 32, 1 << 32, 1 << 32],
        "more elements than fit in 64 bits",
        true,
    ),
    ("key-length-2^40", |w| w.kv[3].key_len = Some(1 << 40), "metadata key #3 is 1099511627776 bytes long", true),
    (
        "array-length-2^40",
        |w| {
            let mut v = 8u32.to_le_bytes().to_vec();
            v.extend_from_slice(&(1u64 << 40).to_le_bytes());
            w.set("tokenizer.ggml.tokens", 9, v);
        },
        "an array of 1099511627776 string values",
        true,
    ),
    ("unknown-type", |w| w.tensor_mut("output_norm.weight").unwrap().ty = 99, "unknown ggml type 99", true),
    (
        "iq2-type",
        |w| w.tensor_mut("output_norm.weight").unwrap().ty = 16,
        "type IQ2_XXS, which Registro cannot load",
        true,
    ),
    (
        "block-count-max",
        |w| {
            w.u32("llama.block_count", u32::MAX);
        },
        "llama.block_count is 4294967295",
        false,
    ),
    (
        "block-count-0",
        |w| {
            w.u32("llama.block_count", 0);
        },
        "llama.block_count is 0",
        false,
    ),
    (
        "head-size-2^30",
        |w| {
            w.u32("llama.attention.key_length", 1 << 30);
        },
        "heads of size 1073741824 require",
        false,
    ),
    (
        "embedding-2^30",
        |w| {
            w.u32("llama.embedding_length", 1 << 30);
        },
        "llama.embedding_length is 1073741824",
        false,
    ),
    (
        "layer-missing",
        |w| {
            w.remove_tensor("blk.1.attn_v.weight");
        },
        "tensor blk.1.attn_v.weight is missing",
        false,
    ),
    (
        "architecture",
        |w| {
            w.string("general.architecture", "gpt2");
        },
        "unsupported GGUF architecture \"gpt2\"",
        false,
    ),
];

fn write(dir: &Path, name: &str, w: &Writer) -> PathBuf {
    let p = dir.join(format!("{name}.gguf"));
    std::fs::write(&p, w.finish()).unwrap();
    p
}

fn load_err(p: &Path) -> String {
    match Model::load(p, &LoadOptions::default()) {
        Ok(_) => panic!("{}: loaded a damaged file", p.display()),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn crafted_files_are_refused_with_the_same_clear_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    for &(name, craft, want, structural) in CASES {
        let mut w = tiny_decoder("llama");
        craft(&mut w);
        let p = write(dir.path(), name, &w);
        let shown = p.display().to_string();
        let v = registro_gguf::read_file(&p).and_then(|g| registro_gguf::check_decoder(&g)).unwrap_err().to_string();
        assert!(v.starts_with(&shown) && v.contains(want), "{name}: validator said {v:?}, wanted {want:?}");
        let l = load_err(&p);
        assert!(l.contains(&shown) && l.contains(want), "{name}: Model::load said {l:?}, wanted {want:?}");
        if structural {
            let m = GgufMeta::read(&p).err().map(|e| format!("{e:#}")).unwrap_or_default();
            assert!(m.contains(want), "{name}: GgufMeta::read said {m:?}, wanted {want:?}");
        }
    }
}

#[test]
fn truncated_and_foreign_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = tiny_decoder("qwen2").finish();
    for (name, cut) in [("header", 40), ("tensor-table", bytes.len() / 8), ("data", bytes.len() - 1)] {
        let p = dir.path().join(format!("cut-{name}.gguf"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let e = load_err(&p);
        assert!(e.contains("truncated"), "cut in the {name}: {e}");
    }
    let p = dir.path().join("zeros.gguf");
    std::fs::write(&p, vec![0u8; 4096]).unwrap();
    assert!(load_err(&p).contains("not a GGUF file"));
    #[cfg(unix)]
    assert!(load_err(Path::new("/dev/zero")).contains("not a regular file"));
}

/// Files written field by field by `registro_gguf::write` (all F32) load and run on every architecture: the
/// checks refuse damage, not models.
#[test]
fn valid_crafted_models_load_and_generate() {
    let dir = tempfile::tempdir().unwrap();
    let no = AtomicBool::new(false);
    for arch in ["qwen2", "qwen3", "llama", "gemma3"] {
        let p = write(dir.path(), arch, &tiny_decoder(arch));
        let m = Model::load(&p, &LoadOptions::default()).unwrap_or_else(|e| panic!("{arch}: {e:#}"));
        assert_eq!(m.info.vocab, registro_gguf::write::TINY_VOCAB as usize);
        let opts = GenerateOptions { max_tokens: 6, ignore_eos: true, ..Default::default() };
        let g = m.generate(None, &[3, 4, 5], &opts, &mut NoProcessor, &mut |_| {}, &no).unwrap();
        assert_eq!(g.tokens.len(), 6, "{arch}");
        assert!(g.tokens.iter().all(|&t| (t as u64) < registro_gguf::write::TINY_VOCAB), "{arch}: {:?}", g.tokens);
    }
}

/// Every header number of a valid model set to an extreme: loading returns (a model or an error) and never
/// panics or aborts. On the candle reader alone several of these divide by zero, overflow or abort.
#[test]
fn extreme_header_values_never_crash_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    let base = tiny_decoder("qwen3");
    let mut variants: Vec<Writer> = Vec::new();
    for (i, kv) in base.kv.iter().enumerate() {
        if kv.ty == 4 {
            for v in [0u32, 1, 2, 3, 7, 1 << 16, u32::MAX] {
                let mut w = base.clone();
                w.kv[i].value = v.to_le_bytes().to_vec();
                variants.push(w);
            }
        }
    }
    for (i, t) in base.tensors.iter().enumerate() {
        for d in 0..=t.ne.len() {
            for v in [0u64, 1, 8, 1 << 32, u64::MAX] {
                let mut w = base.clone();
                match w.tensors[i].ne.get_mut(d) {
                    Some(x) => *x = v,
                    None => w.tensors[i].ne.push(v),
                }
                variants.push(w);
            }
        }
        for off in [1u64, 32, 1 << 40, u64::MAX - 31] {
            let mut w = base.clone();
            w.tensors[i].offset = Some(off);
            variants.push(w);
        }
        for ty in [1u32, 2, 8, 12, 15, 30, 99] {
            let mut w = base.clone();
            w.tensors[i].ty = ty;
            variants.push(w);
        }
    }
    let mut refused = 0;
    for (i, w) in variants.iter().enumerate() {
        let p = write(dir.path(), &format!("v{i}"), w);
        if Model::load(&p, &LoadOptions::default()).is_err() {
            refused += 1;
        }
        std::fs::remove_file(&p).unwrap();
    }
    assert!(refused > variants.len() / 2, "only {refused} of {} damaged variants refused", variants.len());
}

/// `registro models import` runs the same checks: a crafted file is refused with the validator's message and
/// never listed, so the app cannot abort later on Translate; a valid one is imported and listed.
#[test]
fn models_import_refuses_crafted_files_and_lists_none() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let no = AtomicBool::new(false);
    let mgr = registro_models::ModelManager::new(&cache);
    let before = mgr.list().len();
    for &(name, craft, want, _) in CASES {
        let mut w = tiny_decoder("llama");
        craft(&mut w);
        let p = write(dir.path(), name, &w);
        let e = match mgr.import(&p, None, &mut |_| {}, &no) {
            Ok(m) => panic!("{name}: imported as {}", m.id),
            Err(e) => format!("{e:#}"),
        };
        assert!(e.contains(want), "{name}: import said {e:?}, wanted {want:?}");
    }
    let fresh = registro_models::ModelManager::new(&cache);
    assert_eq!(fresh.list().len(), before, "a refused file was listed");
    let good = write(dir.path(), "tiny-good", &tiny_decoder("qwen3"));
    let m = mgr.import(&good, None, &mut |_| {}, &no).unwrap();
    let fresh = registro_models::ModelManager::new(&cache);
    assert!(fresh.list().iter().any(|s| s.manifest.id == m.id), "the valid model is not listed");
}
