//! The metric table: one row per metric saying what it is called, which way is better, what it needs (source,
//! references), how it is scored (segment-wise statistics, whole corpus, a model), how it is printed and how its
//! text is tokenized. `registro eval` (`--metrics`, its checks, its JSON and stored rows), the Dashboard (the
//! corpus table, the bar charts, the drill-down, human correlation) and the CLI read it; nothing else decides
//! these things by a metric's name.
//!
//! The table is extensible at run time: [`register`] adds a segment-wise metric (a [`Metric`] made per target
//! language), which `evaluate` then scores and reports under its key, and the Dashboard shows beside BLEU. This is
//! how a new metric reaches every face without touching them (`registro-core/tests/metric_table.rs`).

use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use serde::Serialize;

use crate::evaluate::MetricName;
use crate::metric::Metric;
use crate::tokenize::Tokenizer;

/// Which way a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
    /// The side the runs' requested register asks for: formal up, informal down (formality). M-Acc is scored for
    /// each run's own register, so it is simply `Higher`.
    Register,
    /// Descriptive: no better side (edit distances, length ratio, self-BLEU).
    Neither,
}

/// How a metric is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Each segment reduces to statistics (or a label) summed over the corpus: scored while files stream, resampled
    /// for CIs and significance, and shown per sentence in the drill-down.
    Segmentwise,
    /// Needs every line at once (the style metrics).
    Corpus,
    /// Scored by a model the caller provides (Pang & Gimpel's Acc, Sim, PP, GM).
    Model,
    /// Computed by the Dashboard from its own scorer (formality); `registro eval` does not score it.
    Dashboard,
}

/// How a metric's text is split before it is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenizerRule {
    /// BLEU's rule per target language: [`bleu_tokenizer`].
    Bleu,
    /// Character n-grams (chrF), word n-grams added for chrF++.
    Chars,
    /// tercom's normalisation and whitespace words (TER).
    Tercom,
    /// Whitespace words.
    Words,
    /// Not tokenized (labels, model scores, the analyzer's own reading).
    None,
}

/// Makes a registered metric's scorer for a target language (ISO 639-1, possibly empty).
pub type MakeMetric = Arc<dyn Fn(&str) -> Result<Box<dyn Metric>, String> + Send + Sync>;

/// One row of the metric table.
#[derive(Clone)]
pub struct MetricDescriptor {
    /// What `--metrics` takes, eval's JSON and stored run parameters say, and the Dashboard keys columns, charts
    /// (`bars_<key>`) and the drill-down by.
    pub key: &'static str,
    /// Other names `--metrics` accepts.
    pub aliases: &'static [&'static str],
    /// The name results are shown and stored under (`BLEU`, `chrF2`, `M-Acc`).
    pub label: &'static str,
    /// Other names its results are stored under by eval or other tools (`distinct-1`, `perplexity`).
    pub stored_as: &'static [&'static str],
    pub better: Better,
    pub needs_source: bool,
    pub needs_references: bool,
    pub scope: Scope,
    /// Decimals a table prints.
    pub decimals: usize,
    pub tokenizer: TokenizerRule,
    /// Whether the Dashboard computes it for every compared run (a corpus-table column with CIs, a bar chart, a
    /// drill-down and human-correlation row).
    pub on_dashboard: bool,
    /// The scorer of a metric added with [`register`]; the built-in ones are scored by `evaluate`'s own code.
    pub make: Option<MakeMetric>,
}

impl fmt::Debug for MetricDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetricDescriptor").field("key", &self.key).field("label", &self.label).finish_non_exhaustive()
    }
}

impl MetricDescriptor {
    /// The enum value of this row.
    pub fn name(&self) -> MetricName {
        builtin_name(self.key).unwrap_or(MetricName::Registered(self.key))
    }

    /// Whether `name` (case-insensitive) is this metric's key, an alias, its label or a name it is stored under.
    pub fn answers_to(&self, name: &str) -> bool {
        let n = name.trim().to_lowercase();
        n == self.key
            || self.aliases.iter().any(|a| *a == n)
            || self.label.to_lowercase() == n
            || self.stored_as.iter().any(|s| s.to_lowercase() == n)
    }

    /// A number formatted as the tables print it.
    pub fn format(&self, value: f64) -> String {
        format!("{value:.*}", self.decimals)
    }
}

/// A built-in row, without a scorer of its own (set `make` on the result for a metric scored as registered ones are).
#[allow(clippy::too_many_arguments)]
const fn row(
    key: &'static str,
    aliases: &'static [&'static str],
    label: &'static str,
    stored_as: &'static [&'static str],
    better: Better,
    (needs_source, needs_references): (bool, bool),
    scope: Scope,
    decimals: usize,
    tokenizer: TokenizerRule,
    on_dashboard: bool,
) -> Row {
    Row { key, aliases, label, stored_as, better, needs_source, needs_references, scope, decimals, tokenizer, on_dashboard, make: None }
}

