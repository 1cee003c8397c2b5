//! Crafted GGUF files, one damaged field each: every one is refused with a message naming the field, the value
//! found and what it should be; none panics or allocates by a length it has not checked against the file.
use registro_gguf::write::{self, string_bytes, tiny_decoder, Writer};
use registro_gguf::{check_decoder, parse, read_file, GgmlType, Value};

fn err(bytes: &[u8]) -> String {
    match parse(bytes) {
        Ok(_) => panic!("accepted a damaged file"),
        Err(e) => e.to_string(),
    }
}

fn decoder_err(w: &Writer) -> String {
    let g = parse(&w.finish()).unwrap_or_else(|e| panic!("structure should be valid: {e}"));
    match check_decoder(&g) {
        Ok(d) => panic!("accepted a bad decoder: {d:?}"),
        Err(e) => e.to_string(),
    }
}

fn has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} should mention {p:?}");
    }
}

#[test]
fn valid_tiny_decoders_pass_with_their_dimensions() {
    for arch in ["qwen2", "qwen3", "llama", "gemma3"] {
        let bytes = tiny_decoder(arch).finish();
        let g = parse(&bytes).unwrap();
        assert_eq!(g.architecture().unwrap(), arch);
        assert_eq!(g.name(), Some(format!("tiny-{arch}").as_str()));
        assert_eq!(g.alignment, 32);
        assert_eq!(g.data_offset % 32, 0);
        let d = check_decoder(&g).unwrap();
        assert_eq!((d.n_layer, d.hidden, d.vocab, d.ffn), (2, 16, 32, 32), "{arch}");
        assert_eq!((d.n_head, d.n_kv_head, d.head_dim, d.context_length), (2, 1, 8, Some(256)), "{arch}");
        let embd = g.tensor("token_embd.weight").unwrap();
        assert_eq!((embd.ne.clone(), embd.ty, embd.bytes), (vec![16, 32], GgmlType::F32, 16 * 32 * 4));
    }
}

#[test]
fn alignment_must_be_a_sane_power_of_two() {
    for (v, want) in [(0u32, "general.alignment is 0"), (3, "general.alignment is 3"), (1 << 24, "at most 1048576")] {
        let mut w = tiny_decoder("llama");
        w.u32("general.alignment", v);
        has(&err(&w.finish()), &[want]);
    }
    let mut w = tiny_decoder("llama");
    w.i32("general.alignment", -32);
    has(&err(&w.finish()), &["general.alignment is -32", "power of two"]);
    // A u64 alignment is ignored by candle (it would read every tensor from the wrong place): refused.
    let mut w = tiny_decoder("llama");
    w.u64("general.alignment", 64);
    has(&err(&w.finish()), &["general.alignment is u64 64", "u32"]);
    // A real non-default alignment lays the data out accordingly and passes.
    let mut w = tiny_decoder("llama");
    w.u32("general.alignment", 64);
    w.align = 64;
    let g = parse(&w.finish()).unwrap();
    assert_eq!((g.alignment, g.data_offset % 64), (64, 0));
    check_decoder(&g).unwrap();
}

#[test]
fn tensor_dimensions_are_one_to_four_and_non_zero() {
    let mut w = tiny_decoder("llama");
    w.tensor_mut("token_embd.weight").unwrap().ne = vec![];
    has(&err(&w.finish()), &["tensor token_embd.weight has 0 dimensions", "1 to 4"]);
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().ne = vec![16, 1, 1, 1, 1];
    has(&err(&w.finish()), &["tensor output_norm.weight has 5 dimensions"]);
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().ne = vec![16, 0];
    has(&err(&w.finish()), &["output_norm.weight has shape [16, 0]", "at least 1"]);
}

#[test]
fn offsets_and_sizes_near_two_to_the_64_are_refused() {
    let mut w = tiny_decoder("llama");
    w.tensor_mut("blk.1.ffn_down.weight").unwrap().offset = Some(u64::MAX - 31);
    has(&err(&w.finish()), &["tensor blk.1.ffn_down.weight", "overflows 64 bits"]);
    let mut w = tiny_decoder("llama");
    w.tensor_mut("blk.1.ffn_down.weight").unwrap().offset = Some(1 << 40);
    has(&err(&w.finish()), &["truncated or damaged", "blk.1.ffn_down.weight", "download it again"]);
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().offset = Some(4);
    has(&err(&w.finish()), &["data offset 4 is not a multiple of the alignment 32"]);
    // Element count overflow: 2^32 · 2^32 · 2^32.
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().ne = vec![1 << 32, 1 << 32, 1 << 32];
    has(&err(&w.finish()), &["output_norm.weight has shape [4294967296, 4294967296, 4294967296]", "64 bits"]);
    // Elements fit, bytes do not: 2^62 f32 values.
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().ne = vec![1 << 62];
    has(&err(&w.finish()), &["output_norm.weight", "more than 2^64 bytes"]);
}

