//! A translation as both faces ask for it. [`TranslateRequest`] is every option of a translation run: its defaults
//! ([`Default`], the model from `REGISTRO_DEFAULT_MODEL`), its limits ([`TranslateRequest::validate`]) and, as
//! serialised, the run's stored parameters (`params.request`), which `runs resume` reads back
//! ([`TranslateRequest::of_run`], with a fallback for runs stored before requests were). [`TranslateSource`] is what
//! it translates: pasted lines or a stored document, the document's register overridden per sentence.
//!
//! The CLI builds a request from its flags and the window from its form, which starts from the defaults core hands
//! it (the `translate_defaults` command); both call [`prepare`] before a model loads and [`run`], which keeps pasted
//! lines as a document of the project first, so every run can be resumed. Adding an option is one field here (or in
//! [`Options`], flattened into the request): its default, its check, its place in the stored parameters, resume and
//! the window's TypeScript type follow from it.

use std::collections::BTreeMap;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::progress::{CancelToken, ProgressFn};
use registro_store::{Run, RunId, Store};

use super::{
    qe, translate_and_store, translate_contrastive_and_store, Controls, Lang, Options, Pool, Register, RunTarget, SegmentOut,
    SystemKind, Translator, NO_EXAMPLES, WORD_OVERLAP,
};

/// Every option of a translation run, as a face asks for it and as the run stores it.
#[derive(Clone, Debug, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct TranslateRequest {
    /// Target language, register and the control layer's settings.
    #[serde(flatten)]
    pub options: Options,
    /// A model id (`registro models list`), a .gguf path, or a backend's `remote:<model>@<API base>` id; by
    /// default `REGISTRO_DEFAULT_MODEL`, else the shipped default model. A stored run records the model that ran.
    pub model: String,
    /// Show the model the shipped example translations of the language (off: `--no-examples`; lower quality,
    /// recorded). A language whose examples are missing is refused before a model loads, never silently worse.
    pub examples: bool,
    /// Check each candidate's meaning against the source with EmbeddingGemma-300M where it is installed; a stored
    /// run records whether the check ran.
    pub meaning_check: bool,
    /// Both registers as two linked runs (formal — respectful for Japanese when asked — and informal), shown as
    /// two target columns; per-sentence registers do not apply.
    pub contrastive: bool,
}

impl Default for TranslateRequest {
    fn default() -> Self {
        TranslateRequest {
            options: Options::default(),
            model: registro_generate::models::default_model(),
            examples: true,
            meaning_check: true,
            contrastive: false,
        }
    }
}

/// The name a run over pasted text stores its lines under (the CLI names them after the file or "standard input").
pub const PASTED_TEXT: &str = "pasted text";

impl TranslateRequest {
    /// The defaults, into `lang` in `register`.
    pub fn new(lang: Lang, register: Register) -> Self {
        TranslateRequest { options: Options::new(lang, register), ..Default::default() }
    }

    /// The request's limits, checked once here for every face before a model loads or a run is stored: the
    /// control layer's ([`Options::validate`]: candidates, the respectful register only where the language has one),
    /// a model named, and a system the language supports (the pivot system's formalizer knows only some
    /// languages; elsewhere it would silently be a generic translation).
    pub fn validate(&self) -> anyhow::Result<()> {
        self.options.validate()?;
        anyhow::ensure!(!self.model.trim().is_empty(), "no model: name one (see `registro models list`) or set REGISTRO_DEFAULT_MODEL");
        let lang = self.options.lang;
        if self.options.system == SystemKind::Pivot && (self.options.register.is_formal_side() || self.contrastive) {
            anyhow::ensure!(
                super::rewrite_lang(lang).is_some(),
                "the pivot system formalizes with Registro's rewriting rules, which do not know {}: choose the controlled system",
                lang.name()
            );
        }
        Ok(())
    }

    /// The example pool the request asks for: the language's shipped one (an error naming what is missing and how
    /// to fix it, before any model loads), or none with `examples` off.
    pub fn pool(&self) -> anyhow::Result<Option<Pool>> {
        Pool::for_run(self.options.lang, self.examples)
    }

    /// The cross-lingual meaning check, when asked for and its model is installed.
    pub fn meaning(&self) -> anyhow::Result<Option<std::sync::Arc<qe::MeaningCheck>>> {
        if self.meaning_check {
            qe::MeaningCheck::installed()
        } else {
            Ok(None)
        }
    }

