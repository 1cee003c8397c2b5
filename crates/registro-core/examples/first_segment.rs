//! How long a warm process takes to show a new document's first segment: what a second Translate click in the
//! running app waits for, without the window. Loads the model once, then translates four one-sentence documents
//! (three different, the last a repeat) and prints, for each, when its first segment was finished, the
//! segment's prompt and output tokens and the time spent after decoding (meaning check, analysis, repair).
//!
//! `cargo run --release -p registro-core --example first_segment -- [--model ID] [--lang de] [--fixed]`
//! (`--fixed`: the same document examples for every document, `Options::fixed_document_examples`).
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use registro_core::translate::backend::OnDone;
use registro_core::translate::{self as tr, prompt::ChatFormat, Constraints, GenRequest, Generated, Generator, Lang, Options, Register};

/// The engine, with the time each document's first request took to decode and the tokens it read and wrote.
struct Timed<'a> {
    inner: &'a mut tr::EngineGenerator,
    first_decoded: Option<(Duration, usize, usize)>,
}

impl Generator for Timed<'_> {
    fn id(&self) -> String {
        self.inner.id()
    }
    fn chat_format(&self) -> &ChatFormat {
        self.inner.chat_format()
    }
    fn count_tokens(&self, text: &str) -> Option<usize> {
        self.inner.count_tokens(text)
    }
    fn generate(&mut self, prefix: &str, turn: &str, n: usize, max: usize, c: &Constraints, cancel: &AtomicBool) -> anyhow::Result<Vec<Generated>> {
        self.inner.generate(prefix, turn, n, max, c, cancel)
    }
    fn generate_many(&mut self, requests: &[GenRequest], cancel: &AtomicBool, on_done: OnDone<'_>) -> anyhow::Result<()> {
        let start = Instant::now();
        let turns: Vec<usize> = requests.iter().map(|r| self.inner.count_tokens(&r.turn).unwrap_or(0)).collect();
        let first = &mut self.first_decoded;
        self.inner.generate_many(requests, cancel, &mut |i, g| {
            if first.is_none() {
                let out = g.as_ref().map_or(0, |g| g.first().map_or(0, |g| g.tokens));
                *first = Some((start.elapsed(), turns[i], out));
            }
            on_done(i, g)
        })
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let model = value("--model").unwrap_or_else(registro_core::models::default_model);
    let lang: Lang = value("--lang").unwrap_or_else(|| "de".into()).parse()?;
    let fixed = args.iter().any(|a| a == "--fixed");
    let t = Instant::now();
    // As the app holds it: the first segment decoded on its own.
    let mut engine = tr::EngineGenerator::load(&model)?.first_segment_first();
    let meaning = tr::qe::MeaningCheck::installed()?;
    println!("{model}: loaded in {:.2} s; meaning check {}; document examples {}", t.elapsed().as_secs_f64(), if meaning.is_some() { "on" } else { "off" }, if fixed { "fixed" } else { "retrieved" });
    let cancel = AtomicBool::new(false);
    let documents = [
        "Thank you for your message, we will answer soon.",
        "Did you watch the football game last night?",
        "Can you send me the invoice for the car repair?",
        "Can you send me the invoice for the car repair?",
    ];
    for text in documents {
        let mut timed = Timed { inner: &mut engine, first_decoded: None };
        let mut translator = tr::Translator::new(&mut timed, Some(tr::Pool::default_for(lang)?)).with_meaning_check(meaning.clone());
        let opts = Options { fixed_document_examples: fixed, ..Options::new(lang, Register::Formal) };
        let start = Instant::now();
        let mut shown = None;
        translator.translate(&[text.to_string()], &opts, &cancel, &mut |_| {
            shown.get_or_insert(start.elapsed());
            Ok(())
        })?;
        drop(translator);
        let (decoded, turn, out) = timed.first_decoded.unwrap_or_default();
        let shown = shown.unwrap_or_default();
        println!(
            "first segment {:>6.0} ms (decoded at {:>6.0} ms: {turn} prompt tokens after the prefix, {out} written; then {:>4.0} ms checking) | {text}",
            shown.as_secs_f64() * 1e3,
            decoded.as_secs_f64() * 1e3,
            (shown.saturating_sub(decoded)).as_secs_f64() * 1e3
        );
    }
    Ok(())
}
