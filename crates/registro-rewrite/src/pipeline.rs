//! One sentence through a rewrite method: candidates (rules, round-trip MT, LLM), their scores and the reranked
//! list, plus the labelled diff the side-by-side view shows. The LLM method is a pipeline: the rules clean the
//! surface first, the model makes the smallest edit that makes the rules' output formal (and, for choice, a few
//! paraphrases and a round trip), and the candidate shown first is the best by the joint score of
//! [`crate::rerank`], never the model's answer by default. The neural parts come in through [`Neural`] and the
//! formality judgement through [`Formality`], so this crate stays free of ML dependencies (registro-core plugs in
//! the engine).

use serde::{Deserialize, Serialize};

use crate::content;
use crate::prompt;
use crate::rerank::{dedup, rerank, Candidate, Scores, Weights};
use crate::rules::{Edit, Formalizer};
use crate::scorer::{Scorer, ScorerError};
use crate::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Rules,
    Roundtrip,
    Llm,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Rules => "rules",
            Method::Roundtrip => "roundtrip",
            Method::Llm => "llm",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rules" => Ok(Method::Rules),
            "roundtrip" => Ok(Method::Roundtrip),
            "llm" => Ok(Method::Llm),
            _ => Err(format!("unknown method {s:?}: expected rules, roundtrip or llm")),
        }
    }
}