    /// The request a run stores: `opts` as the translator ran them, its model, whether it had examples and the
    /// meaning check (which the run may have lacked: resume does what the run did).
    pub(crate) fn as_ran(opts: &Options, tr: &Translator<'_>, contrastive: bool) -> TranslateRequest {
        TranslateRequest {
            options: Options { termbase: None, memory: None, ..opts.clone() },
            model: tr.generator_id(),
            examples: tr.has_pool(),
            meaning_check: tr.meaning_check().is_some(),
            contrastive,
        }
    }

    /// The request run `run` was started with: its stored `params.request`, or, for a run stored before runs kept
    /// their request, rebuilt from the parameters it stored then.
    pub fn of_run(run: &Run) -> anyhow::Result<TranslateRequest> {
        match run.params.get("request") {
            Some(v) => serde_json::from_value(v.clone()).with_context(|| format!("run {}: its stored request", run.id)),
            None => Self::of_legacy_run(run),
        }
    }

    /// A run stored before `params.request`: its language and register in the run's columns, each option under a key
    /// of its own (some written as what the run did: `n_best` the candidates decoded, `shots` 0 without a pool).
    fn of_legacy_run(run: &Run) -> anyhow::Result<TranslateRequest> {
        let p = &run.params;
        let key = |k: &str| p.get(k).cloned().with_context(|| format!("run {} has no {k:?} parameter to resume with", run.id));
        fn value<T: serde::de::DeserializeOwned>(run: &Run, k: &str, v: serde_json::Value) -> anyhow::Result<T> {
            serde_json::from_value(v).with_context(|| format!("run {}: parameter {k:?}", run.id))
        }
        let code = run.target_lang.as_deref().unwrap_or_default();
        let lang: Lang = code.parse().with_context(|| format!("run {}: unknown target language {code:?}", run.id))?;
        let register: Register = run.register.as_deref().unwrap_or("formal").parse()?;
        let defaults = Options::new(lang, register);
        let shots: usize = value(run, "shots", key("shots")?)?;
        let options = Options {
            controls: Controls(value(run, "controls", key("controls")?)?),
            system: value(run, "system", key("system")?)?,
            n_best: value(run, "n_best", key("n_best")?)?,
            gender: value(run, "gender", key("gender")?)?,
            // 0 records that no example pool was found then; one may be there now.
            shots: if shots == 0 { defaults.shots } else { shots },
            shots_per_sentence: value(run, "shots_per_sentence", key("shots_per_sentence")?)?,
            // Runs stored before sentence examples existed had none.
            sentence_examples: p.get("sentence_examples").map(|v| value(run, "sentence_examples", v.clone())).transpose()?.unwrap_or(0),
            // Chosen by meaning only where the run's were (the encoder may have been installed since).
            meaning_retrieval: p["sentence_retrieval"].as_str().is_some_and(|r| r != WORD_OVERLAP),
            // Runs stored before fixed examples existed retrieved theirs.
            fixed_document_examples: p["document_examples"].as_str() == Some("fixed"),
            max_tokens: value(run, "max_tokens", key("max_tokens")?)?,
            ..defaults
        };
        Ok(TranslateRequest {
            options,
            model: run.model_id.clone().with_context(|| format!("run {} has no model recorded", run.id))?,
            // The examples the run started with: none if it chose none, else the shipped pool.
            examples: p["fewshot_pool"].as_str() != Some(NO_EXAMPLES),
            // The meaning check the run started with, if it had one.
            meaning_check: p["meaning_check"].is_string(),
            contrastive: p.get("contrastive_with").is_some(),
        })
    }
}

/// What a translation translates: pasted lines or a stored document, with per-sentence registers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct TranslateSource {
    /// Pasted text, one segment per line (ignored when `document_id` is set). Stored as a document of the project
    /// (named "pasted text") when the run starts, as the CLI stores a file's lines, so the run can be resumed.
    pub text: String,
    pub document_id: Option<i64>,
    /// Segment index → register, overriding the request's register for that sentence.
    pub overrides: BTreeMap<usize, Register>,
}

/// A request's sources and the register of each, ready for a model.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub sources: Vec<String>,
    pub registers: Vec<Register>,
}