#[test]
fn layer_count_comes_from_the_tensors_present() {
    let mut w = tiny_decoder("llama");
    w.u32("llama.block_count", u32::MAX);
    has(&decoder_err(&w), &["llama.block_count is 4294967295", "tensors for 2 layers (blk.0 to blk.1)"]);
    let mut w = tiny_decoder("llama");
    w.u64("llama.block_count", u64::MAX);
    has(&decoder_err(&w), &["llama.block_count is", "tensors for 2 layers"]);
    let mut w = tiny_decoder("llama");
    w.i32("llama.block_count", -1);
    has(&decoder_err(&w), &["llama.block_count is i32 -1, expected a non-negative integer"]);
    // A layer missing one tensor.
    let mut w = tiny_decoder("qwen3");
    w.remove_tensor("blk.1.ffn_up.weight");
    has(&decoder_err(&w), &["tensor blk.1.ffn_up.weight is missing", "2 layers"]);
    // A stray tensor of a layer beyond block_count.
    let mut w = tiny_decoder("llama");
    w.f32_tensor("blk.7.attn_norm.weight", &[16], &[1.0; 16]);
    has(&decoder_err(&w), &["llama.block_count is 2", "tensors for 8 layers"]);
    let mut w = tiny_decoder("llama");
    w.f32_tensor("blk.x.attn_norm.weight", &[16], &[1.0; 16]);
    has(&decoder_err(&w), &["blk.x.attn_norm.weight", "not a layer number"]);
}

#[test]
fn dimensions_must_match_tensor_shapes() {
    let mut w = tiny_decoder("llama");
    w.u32("llama.embedding_length", 1 << 30);
    has(&decoder_err(&w), &["token_embd.weight has shape [16, 32]", "llama.embedding_length is 1073741824"]);
    let mut w = tiny_decoder("gemma3");
    w.u32("gemma3.attention.key_length", 1 << 30);
    has(&decoder_err(&w), &["blk.0.attn_q.weight has shape [16, 16]", "heads of size 1073741824"]);
    let mut w = tiny_decoder("llama");
    w.u32("llama.attention.head_count", 0);
    has(&decoder_err(&w), &["0 attention heads cannot share"]);
    let mut w = tiny_decoder("llama");
    w.u32("llama.attention.head_count_kv", 3);
    has(&decoder_err(&w), &["2 attention heads cannot share 3 KV heads"]);
    let mut w = tiny_decoder("qwen2");
    w.tensor_mut("blk.0.attn_k.bias").unwrap().ne = vec![7];
    w.tensor_mut("blk.0.attn_k.bias").unwrap().data.truncate(28);
    has(&decoder_err(&w), &["tensor blk.0.attn_k.bias has shape [7]", "require [8]"]);
    let mut w = tiny_decoder("llama");
    w.u32("llama.context_length", 0);
    has(&decoder_err(&w), &["llama.context_length is 0"]);
    let mut w = tiny_decoder("llama");
    w.f32("llama.rope.freq_base", f32::NAN);
    has(&decoder_err(&w), &["llama.rope.freq_base is f32 NaN", "positive number"]);
    let mut w = tiny_decoder("llama");
    w.remove("llama.embedding_length");
    has(&decoder_err(&w), &["lacks llama.embedding_length"]);
}

#[test]
fn unsupported_architecture_and_types_are_named() {
    let mut w = tiny_decoder("llama");
    w.string("general.architecture", "gpt2");
    has(&decoder_err(&w), &["unsupported GGUF architecture \"gpt2\"", "qwen2, qwen3, llama, mistral, gemma3"]);
    let mut w = tiny_decoder("llama");
    w.remove("general.architecture");
    has(&decoder_err(&w), &["lacks general.architecture"]);
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().ty = 99;
    has(&err(&w.finish()), &["tensor output_norm.weight has unknown ggml type 99"]);
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().ty = 16;
    has(&err(&w.finish()), &["type IQ2_XXS, which Registro cannot load", "Q4_K"]);
    // Q8_0 rows are whole blocks of 32.
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().ty = 8;
    has(&err(&w.finish()), &["rows of 16 values are not whole Q8_0 blocks of 32"]);
}

