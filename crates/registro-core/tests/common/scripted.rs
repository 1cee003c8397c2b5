//! A stand-in model for tests of the translation pipeline that need no real one.
use std::sync::atomic::AtomicBool;

use registro_core::translate::prompt::ChatFormat;
use registro_core::translate::{Constraints, Generated, Generator};
use registro_engine::chat::ChatTemplate;

/// Answers each request, under Qwen2's chat template, with what `answer` makes of its prefix, turn and number of
/// candidates asked for: a test scripts the candidates and records the prompts in one closure.
pub struct ScriptedModel<F> {
    id: &'static str,
    format: ChatFormat,
    answer: F,
}

impl<F: FnMut(&str, &str, usize) -> Vec<Generated>> ScriptedModel<F> {
    /// `id` is the model id a stored run records.
    pub fn new(id: &'static str, answer: F) -> Self {
        ScriptedModel { id, format: ChatFormat::Template(ChatTemplate::builtin("qwen2")), answer }
    }
}

impl<F: FnMut(&str, &str, usize) -> Vec<Generated>> Generator for ScriptedModel<F> {
    fn id(&self) -> String {
        self.id.into()
    }
    fn chat_format(&self) -> &ChatFormat {
        &self.format
    }
    fn generate(&mut self, prefix: &str, turn: &str, n: usize, _: usize, _: &Constraints, _: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
        Ok((self.answer)(prefix, turn, n))
    }
}
