//! CoCoA-MT matched accuracy (M-Acc; Nădejde et al. 2022). The annotated formal and informal references mark
//! register-bearing phrases as `[F]…[/F]`. A hypothesis is FORMAL if it contains a phrase of the formal reference
//! and none of the informal one, INFORMAL in the mirror case, NEUTRAL if it contains neither and OTHER if both.
//! Containment is token-subset matching on whitespace tokens (case-sensitive, as the official scorer), or plain
//! substring matching for languages written without spaces. Accuracy only counts FORMAL+INFORMAL.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::metric::{Metric, RefPrep};
use crate::text::py_split;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Register {
    Formal,
    Informal,
}

impl std::str::FromStr for Register {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "formal" | "f" => Ok(Self::Formal),
            "informal" | "i" => Ok(Self::Informal),
            o => Err(format!(
                "unknown register {o:?} (expected formal or informal)"
            )),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Label {
    Formal,
    Informal,
    Neutral,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MatchMode {
    /// Every whitespace token of the phrase occurs among the hypothesis tokens.
    Tokens,
    /// The phrase is a substring of the hypothesis.
    Substring,
}

impl MatchMode {
    /// Substring matching for scripts written without spaces between words.
    pub fn for_lang(lang: &str) -> Self {
        match lang {
            "ja" | "zh" | "th" | "lo" | "km" | "my" | "bo" => Self::Substring,
            _ => Self::Tokens,
        }
    }
}

/// `[F]…[/F]` phrases of one annotated line.
pub fn phrases(annotated: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"\[F\](.*?)\[/F\]").expect("phrase regex"));
    re.captures_iter(annotated)
        .map(|c| c[1].to_string())
        .collect()
}

/// Removes the `[F]`/`[/F]` markers, giving the plain reference.
pub fn strip_markers(annotated: &str) -> String {
    annotated.replace("[F]", "").replace("[/F]", "")
}

fn contains_any(
    hyp: &str,
    hyp_tokens: &HashSet<&str>,
    phrases: &[String],
    mode: MatchMode,
) -> bool {
    phrases.iter().any(|p| match mode {
        MatchMode::Substring => hyp.contains(p.as_str()),
        MatchMode::Tokens => py_split(p).all(|t| hyp_tokens.contains(t)),
    })
}

pub fn classify(
    hyp: &str,
    formal_phrases: &[String],
    informal_phrases: &[String],
    mode: MatchMode,
) -> Label {
    let toks: HashSet<&str> = py_split(hyp).collect();
    let f = contains_any(hyp, &toks, formal_phrases, mode);
    let i = contains_any(hyp, &toks, informal_phrases, mode);
    match (f, i) {
        (true, false) => Label::Formal,
        (false, true) => Label::Informal,
        (false, false) => Label::Neutral,
        (true, true) => Label::Other,
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    #[serde(rename = "FORMAL")]
    pub formal: u64,
    #[serde(rename = "INFORMAL")]
    pub informal: u64,
    #[serde(rename = "NEUTRAL")]
    pub neutral: u64,
    #[serde(rename = "OTHER")]
    pub other: u64,
}

impl Counts {
    pub fn add(&mut self, l: Label) {
        match l {
            Label::Formal => self.formal += 1,
            Label::Informal => self.informal += 1,
            Label::Neutral => self.neutral += 1,
            Label::Other => self.other += 1,
        }
    }
    /// Share of FORMAL among FORMAL+INFORMAL (0 when neither occurs).
    pub fn formal_acc(&self) -> f64 {
        self.share_of_formal_and_informal(self.formal)
    }
    /// Share of INFORMAL among FORMAL+INFORMAL (0 when neither occurs).
    pub fn informal_acc(&self) -> f64 {
        self.share_of_formal_and_informal(self.informal)
    }
    fn share_of_formal_and_informal(&self, count: u64) -> f64 {
        let d = self.formal + self.informal;
        if d == 0 {
            0.0
        } else {
            count as f64 / d as f64
        }
    }
}

/// The JSON shape of the issue: `{"formal", "informal", "counts": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaccResult {
    pub formal: f64,
    pub informal: f64,
    pub counts: Counts,
}

impl From<Counts> for MaccResult {
    fn from(counts: Counts) -> Self {
        Self {
            formal: counts.formal_acc(),
            informal: counts.informal_acc(),
            counts,
        }
    }
}

/// A label as M-Acc's sufficient statistics: one-hot over (FORMAL, INFORMAL, NEUTRAL, OTHER).
pub fn label_stats(l: Label) -> [f64; 4] {
    let mut v = [0.0; 4];
    v[l as usize] = 1.0;
    v
}