#[test]
fn huge_lengths_are_checked_against_the_bytes_left() {
    let tail = || {
        let mut w = Writer::default();
        w.string("general.architecture", "llama");
        w
    };
    // A key length of 2^40.
    let mut bytes = b"GGUF".to_vec();
    for field in [3u32.to_le_bytes().to_vec(), 0u64.to_le_bytes().to_vec(), 1u64.to_le_bytes().to_vec()] {
        bytes.extend(field);
    }
    bytes.extend_from_slice(&(1u64 << 40).to_le_bytes());
    bytes.extend_from_slice(b"general.architecture");
    has(&err(&bytes), &["metadata key #0 is 1099511627776 bytes long", "truncated or damaged"]);
    let mut w = tiny_decoder("llama");
    w.kv[3].key_len = Some(1 << 40);
    has(&err(&w.finish()), &["metadata key #3 is 1099511627776 bytes long"]);
    // A string value of 2^40 bytes.
    let mut w = tail();
    w.set("general.name", 8, (1u64 << 40).to_le_bytes().to_vec());
    has(&err(&w.finish()), &["the value of metadata general.name is 1099511627776 bytes long"]);
    // An array of 2^40 u32 and of 2^40 strings.
    for elem in [4u32, 8] {
        let mut w = tail();
        let mut v = elem.to_le_bytes().to_vec();
        v.extend_from_slice(&(1u64 << 40).to_le_bytes());
        w.set("tokenizer.ggml.tokens", 9, v);
        has(&err(&w.finish()), &["metadata tokenizer.ggml.tokens: an array of 1099511627776", "truncated or damaged"]);
    }
    // Tensor and metadata counts far beyond the file.
    let mut w = tail();
    w.counts = Some((1 << 40, 1));
    has(&err(&w.finish()), &["declares 1099511627776 tensors"]);
    let mut w = tail();
    w.counts = Some((0, 60_000));
    has(&err(&w.finish()), &["60000 metadata entries, which need at least"]);
    // Many small arrays that together would expand past the cap.
    let mut w = tail();
    let mut v = 0u32.to_le_bytes().to_vec();
    v.extend_from_slice(&(1u64 << 23).to_le_bytes());
    v.resize(v.len() + (1 << 23), 7);
    w.set("a", 9, v.clone()).set("b", 9, v);
    has(&err(&w.finish()), &["metadata b: the metadata arrays hold more than 8388608 values"]);
    // Arrays nested without end.
    let mut w = tail();
    let mut v = Vec::new();
    for _ in 0..100 {
        v.extend_from_slice(&9u32.to_le_bytes());
        v.extend_from_slice(&1u64.to_le_bytes());
    }
    w.set("deep", 9, v);
    has(&err(&w.finish()), &["metadata deep: arrays nested more than 8 deep"]);
}

#[test]
fn every_truncation_of_a_valid_file_is_an_error() {
    let bytes = tiny_decoder("gemma3").finish();
    let g = parse(&bytes).unwrap();
    let end = g.tensors.iter().map(|t| g.data_offset + t.offset + t.bytes).max().unwrap() as usize;
    for n in 0..end {
        let e = err(&bytes[..n]);
        assert!(e.contains("truncated") || e.contains("not a GGUF file"), "cut at {n} of {}: {e}", bytes.len());
    }
    has(&err(&bytes[..bytes.len() - 1]), &["truncated or damaged GGUF file", "download it again"]);
    has(&err(b""), &["empty or truncated file"]);
    has(&err(b"GGML\x03\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"), &["not a GGUF file", "GGML"]);
}

#[test]
fn header_fields_are_checked() {
    let mut w = tiny_decoder("llama");
    w.version = 0x0300_0000;
    has(&err(&w.finish()), &["big-endian GGUF file (version 3)"]);
    w.version = 4;
    has(&err(&w.finish()), &["unsupported GGUF version 4"]);
    let mut w = tiny_decoder("llama");
    w.kv.push(w.kv[0].clone());
    has(&err(&w.finish()), &["metadata key general.architecture appears twice"]);
    let mut w = tiny_decoder("llama");
    w.tensors.push(w.tensors[0].clone());
    has(&err(&w.finish()), &["tensor token_embd.weight appears twice"]);
    let mut w = tiny_decoder("llama");
    w.set("x.flag", 7, vec![2]);
    has(&err(&w.finish()), &["metadata x.flag: boolean byte 2"]);
    let mut w = tiny_decoder("llama");
    w.set("x.odd", 13, vec![]);
    has(&err(&w.finish()), &["metadata x.odd has unknown value type 13"]);
    let mut w = tiny_decoder("llama");
    w.tensor_mut("output_norm.weight").unwrap().name = "n".repeat(64);
    has(&err(&w.finish()), &["the name of tensor #1 is 64 bytes long; at most 63"]);
}

