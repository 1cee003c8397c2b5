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

/// A one-file tokenizer "model" `id` whose `tokenizer.json` is `data`, fetched from `source` (the body of its
/// `[[files.sources]]` table).
pub fn tokenizer_manifest(id: &str, data: &[u8], source: &str) -> Manifest {
    Manifest::parse(
        &format!(
            r#"id = "{id}"
family = "demo"
architecture = "bpe"
role = "tokenizer"
[[files]]
name = "tokenizer.json"
bytes = {}
sha256 = "{}"
[[files.sources]]
{source}"#,
            data.len(),
            sha(data)
        ),
        "test",
    )
    .unwrap()
}
