//! Prefixes kept on disk between processes (`PrefixStore`): a stored prefix continues exactly as the computed one
//! did, and a stored file that is damaged, for other tokens, or for another model file is never used — the prefix
//! is computed again and the translation is the same.
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use candle_core::quantized::GgmlDType;
use registro_engine::{GenerateOptions, Generation, LoadOptions, Model, NoProcessor, Prefix, PrefixOrigin, PrefixStore};

const ARCHS: [&str; 4] = ["qwen2", "qwen3", "llama", "gemma3"];

fn load(path: &Path) -> Model {
    Model::load(path, &LoadOptions::default()).unwrap().with_codec(Arc::new(common::CharCodec))
}

/// A tiny generated model of `arch` and the folder holding its file (dropped with it).
fn tiny(arch: &str) -> (tempfile::TempDir, Model) {
    let models = tempfile::tempdir().unwrap();
    let m = load(&common::tiny_gguf(models.path(), arch, GgmlDType::Q8_0));
    (models, m)
}

fn prefix_tokens() -> Vec<u32> {
    (0..40).map(|i| 4 + (i * 7) % 80).collect()
}

fn continue_from(m: &Model, prefix: &Prefix) -> Generation {
    let opts = GenerateOptions { max_tokens: 12, ignore_eos: true, ..Default::default() };
    m.generate(Some(prefix), &[30, 31, 32], &opts, &mut NoProcessor, &mut |_| {}, &AtomicBool::new(false)).unwrap()
}

fn stored_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir).map_or(Vec::new(), |d| d.flatten().map(|e| e.path()).collect());
    files.sort();
    files
}

/// One prefix file in `dir`, after one store call.
fn only_file(dir: &Path) -> PathBuf {
    let files = stored_files(dir);
    assert_eq!(files.len(), 1, "one prefix file and no temporary left over: {files:?}");
    assert_eq!(files[0].extension().unwrap(), "safetensors");
    files[0].clone()
}

#[test]
fn a_stored_prefix_continues_exactly_as_the_computed_one() {
    for arch in ARCHS {
        let (_models, m) = tiny(arch);
        let dir = tempfile::tempdir().unwrap();
        let store = PrefixStore::new(dir.path(), PrefixStore::DEFAULT_MAX_BYTES);
        let (computed, origin, note) = store.prefix(&m, &prefix_tokens()).unwrap();
        assert_eq!((origin, note), (PrefixOrigin::Computed, None), "{arch}: an empty store computes");
        only_file(dir.path());
        // A later process: another store over the same folder, the model loaded again.
        let m2 = load(&m.info.path);
        let (stored, origin, note) = PrefixStore::new(dir.path(), PrefixStore::DEFAULT_MAX_BYTES).prefix(&m2, &prefix_tokens()).unwrap();
        assert_eq!((origin, note), (PrefixOrigin::Stored, None), "{arch}: the second process reads the stored prefix");
        assert_eq!(stored.tokens(), computed.tokens());
        let (a, b) = (continue_from(&m, &computed), continue_from(&m2, &stored));
        assert_eq!(a.tokens, b.tokens, "{arch}: the stored prefix decodes other tokens");
        assert_eq!(a.logprob.to_bits(), b.logprob.to_bits(), "{arch}: the stored keys and values are not bit for bit the computed ones");
        // Other tokens are another prefix: computed, stored beside the first.
        let other: Vec<u32> = prefix_tokens().into_iter().rev().collect();
        assert_eq!(store.prefix(&m, &other).unwrap().1, PrefixOrigin::Computed, "{arch}");
        assert_eq!(stored_files(dir.path()).len(), 2, "{arch}");
    }
}