struct Row {
    key: &'static str,
    aliases: &'static [&'static str],
    label: &'static str,
    stored_as: &'static [&'static str],
    better: Better,
    needs_source: bool,
    needs_references: bool,
    scope: Scope,
    decimals: usize,
    tokenizer: TokenizerRule,
    on_dashboard: bool,
    make: Option<MakeMetric>,
}

use Better::*;
use Scope::*;

/// The built-in metrics, in the order tables list them. `(source, references)` says what each needs. A metric
/// with code of its own in `evaluate.rs` has a `MetricName` variant; a segment-wise one needs none: its row names
/// its scorer (`Row { make: Some(..), ..row(..) }`, with `None` for the name) and it is scored, stored and shown as
/// a registered metric is.
fn builtins() -> Vec<(Option<MetricName>, Row)> {
    use MetricName as M;
    let rows = [
        (M::Bleu, row("bleu", &[], "BLEU", &[], Higher, (false, true), Segmentwise, 1, TokenizerRule::Bleu, true)),
        (M::Chrf, row("chrf", &[], "chrF2", &[], Higher, (false, true), Segmentwise, 1, TokenizerRule::Chars, true)),
        (
            M::ChrfPlusPlus,
            row("chrf_plus_plus", &["chrf++", "chrfpp", "chrf-pp"], "chrF2++", &[], Higher, (false, true), Segmentwise, 1, TokenizerRule::Chars, false),
        ),
        (M::Ter, row("ter", &[], "TER", &[], Lower, (false, true), Segmentwise, 1, TokenizerRule::Tercom, true)),
        // Scored for each run's own register (annotated references), so higher is always better.
        (M::MAcc, row("m_acc", &["m-acc", "macc"], "M-Acc", &[], Higher, (false, false), Segmentwise, 1, TokenizerRule::None, true)),
        (M::SelfBleu, row("self_bleu", &["self-bleu"], "self-BLEU", &[], Neither, (true, false), Corpus, 2, TokenizerRule::Bleu, false)),
        (M::Led, row("led", &[], "LeD", &[], Neither, (true, false), Corpus, 2, TokenizerRule::Words, false)),
        (M::Levenshtein, row("levenshtein", &["lev"], "char-levenshtein", &[], Neither, (true, false), Corpus, 2, TokenizerRule::None, false)),
        (M::Distinct, row("distinct", &[], "distinct", &["distinct-1", "distinct-2"], Higher, (false, false), Corpus, 3, TokenizerRule::Words, false)),
        (M::LengthRatio, row("length_ratio", &["length-ratio"], "length-ratio", &[], Neither, (false, true), Corpus, 3, TokenizerRule::Words, false)),
        (
            M::LengthBuckets,
            row("length_buckets", &["length-buckets", "bucketed-bleu"], "length-bucketed-BLEU", &[], Higher, (true, true), Corpus, 2, TokenizerRule::Bleu, false),
        ),
        (M::EditTypes, row("edit_types", &["edit-types", "edits"], "edit-types", &[], Neither, (true, false), Corpus, 0, TokenizerRule::Words, false)),
        (M::Acc, row("acc", &[], "Acc", &[], Higher, (false, false), Model, 3, TokenizerRule::None, false)),
        (M::Sim, row("sim", &[], "Sim", &["Sim-chrF", "similarity"], Higher, (true, false), Model, 3, TokenizerRule::None, false)),
        (M::Pp, row("pp", &["perplexity"], "PP", &["perplexity", "ppl"], Lower, (false, false), Model, 1, TokenizerRule::None, false)),
        (M::Gm, row("gm", &[], "GM", &[], Higher, (true, false), Model, 3, TokenizerRule::None, false)),
        (M::Formality, row("formality", &[], "Formality", &[], Register, (false, false), Dashboard, 2, TokenizerRule::None, true)),
    ];
    rows.into_iter().map(|(n, r)| (Some(n), r)).collect()
}

fn builtin_name(key: &str) -> Option<MetricName> {
    BUILTIN_KEYS.get()?.iter().find(|(k, _)| *k == key).map(|(_, n)| *n)
}

static BUILTIN_KEYS: OnceLock<Vec<(&'static str, MetricName)>> = OnceLock::new();

fn table() -> &'static RwLock<Vec<&'static MetricDescriptor>> {
    static TABLE: OnceLock<RwLock<Vec<&'static MetricDescriptor>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let rows = builtins();
        let _ = BUILTIN_KEYS.set(rows.iter().filter_map(|(n, r)| Some((r.key, (*n)?))).collect());
        RwLock::new(
            rows.into_iter()
                .map(|(_, r)| {
                    &*Box::leak(Box::new(MetricDescriptor {
                        key: r.key,
                        aliases: r.aliases,
                        label: r.label,
                        stored_as: r.stored_as,
                        better: r.better,
                        needs_source: r.needs_source,
                        needs_references: r.needs_references,
                        scope: r.scope,
                        decimals: r.decimals,
                        tokenizer: r.tokenizer,
                        on_dashboard: r.on_dashboard,
                        make: r.make,
                    }))
                })
                .collect(),
        )
    })
}

