//! How many tokens one segment's translation may take. A fixed number of tokens per source word cut Hindi
//! mid-word (issue 18): Qwen's byte-level BPE spends several tokens on a Devanagari word, against about one on
//! an English or German word. The budget is the model's own count: its tokenizer run over reference
//! translations into the target language, per character of their English sources.
use registro_register::Lang;

use crate::backend::Generator;
use crate::fewshot::Pool;

/// Reference pairs read to measure a language's rate; spread over the pool so no one domain sets it.
const SAMPLE: usize = 64;
/// Sources shorter than this say little about a rate (a greeting, a name).
const MIN_SOURCE_CHARS: usize = 20;
/// The rate used is this quantile of the sampled pairs, times [`MARGIN`]: a long-winded but faithful
/// translation must fit, a runaway row must not run far.
const QUANTILE: f64 = 0.9;
const MARGIN: f64 = 1.3;
/// Room for the closing punctuation and the end-of-turn token of a very short segment.
const SLACK: usize = 16;
const MIN_TOKENS: usize = 24;

#[derive(Clone, Debug, PartialEq)]
pub struct TokenBudget {
    /// Target-language tokens allowed per character of the English source.
    pub per_source_char: f64,
    /// Where the rate came from, for the run's parameters.
    pub measured_by: &'static str,
    /// The run's `max_tokens`: a cap whatever the rate says.
    pub cap: usize,
}

impl TokenBudget {
    /// The rate for translations into `lang`: measured with the model's tokenizer on the pool's references where
    /// both are there, else a per-script rate that is generous on purpose (a budget too small cuts a
    /// translation; one too large only lets a runaway row run longer).
    pub fn for_document(gen: &dyn Generator, pool: Option<&Pool>, lang: Lang, cap: usize) -> TokenBudget {
        let measured = pool.and_then(|p| measure(p.reference_pairs(SAMPLE), &mut |t| gen.count_tokens(t)));
        match measured {
            Some(rate) => TokenBudget { per_source_char: rate * MARGIN, measured_by: "model tokenizer on reference translations", cap },
            None => TokenBudget { per_source_char: fallback_rate(lang), measured_by: "per-script default", cap },
        }
    }

    pub fn tokens_for(&self, source: &str) -> usize {
        let chars = source.chars().count();
        ((chars as f64 * self.per_source_char).ceil() as usize + SLACK).clamp(MIN_TOKENS, self.cap.max(MIN_TOKENS))
    }
}

/// The [`QUANTILE`] of target tokens per source character over `pairs` (source, reference translation);
/// `None` where the tokenizer is not there or no pair is long enough.
fn measure<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>, count: &mut dyn FnMut(&str) -> Option<usize>) -> Option<f64> {
    let mut rates = Vec::new();
    for (source, target) in pairs {
        let chars = source.chars().count();
        if chars < MIN_SOURCE_CHARS {
            continue;
        }
        rates.push(count(target)? as f64 / chars as f64);
    }
    if rates.is_empty() {
        return None;
    }
    rates.sort_by(f64::total_cmp);
    let at = ((rates.len() - 1) as f64 * QUANTILE).round() as usize;
    Some(rates[at])
}

/// Tokens per English source character without a measurement: Latin-script targets about as the old 3 tokens
/// a word; other scripts as if every source character took a token and a half (Devanagari, Hangul and
/// Vietnamese's stacked diacritics take several byte-level tokens per word).
fn fallback_rate(lang: Lang) -> f64 {
    match lang {
        Lang::De | Lang::Es | Lang::Fr | Lang::It | Lang::Nl | Lang::Pt => 0.6,
        Lang::Hi | Lang::Ja | Lang::Ko | Lang::Ru | Lang::Vi => 1.5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_a_high_quantile_of_the_references() {
        // Ten pairs of 40-character sources; the tokenizer counts one token per target character.
        let sources: Vec<String> = (0..10).map(|_| "x".repeat(40)).collect();
        let targets: Vec<String> = (1..=10).map(|i| "y".repeat(i * 10)).collect();
        let pairs = sources.iter().map(String::as_str).zip(targets.iter().map(String::as_str));
        let rate = measure(pairs, &mut |t| Some(t.chars().count())).unwrap();
        // Rates 0.25, 0.5, …, 2.5; the 0.9 quantile of ten sorted values is the ninth (index round(8.1) = 8).
        assert_eq!(rate, 2.25);
    }

    #[test]
    fn short_sources_and_a_missing_tokenizer_measure_nothing() {
        let short = [("Hi!", "नमस्ते!")];
        assert_eq!(measure(short.into_iter(), &mut |t| Some(t.len())), None);
        let long = [("Thank you for your message, we will answer soon.", "आपके संदेश के लिए धन्यवाद, हम जल्द ही जवाब देंगे।")];
        assert_eq!(measure(long.into_iter(), &mut |_| None), None);
    }

    #[test]
    fn a_segment_gets_its_rate_within_the_floor_and_the_cap() {
        let b = TokenBudget { per_source_char: 1.0, measured_by: "test", cap: 100 };
        assert_eq!(b.tokens_for("Hi"), MIN_TOKENS, "a short segment still gets the floor");
        assert_eq!(b.tokens_for(&"a".repeat(30)), 30 + SLACK);
        assert_eq!(b.tokens_for(&"a".repeat(500)), 100, "the run's max_tokens caps it");
        // Characters, not bytes: a source in another script is not counted three times over.
        assert_eq!(b.tokens_for(&"é".repeat(30)), 30 + SLACK);
    }

    #[test]
    fn without_a_measurement_hindi_gets_more_room_than_german() {
        let source = "Do you want me to send you the documents by Friday afternoon?";
        let de = TokenBudget { per_source_char: fallback_rate(Lang::De), measured_by: "", cap: 400 };
        let hi = TokenBudget { per_source_char: fallback_rate(Lang::Hi), measured_by: "", cap: 400 };
        assert!(hi.tokens_for(source) > 2 * de.tokens_for(source) - SLACK);
        // The old budget for this 12-word source: 12 × 3 + 16 = 52 tokens. German keeps about that.
        assert!((45..=60).contains(&de.tokens_for(source)), "{}", de.tokens_for(source));
    }
}
