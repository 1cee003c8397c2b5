//! A single-pass tokenizer that keeps every byte of the input (whitespace included), so the formalizer can
//! rebuild the text and report each edit as a span of the original.

use crate::lexicon::{is_emoji, EMOTICONS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Space,
    Word,
    Number,
    /// URLs, e-mail addresses, @mentions and #hashtags: never touched.
    Link,
    Emoticon,
    Punct,
}

#[derive(Clone, Copy, Debug)]
pub struct Tok {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '\u{0301}' || c == '\u{0300}'
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '’'
}

fn at_boundary_before(s: &str, i: usize) -> bool {
    s[..i].chars().next_back().is_none_or(|c| c.is_whitespace() || c == '(' || c == '"')
}

/// Tokenizes `s` into a contiguous cover of its bytes.
pub fn tokenize(s: &str, out: &mut Vec<Tok>) {
    out.clear();
    let b = s.as_bytes();
    let mut i = 0;
    while i < s.len() {
        let c = s[i..].chars().next().unwrap_or(' ');
        let start = i;
        let kind;
        if c.is_whitespace() {
            i += c.len_utf8();
            while let Some(c) = s[i..].chars().next().filter(|c| c.is_whitespace()) {
                i += c.len_utf8();
            }
            kind = Kind::Space;
        } else if let Some(len) = link_len(s, i) {
            i += len;
            kind = Kind::Link;
        } else if let Some(len) = emoticon_len(s, i) {
            i += len;
            kind = Kind::Emoticon;
        } else if is_emoji(c) {
            i += c.len_utf8();
            while let Some(c) = s[i..].chars().next().filter(|&c| is_emoji(c)) {
                i += c.len_utf8();
            }
            kind = Kind::Emoticon;
        } else if is_word_char(c) || (is_apostrophe(c) && at_boundary_before(s, i) && next_is_letter(s, i + c.len_utf8())) {
            i += c.len_utf8();
            loop {
                let Some(c) = s[i..].chars().next() else { break };
                let next = i + c.len_utf8();
                if is_word_char(c) {
                    i = next;
                } else if (is_apostrophe(c) || c == '-') && next_is_letter(s, next) {
                    i = next;
                } else if c == '.' && next_is_letter(s, next) && s[start..i].chars().count() == 1 {
                    // Dotted abbreviations like "e.g" / "z.B" stay one word.
                    i = next;
                } else if c == '/' && s[start..i].chars().count() == 1 {
                    // Chat shorthand "w/", "w/o", "b/c", "p/", "c/": one word; longer "a/b" pairs are not.
                    let after = &s[next..];
                    let ends_at = |k: usize| after[k..].chars().next().is_none_or(|c| !c.is_alphanumeric());
                    if ends_at(0) {
                        i = next;
                    } else if after.starts_with(['o', 'c']) && ends_at(1) {
                        i = next + 1;
                    }
                    break;
                } else {
                    break;
                }
            }
            // A trailing apostrophe belongs to Italian "po'" / English "goin'".
            if s[i..].starts_with('\'') && s[start..i].chars().all(|c| c.is_alphabetic()) && (s[start..i] == *"po" || s[start..i].ends_with("in")) {
                i += 1;
            }
            let w = &s[start..i];
            kind = if w.bytes().all(|c| c.is_ascii_digit()) { Kind::Number } else { Kind::Word };
            // Numbers with separators: 3.5, 10:30, 1,000.
            if kind == Kind::Number {
                while i + 1 < s.len() && matches!(b[i], b'.' | b',' | b':') && b[i + 1].is_ascii_digit() {
                    i += 1;
                    while i < s.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
        } else {
            i += c.len_utf8();
            kind = Kind::Punct;
        }
        out.push(Tok { kind, start, end: i });
    }
}

fn next_is_letter(s: &str, i: usize) -> bool {
    s[i..].chars().next().is_some_and(|c| c.is_alphabetic())
}

fn link_len(s: &str, i: usize) -> Option<usize> {
    let rest = &s[i..];
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let word = &rest[..end];
    let lower_starts = |p: &str| word.as_bytes().get(..p.len()).is_some_and(|b| b.eq_ignore_ascii_case(p.as_bytes()));
    if lower_starts("http://") || lower_starts("https://") || lower_starts("www.") {
        // Trailing sentence punctuation is not part of the URL.
        let trimmed = word.trim_end_matches(['.', ',', '!', '?', ')', ';', ':']);
        return Some(trimmed.len().max(4));
    }
    if (word.starts_with('@') || word.starts_with('#')) && word.len() > 1 && at_boundary_before(s, i) {
        let n = word[1..].find(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(word.len(), |p| p + 1);
        return (n > 1).then_some(n);
    }
    if let Some(at) = word.find('@') {
        let trimmed = word.trim_end_matches(['.', ',', '!', '?', ')', ';', ':']);
        if at > 0 && trimmed[at..].contains('.') && word[..at].chars().all(|c| c.is_alphanumeric() || "._-+".contains(c)) {
            return Some(trimmed.len());
        }
    }
    None
}

fn emoticon_len(s: &str, i: usize) -> Option<usize> {
    let rest = &s[i..];
    if !at_boundary_before(s, i) {
        return None;
    }
    for e in EMOTICONS {
        if let Some(after) = rest.strip_prefix(e) {
            // Repeated mouths ":)))" and "xDDD" belong to the emoticon.
            let last = e.chars().last().unwrap_or(' ');
            let extra = after.len() - after.trim_start_matches(last).len();
            let end = e.len() + extra;
            let ok = rest[end..].chars().next().is_none_or(|c| c.is_whitespace() || ".,!?".contains(c));
            if ok {
                return Some(end);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Kind, &str)> {
        let mut v = Vec::new();
        tokenize(s, &mut v);
        v.iter().filter(|t| t.kind != Kind::Space).map(|t| (t.kind, &s[t.start..t.end])).collect()
    }

    #[test]
    fn keeps_links_numbers_emoticons_and_shorthand_whole() {
        let t = kinds("see www.x.com/a?b=1 at 10:30 w/ @bob :))) b/c it's 3.5 po'di");
        assert_eq!(
            t,
            vec![
                (Kind::Word, "see"),
                (Kind::Link, "www.x.com/a?b=1"),
                (Kind::Word, "at"),
                (Kind::Number, "10:30"),
                (Kind::Word, "w/"),
                (Kind::Link, "@bob"),
                (Kind::Emoticon, ":)))"),
                (Kind::Word, "b/c"),
                (Kind::Word, "it's"),
                (Kind::Number, "3.5"),
                (Kind::Word, "po'di"),
            ]
        );
    }

    #[test]
    fn covers_every_byte() {
        let s = "drôle heinnnn!! 😂😂 n't";
        let mut v = Vec::new();
        tokenize(s, &mut v);
        assert_eq!(v.iter().map(|t| &s[t.start..t.end]).collect::<String>(), s);
        assert!(v.iter().any(|t| t.kind == Kind::Emoticon));
    }
}
