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

named_variants!(Method, "method", { Rules => "rules", Roundtrip => "roundtrip", Llm => "llm" });

/// Model-backed operations, implemented by registro-core on top of the engine.
///
/// The `*_many` methods take the same step for many sentences at once, one result per item in order; each must
/// equal what the one-item method gives that item alone. Their defaults call the one-item methods in turn; a
/// backend that decodes rows together (the engine) or keeps requests in flight (a server) overrides them.
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
    /// How many sentences the pipeline should hand over at once (1 = one at a time).
    fn batch_size(&self) -> usize {
        1
    }
    fn translate_many(&mut self, texts: &[String], from: Lang, to: Lang) -> Vec<Result<String, String>> {
        texts.iter().map(|t| self.translate(t, from, to)).collect()
    }
    fn generate_many(&mut self, prompts: &[Vec<(&'static str, String)>], n: usize) -> Vec<Result<Vec<String>, String>> {
        prompts.iter().map(|m| self.generate(m, n)).collect()
    }
    fn perplexity_many(&mut self, texts: &[&str], lang: Lang) -> Vec<Result<f64, String>> {
        texts.iter().map(|t| self.perplexity(t, lang)).collect()
    }
    /// [`Neural::similarity`] of each (input, candidates) pair.
    fn similarity_many(&mut self, items: &[(&str, Vec<&str>)], lang: Lang) -> Vec<Result<Option<Vec<f64>>, String>> {
        items.iter().map(|(input, cands)| self.similarity(input, cands, lang)).collect()
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

/// How a rewrite runs (the how of core's `RewriteRequest`, which a run stores). A stored one that lacks an option
/// added since gets its default.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Options {
    pub lang: Lang,
    pub method: Method,
    /// Paraphrases to sample with the LLM method, besides its minimal edit (0 = none, 1 = one greedy answer).
    pub n: usize,
    pub weights: Weights,
    /// Score perplexity when a neural backend is there (costs one forward pass per candidate).
    pub fluency: bool,
    /// With the LLM method, also offer a round trip through another language (two more generations).
    pub roundtrip: bool,
    /// Words the writer locked: a candidate without one of them (when the input has it) is flagged and demoted.
    pub keep: Vec<String>,
}

impl Default for Options {
    /// English by the rules: [`Options::new`]'s defaults for a language and method chosen later.
    fn default() -> Self {
        Options::new(Lang::En, Method::Rules)
    }
}

impl Options {
    pub fn new(lang: Lang, method: Method) -> Self {
        Options { lang, method, n: 1, weights: Weights::default(), fluency: true, roundtrip: false, keep: Vec::new() }
    }
}

/// A piece of the side-by-side view. Concatenating `old` gives the input, `new` the candidate, exactly; `kind`
/// is `None` for unchanged text and the edit's type ids otherwise (`abbreviation+final_punctuation`, for
/// filtering and styling), `label` the same in words a writer reads ("expanded abbreviation and added final
/// punctuation", [`crate::verdict::edit_label`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Piece {
    pub kind: Option<String>,
    #[serde(default)]
    pub label: Option<String>,
    pub old: String,
    pub new: String,
}

impl Piece {
    fn same(text: &str) -> Self {
        Piece { kind: None, label: None, old: text.into(), new: text.into() }
    }
    fn edit(kind: String, old: &str, new: &str) -> Self {
        let label = crate::verdict::edit_label(kind.split('+'));
        Piece { kind: Some(kind), label: Some(label), old: old.into(), new: new.into() }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
pub struct CandidateView {
    #[serde(flatten)]
    pub candidate: Candidate,
    pub pieces: Vec<Piece>,
    /// Its rank, score and flags in words (what the window and the CLI show).
    #[serde(default)]
    pub verdict: crate::verdict::Verdict,
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
            out.push(Piece::same(&input[at..e.src.0]));
        }
        let kind = e.kinds.iter().map(|k| k.label()).collect::<Vec<_>>().join("+");
        out.push(Piece::edit(kind, &e.before, &e.after));
        at = e.src.1;
    }
    if at < input.len() {
        out.push(Piece::same(&input[at..]));
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
        out.push(match kind {
            Some(k) => Piece::edit(k, o, n),
            None => Piece { kind: None, label: None, old: o.into(), new: n.into() },
        });
    };
    for op in &ops {
        // Ranges must advance monotonically; anything else would break the exact cover, so fall back.
        if op.old_range.start < a || op.new_range.start < b || op.old_range.end > old.len() || op.new_range.end > new.len() {
            return vec![Piece::edit("paraphrase".into(), old, new)];
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

/// The round trip of each input: through English, or for English input through German and back. Every input
/// goes there in one [`Neural::translate_many`] call and what arrived comes back in another.
fn roundtrips(nn: &mut dyn Neural, inputs: &[&str], lang: Lang) -> Vec<Result<String, String>> {
    let pivot = if lang == Lang::En { Lang::De } else { Lang::En };
    let texts: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
    let there = nn.translate_many(&texts, lang, pivot);
    let arrived: Vec<String> = there.iter().filter_map(|r| r.as_ref().ok().cloned()).collect();
    let mut back = nn.translate_many(&arrived, pivot, lang).into_iter();
    there
        .into_iter()
        .map(|r| match r {
            Err(e) => Err(format!("round trip {lang}→{pivot}: {e}")),
            Ok(_) => match back.next() {
                Some(b) => b.map(|b| b.trim().to_string()).map_err(|e| format!("round trip {pivot}→{lang}: {e}")),
                None => Err(format!("round trip {pivot}→{lang}: no answer")),
            },
        })
        .collect()
}

/// Each sentence's candidates so far as (text, origin), or the first step that failed for it.
type Raw = Result<Vec<(String, String)>, String>;

/// Adds one step's candidates to each sentence still without an error.
fn add_step(raw: &mut [Raw], step: Vec<Result<Vec<(String, String)>, String>>) {
    for (r, s) in raw.iter_mut().zip(step) {
        if let Ok(list) = r {
            match s {
                Ok(more) => list.extend(more),
                Err(e) => *r = Err(e),
            }
        }
    }
}

/// Rewrites one sentence. Errors carry the failing step ("round trip en→x: …").
pub fn rewrite_sentence(
    input: &str,
    opts: &Options,
    formalizer: &mut Formalizer,
    formality: &mut dyn Formality,
    neural: Option<&mut dyn Neural>,
) -> Result<SentenceResult, String> {
    rewrite_batch(&[input], opts, formalizer, formality, neural).pop().expect("one result per input")
}

/// Rewrites several sentences, each model step taken for all of them together: the minimal edits, then the
/// paraphrases, the round trips, the embedding similarities and the perplexity of every candidate — so a backend
/// that batches decodes the sentences as rows of one batch. A sentence's candidates, scores and choice are what it
/// gets alone (nothing depends on its batch-mates); its `seconds` is the batch's time shared out. One result per
/// input, in order; a step that fails fails only the sentences it failed for, and the error names the step.
pub fn rewrite_batch(
    inputs: &[&str],
    opts: &Options,
    formalizer: &mut Formalizer,
    formality: &mut dyn Formality,
    mut neural: Option<&mut dyn Neural>,
) -> Vec<Result<SentenceResult, String>> {
    let t0 = std::time::Instant::now();
    let lang = opts.lang;
    let rules: Vec<crate::rules::Formalized> = inputs.iter().map(|s| formalizer.formalize(s, lang)).collect();
    let mut raw: Vec<Raw> = rules.iter().map(|r| Ok(vec![(r.text.clone(), "rules".to_string())])).collect();
    let answers = |out: Vec<Result<Vec<String>, String>>, step: &str, origin: &dyn Fn(usize) -> String| -> Vec<Result<Vec<(String, String)>, String>> {
        out.into_iter()
            .map(|r| {
                r.map(|v| v.iter().enumerate().map(|(i, a)| (prompt::clean_answer(a), origin(i))).collect()).map_err(|e| format!("{step}: {e}"))
            })
            .collect()
    };
    match opts.method {
        Method::Rules => {}
        Method::Roundtrip => match neural.as_deref_mut() {
            None => add_step(&mut raw, inputs.iter().map(|_| Err("round-trip MT needs a translation model (engine)".to_string())).collect()),
            Some(nn) => add_step(&mut raw, roundtrips(nn, inputs, lang).into_iter().map(|r| r.map(|t| vec![(t, "roundtrip".to_string())])).collect()),
        },
        Method::Llm => match neural.as_deref_mut() {
            None => add_step(&mut raw, inputs.iter().map(|_| Err("LLM rewriting needs a language model (engine)".to_string())).collect()),
            Some(nn) => {
                let minimal = nn.generate_many(&rules.iter().map(|r| prompt::minimal_messages(lang, &r.text)).collect::<Vec<_>>(), 1);
                // The minimal edit is one greedy answer, whatever a backend returns beyond it.
                let minimal = minimal.into_iter().map(|r| r.map(|mut v| { v.truncate(1); v })).collect();
                add_step(&mut raw, answers(minimal, "LLM minimal edit", &|_| "llm-minimal".to_string()));
                if opts.n > 0 {
                    let para = nn.generate_many(&rules.iter().map(|r| prompt::messages(lang, &r.text)).collect::<Vec<_>>(), opts.n);
                    add_step(&mut raw, answers(para, "LLM paraphrase", &|i| format!("llm-paraphrase#{}", i + 1)));
                }
                if opts.roundtrip {
                    add_step(&mut raw, roundtrips(nn, inputs, lang).into_iter().map(|r| r.map(|t| vec![(t, "roundtrip".to_string())])).collect());
                }
            }
        },
    }
    let mut cands: Vec<Result<Vec<Candidate>, String>> = raw
        .into_iter()
        .map(|r| {
            r.map(|list| {
                let mut c: Vec<Candidate> =
                    list.into_iter().map(|(text, origin)| Candidate { text, origin, also: Vec::new(), scores: Scores::default() }).collect();
                dedup(&mut c);
                c
            })
        })
        .collect();
    let live: Vec<usize> = (0..inputs.len()).filter(|&i| cands[i].is_ok()).collect();
    let texts_of = |c: &Result<Vec<Candidate>, String>| -> Vec<String> { c.as_ref().map(|v| v.iter().map(|c| c.text.clone()).collect()).unwrap_or_default() };
    let mut similarity: Vec<Option<Vec<f64>>> = vec![None; inputs.len()];
    if let Some(nn) = neural.as_deref_mut() {
        let texts: Vec<Vec<String>> = live.iter().map(|&i| texts_of(&cands[i])).collect();
        let items: Vec<(&str, Vec<&str>)> = live.iter().zip(&texts).map(|(&i, t)| (inputs[i], t.iter().map(String::as_str).collect())).collect();
        for (&i, r) in live.iter().zip(nn.similarity_many(&items, lang)) {
            match r {
                Ok(s) => similarity[i] = s,
                Err(e) => cands[i] = Err(format!("similarity: {e}")),
            }
        }
    }
    let mut perplexity: Vec<Vec<Option<f64>>> = cands.iter().map(|c| c.as_ref().map_or(0, Vec::len)).map(|n| vec![None; n]).collect();
    if let Some(nn) = neural.as_deref_mut().filter(|_| opts.fluency) {
        // Every candidate of every sentence in one call, then shared back out.
        let owners: Vec<(usize, usize)> = (0..inputs.len()).flat_map(|i| (0..perplexity[i].len()).map(move |k| (i, k))).collect();
        let texts: Vec<String> = owners.iter().map(|&(i, k)| cands[i].as_ref().map(|c| c[k].text.clone()).unwrap_or_default()).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for (&(i, k), r) in owners.iter().zip(nn.perplexity_many(&refs, lang)) {
            match r {
                Ok(p) => perplexity[i][k] = Some(p),
                Err(e) if cands[i].is_ok() => cands[i] = Err(format!("perplexity: {e}")),
                Err(_) => {}
            }
        }
    }
    let seconds = t0.elapsed().as_secs_f64() / inputs.len().max(1) as f64;
    let mut out = Vec::with_capacity(inputs.len());
    for (((input, rules), cands), (similarity, perplexity)) in inputs.iter().zip(rules).zip(cands).zip(similarity.into_iter().zip(perplexity)) {
        out.push(cands.and_then(|cands| choose(input, rules, cands, similarity, perplexity, opts, formality, seconds)));
    }
    out
}

/// Scores one sentence's candidates and puts the best first (the LLM method's choice; the round-trip method keeps
/// its own output first, for comparison).
#[allow(clippy::too_many_arguments)]
fn choose(
    input: &str,
    rules: crate::rules::Formalized,
    mut cands: Vec<Candidate>,
    similarity: Option<Vec<f64>>,
    perplexity: Vec<Option<f64>>,
    opts: &Options,
    formality: &mut dyn Formality,
    seconds: f64,
) -> Result<SentenceResult, String> {
    let lang = opts.lang;
    let formality_before = formality.formality(input, lang)?;
    let texts: Vec<&str> = cands.iter().map(|c| c.text.as_str()).collect();
    let agreement = registro_metrics::chrf::consensus(&texts);
    let mut scores = Vec::with_capacity(cands.len());
    for (i, c) in cands.iter().enumerate() {
        scores.push(
            Scores {
                formality: formality.formality(&c.text, lang)?,
                meaning: chrf(&c.text, input),
                similarity: similarity.as_ref().and_then(|s| s.get(i).copied()),
                perplexity: perplexity.get(i).copied().flatten(),
                consensus: agreement[i],
                flags: content::check(lang, input, &c.text, &rules.edits, &opts.keep),
                gm: 0.0,
            }
            .weighed(&opts.weights),
        );
    }
    for (c, s) in cands.iter_mut().zip(scores) {
        c.scores = s;
    }
    rerank(&mut cands);
    if opts.method == Method::Roundtrip {
        if let Some(pos) = cands.iter().position(|c| c.origin == "roundtrip") {
            let c = cands.remove(pos);
            cands.insert(0, c);
        }
    }
    let of = cands.len();
    let candidates = cands
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let pieces = if c.origin == "rules" { pieces_from_edits(input, &rules.edits) } else { pieces_from_diff(input, &c.text, lang) };
            let verdict = crate::verdict::verdict(&c, i, of);
            CandidateView { candidate: c, pieces, verdict }
        })
        .collect();
    Ok(SentenceResult { input: input.to_string(), formality_before, rule_edits: rules.edits, candidates, seconds })
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
        // Each edit's label is what a writer reads, not its ids.
        let labels: Vec<&str> = c.pieces.iter().filter_map(|p| p.label.as_deref()).collect();
        assert_eq!(labels.len(), c.pieces.iter().filter(|p| p.kind.is_some()).count());
        assert!(labels.contains(&"fixed capitalisation and expanded abbreviation"), "{labels:?}");
        assert!(labels.contains(&"expanded abbreviation and fixed punctuation"), "{labels:?}");
        assert_eq!(c.verdict.rank, 1);
        assert!(c.verdict.summary.starts_with("Chosen: rules — the only candidate · "), "{}", c.verdict.summary);
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

    /// The model answers "Thanks for the help!" (minimal edit), "Thanks 4 the help!" and "Thank you for your
    /// help." (paraphrases) to "thanks 4 the help!!".
    struct Thanks;
    impl Neural for Thanks {
        fn translate(&mut self, text: &str, _from: Lang, _to: Lang) -> Result<String, String> {
            Ok(text.to_string())
        }
        fn generate(&mut self, m: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
            let minimal = m[0].1.contains("as few changes as possible");
            let answers: Vec<String> = if minimal { vec!["Thanks for the help!".into()] } else { vec!["Thanks 4 the help!".into(), "Thank you for your help.".into()] };
            Ok(answers.into_iter().take(n).collect())
        }
        fn perplexity(&mut self, text: &str, _lang: Lang) -> Result<f64, String> {
            Ok(if text.contains('4') { 60.0 } else { 20.0 })
        }
    }

    /// The issue's case: "Thanks for the help!" was ranked below "Thanks 4 the help!" because the 4 was taken for a
    /// number the better candidate had lost.
    #[test]
    fn thanks_for_the_help_ranks_above_thanks_4_the_help() {
        let input = "thanks 4 the help!!";
        let mut s = Scorer::builtin(Variant::Surface).unwrap();
        let o = Options { n: 2, ..Options::new(Lang::En, Method::Llm) };
        let r = rewrite_sentence(input, &o, &mut Formalizer::new(), &mut s, Some(&mut Thanks)).unwrap();
        let texts: Vec<&str> = r.candidates.iter().map(|c| c.candidate.text.as_str()).collect();
        let pos = |t: &str| texts.iter().position(|x| *x == t).unwrap_or_else(|| panic!("{t:?} not in {texts:?}"));
        assert!(pos("Thanks for the help!") < pos("Thanks 4 the help!"), "{texts:?}");
        assert_ne!(texts[0], "Thanks 4 the help!");
        for c in &r.candidates {
            let flags: Vec<String> = c.candidate.scores.flags.iter().map(|f| f.to_string()).collect();
            assert!(!flags.iter().any(|f| f.contains("number")), "{}: {flags:?}", c.candidate.text);
            if c.candidate.text != "Thanks 4 the help!" {
                assert!(flags.is_empty(), "{}: {flags:?}", c.candidate.text);
            }
        }
        // The rules spell the 4 out themselves, and the minimal edit said the same.
        let best = r.candidates.iter().find(|c| c.candidate.text == "Thanks for the help!").unwrap();
        assert!(best.candidate.origin == "rules" || best.candidate.also.iter().any(|o| o == "rules"), "{:?}", best.candidate);
    }

    /// Answers made from the sentence itself, and a log of which step was asked how: a backend that batches.
    #[derive(Default)]
    struct Batching {
        calls: Vec<&'static str>,
    }
    fn answer_to(m: &[(&'static str, String)], n: usize) -> Vec<String> {
        let s = &m.last().unwrap().1;
        (0..n).map(|i| if i == 0 { format!("Formal: {}", s.replace("gonna", "going to")) } else { format!("{s} lol") }).collect()
    }
    impl Neural for Batching {
        fn translate(&mut self, text: &str, _from: Lang, to: Lang) -> Result<String, String> {
            Ok(format!("{text} ({to})"))
        }
        fn generate(&mut self, m: &[(&'static str, String)], n: usize) -> Result<Vec<String>, String> {
            self.calls.push("generate");
            Ok(answer_to(m, n))
        }
        fn perplexity(&mut self, text: &str, _lang: Lang) -> Result<f64, String> {
            self.calls.push("perplexity");
            Ok(10.0 + text.len() as f64)
        }
        fn similarity(&mut self, input: &str, cands: &[&str], _lang: Lang) -> Result<Option<Vec<f64>>, String> {
            Ok(Some(cands.iter().map(|c| 1.0 / (1.0 + (c.len() as f64 - input.len() as f64).abs())).collect()))
        }
        fn generate_many(&mut self, prompts: &[Vec<(&'static str, String)>], n: usize) -> Vec<Result<Vec<String>, String>> {
            self.calls.push("generate_many");
            prompts.iter().map(|m| Ok(answer_to(m, n))).collect()
        }
        fn perplexity_many(&mut self, texts: &[&str], _lang: Lang) -> Vec<Result<f64, String>> {
            self.calls.push("perplexity_many");
            texts.iter().map(|t| if t.to_lowercase().contains("boom") { Err("too long".to_string()) } else { Ok(10.0 + t.len() as f64) }).collect()
        }
    }

    /// Without the time, which is the batch's shared out.
    fn comparable(r: &SentenceResult) -> serde_json::Value {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v
    }

    #[test]
    fn a_batch_asks_each_step_once_and_gives_every_sentence_what_it_gets_alone() {
        let inputs = ["u gonna come 2nite?", "i dont know if Anna is gonna make it tbh", "thx, see u at 8"];
        let opts = Options { n: 2, roundtrip: true, ..Options::new(Lang::En, Method::Llm) };
        let mut s = Scorer::builtin(Variant::Surface).unwrap();
        let mut nn = Batching::default();
        let batch = rewrite_batch(&inputs, &opts, &mut Formalizer::new(), &mut s, Some(&mut nn));
        // One call per step for the whole batch: minimal edits, paraphrases, then every candidate's perplexity.
        assert_eq!(nn.calls, vec!["generate_many", "generate_many", "perplexity_many"]);
        assert_eq!(batch.len(), inputs.len());
        for (input, b) in inputs.iter().zip(&batch) {
            let alone = rewrite_sentence(input, &opts, &mut Formalizer::new(), &mut s, Some(&mut Batching::default())).unwrap();
            let b = b.as_ref().unwrap();
            assert_eq!(comparable(b), comparable(&alone), "{input}");
            assert!(b.candidates.iter().any(|c| c.candidate.origin == "roundtrip"), "{input}");
        }
        // A step that fails for one sentence fails that sentence only, naming the step.
        let with_bad = ["u gonna come 2nite?", "boom"];
        let out = rewrite_batch(&with_bad, &Options { n: 0, ..opts.clone() }, &mut Formalizer::new(), &mut s, Some(&mut Batching::default()));
        assert!(out[0].is_ok());
        assert_eq!(out[1].as_ref().unwrap_err(), "perplexity: too long");
    }

    #[test]
    fn neural_methods_without_a_backend_say_what_is_missing() {
        let mut s = Scorer::builtin(Variant::Surface).unwrap();
        let err = rewrite_sentence("oi", &opts(Method::Roundtrip), &mut Formalizer::new(), &mut s, None).unwrap_err();
        assert!(err.contains("translation model"), "{err}");
    }
}
