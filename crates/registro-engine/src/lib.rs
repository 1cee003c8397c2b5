//! placeholder: filled by its issue
pub mod chat;
pub mod gguf_meta;
pub mod manager;
pub mod tokenizer;
