//! How a rewrite is told to a writer: every edit label, method name, score and content flag in words. The
//! wording lives here only; the CLI and the window show these strings as they are.

use serde::{Deserialize, Serialize};

use crate::content::{ContentFlag, ContentIssue};
use crate::rerank::Candidate;

/// The phrase for one edit type, from the rule formalizer's ids (`abbreviation`, `final_punctuation`, …) or the
/// word diff's XFORMAL types (`capitalization`, `normalization`, `paraphrase`, …). An unknown id is shown with
/// its underscores as spaces.
pub fn edit_phrase(id: &str) -> String {
    let s = match id {
        "emoticon" => "removed emoticon",
        "interjection" => "removed filler word",
        "char_repeat" => "shortened stretched letters",
        "casing" | "capitalization" => "fixed capitalisation",
        "lowercase" => "lowered capitals",
        "abbreviation" => "expanded abbreviation",
        "normalization" => "spelled out informal word",
        "contraction" => "expanded contraction",
        "punctuation" => "fixed punctuation",
        "spacing" => "fixed spacing",
        "final_punctuation" => "added final punctuation",
        "spelling" => "corrected spelling",
        "repetition" => "removed repetition",
        "split_sentences" => "split the sentence",
        "paraphrase" => "reworded",
        other => return other.replace('_', " "),
    };
    s.to_string()
}

/// The label of an edit made of several types (`abbreviation+final_punctuation`): "expanded abbreviation and
/// added final punctuation".
pub fn edit_label<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    and_list(&ids.into_iter().map(edit_phrase).collect::<Vec<_>>())
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The name of the method that made a candidate: `rules`, `llm-minimal` → "LLM minimal edit",
/// `llm-paraphrase#2` → "LLM paraphrase 2", `roundtrip` → "round trip".
pub fn origin_name(origin: &str) -> String {
    match origin {
        "rules" => "rules".into(),
        "llm-minimal" => "LLM minimal edit".into(),
        "roundtrip" => "round trip".into(),
        o => match o.strip_prefix("llm-paraphrase#") {
            Some(n) => format!("LLM paraphrase {n}"),
            None => o.to_string(),
        },
    }
}

/// A formality on the PT16 scale (−3 … 3) in a word.
pub fn formality_word(score: f32) -> &'static str {
    match score {
        s if s >= 1.5 => "very formal",
        s if s >= 0.5 => "formal",
        s if s > -0.5 => "neutral",
        s if s > -1.5 => "informal",
        _ => "very informal",
    }
}

/// A joint score (0 … 100) in a word. Calibrated on `data/rewrite-dev` with the default weights: scored among the
/// rules' output and each other, the hand-written formal references score 42–47 at the 10th percentile, 56–60 at
/// the median and 68–75 at the 90th in every folder (EN, PT, FR, IT; no fluency model) — so a reference is
/// "good" as a rule, and at worst "fair".
pub fn quality_word(score: u32) -> &'static str {
    match score {
        s if s >= 70 => "very good",
        s if s >= 55 => "good",
        s if s >= 40 => "fair",
        _ => "poor",
    }
}

/// "1st", "2nd", "3rd", "4th", "11th", …
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