#[test]
fn version_1_files_use_32_bit_lengths() {
    let mut w = Writer { version: 1, ..Default::default() };
    w.set("general.alignment", 4, 32u32.to_le_bytes().to_vec());
    w.f32_tensor("x", &[4], &[1.0, 2.0, 3.0, 4.0]);
    let g = parse(&w.finish()).unwrap();
    assert_eq!(g.version, 1);
    assert_eq!(g.get("general.alignment"), Some(&Value::U32(32)));
    assert_eq!(g.tensor("x").unwrap().bytes, 16);
}

#[test]
fn long_strings_and_vocabularies_are_checked_but_not_kept() {
    let mut w = tiny_decoder("llama");
    let big = "x".repeat((1 << 20) + 1);
    w.string("tokenizer.huggingface.json", &big);
    let vocab: Vec<String> = (0..1000).map(|i| format!("tok{i}")).collect();
    let refs: Vec<&str> = vocab.iter().map(String::as_str).collect();
    w.strings("tokenizer.ggml.tokens", &refs);
    let g = parse(&w.finish()).unwrap();
    assert_eq!(g.get("tokenizer.huggingface.json"), Some(&Value::LongString { len: (1 << 20) + 1 }));
    assert_eq!(
        g.get("tokenizer.ggml.tokens"),
        Some(&Value::Array { elem: registro_gguf::ValueType::String, len: 1000 })
    );
    check_decoder(&g).unwrap();
    assert_eq!(string_bytes("ab"), [2, 0, 0, 0, 0, 0, 0, 0, b'a', b'b']);
}

#[test]
fn read_file_names_the_file_and_refuses_non_files() {
    let dir = std::env::temp_dir().join(format!("registro-gguf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.gguf");
    let mut w = tiny_decoder("llama");
    w.u32("general.alignment", 0);
    std::fs::write(&p, w.finish()).unwrap();
    let e = read_file(&p).unwrap_err().to_string();
    assert!(e.starts_with(&p.display().to_string()) && e.contains("general.alignment is 0"), "{e}");
    let good = dir.join("good.gguf");
    std::fs::write(&good, write::tiny_decoder("qwen2").finish()).unwrap();
    let g = read_file(&good).unwrap();
    assert_eq!(g.path.as_deref(), Some(good.as_path()));
    check_decoder(&g).unwrap();
    has(&read_file(&dir).unwrap_err().to_string(), &["not a regular file"]);
    #[cfg(unix)]
    has(&read_file("/dev/zero".as_ref()).unwrap_err().to_string(), &["/dev/zero: not a regular file"]);
    has(&read_file(&dir.join("missing.gguf")).unwrap_err().to_string(), &["missing.gguf: cannot open model file"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The fuzzer's seeds and what it kept (fuzz/corpus/gguf_header) and the inputs that once crashed something
/// (tests/regressions): each is refused or accepted without panicking; the minimal seeds are valid decoders.
#[test]
fn fuzz_corpus_and_regressions_replay() {
    // Read at run time: a test binary reused from a build in another checkout would otherwise look there.
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for dir in [root.join("tests/regressions"), root.join("../../fuzz/corpus/gguf_header")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let p = entry.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            let checked = parse(&bytes).map(|g| check_decoder(&g));
            if p.file_name().unwrap().to_string_lossy().starts_with("minimal-") {
                assert!(matches!(checked, Ok(Ok(_))), "{}: {checked:?}", p.display());
            }
            n += 1;
        }
    }
    assert!(n >= 4, "no corpus found");
    for arch in ["qwen2", "qwen3", "llama", "gemma3"] {
        let g = parse(&write::tiny_decoder_with(arch, write::TinyDims::MINIMAL).finish()).unwrap();
        assert_eq!(check_decoder(&g).unwrap().hidden, 2);
    }
}
