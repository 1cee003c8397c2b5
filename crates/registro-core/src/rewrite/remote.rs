//! Rewriting on an OpenAI-compatible server: the same pipeline (rules → minimal edit → paraphrases → choice) with
//! the model's answers from the translate control layer's [`RemoteGenerator`] (Registro renders the chat itself, so
//! every sentence sends the same prefix bytes and the server's prefix cache hits) and fluency from the server's
//! log-probabilities of the candidate itself (`echo` + `logprobs`). A server that does not echo prompt
//! log-probabilities cannot score fluency: the error says to run without it.
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use registro_engine::chat::ChatMessage;
use registro_remote::Request;

use super::{Lang, Neural};
use crate::translate::backend::Generator;
use crate::translate::constrain::Constraints;
use crate::translate::prompt::ChatFormat;
use crate::translate::remote::{Config, RemoteGenerator};

pub struct RemoteNeural {
    gen: RemoteGenerator,
    cancel: AtomicBool,
}

impl RemoteNeural {
    pub fn connect(cfg: Config) -> anyhow::Result<Self> {
        Ok(RemoteNeural { gen: RemoteGenerator::connect(cfg)?, cancel: AtomicBool::new(false) })
    }

    /// The run's model id (`remote:<model>@<API base>`), which `registro runs resume` reconnects to.
    pub fn id(&self) -> String {
        self.gen.id()
    }

    /// (prefix, turn) of a conversation: the prefix is everything before the last user message, the same bytes for
    /// every sentence of a prompt kind.
    fn render(&self, messages: &[(&'static str, String)]) -> anyhow::Result<(String, String)> {
        let chat: Vec<ChatMessage> = messages.iter().map(|(r, c)| ChatMessage::new(r, c)).collect();
        match self.gen.chat_format() {
            ChatFormat::Template(t) => {
                let full = t.render(&chat, true)?;
                let head = t.render(&chat[..chat.len().saturating_sub(1)], false)?;
                Ok(match full.strip_prefix(head.as_str()) {
                    Some(rest) => (head.clone(), rest.to_string()),
                    None => (String::new(), full),
                })
            }
            ChatFormat::Plain => Ok((String::new(), messages.iter().map(|(_, c)| format!("{c}\n")).collect())),
        }
    }

    fn answers(&mut self, messages: &[(&'static str, String)], n: usize) -> anyhow::Result<Vec<String>> {
        let (prefix, turn) = self.render(messages)?;
        let input = messages.last().map_or(0, |m| m.1.len());
        // Formal rewrites run longer than the input; the cap keeps a runaway answer from stalling a document.
        let max_tokens = (input / 2 + 32).min(256);
        let out = self.gen.generate(&prefix, &turn, n.max(1), max_tokens, &Constraints::default(), &self.cancel)?;
        Ok(out.into_iter().map(|g| g.text).collect())
    }
}

impl Neural for RemoteNeural {
    fn translate(&mut self, text: &str, from: Lang, to: Lang) -> Result<String, String> {
        let msgs = registro_rewrite::prompt::translation_messages(text, from, to);
        let mut a = self.answers(&msgs, 1).map_err(|e| format!("{e:#}"))?;
        Ok(registro_rewrite::prompt::clean_answer(&a.swap_remove(0)))
    }

    fn generate(&mut self, messages: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
        self.answers(messages, n).map_err(|e| format!("{e:#}"))
    }

    fn perplexity(&mut self, text: &str, _lang: Lang) -> Result<f64, String> {
        let caps = self.gen.capabilities();
        if !caps.echo_logprobs {
            return Err(format!(
                "the backend {} does not return log-probabilities of a given text (echo), so fluency cannot be scored there: run without fluency (--no-fluency)",
                caps.url
            ));
        }
        let req = Request { prompt: text.to_string(), max_tokens: 1, temperature: 0.0, n: 1, logprobs: true, echo: true, ..Default::default() };
        let c = self
            .gen
            .client()
            .complete(&req, &self.cancel)
            .with_context(|| format!("scoring fluency on {}", caps.url))
            .map_err(|e| format!("{e:#}"))?;
        let c = c.into_iter().next().ok_or_else(|| format!("the backend {} answered with no choice", caps.url))?;
        let lp = c.token_logprobs.unwrap_or_default();
        // The echoed text's tokens, and on some servers the one generated token after them, which is not part of
        // the text: count the tokens that fit in the text when the server names them.
        let in_text = match &c.tokens {
            Some(toks) => {
                let mut len = 0;
                let fit = toks
                    .iter()
                    .take_while(|t| {
                        len += t.len();
                        len <= text.len()
                    })
                    .count();
                // The first echoed token has no score (nothing precedes it); the parser drops that null entry.
                fit.saturating_sub(toks.len().saturating_sub(lp.len()))
            }
            None => lp.len().saturating_sub(1),
        };
        let scored = &lp[..in_text.min(lp.len())];
        if scored.is_empty() {
            return Err(format!("the backend returned no log-probabilities for {text:?}"));
        }
        Ok((-scored.iter().map(|&x| x as f64).sum::<f64>() / scored.len() as f64).exp())
    }
}
