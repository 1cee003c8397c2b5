//! One sentence through a rewrite method: candidates (rules, round-trip MT, LLM), their scores and the reranked
//! list, plus the labelled diff the side-by-side view shows. The neural parts come in through [`Neural`] and the
//! formality judgement through [`Formality`], so this crate stays free of ML dependencies (registro-core plugs in
//! the engine).

use serde::{Deserialize, Serialize};

use crate::prompt;
use crate::rerank::{rerank, Candidate, Scores, Weights};
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
    /// Candidates to sample (LLM); round trip and rules give one each.
    pub n: usize,
    pub weights: Weights,
    /// Score perplexity when a neural backend is there (costs one forward pass per candidate).
    pub fluency: bool,
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
            // Round trip through English; for English input, through German and back.
            let pivot = if lang == Lang::En { Lang::De } else { Lang::En };
            let there = nn.translate(input, lang, pivot).map_err(|e| format!("round trip {lang}→{pivot}: {e}"))?;
            let back = nn.translate(&there, pivot, lang).map_err(|e| format!("round trip {pivot}→{lang}: {e}"))?;
            raw.push((back.trim().to_string(), "roundtrip".into()));
        }
        Method::Llm => {
            let nn = neural.as_deref_mut().ok_or("LLM rewriting needs a language model (engine)")?;
            let msgs = prompt::messages(lang, &rules.text);
            let answers = nn.generate(&msgs, opts.n.max(1)).map_err(|e| format!("LLM rewrite: {e}"))?;
            for (i, a) in answers.iter().enumerate() {
                raw.push((prompt::clean_answer(a), format!("llm#{}", i + 1)));
            }
        }
    }
    let formality_before = formality.formality(input, lang)?;
    let mut cands = Vec::with_capacity(raw.len());
    for (text, origin) in raw {
        if text.trim().is_empty() {
            continue;
        }
        let f = formality.formality(&text, lang)?;
        let m = chrf(&text, input);
        let ppl = match neural.as_deref_mut() {
            Some(nn) if opts.fluency => Some(nn.perplexity(&text, lang).map_err(|e| format!("perplexity: {e}"))?),
            _ => None,
        };
        cands.push(Candidate { text, origin, scores: Scores::new(f, m, ppl, &opts.weights) });
    }
    // With a neural method the rule output is only the starting point: keep it listed, but rank the method's own
    // candidates first so that "best" answers the question the user asked.
    rerank(&mut cands);
    if opts.method != Method::Rules {
        if let Some(pos) = cands.iter().position(|c| c.origin != "rules") {
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
        Options { lang: Lang::Pt, method, n: 2, weights: Weights::default(), fluency: true }
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
    fn llm_candidates_are_cleaned_scored_and_ranked() {
        let input = "n preciso pedir pois sei q ela vai vir atras!!";
        let mut s = Scorer::builtin(Variant::Surface).unwrap();
        let mut nn = Canned;
        let r = rewrite_sentence(input, &opts(Method::Llm), &mut Formalizer::new(), &mut s, Some(&mut nn)).unwrap();
        assert_eq!(r.candidates[0].candidate.text, "Não é necessário pedir, pois sei que ela virá.");
        assert_eq!(r.candidates[0].candidate.origin, "llm#1");
        let origins: Vec<&str> = r.candidates.iter().map(|c| c.candidate.origin.as_str()).collect();
        assert!(origins.contains(&"rules") && origins.contains(&"llm#2"));
        let last = r.candidates.iter().find(|c| c.candidate.origin == "llm#2").unwrap();
        assert!(last.candidate.scores.gm < r.candidates[0].candidate.scores.gm);
        for c in &r.candidates {
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
