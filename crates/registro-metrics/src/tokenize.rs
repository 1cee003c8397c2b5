//! BLEU tokenizers, ported from sacrebleu 2.6.0 (`tokenizers/tokenizer_13a.py`, `tokenizer_re.py`,
//! `tokenizer_intl.py`, `tokenizer_char.py`, `tokenizer_none.py`). Each returns the tokens joined by single spaces,
//! exactly like sacrebleu, so that n-gram extraction can split on spaces afterwards.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

use regex::Regex;

use crate::text::py_normalize_spaces;

/// A pluggable word segmenter for languages without spaces (Japanese); see [`crate::ja`].
pub trait Segmenter: Send + Sync {
    /// Tokens of one (already stripped) line joined by single spaces.
    fn segment(&self, line: &str) -> String;
    /// The `tok:` part of the signature, e.g. `ja-mecab-0.996-IPA`.
    fn signature(&self) -> String;
}

#[derive(Clone)]
pub enum Tokenizer {
    None,
    V13a,
    Intl,
    Char,
    Custom(Arc<dyn Segmenter>),
}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tokenizer({})", self.signature())
    }
}

impl FromStr for Tokenizer {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Self::None),
            "13a" => Ok(Self::V13a),
            "intl" => Ok(Self::Intl),
            "char" => Ok(Self::Char),
            "ja-mecab" | "ja" => {
                crate::ja::tokenizer().map_err(|e| format!("tokenizer ja-mecab: {e}"))
            }
            other => Err(format!(
                "unknown BLEU tokenizer {other:?} (expected 13a, intl, char, none or ja-mecab)"
            )),
        }
    }
}

impl Tokenizer {
    pub fn signature(&self) -> String {
        match self {
            Self::None => "none".into(),
            Self::V13a => "13a".into(),
            Self::Intl => "intl".into(),
            Self::Char => "char".into(),
            Self::Custom(s) => s.signature(),
        }
    }

    pub fn tokenize(&self, line: &str) -> String {
        match self {
            Self::None => line.to_string(),
            Self::V13a => tokenize_13a(line),
            Self::Intl => tokenize_intl(line),
            Self::Char => tokenize_char(line),
            Self::Custom(s) => s.segment(line),
        }
    }
}

/// mteval-v13a: `'<skipped>'` removal, entity unescaping, then the regexp post-tokenizer on `' line '`.
pub fn tokenize_13a(line: &str) -> String {
    let mut line = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if line.contains('&') {
        line = line
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    tokenize_re(&format!(" {line} "))
}

/// The ASCII symbol class of sacrebleu's first regexp: `[\{-\~\[-\` -\&\(-\+\:-\@\/]`.
fn is_13a_symbol(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// Applies a two-character regexp `(A)(B)` → replacement the way `re.sub` does: leftmost, non-overlapping.
fn sub_pair(
    chars: &[char],
    a: impl Fn(char) -> bool,
    b: impl Fn(char) -> bool,
    emit: impl Fn(&mut Vec<char>, char, char),
) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        if i + 1 < chars.len() && a(chars[i]) && b(chars[i + 1]) {
            emit(&mut out, chars[i], chars[i + 1]);
            i += 2;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// sacrebleu's `TokenizerRegexp` (the language-dependent part of 13a).
pub fn tokenize_re(line: &str) -> String {
    let mut chars: Vec<char> = Vec::with_capacity(line.len() + 16);
    for c in line.chars() {
        if is_13a_symbol(c) {
            chars.extend([' ', c, ' ']);
        } else {
            chars.push(c);
        }
    }
    let digit = |c: char| c.is_ascii_digit();
    let period_comma = |c: char| c == '.' || c == ',';
    // tokenize period and comma unless preceded by a digit: r'\1 \2 '
    let chars = sub_pair(
        &chars,
        |c| !digit(c),
        period_comma,
        |o, x, y| o.extend([x, ' ', y, ' ']),
    );
    // tokenize period and comma unless followed by a digit: r' \1 \2'
    let chars = sub_pair(
        &chars,
        period_comma,
        |c| !digit(c),
        |o, x, y| o.extend([' ', x, ' ', y]),
    );
    // tokenize dash when preceded by a digit: r'\1 \2 '
    let chars = sub_pair(
        &chars,
        digit,
        |c| c == '-',
        |o, x, y| o.extend([x, ' ', y, ' ']),
    );
    let s: String = chars.into_iter().collect();
    py_normalize_spaces(&s)
}

fn intl_regexes() -> &'static [(Regex, &'static str); 3] {
    static RES: OnceLock<[(Regex, &'static str); 3]> = OnceLock::new();
    RES.get_or_init(|| {
        [
            (Regex::new(r"(\P{N})(\p{P})").unwrap(), "$1 $2 "),
            (Regex::new(r"(\p{P})(\P{N})").unwrap(), " $1 $2"),
            (Regex::new(r"(\p{S})").unwrap(), " $1 "),
        ]
    })
}

/// mteval-v14 international tokenization: split punctuation unless between digits, and all symbols.
pub fn tokenize_intl(line: &str) -> String {
    let mut s = line.to_string();
    for (re, rep) in intl_regexes() {
        s = re.replace_all(&s, *rep).into_owned();
    }
    py_normalize_spaces(&s)
}

/// Every character is a token.
pub fn tokenize_char(line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    for (i, c) in line.chars().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v13a_matches_sacrebleu_examples() {
        // Outputs checked against sacrebleu 2.6.0's Tokenizer13a.
        assert_eq!(
            tokenize_13a("Hello, world! It's 3.5 km-long."),
            "Hello , world ! It's 3.5 km-long ."
        );
        assert_eq!(
            tokenize_13a("a..b 1,000 2-3 &amp; &quot;q&quot;"),
            "a . . b 1,000 2 - 3 & \" q \""
        );
        assert_eq!(
            tokenize_13a("(Sie) haben's — „gut“"),
            "( Sie ) haben's — „gut“"
        );
    }

    #[test]
    fn intl_splits_unicode_punctuation_and_symbols() {
        assert_eq!(
            tokenize_intl("„Gut“, sagte er… 3.5€"),
            "„ Gut “ , sagte er … 3.5 €"
        );
        assert_eq!(tokenize_intl("日本語。テスト！"), "日本語 。 テスト ！");
    }

    #[test]
    fn char_and_none() {
        assert_eq!(tokenize_char("ab c"), "a b   c");
        assert_eq!(Tokenizer::None.tokenize("x  y"), "x  y");
    }
}