/// M-Acc as a corpus metric for the significance tests: references are the formal and the informal annotated
/// line (in that order); the score is 100 × accuracy for the requested register.
#[derive(Clone, Debug)]
pub struct MatchedAccuracy {
    pub register: Register,
    pub mode: MatchMode,
}

struct MaccRefs {
    formal: Vec<String>,
    informal: Vec<String>,
}

impl MatchedAccuracy {
    pub fn new(register: Register, lang: &str) -> Self {
        Self {
            register,
            mode: MatchMode::for_lang(lang),
        }
    }

    /// Labels and counts of a system against annotated formal / informal references.
    pub fn evaluate(
        &self,
        hyps: &[String],
        formal_annotated: &[String],
        informal_annotated: &[String],
    ) -> Result<(MaccResult, Vec<Label>), crate::MetricError> {
        for (what, n) in [
            ("formal annotated reference", formal_annotated.len()),
            ("informal annotated reference", informal_annotated.len()),
        ] {
            if n != hyps.len() {
                return Err(crate::MetricError::LengthMismatch {
                    what: format!("hypothesis vs {what}"),
                    expected: n,
                    got: hyps.len(),
                });
            }
        }
        let mut counts = Counts::default();
        let labels: Vec<Label> = hyps
            .iter()
            .zip(formal_annotated.iter().zip(informal_annotated))
            .map(|(h, (f, i))| {
                let l = classify(h, &phrases(f), &phrases(i), self.mode);
                counts.add(l);
                l
            })
            .collect();
        Ok((counts.into(), labels))
    }
}

impl Metric for MatchedAccuracy {
    /// A percentage.
    fn range(&self) -> (f64, f64) {
        (0.0, 100.0)
    }

    fn name(&self) -> String {
        "M-Acc".into()
    }

    fn signature_fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("register", format!("{:?}", self.register).to_lowercase()),
            (
                "match",
                if self.mode == MatchMode::Tokens {
                    "tokens"
                } else {
                    "substring"
                }
                .into(),
            ),
        ]
    }

    fn prepare_refs(&self, refs: &[&str]) -> RefPrep {
        Box::new(MaccRefs {
            formal: refs.first().map(|r| phrases(r)).unwrap_or_default(),
            informal: refs.get(1).map(|r| phrases(r)).unwrap_or_default(),
        })
    }

    fn segment_stats(&self, hyp: &str, refs: &RefPrep) -> Vec<f64> {
        let r = refs
            .downcast_ref::<MaccRefs>()
            .expect("M-Acc references prepared by M-Acc");
        label_stats(classify(hyp, &r.formal, &r.informal, self.mode)).to_vec()
    }

    fn score(&self, stats: &[f64]) -> f64 {
        let (f, i) = (stats[0], stats[1]);
        if f + i == 0.0 {
            return 0.0;
        }
        100.0
            * match self.register {
                Register::Formal => f / (f + i),
                Register::Informal => i / (f + i),
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_cocoa_rule() {
        let f = phrases("[F]Spielen Sie[/F] Splat? [F]Ihres[/F]");
        let i = phrases("[F]Spielst du[/F] Splat? [F]deines[/F]");
        assert_eq!(f, vec!["Spielen Sie", "Ihres"]);
        let m = MatchMode::Tokens;
        assert_eq!(
            classify("Splat Sie Spielen heute", &f, &i, m),
            Label::Formal,
            "token subset ignores order"
        );
        assert_eq!(classify("Spielst du Splat?", &f, &i, m), Label::Informal);
        assert_eq!(classify("Splat!", &f, &i, m), Label::Neutral);
        assert_eq!(classify("Spielen Sie deines", &f, &i, m), Label::Other);
        assert_eq!(
            classify("spielen sie", &f, &i, m),
            Label::Neutral,
            "case-sensitive like the official scorer"
        );
        assert_eq!(classify("", &f, &i, m), Label::Neutral, "empty hypothesis");
    }

    #[test]
    fn japanese_uses_substrings() {
        let f = phrases("[F]ですか[/F]");
        let i = phrases("[F]なの[/F]");
        let m = MatchMode::for_lang("ja");
        assert_eq!(classify("これは本ですか？", &f, &i, m), Label::Formal);
        assert_eq!(classify("これは本なの？", &f, &i, m), Label::Informal);
    }

    #[test]
    fn accuracy_ignores_neutral_and_other() {
        let c = Counts {
            formal: 3,
            informal: 1,
            neutral: 10,
            other: 5,
        };
        assert_eq!(c.formal_acc(), 0.75);
        assert_eq!(Counts::default().formal_acc(), 0.0);
        assert_eq!(strip_markers("[F]Sie[/F] x"), "Sie x");
    }
}
