//! Chart labels that tell systems apart. Submission names share long prefixes ("formality-control-1.informal",
//! "formality-control-2.informal"): clipping each name to its start made every bar read "formality-control…".
//! [`distinct_labels`] keeps the part that differs instead; the full name goes into the SVG's `<title>` (hover)
//! and the page's key ([`super::Chart::label_key`]).

/// Short labels for `names` that differ from each other and fit `max` characters (a leading `…` marks a dropped
/// common start). Names that already fit and differ are kept as they are.
pub fn distinct_labels(names: &[String], max: usize) -> Vec<String> {
    let max = max.max(4);
    let fits = names.iter().all(|n| n.chars().count() <= max);
    if fits && all_unique(names) {
        return names.to_vec();
    }
    if !all_unique(names) || names.len() < 2 {
        // Equal names cannot be told apart by any part of them: numbered after the clipped name.
        return numbered(names, max);
    }
    let pieces: Vec<Vec<&str>> = names.iter().map(|n| split_pieces(n)).collect();
    let (mut p, s) = common_ends(&pieces);
    // A bare distinguishing number ("1", "2") reads better with the word before it ("control-1").
    let cores = |p: usize| -> Vec<String> { pieces.iter().map(|ps| trim_separators(&ps[p..ps.len() - s].concat())).collect() };
    if p >= 2 && cores(p).iter().all(|c| c.chars().count() <= 3) {
        p -= 2;
        while p > 0 && is_separator(pieces[0][p]) {
            p -= 1;
        }
    }
    let mut labels: Vec<String> = cores(p).into_iter().map(|c| if p > 0 { format!("…{c}") } else { c }).collect();
    if !all_unique(&labels) || labels.iter().any(String::is_empty) {
        labels = names.to_vec();
    }
    if labels.iter().all(|l| l.chars().count() <= max) {
        return labels;
    }
    // Still too long: the shortest suffix each label needs to differ, else its start, else numbered.
    let tails: Vec<String> = labels.iter().map(|l| clip_start(l, max)).collect();
    if all_unique(&tails) {
        return tails;
    }
    let heads: Vec<String> = labels.iter().map(|l| clip_end(l, max)).collect();
    if all_unique(&heads) {
        return heads;
    }
    numbered(names, max)
}

fn all_unique(v: &[String]) -> bool {
    let mut seen = std::collections::HashSet::new();
    v.iter().all(|x| seen.insert(x))
}

fn is_separator(piece: &str) -> bool {
    !piece.chars().any(char::is_alphanumeric)
}

/// A name cut into runs of letters/digits and runs of everything else: "a-b.1" → ["a", "-", "b", ".", "1"].
fn split_pieces(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<bool> = None;
    for (i, c) in name.char_indices() {
        let word = c.is_alphanumeric();
        if prev.is_some_and(|p| p != word) {
            out.push(&name[start..i]);
            start = i;
        }
        prev = Some(word);
    }
    if start < name.len() {
        out.push(&name[start..]);
    }
    out
}

/// How many whole pieces every name shares at its start and at its end, leaving each at least one word piece.
fn common_ends(pieces: &[Vec<&str>]) -> (usize, usize) {
    let shortest = pieces.iter().map(Vec::len).min().unwrap_or(0);
    let mut p = 0;
    while p + 1 < shortest && pieces.iter().all(|ps| ps[p] == pieces[0][p]) {
        p += 1;
    }
    let mut s = 0;
    while p + s + 1 < shortest && pieces.iter().all(|ps| ps[ps.len() - 1 - s] == pieces[0][pieces[0].len() - 1 - s]) {
        s += 1;
    }
    // Never cut inside a word: back off to a separator boundary on each side.
    while p > 0 && !is_separator(pieces[0][p - 1]) {
        p -= 1;
    }
    while s > 0 && !is_separator(pieces[0][pieces[0].len() - s]) {
        s -= 1;
    }
    (p, s)
}

fn trim_separators(s: &str) -> String {
    s.trim_matches(|c: char| !c.is_alphanumeric()).to_string()
}

fn clip_start(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let tail: String = s.chars().skip(n - (max - 1)).collect();
    format!("…{}", tail.trim_start_matches('…'))
}

fn clip_end(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max - 1).collect();
    format!("{head}…")
}

fn numbered(names: &[String], max: usize) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let tag = format!(" #{}", i + 1);
            format!("{}{tag}", clip_end(n, max.saturating_sub(tag.chars().count()).max(2)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn submissions_sharing_a_prefix_keep_what_differs() {
        let names = v(&[
            "formality-control-1.informal",
            "formality-control-2.informal",
            "formality-control-3.informal",
            "formality-control-4.informal",
            "formality-control-5.informal",
        ]);
        let l = distinct_labels(&names, 18);
        assert_eq!(l, v(&["…control-1", "…control-2", "…control-3", "…control-4", "…control-5"]));
    }

    #[test]
    fn short_distinct_names_are_kept() {
        assert_eq!(distinct_labels(&v(&["baseline", "llm"]), 18), v(&["baseline", "llm"]));
    }

    #[test]
    fn long_differing_middles_are_clipped_to_a_unique_end() {
        let names = v(&["team-alpha-very-long-system-name-v1.formal", "team-alpha-very-long-system-name-v2.formal", "other-team-run"]);
        let l = distinct_labels(&names, 12);
        assert!(all_unique(&l), "{l:?}");
        assert!(l.iter().all(|x| x.chars().count() <= 12), "{l:?}");
    }

    #[test]
    fn differing_registers_stay_visible() {
        let names = v(&["formality-control-1.formal", "formality-control-1.informal"]);
        let l = distinct_labels(&names, 10);
        assert_eq!(l, v(&["…formal", "…informal"]));
    }

    #[test]
    fn equal_names_are_numbered() {
        let l = distinct_labels(&v(&["same-system-name-here", "same-system-name-here"]), 10);
        assert!(all_unique(&l), "{l:?}");
    }

    #[test]
    fn every_label_is_unique_and_fits() {
        let sets = [
            v(&["a", "ab", "abc"]),
            v(&["x.1", "x.1.1", "x.1.1.1"]),
            v(&["alpha-beta-gamma-delta", "alpha-beta-gamma-delta-epsilon"]),
            v(&["ünïcödé-systém-α", "ünïcödé-systém-β"]),
            v(&["--", "---", "----------------------"]),
        ];
        for names in sets {
            for max in [4, 8, 18] {
                let l = distinct_labels(&names, max);
                assert!(all_unique(&l), "{names:?} {max}: {l:?}");
                assert!(l.iter().all(|x| x.chars().count() <= max.max(4)), "{names:?} {max}: {l:?}");
            }
        }
    }
}
