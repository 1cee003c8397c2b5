//! Levenshtein distances (characters or tokens), shared by the edit classifier and the style metrics.

/// Unit-cost edit distance between two sequences (two-row dynamic programme).
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() {
        return b.len();
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Character-level distance (Unicode scalar values).
pub fn char_levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    levenshtein(&a, &b)
}

/// Token-level distance on whitespace tokens.
pub fn token_levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<&str> = crate::text::py_split(a).collect();
    let b: Vec<&str> = crate::text::py_split(b).collect();
    levenshtein(&a, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(char_levenshtein("kitten", "sitting"), 3);
        assert_eq!(char_levenshtein("", "äö"), 2);
        assert_eq!(char_levenshtein("日本語", "日本"), 1);
        assert_eq!(token_levenshtein("i am here", "I am here now"), 2);
    }
}