impl ContentFlag {
    /// What is wrong, as a sentence a writer reads: "The number 4 is missing.", "The name “Anna” is missing."
    pub fn message(&self) -> String {
        let d = self.detail.as_str();
        // Details are `X missing`, `X not in the input`, `X is back` (with X quoted for words) or a phrase.
        let quoted = |x: &str| {
            let x = x.trim();
            if x.starts_with('"') && x.ends_with('"') && x.len() >= 2 { format!("“{}”", &x[1..x.len() - 1]) } else { x.to_string() }
        };
        match self.issue {
            ContentIssue::Number => match (d.strip_suffix(" missing"), d.strip_suffix(" not in the input")) {
                (Some(n), _) => format!("The number {} {} missing from the original.", quoted(n), if n.contains(',') { "are" } else { "is" }),
                (_, Some(n)) => format!("The number {} is not in the original.", quoted(n)),
                _ => format!("A number changed: {d}."),
            },
            ContentIssue::Name => match d.strip_suffix(" missing") {
                Some(n) => format!("The name {} is missing.", quoted(n)),
                None => format!("A name changed: {d}."),
            },
            ContentIssue::Negation => match d {
                "the input's negation is gone" => "The original says “not”; this does not.".into(),
                "a negation the input does not have" => "This says “not”; the original does not.".into(),
                _ => format!("The negation changed: {d}."),
            },
            ContentIssue::Locked => match d.strip_suffix(" missing") {
                Some(w) => format!("The word {} you asked to keep is missing.", quoted(w)),
                None => format!("A word you asked to keep is missing: {d}."),
            },
            ContentIssue::UndoesRule => match d.strip_suffix(" is back") {
                Some(w) => format!("The informal {} is back.", quoted(w)),
                None => format!("An informal form is back: {d}."),
            },
        }
    }
}

/// Where a candidate stands and why, in words: what the window and the CLI show for it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "RewriteVerdict")]
pub struct Verdict {
    /// 1 for the candidate shown first.
    pub rank: u32,
    /// How many candidates the sentence has.
    pub of: u32,
    /// The joint score on 0 … 100 (the weighted geometric mean of the axes × 100).
    pub score: u32,
    /// The score in a word: "very good", "good", "fair", "poor".
    pub quality: String,
    /// The method(s) that made it: "rules = LLM minimal edit".
    pub method: String,
    /// "best of 3 · 72/100, very good" or "2nd of 3 · 58/100, good".
    pub headline: String,
    /// Each axis of the score in words: "very formal (+1.6), keeps the meaning closely, reads fluently, agrees
    /// with the other candidates".
    pub why: String,
    /// The whole line: "Chosen: rules — best of 3 · 72/100, very good: …" (the first candidate), or the method
    /// and the headline for another one; a flagged candidate says it ranks after those that keep the content.
    pub summary: String,
    /// Each content flag as a sentence ([`ContentFlag::message`]).
    pub flags: Vec<String>,
}

