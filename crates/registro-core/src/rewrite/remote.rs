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
use registro_generate::backend::{GenRequest, Generator};
use registro_generate::constrain::Constraints;
use registro_generate::prompt::ChatFormat;
use registro_generate::remote::{Config, RemoteGenerator};

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

    /// The request for one conversation: the prefix bytes are the same for every sentence of a prompt kind.
    fn request(&self, messages: &[(&'static str, String)], n: usize) -> anyhow::Result<GenRequest> {
        let (prefix, turn) = self.render(messages)?;
        let input = messages.last().map_or(0, |m| m.1.len());
        // Formal rewrites run longer than the input; the cap keeps a runaway answer from stalling a document.
        Ok(GenRequest { prefix, turn, n: n.max(1), max_tokens: (input / 2 + 32).min(256), constraints: Constraints::default() })
    }

    /// `n` answers to each conversation, their requests in flight together (at most the backend's `max_in_flight`).
    fn answers(&mut self, convs: &[Vec<(&'static str, String)>], n: usize) -> Vec<Result<Vec<String>, String>> {
        let mut out: Vec<Option<Result<Vec<String>, String>>> = (0..convs.len()).map(|_| None).collect();
        let mut reqs = Vec::new();
        let mut owner = Vec::new();
        for (i, m) in convs.iter().enumerate() {
            match self.request(m, n) {
                Ok(r) => {
                    reqs.push(r);
                    owner.push(i);
                }
                Err(e) => out[i] = Some(Err(format!("{e:#}"))),
            }
        }
        let sent = self.gen.generate_many(&reqs, &self.cancel, &mut |k, g| {
            out[owner[k]] = Some(g.map(|v| v.into_iter().map(|g| g.text).collect()).map_err(|e| format!("{e:#}")));
            Ok(())
        });
        let unanswered = match sent {
            Ok(()) => "no answer".to_string(),
            Err(e) => format!("{e:#}"),
        };
        out.into_iter().map(|o| o.unwrap_or_else(|| Err(unanswered.clone()))).collect()
    }

    /// Perplexity of a text from the server's echoed log-probabilities of it.
    fn fluency(&self, text: &str, answer: anyhow::Result<Vec<registro_remote::Completion>>) -> Result<f64, String> {
        let url = &self.gen.capabilities().url;
        let c = answer.with_context(|| format!("scoring fluency on {url}")).map_err(|e| format!("{e:#}"))?;
        let c = c.into_iter().next().ok_or_else(|| format!("the backend {url} answered with no choice"))?;
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

impl Neural for RemoteNeural {
    fn translate(&mut self, text: &str, from: Lang, to: Lang) -> Result<String, String> {
        self.translate_many(&[text.to_string()], from, to).pop().expect("one result per text")
    }

    fn generate(&mut self, messages: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
        self.answers(&[messages.to_vec()], n).pop().expect("one result per conversation")
    }

    fn perplexity(&mut self, text: &str, lang: Lang) -> Result<f64, String> {
        self.perplexity_many(&[text], lang).pop().expect("one result per text")
    }

    /// As many sentences as the backend keeps requests in flight.
    fn batch_size(&self) -> usize {
        self.gen.client().config().max_in_flight.max(1)
    }

    fn translate_many(&mut self, texts: &[String], from: Lang, to: Lang) -> Vec<Result<String, String>> {
        let convs: Vec<_> = texts.iter().map(|t| registro_rewrite::prompt::translation_messages(t, from, to)).collect();
        self.answers(&convs, 1)
            .into_iter()
            .map(|r| r.and_then(|a| a.first().map(|a| registro_rewrite::prompt::clean_answer(a)).ok_or_else(|| "no answer".to_string())))
            .collect()
    }

    fn generate_many(&mut self, prompts: &[Vec<(&'static str, String)>], n: usize) -> Vec<Result<Vec<String>, String>> {
        self.answers(prompts, n)
    }

    fn perplexity_many(&mut self, texts: &[&str], _lang: Lang) -> Vec<Result<f64, String>> {
        let caps = self.gen.capabilities();
        if !caps.echo_logprobs {
            let e = format!(
                "the backend {} does not return log-probabilities of a given text (echo), so fluency cannot be scored there: run without fluency (--no-fluency)",
                caps.url
            );
            return texts.iter().map(|_| Err(e.clone())).collect();
        }
        texts
            .iter()
            .map(|t| {
                let req = Request { prompt: t.to_string(), max_tokens: 1, temperature: 0.0, n: 1, logprobs: true, echo: true, ..Default::default() };
                self.fluency(t, self.gen.client().complete(&req, &self.cancel))
            })
            .collect()
    }
}
