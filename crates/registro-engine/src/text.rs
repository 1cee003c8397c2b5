//! Text ↔ token ids. The engine works on token ids; a `TextCodec` turns text into them. A Hugging Face
//! `tokenizer.json` works through the `tokenizers` crate; a tokenizer built from GGUF metadata can implement
//! the same trait.
use std::path::Path;

use anyhow::{Context, Result};

pub trait TextCodec: Send + Sync {
    /// `add_special`: add the tokenizer's own BOS/EOS decorations (e.g. Gemma's `<bos>`).
    fn encode(&self, text: &str, add_special: bool) -> Result<Vec<u32>>;
    fn decode(&self, ids: &[u32], skip_special: bool) -> Result<String>;
    /// Id of a token given by its exact text (e.g. `<|im_end|>`).
    fn token_id(&self, token: &str) -> Option<u32>;
}

pub struct HfTokenizer(tokenizers::Tokenizer);

impl HfTokenizer {
    pub fn from_file(path: &Path) -> Result<Self> {
        let t = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot load tokenizer: {e}", path.display()))?;
        Ok(Self(t))
    }
}

impl TextCodec for HfTokenizer {
    fn encode(&self, text: &str, add_special: bool) -> Result<Vec<u32>> {
        let enc = self.0.encode(text, add_special).map_err(|e| anyhow::anyhow!("tokenize: {e}"))?;
        Ok(enc.get_ids().to_vec())
    }
    fn decode(&self, ids: &[u32], skip_special: bool) -> Result<String> {
        self.0.decode(ids, skip_special).map_err(|e| anyhow::anyhow!("detokenize: {e}")).context("decode")
    }
    fn token_id(&self, token: &str) -> Option<u32> {
        self.0.token_to_id(token)
    }
}

impl TextCodec for crate::tokenizer::LoadedTokenizer {
    fn encode(&self, text: &str, add_special: bool) -> Result<Vec<u32>> {
        crate::tokenizer::LoadedTokenizer::encode(self, text, add_special)
    }
    fn decode(&self, ids: &[u32], skip_special: bool) -> Result<String> {
        crate::tokenizer::LoadedTokenizer::decode(self, ids, skip_special)
    }
    fn token_id(&self, token: &str) -> Option<u32> {
        crate::tokenizer::LoadedTokenizer::token_id(self, token)
    }
}