/// Every metric, built-in ones first, then the registered ones in the order they were added.
pub fn all() -> Vec<&'static MetricDescriptor> {
    table().read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The metric `name` names (its key, an alias, its label or a stored name; case-insensitive).
pub fn find(name: &str) -> Option<&'static MetricDescriptor> {
    let t = table().read().unwrap_or_else(|p| p.into_inner());
    // A key or alias wins over a label or stored name of another row.
    let n = name.trim().to_lowercase();
    t.iter().find(|d| d.key == n || d.aliases.contains(&n.as_str())).or_else(|| t.iter().find(|d| d.answers_to(name))).copied()
}

/// The row of `name` (always there: built-in rows are never removed, registered ones never unregistered).
pub fn of(name: MetricName) -> &'static MetricDescriptor {
    let key = match name {
        MetricName::Registered(k) => k,
        other => {
            table(); // fills BUILTIN_KEYS
            BUILTIN_KEYS.get().and_then(|b| b.iter().find(|(_, n)| *n == other)).map(|(k, _)| *k).expect("every built-in metric has a row")
        }
    };
    table().read().unwrap_or_else(|p| p.into_inner()).iter().find(|d| d.key == key).copied().expect("a registered metric keeps its row")
}

/// Adds a segment-wise metric to the table for the rest of the process: `--metrics <key>` then scores it with
/// `descriptor.make`, eval's JSON and stored runs carry it, and (with `on_dashboard`) the Dashboard shows it. The
/// key must be new, lowercase, and not an alias or label of another metric.
pub fn register(descriptor: MetricDescriptor) -> Result<MetricName, String> {
    if descriptor.make.is_none() || descriptor.scope != Scope::Segmentwise {
        return Err(format!("metric {:?}: only segment-wise metrics with a scorer (`make`) can be registered", descriptor.key));
    }
    if descriptor.key.is_empty() || descriptor.key != descriptor.key.to_lowercase() || descriptor.key.contains(',') {
        return Err(format!("metric key {:?} must be lowercase, non-empty and without commas", descriptor.key));
    }
    let mut t = table().write().unwrap_or_else(|p| p.into_inner());
    for name in std::iter::once(descriptor.key).chain(descriptor.aliases.iter().copied()).chain([descriptor.label]) {
        if let Some(d) = t.iter().find(|d| d.answers_to(name)) {
            return Err(format!("metric {name:?} is already in the table (as {})", d.key));
        }
    }
    let d: &'static MetricDescriptor = Box::leak(Box::new(descriptor));
    t.push(d);
    Ok(MetricName::Registered(d.key))
}

/// Every key and alias `--metrics` takes, for an error message.
pub fn known_names() -> String {
    all().iter().filter(|d| d.scope != Scope::Dashboard).map(|d| d.aliases.first().copied().unwrap_or(d.key)).collect::<Vec<_>>().join(", ")
}

/// BLEU's tokenizer for a target language: the one rule `registro eval` and the Dashboard both apply, so they print
/// the same BLEU for a run. 13a, as sacrebleu; Japanese with ja-mecab (sacrebleu's rule) — an error naming the fix
/// when the IPADIC dictionary is missing, never a silent fallback to another tokenizer, which would change the
/// score; Chinese by characters (Registro has no port of sacrebleu's `zh` tokenizer, which splits Chinese into
/// characters too; the signature says `tok:char`).
pub fn bleu_tokenizer(lang: &str) -> Result<Tokenizer, String> {
    match lang {
        "ja" => crate::ja::tokenizer().map_err(|e| {
            format!("BLEU for Japanese is tokenized with ja-mecab: {e}; `registro eval --tokenize char` (or intl) scores without it")
        }),
        "zh" => Ok(Tokenizer::Char),
        _ => Ok(Tokenizer::V13a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_name_has_one_row_and_parses_back() {
        for d in all() {
            assert_eq!(of(d.name()).key, d.key);
            assert_eq!(find(d.key).map(|f| f.key), Some(d.key), "{}", d.key);
            for a in d.aliases {
                assert_eq!(find(a).map(|f| f.key), Some(d.key), "{a}");
            }
        }
        assert_eq!(of(MetricName::Ter).better, Better::Lower);
        assert_eq!(find("perplexity").map(|d| d.key), Some("pp"));
        assert_eq!(find("chrF2++").map(|d| d.key), Some("chrf_plus_plus"));
        assert!(register(MetricDescriptor { make: None, ..of(MetricName::Bleu).clone() }).is_err());
    }

    #[test]
    fn bleu_tokenizer_rule() {
        assert_eq!(bleu_tokenizer("de").unwrap().signature(), "13a");
        assert_eq!(bleu_tokenizer("zh").unwrap().signature(), "char");
        match bleu_tokenizer("ja") {
            Ok(t) => assert_eq!(t.signature(), crate::ja::SIGNATURE),
            Err(e) => assert!(e.contains("ja-mecab") && e.contains("--tokenize char"), "{e}"),
        }
    }
}
