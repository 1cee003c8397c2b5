//! Python string semantics that sacrebleu's results depend on: `str.split()`, `str.rstrip()` and `str.isspace()`
//! use a slightly wider notion of whitespace than Rust (the ASCII information separators U+001C..U+001F count).

/// `str.isspace()` of CPython 3.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `str.split()` without arguments.
pub fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_space).filter(|t| !t.is_empty())
}

/// `str.rstrip()` without arguments.
pub fn py_rstrip(s: &str) -> &str {
    s.trim_end_matches(is_py_space)
}

/// `' '.join(s.split())`.
pub fn py_normalize_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for tok in py_split(s) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(tok);
    }
    out
}

/// Lines of a text file as sacrebleu's CLI reads them: split on `\n` only, each line right-stripped.
pub fn read_lines_like_sacrebleu(content: &str) -> Vec<String> {
    let body = content.strip_suffix('\n').unwrap_or(content);
    if content.is_empty() {
        return Vec::new();
    }
    body.split('\n').map(|l| py_rstrip(l).to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_whitespace_includes_information_separators() {
        assert_eq!(
            py_split("a\u{1f}b\u{a0}c  d").collect::<Vec<_>>(),
            vec!["a", "b", "c", "d"]
        );
        assert_eq!(py_rstrip("x \u{3000}\r"), "x");
    }

    #[test]
    fn file_lines_follow_sacrebleu() {
        assert_eq!(read_lines_like_sacrebleu("a \nb\r\n"), vec!["a", "b"]);
        assert_eq!(read_lines_like_sacrebleu("a\n\nb"), vec!["a", "", "b"]);
        assert!(read_lines_like_sacrebleu("").is_empty());
    }
}
