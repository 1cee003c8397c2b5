//! What the model manager's tests share.
#![allow(dead_code)]

use registro_models::Manifest;
use sha2::{Digest, Sha256};

pub fn sha(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// `n` deterministic bytes, not all alike.
pub fn payload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7919 % 251) as u8).collect()
}

/// A manifest of one file, `name` (`bytes` long, with `sha256`; an empty hash is trusted on first download),
/// offered by `sources`, its `[[files.sources]]` tables.
pub fn manifest(id: &str, role: &str, architecture: &str, name: &str, bytes: usize, sha256: &str, sources: &str) -> Manifest {
    Manifest::parse(
        &format!(
            r#"id = "{id}"
family = "demo"
architecture = "{architecture}"
role = "{role}"
[[files]]
name = "{name}"
bytes = {bytes}
sha256 = "{sha256}"
{sources}"#
        ),
        "test",
    )
    .unwrap()
}

/// A tokenizer "model" `id` whose one file, `tokenizer.json`, is `data`, fetched from `source` (the body of its
/// `[[files.sources]]` table).
pub fn tokenizer_manifest(id: &str, data: &[u8], source: &str) -> Manifest {
    manifest(id, "tokenizer", "bpe", "tokenizer.json", data.len(), &sha(data), &format!("[[files.sources]]\n{source}"))
}