/// The request's segments and registers; refuses a request out of its limits ([`TranslateRequest::validate`]),
/// empty text and an override for a segment that does not exist. Loads no model.
pub fn prepare(store: &Store, req: &TranslateRequest, source: &TranslateSource) -> anyhow::Result<Prepared> {
    req.validate()?;
    let sources = match source.document_id {
        Some(doc) => store.segment_texts(doc)?,
        None => source.text.lines().map(|l| l.trim_end_matches('\r').to_string()).collect(),
    };
    anyhow::ensure!(!sources.iter().all(|s| s.trim().is_empty()), "nothing to translate: paste some text or pick a document");
    let mut registers = vec![req.options.register; sources.len()];
    let lang = req.options.lang;
    for (&i, &r) in &source.overrides {
        let slot = registers.get_mut(i).ok_or_else(|| anyhow::anyhow!("register override for segment {} of {}", i + 1, sources.len()))?;
        anyhow::ensure!(
            lang.registers().contains(&r),
            "segment {}: {} has no {} register (it has {})",
            i + 1,
            lang.name(),
            r.as_str(),
            lang.registers().iter().map(|r| r.as_str()).collect::<Vec<_>>().join(" and ")
        );
        *slot = r;
    }
    Ok(Prepared { sources, registers })
}

/// Translates a prepared request into a stored run of `project` (the formal run of a contrastive pair) and returns
/// it with its segments. Pasted lines are stored as a document of the project first (the same lines again reuse
/// it), so the run is over a document and can be resumed after a crash or a cancel.
#[allow(clippy::too_many_arguments)]
pub fn run(
    store: &mut Store,
    project: i64,
    tr: &mut Translator<'_>,
    req: &TranslateRequest,
    source: &TranslateSource,
    prepared: &Prepared,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> anyhow::Result<(RunId, Vec<SegmentOut>)> {
    let document = match source.document_id {
        Some(doc) => doc,
        None => super::store_source_lines(store, project, PASTED_TEXT, req.options.lang, &prepared.sources)?,
    };
    let target = RunTarget { project_id: project, document_id: Some(document) };
    if req.contrastive {
        let (runs, pairs) = translate_contrastive_and_store(store, &target, tr, &prepared.sources, &req.options, progress, cancel)?;
        return Ok((runs[0], pairs.into_iter().map(|p| p.formal).collect()));
    }
    translate_and_store(store, &target, tr, &prepared.sources, Some(&prepared.registers), &req.options, progress, cancel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_checked_before_any_model_is_loaded() {
        let store = Store::open_in_memory().unwrap();
        let req = TranslateRequest::new(Lang::De, Register::Formal);
        let mut source = TranslateSource { text: "Hello.\nSee you.".into(), overrides: BTreeMap::from([(1, Register::Informal)]), ..Default::default() };
        let p = prepare(&store, &req, &source).unwrap();
        assert_eq!(p.sources, ["Hello.", "See you."]);
        assert_eq!(p.registers, [Register::Formal, Register::Informal]);
        source.overrides.insert(0, Register::Respectful);
        assert_eq!(prepare(&store, &req, &source).unwrap_err().to_string(), "segment 1: German has no respectful register (it has formal and informal)");
        source.overrides.remove(&0);
        source.overrides.insert(5, Register::Informal);
        assert!(prepare(&store, &req, &source).unwrap_err().to_string().contains("segment 6 of 2"));
        source.text = " \n".into();
        assert!(prepare(&store, &req, &source).unwrap_err().to_string().contains("nothing to translate"));
    }

    #[test]
    fn the_pivot_system_is_refused_where_its_formalizer_does_not_know_the_language() {
        let mut req = TranslateRequest::new(Lang::Ko, Register::Formal);
        req.options.system = SystemKind::Pivot;
        assert!(req.validate().unwrap_err().to_string().contains("do not know Korean"));
        req.options.register = Register::Informal;
        req.validate().unwrap();
        req.options.lang = Lang::De;
        req.options.register = Register::Formal;
        req.validate().unwrap();
    }

    /// The stored form is the request: what is serialised reads back the same, and a stored request that lacks an
    /// option added since gets that option's default.
    #[test]
    fn a_request_round_trips_through_its_stored_form_and_fills_in_new_options() {
        let mut req = TranslateRequest::new(Lang::Ja, Register::Respectful);
        req.options.n_best = 6;
        req.options.fixed_document_examples = true;
        req.examples = false;
        req.model = "remote:Qwen@http://127.0.0.1:9/v1".into();
        let stored = serde_json::to_value(&req).unwrap();
        assert_eq!(stored["lang"], "ja");
        assert_eq!(stored["register"], "respectful");
        let back: TranslateRequest = serde_json::from_value(stored.clone()).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), stored);
        let mut older = stored;
        older.as_object_mut().unwrap().remove("early_exit");
        older.as_object_mut().unwrap().remove("meaning_check");
        let back: TranslateRequest = serde_json::from_value(older).unwrap();
        assert!(back.options.early_exit && back.meaning_check, "{back:?}");
    }
}
