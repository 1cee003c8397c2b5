//! Levenshtein distances (characters or tokens), shared by the edit classifier and the style metrics.

/// Unit-cost edit distance between two sequences (two-row dynamic programme).
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    // A common prefix or suffix never changes the distance: drop it (edited sentences mostly share both).
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
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

/// Whether the unit-cost edit distance between `a` and `b` exceeds `k`, without the full table when it clearly
/// does (or does not): the common prefix and suffix are dropped (they never change the distance), a length
/// difference above `k` answers at once, and the programme stops as soon as a whole row is above `k` (row minima
/// never decrease).
pub fn levenshtein_exceeds<T: PartialEq>(a: &[T], b: &[T], k: usize) -> bool {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    if a.len().abs_diff(b.len()) > k {
        return true;
    }
    if a.is_empty() || b.is_empty() {
        return a.len().max(b.len()) > k;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > k {
            return true;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()] > k
}

/// `token_levenshtein(a, b) > k`, cheaply (see [`levenshtein_exceeds`]).
pub fn token_levenshtein_exceeds(a: &str, b: &str, k: usize) -> bool {
    let a: Vec<&str> = crate::text::py_split(a).collect();
    let b: Vec<&str> = crate::text::py_split(b).collect();
    levenshtein_exceeds(&a, &b, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_check_agrees_with_the_distance() {
        let words = ["a", "b", "c", "d"];
        // Every pair of short sequences over a small alphabet, every bound.
        let seqs: Vec<Vec<&str>> = (0..400u32)
            .map(|x| (0..(x % 7) as usize).map(|i| words[((x / 7 + i as u32 * 3) % 4) as usize]).collect())
            .collect();
        for a in &seqs {
            for b in seqs.iter().step_by(7) {
                let d = levenshtein(a, b);
                for k in 0..6 {
                    assert_eq!(levenshtein_exceeds(a, b, k), d > k, "{a:?} {b:?} {k}");
                }
            }
        }
    }

    #[test]
    fn distances() {
        assert_eq!(char_levenshtein("kitten", "sitting"), 3);
        assert_eq!(char_levenshtein("", "äö"), 2);
        assert_eq!(char_levenshtein("日本語", "日本"), 1);
        assert_eq!(token_levenshtein("i am here", "I am here now"), 2);
        // Shared prefix and suffix around the edit, and overlapping ones.
        assert_eq!(char_levenshtein("abcXdef", "abcYYdef"), 2);
        assert_eq!(char_levenshtein("aaa", "aaaa"), 1);
        assert_eq!(char_levenshtein("abab", "ab"), 2);
    }
}