/// Model-backed operations, implemented by registro-core on top of the engine.
pub trait Neural {
    /// Machine translation `from` → `to` (round-trip MT uses x → en → x).
    fn translate(&mut self, text: &str, from: Lang, to: Lang) -> Result<String, String>;
    /// `n` sampled answers to a chat prompt of (role, content) messages.
    fn generate(&mut self, messages: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String>;
    /// Perplexity of `text` in `lang` under the fluency model.
    fn perplexity(&mut self, text: &str, lang: Lang) -> Result<f64, String>;
    /// Cosine similarity of each candidate's sentence embedding to the input's, when the backend has an embedding
    /// model for `lang`; `None` leaves meaning to chrF alone.
    fn similarity(&mut self, _input: &str, _candidates: &[&str], _lang: Lang) -> Result<Option<Vec<f64>>, String> {
        Ok(None)
    }
}

/// A formality scorer on the PT16 scale (−3 … 3). The built-in regressor implements it; the engine's XLM-R
/// classifier or the embedding variant are other implementations.
pub trait Formality {
    fn formality(&mut self, text: &str, lang: Lang) -> Result<f32, String>;
    fn name(&self) -> String;
}

impl Formality for Scorer {
    fn formality(&mut self, text: &str, lang: Lang) -> Result<f32, String> {
        self.score(text, lang, None).map_err(|e: ScorerError| e.to_string())
    }
    fn name(&self) -> String {
        format!("registro-{}", self.model.variant.name())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    pub lang: Lang,
    pub method: Method,
    /// Paraphrases to sample with the LLM method, besides its minimal edit (0 = none, 1 = one greedy answer).
    pub n: usize,
    pub weights: Weights,
    /// Score perplexity when a neural backend is there (costs one forward pass per candidate).
    pub fluency: bool,
    /// With the LLM method, also offer a round trip through another language (two more generations).
    #[serde(default)]
    pub roundtrip: bool,
    /// Words the writer locked: a candidate without one of them (when the input has it) is flagged and demoted.
    #[serde(default)]
    pub keep: Vec<String>,
}

impl Options {
    pub fn new(lang: Lang, method: Method) -> Self {
        Options { lang, method, n: 1, weights: Weights::default(), fluency: true, roundtrip: false, keep: Vec::new() }
    }
}

/// A piece of the side-by-side view. Concatenating `old` gives the input, `new` the candidate, exactly; `kind`
/// is `None` for unchanged text and an edit label otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Piece {
    pub kind: Option<String>,
    pub old: String,
    pub new: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct CandidateView {
    #[serde(flatten)]
    pub candidate: Candidate,
    pub pieces: Vec<Piece>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct SentenceResult {
    pub input: String,
    pub formality_before: f32,
    /// The rule formalizer's edits on the input (always computed: they are also the LLM's input).
    pub rule_edits: Vec<Edit>,
    /// Best first.
    pub candidates: Vec<CandidateView>,
    pub seconds: f64,
}

/// Pieces from the rule formalizer's own edit list (exact spans and rule types).
pub fn pieces_from_edits(input: &str, edits: &[Edit]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut at = 0;
    for e in edits {
        if e.src.0 > at {
            out.push(Piece { kind: None, old: input[at..e.src.0].into(), new: input[at..e.src.0].into() });
        }
        let label = e.kinds.iter().map(|k| k.label()).collect::<Vec<_>>().join("+");
        out.push(Piece { kind: Some(label), old: e.before.clone(), new: e.after.clone() });
        at = e.src.1;
    }
    if at < input.len() {
        out.push(Piece { kind: None, old: input[at..].into(), new: input[at..].into() });
    }
    out
}

/// Pieces from the metric engine's word-level diff (XFORMAL edit types), for candidates the rules did not make.
/// The diff's ranges cover tokens; text between them is emitted as unchanged when equal on both sides and as a
/// `spacing` edit otherwise, so the pieces cover both strings exactly.
pub fn pieces_from_diff(old: &str, new: &str, lang: Lang) -> Vec<Piece> {
    let ops = registro_metrics::edits::diff(old, new, lang.code());
    let mut out: Vec<Piece> = Vec::new();
    let (mut a, mut b) = (0usize, 0usize);
    let push = |kind: Option<String>, o: &str, n: &str, out: &mut Vec<Piece>| {
        if o.is_empty() && n.is_empty() {
            return;
        }
        if kind.is_none() {
            if let Some(last) = out.last_mut().filter(|p| p.kind.is_none()) {
                last.old.push_str(o);
                last.new.push_str(n);
                return;
            }
        }
        out.push(Piece { kind, old: o.into(), new: n.into() });
    };
    for op in &ops {
        // Ranges must advance monotonically; anything else would break the exact cover, so fall back.
        if op.old_range.start < a || op.new_range.start < b || op.old_range.end > old.len() || op.new_range.end > new.len() {
            return vec![Piece { kind: Some("paraphrase".into()), old: old.into(), new: new.into() }];
        }
        let (go, gn) = (&old[a..op.old_range.start], &new[b..op.new_range.start]);
        if go == gn {
            push(None, go, gn, &mut out);
        } else {
            push(Some("spacing".into()), go, gn, &mut out);
        }
        let kind = op.kind.map(|k| k.as_str().to_string());
        push(kind, &old[op.old_range.clone()], &new[op.new_range.clone()], &mut out);
        a = op.old_range.end;
        b = op.new_range.end;
    }
    let (go, gn) = (&old[a..], &new[b..]);
    push(if go == gn { None } else { Some("spacing".into()) }, go, gn, &mut out);
    out
}

/// chrF (sacrebleu defaults) of `hyp` against `reference`.
pub fn chrf(hyp: &str, reference: &str) -> f64 {
    registro_metrics::Chrf::default().sentence_score(hyp, &[reference])
}

fn roundtrip(nn: &mut dyn Neural, input: &str, lang: Lang) -> Result<String, String> {
    // Round trip through English; for English input, through German and back.
    let pivot = if lang == Lang::En { Lang::De } else { Lang::En };
    let there = nn.translate(input, lang, pivot).map_err(|e| format!("round trip {lang}→{pivot}: {e}"))?;
    let back = nn.translate(&there, pivot, lang).map_err(|e| format!("round trip {pivot}→{lang}: {e}"))?;
    Ok(back.trim().to_string())
}

/// Mean chrF of each candidate to the others (minimum Bayes risk with chrF as the utility); `None` with fewer
/// than three candidates, where "agreeing with the other one" says nothing.
fn consensus(texts: &[&str]) -> Vec<Option<f64>> {
    if texts.len() < 3 {
        return vec![None; texts.len()];
    }
    (0..texts.len())
        .map(|i| {
            let others: Vec<f64> = (0..texts.len()).filter(|&j| j != i).map(|j| chrf(texts[i], texts[j])).collect();
            Some(others.iter().sum::<f64>() / others.len() as f64)
        })
        .collect()
}

/// Rewrites one sentence. Errors carry the failing step ("round trip en→x: …").
pub fn rewrite_sentence(
    input: &str,
    opts: &Options,
    formalizer: &mut Formalizer,
    formality: &mut dyn Formality,
    mut neural: Option<&mut dyn Neural>,
) -> Result<SentenceResult, String> {
    let t0 = std::time::Instant::now();
    let lang = opts.lang;
    let rules = formalizer.formalize(input, lang);
    let mut raw: Vec<(String, String)> = vec![(rules.text.clone(), "rules".into())];
    match opts.method {
        Method::Rules => {}
        Method::Roundtrip => {
            let nn = neural.as_deref_mut().ok_or("round-trip MT needs a translation model (engine)")?;
            raw.push((roundtrip(nn, input, lang)?, "roundtrip".into()));
        }
        Method::Llm => {
            let nn = neural.as_deref_mut().ok_or("LLM rewriting needs a language model (engine)")?;
            let minimal = nn.generate(&prompt::minimal_messages(lang, &rules.text), 1).map_err(|e| format!("LLM minimal edit: {e}"))?;
            if let Some(a) = minimal.first() {
                raw.push((prompt::clean_answer(a), "llm-minimal".into()));
            }
            if opts.n > 0 {
                let answers = nn.generate(&prompt::messages(lang, &rules.text), opts.n).map_err(|e| format!("LLM paraphrase: {e}"))?;
                for (i, a) in answers.iter().enumerate() {
                    raw.push((prompt::clean_answer(a), format!("llm-paraphrase#{}", i + 1)));
                }
            }
            if opts.roundtrip {
                raw.push((roundtrip(nn, input, lang)?, "roundtrip".into()));
            }
        }
    }
    let formality_before = formality.formality(input, lang)?;
    let mut cands: Vec<Candidate> =
        raw.into_iter().map(|(text, origin)| Candidate { text, origin, also: Vec::new(), scores: Scores::default() }).collect();
    dedup(&mut cands);
    let texts: Vec<&str> = cands.iter().map(|c| c.text.as_str()).collect();
    let agreement = consensus(&texts);
    let similarity = match neural.as_deref_mut() {
        Some(nn) => nn.similarity(input, &texts, lang).map_err(|e| format!("similarity: {e}"))?,
        None => None,
    };
    for (i, c) in cands.iter_mut().enumerate() {
        let perplexity = match neural.as_deref_mut() {
            Some(nn) if opts.fluency => Some(nn.perplexity(&c.text, lang).map_err(|e| format!("perplexity: {e}"))?),
            _ => None,
        };
        c.scores = Scores {
            formality: formality.formality(&c.text, lang)?,
            meaning: chrf(&c.text, input),
            similarity: similarity.as_ref().and_then(|s| s.get(i).copied()),
            perplexity,
            consensus: agreement[i],
            flags: content::check(lang, input, &c.text, &rules.edits, &opts.keep),
            gm: 0.0,
        }
        .weighed(&opts.weights);
    }
    rerank(&mut cands);
    // The round-trip method is kept as it was for comparison: its own output first. The LLM method is chosen by
    // score like everything else.
    if opts.method == Method::Roundtrip {
        if let Some(pos) = cands.iter().position(|c| c.origin == "roundtrip") {
            let c = cands.remove(pos);
            cands.insert(0, c);
        }
    }
    let candidates = cands
        .into_iter()
        .map(|c| {
            let pieces = if c.origin == "rules" { pieces_from_edits(input, &rules.edits) } else { pieces_from_diff(input, &c.text, lang) };
            CandidateView { candidate: c, pieces }
        })
        .collect();
    Ok(SentenceResult { input: input.to_string(), formality_before, rule_edits: rules.edits, candidates, seconds: t0.elapsed().as_secs_f64() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorer::Variant;

    /// A stand-in model with fixed answers: tests the plumbing (prompt in, candidates out, reranking), not a model.
    struct Canned;
    impl Neural for Canned {
        fn translate(&mut self, text: &str, _from: Lang, to: Lang) -> Result<String, String> {
            Ok(if to == Lang::En { "I do not need to ask because I know she will come after me.".into() } else { format!("Não preciso pedir, pois sei que ela virá atrás de mim. ({})", text.len()) })
        }
        fn generate(&mut self, m: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
            assert!(m.last().unwrap().1.starts_with("Não preciso"), "the LLM sees the rule output");
            Ok((0..n).map(|i| if i == 0 { "Formal: \"Não é necessário pedir, pois sei que ela virá.\"".into() } else { "kkk blz".into() }).collect())
        }
        fn perplexity(&mut self, text: &str, _lang: Lang) -> Result<f64, String> {
            Ok(if text.contains("kkk") { 800.0 } else { 20.0 })
        }
    }

    fn opts(method: Method) -> Options {
        Options { n: 2, ..Options::new(Lang::Pt, method) }
    }

    #[test]
    fn rules_method_gives_one_candidate_with_exact_pieces() {
        let input = "n preciso pedir pois sei q ela vai vir atras!!";
        let mut s = Scorer::builtin(Variant::Surface).unwrap();
        let r = rewrite_sentence(input, &opts(Method::Rules), &mut Formalizer::new(), &mut s, None).unwrap();
        assert_eq!(r.candidates.len(), 1);
        let c = &r.candidates[0];
        assert_eq!(c.candidate.text, "Não preciso pedir pois sei que ela vai vir atrás!");
        assert!(c.candidate.scores.formality > r.formality_before);
        assert_eq!(c.pieces.iter().map(|p| p.old.as_str()).collect::<String>(), input);
        assert_eq!(c.pieces.iter().map(|p| p.new.as_str()).collect::<String>(), c.candidate.text);
        assert!(c.pieces.iter().any(|p| p.kind.as_deref() == Some("casing+abbreviation")));
        assert!(r.candidates[0].candidate.scores.perplexity.is_none());
    }

    #[test]
    fn llm_candidates_are_cleaned_merged_scored_and_chosen_by_score() {
        let input = "n preciso pedir pois sei q ela vai vir atras!!";
        let mut s = Scorer::builtin(Variant::Surface).unwrap();
        let mut nn = Canned;
        let r = rewrite_sentence(input, &opts(Method::Llm), &mut Formalizer::new(), &mut s, Some(&mut nn)).unwrap();
        let minimal = r.candidates.iter().find(|c| c.candidate.origin == "llm-minimal").unwrap();
        assert_eq!(minimal.candidate.text, "Não é necessário pedir, pois sei que ela virá.");
        // The first paraphrase said the same: one candidate, both origins.
        assert_eq!(minimal.candidate.also, vec!["llm-paraphrase#1"]);
        let origins: Vec<&str> = r.candidates.iter().map(|c| c.candidate.origin.as_str()).collect();
        assert_eq!(origins.len(), 3, "{origins:?}");
        assert!(origins.contains(&"rules") && origins.contains(&"llm-paraphrase#2"));
        // "kkk blz" lost the input's negation: flagged, and last whatever its score.
        let last = &r.candidates[2].candidate;
        assert_eq!(last.origin, "llm-paraphrase#2");
        assert_eq!(last.scores.flags.iter().map(|f| f.issue).collect::<Vec<_>>(), vec![content::ContentIssue::Negation]);
        // The first is the best of the unflagged by the joint score (no method wins by default); every axis is there.
        assert!(r.candidates[0].candidate.scores.gm >= r.candidates[1].candidate.scores.gm);
        for c in &r.candidates {
            assert!(c.candidate.scores.consensus.is_some() && c.candidate.scores.perplexity.is_some());
            assert_eq!(c.pieces.iter().map(|p| p.old.as_str()).collect::<String>(), input);
            assert_eq!(c.pieces.iter().map(|p| p.new.as_str()).collect::<String>(), c.candidate.text);
        }
    }

    #[test]
    fn neural_methods_without_a_backend_say_what_is_missing() {
        let mut s = Scorer::builtin(Variant::Surface).unwrap();
        let err = rewrite_sentence("oi", &opts(Method::Roundtrip), &mut Formalizer::new(), &mut s, None).unwrap_err();
        assert!(err.contains("translation model"), "{err}");
    }
}