/// The verdict on the candidate at `index` (0 = shown first) of `of`.
pub fn verdict(c: &Candidate, index: usize, of: usize) -> Verdict {
    let s = &c.scores;
    let score = (s.gm * 100.0).round().clamp(0.0, 100.0) as u32;
    let quality = quality_word(score);
    let method = std::iter::once(&c.origin).chain(&c.also).map(|o| origin_name(o)).collect::<Vec<_>>().join(" = ");
    let place = if index == 0 { format!("best of {of}") } else { format!("{} of {of}", ordinal(index + 1)) };
    let place = if of == 1 { "the only candidate".to_string() } else { place };
    let headline = format!("{place} · {score}/100, {quality}");
    let mut axes = vec![format!("{} ({:+.1})", formality_word(s.formality), s.formality)];
    let meaning = match s.similarity {
        Some(sim) => (s.meaning + 100.0 * sim) / 2.0,
        None => s.meaning,
    };
    axes.push(
        match meaning {
            m if m >= 70.0 => "keeps the meaning closely",
            m if m >= 50.0 => "keeps most of the meaning",
            m if m >= 30.0 => "rewords freely",
            _ => "strays from the original",
        }
        .to_string(),
    );
    if let Some(p) = s.perplexity {
        axes.push(
            match p {
                p if p <= 40.0 => "reads fluently",
                p if p <= 150.0 => "reads acceptably",
                _ => "reads awkwardly",
            }
            .to_string(),
        );
    }
    if let Some(a) = s.consensus {
        axes.push(
            match a {
                a if a >= 65.0 => "agrees with the other candidates",
                a if a >= 45.0 => "partly agrees with the other candidates",
                _ => "differs from the other candidates",
            }
            .to_string(),
        );
    }
    let why = and_list(&axes);
    let flags: Vec<String> = s.flags.iter().map(ContentFlag::message).collect();
    let lead = if index == 0 { format!("Chosen: {method}") } else { method.clone() };
    let tail = if flags.is_empty() { String::new() } else { " — ranked after every candidate that keeps the content".to_string() };
    let summary = format!("{lead} — {headline}: {why}{tail}");
    Verdict { rank: index as u32 + 1, of: of as u32, score, quality: quality.into(), method, headline, why, summary, flags }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rerank::{Scores, Weights};

    /// Nothing a writer sees is an id or a raw number: no underscores, no `+` joins, no long decimals.
    fn is_words(s: &str) -> bool {
        let joined = s.as_bytes().windows(3).any(|w| w[0].is_ascii_alphabetic() && w[1] == b'+' && w[2].is_ascii_alphabetic());
        !s.contains('_') && !s.contains('#') && !joined
    }

    #[test]
    fn edit_labels_are_phrases() {
        assert_eq!(edit_label(["abbreviation", "final_punctuation"]), "expanded abbreviation and added final punctuation");
        assert_eq!(edit_label(["casing", "abbreviation", "punctuation"]), "fixed capitalisation, expanded abbreviation and fixed punctuation");
        for k in crate::rules::EditKind::ALL {
            let l = edit_phrase(k.label());
            assert!(is_words(&l) && l.contains(' '), "{l}");
        }
        for k in registro_metrics::edits::EditType::ALL {
            let l = edit_phrase(k.as_str());
            assert!(is_words(&l) && l != k.as_str(), "{l}");
        }
    }

    #[test]
    fn scores_and_flags_are_words_with_a_rank_and_a_score_out_of_100() {
        let w = Weights::default();
        let c = Candidate { text: "Thanks for the help!".into(), origin: "llm-minimal".into(), also: vec!["rules".into()], scores: Scores { consensus: Some(80.0), perplexity: Some(20.0), ..Scores::new(1.2, 75.0, None, &w) }.weighed(&w) };
        let v = verdict(&c, 0, 3);
        assert_eq!(v.rank, 1);
        assert!(v.score <= 100 && v.score == (c.scores.gm * 100.0).round() as u32);
        assert_eq!(v.method, "LLM minimal edit = rules");
        assert!(v.headline.starts_with("best of 3 · ") && v.headline.ends_with(v.quality.as_str()), "{}", v.headline);
        assert_eq!(v.why, "formal (+1.2), keeps the meaning closely, reads fluently and agrees with the other candidates");
        assert!(v.summary.starts_with("Chosen: LLM minimal edit = rules — best of 3 · "), "{}", v.summary);
        assert!(is_words(&v.summary), "{}", v.summary);
        let flagged = Candidate {
            origin: "llm-paraphrase#2".into(),
            also: vec![],
            scores: Scores { flags: vec![ContentFlag { issue: ContentIssue::Number, detail: "4 missing".into() }], ..c.scores.clone() },
            ..c.clone()
        };
        let v = verdict(&flagged, 2, 3);
        assert!(v.headline.starts_with("3rd of 3 · "), "{}", v.headline);
        assert_eq!(v.flags, vec!["The number 4 is missing from the original."]);
        assert!(v.summary.starts_with("LLM paraphrase 2 — ") && v.summary.ends_with("ranked after every candidate that keeps the content"), "{}", v.summary);
        let m = |issue, detail: &str| ContentFlag { issue, detail: detail.into() }.message();
        assert_eq!(m(ContentIssue::Name, "\"Anna\" missing"), "The name “Anna” is missing.");
        assert_eq!(m(ContentIssue::Locked, "\"API\" missing"), "The word “API” you asked to keep is missing.");
        assert_eq!(m(ContentIssue::UndoesRule, "\"gonna\" is back"), "The informal “gonna” is back.");
        assert_eq!(m(ContentIssue::Negation, "the input's negation is gone"), "The original says “not”; this does not.");
        assert_eq!(m(ContentIssue::Number, "8 not in the input"), "The number 8 is not in the original.");
    }
}