#[test]
fn a_damaged_or_foreign_prefix_file_is_computed_again_and_replaced() {
    let (_models, m) = tiny("qwen2");
    let dir = tempfile::tempdir().unwrap();
    let store = PrefixStore::new(dir.path(), PrefixStore::DEFAULT_MAX_BYTES);
    let (fresh, _, _) = store.prefix(&m, &prefix_tokens()).unwrap();
    let want = continue_from(&m, &fresh);
    let path = only_file(dir.path());
    let good = fs::read(&path).unwrap();

    // A file holding another prompt's prefix, put under this prompt's name.
    let other: Vec<u32> = prefix_tokens().into_iter().map(|t| t + 1).collect();
    let other_dir = tempfile::tempdir().unwrap();
    PrefixStore::new(other_dir.path(), PrefixStore::DEFAULT_MAX_BYTES).prefix(&m, &other).unwrap();
    let foreign = fs::read(only_file(other_dir.path())).unwrap();

    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    let mut huge_header = good.clone();
    huge_header[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    let cases: [(&str, Vec<u8>, &str); 6] = [
        ("one bit flipped in the data", flipped, "checksum"),
        ("cut in half", good[..good.len() / 2].to_vec(), "safetensors"),
        ("empty", Vec::new(), "safetensors"),
        ("not a safetensors file", b"PK\x03\x04 a zip, say".to_vec(), "safetensors"),
        ("a header length past the file", huge_header, "safetensors"),
        ("another prompt's prefix", foreign, "another prompt"),
    ];
    // A link to a device that never ends: refused before it is read.
    #[cfg(unix)]
    {
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let (p, origin, note) = store.prefix(&m, &prefix_tokens()).unwrap();
        assert_eq!(origin, PrefixOrigin::Computed);
        assert!(note.is_some_and(|n| n.contains("not a regular file")));
        assert_eq!(continue_from(&m, &p).tokens, want.tokens);
        assert!(fs::symlink_metadata(&path).unwrap().is_file(), "the link was not replaced by a prefix file");
    }
    for (what, bytes, reason) in cases {
        fs::write(&path, &bytes).unwrap();
        let (p, origin, note) = store.prefix(&m, &prefix_tokens()).unwrap();
        assert_eq!(origin, PrefixOrigin::Computed, "{what}: used anyway");
        let note = note.unwrap_or_else(|| panic!("{what}: nothing says why the stored prefix was not used"));
        assert!(note.contains(&path.display().to_string()) && note.contains(reason), "{what}: {note}");
        let got = continue_from(&m, &p);
        assert_eq!((got.tokens, got.logprob.to_bits()), (want.tokens.clone(), want.logprob.to_bits()), "{what}");
        assert_ne!(fs::read(&path).unwrap(), bytes, "{what}: the bad file was left in place");
        assert_eq!(store.prefix(&m, &prefix_tokens()).unwrap().1, PrefixOrigin::Stored, "{what}: the replacement is not read");
    }
}

#[test]
fn a_replaced_model_file_never_reads_the_old_prefix() {
    let models = tempfile::tempdir().unwrap();
    let path = common::tiny_gguf(models.path(), "llama", GgmlDType::Q8_0);
    let dir = tempfile::tempdir().unwrap();
    let store = PrefixStore::new(dir.path(), PrefixStore::DEFAULT_MAX_BYTES);
    store.prefix(&load(&path), &prefix_tokens()).unwrap();
    // The same name, other weights: what a re-download or an edited file looks like.
    let elsewhere = tempfile::tempdir().unwrap();
    let q4 = common::tiny_gguf(elsewhere.path(), "llama", GgmlDType::Q4_0);
    fs::copy(&q4, &path).unwrap();
    let m = load(&path);
    let (p, origin, _) = store.prefix(&m, &prefix_tokens()).unwrap();
    assert_eq!(origin, PrefixOrigin::Computed, "a prefix of the old weights was read for the new ones");
    let fresh = m.prefix(&prefix_tokens()).unwrap();
    assert_eq!(continue_from(&m, &p).tokens, continue_from(&m, &fresh).tokens);
    assert_eq!(stored_files(dir.path()).len(), 2, "the old model's prefix stays under its own name until evicted");
}

#[test]
fn the_least_recently_used_prefixes_go_when_the_store_is_full() {
    let (_models, m) = tiny("qwen3");
    let dir = tempfile::tempdir().unwrap();
    let probe = tempfile::tempdir().unwrap();
    PrefixStore::new(probe.path(), u64::MAX).prefix(&m, &prefix_tokens()).unwrap();
    let one = fs::metadata(only_file(probe.path())).unwrap().len();
    // Room for two prefixes of this size, not three.
    let store = PrefixStore::new(dir.path(), 2 * one + one / 2);
    let prompts: Vec<Vec<u32>> = (0..3).map(|k| prefix_tokens().into_iter().map(|t| t + k).collect()).collect();
    store.prefix(&m, &prompts[0]).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    store.prefix(&m, &prompts[1]).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    // Reading the first again makes the second the least recently used.
    assert_eq!(store.prefix(&m, &prompts[0]).unwrap().1, PrefixOrigin::Stored);
    std::thread::sleep(std::time::Duration::from_millis(20));
    store.prefix(&m, &prompts[2]).unwrap();
    assert_eq!(stored_files(dir.path()).len(), 2);
    assert_eq!(store.prefix(&m, &prompts[0]).unwrap().1, PrefixOrigin::Stored, "the prefix in use was evicted");
    assert_eq!(store.prefix(&m, &prompts[2]).unwrap().1, PrefixOrigin::Stored, "the newest prefix was evicted");
}

#[test]
fn a_store_that_cannot_be_written_still_gives_the_prefix() {
    let (_models, m) = tiny("gemma3");
    // A file where the folder should be: nothing can be created under it.
    let blocker = tempfile::NamedTempFile::new().unwrap();
    let store = PrefixStore::new(blocker.path().join("prefixes"), PrefixStore::DEFAULT_MAX_BYTES);
    let (p, origin, note) = store.prefix(&m, &prefix_tokens()).unwrap();
    assert_eq!(origin, PrefixOrigin::Computed);
    assert!(note.is_some_and(|n| n.contains("could not store")), "the failure to store is not reported");
    let fresh = m.prefix(&prefix_tokens()).unwrap();
    assert_eq!(continue_from(&m, &p).tokens, continue_from(&m, &fresh).tokens);
}

#[test]
fn temporary_files_a_killed_process_left_are_cleared_and_fresh_ones_kept() {
    let (_models, m) = tiny("qwen2");
    let dir = tempfile::tempdir().unwrap();
    let (old, fresh) = (dir.path().join("0123.tmp999-0"), dir.path().join("4567.tmp998-0"));
    fs::write(&old, b"half a prefix").unwrap();
    fs::write(&fresh, b"a prefix another process is writing now").unwrap();
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    fs::File::options().write(true).open(&old).unwrap().set_modified(two_hours_ago).unwrap();
    PrefixStore::new(dir.path(), PrefixStore::DEFAULT_MAX_BYTES).prefix(&m, &prefix_tokens()).unwrap();
    assert!(!old.exists(), "a temporary file left two hours ago stays forever");
    assert!(fresh.exists(), "a temporary file another process is writing was removed under it");
}
