//! Plain data types read from and written to the store. They serialize to JSON for the CLI (`--json`) and the app.
//! Times are UTC ISO-8601 strings (`2026-11-22T06:15:00.123Z`) produced by SQLite, so they sort as text.

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

pub type ProjectId = i64;
pub type DocumentId = i64;
pub type RunId = i64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Project {
    pub id: ProjectId,
    pub name: String,
    pub created_at: String,
    /// Number of documents and runs, so lists can show them without extra queries.
    pub documents: i64,
    pub runs: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Document {
    pub id: DocumentId,
    pub project_id: ProjectId,
    pub name: String,
    pub source_lang: String,
    pub target_lang: Option<String>,
    /// The file or folder it was imported from, if any.
    pub origin: Option<String>,
    /// The import format (`text`, `tsv`, `csv`, `jsonl`, `cocoa`, `xformal`, `inline`).
    pub format: String,
    pub created_at: String,
    /// sha256 (hex) of the segments and their references: equal hashes mean the same test set.
    pub content_hash: String,
    pub segments: i64,
    /// Names of the references this document carries (e.g. `formal`, `informal.annotated`, `ref0`), sorted.
    pub reference_names: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// 0-based position in the document; outputs, metrics and judgments refer to segments by this index.
    pub index: i64,
    pub text: String,
    pub lang: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub segment_index: i64,
    /// `formal`, `informal`, `formal.annotated`, `informal.annotated`, `formal.feminine`, `ref0`..`ref3`, …
    pub name: String,
    pub text: String,
}

/// A document parsed in memory, not yet stored: importers build these, `Store::insert_documents` writes them in
/// one transaction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NewDocument {
    pub name: String,
    pub source_lang: String,
    pub target_lang: Option<String>,
    pub origin: Option<String>,
    pub format: String,
    pub segments: Vec<NewSegment>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NewSegment {
    pub text: String,
    /// (reference name, text), in the order found.
    pub references: Vec<(String, String)>,
}

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
        #[serde(rename_all = "lowercase")]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $s),+ }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = StoreError;
            fn from_str(s: &str) -> Result<Self, StoreError> {
                match s {
                    $($s => Ok($name::$variant),)+
                    other => Err(StoreError::Invalid(format!(
                        "{} {:?}; expected one of: {}", stringify!($name), other,
                        [$($s),+].join(", ")
                    ))),
                }
            }
        }
    };
}

string_enum!(
    /// What a run did.
    Task { Rewrite = "rewrite", Translate = "translate", Import = "import", Eval = "eval" }
);

string_enum!(
    /// Life cycle of a run: queued → running → done | failed | cancelled. A failed or cancelled run with missing
    /// segments can be resumed (`Store::resume_run`), which puts it back to running.
    RunStatus { Queued = "queued", Running = "running", Done = "done", Failed = "failed", Cancelled = "cancelled" }
);

string_enum!(
    /// Where a translated segment stands in review: `draft` (no usable target yet), `translated` (by the machine;
    /// a machine rewrite of the segment puts it back here), `reviewed` (a person edited or checked it), `approved`
    /// (signed off: exported as final and kept in the translation memory).
    SegmentStatus { Draft = "draft", Translated = "translated", Reviewed = "reviewed", Approved = "approved" }
);

string_enum!(
    /// The scale of a human judgment. `rank` values are ranks among the runs judged for the same segment (1 = best).
    Scale { Formality = "formality", Fluency = "fluency", Meaning = "meaning", Rank = "rank" }
);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Run {
    pub id: RunId,
    pub project_id: ProjectId,
    pub document_id: Option<DocumentId>,
    pub task: Task,
    /// Free-form system name shown in the dashboard (e.g. `nllb-600m`, `rules`, `umd-1`).
    pub system: String,
    pub model_id: Option<String>,
    pub model_sha256: Option<String>,
    /// Generation / metric parameters as JSON (beam size, temperature, …).
    pub params: serde_json::Value,
    pub source_lang: Option<String>,
    pub target_lang: Option<String>,
    /// Requested register: `formal`, `informal` or `respectful`.
    pub register: Option<String>,
    pub status: RunStatus,
    pub error: Option<String>,
    /// How many segments the run should produce (the document's size when it has one).
    pub total_segments: i64,
    /// How many outputs are stored so far.
    pub completed_segments: i64,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
}

/// What `Store::create_run` needs. `Default` gives an empty eval-less run; fill what applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewRun {
    pub project_id: ProjectId,
    pub document_id: Option<DocumentId>,
    pub task: Task,
    pub system: String,
    pub model_id: Option<String>,
    pub model_sha256: Option<String>,
    pub params: serde_json::Value,
    pub source_lang: Option<String>,
    pub target_lang: Option<String>,
    pub register: Option<String>,
    /// Required when there is no document; ignored (taken from the document) when there is one.
    pub total_segments: Option<i64>,
}

impl NewRun {
    pub fn new(project_id: ProjectId, task: Task, system: impl Into<String>) -> Self {
        NewRun {
            project_id,
            document_id: None,
            task,
            system: system.into(),
            model_id: None,
            model_sha256: None,
            params: serde_json::Value::Object(Default::default()),
            source_lang: None,
            target_lang: None,
            register: None,
            total_segments: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Output {
    pub segment_index: i64,
    pub text: String,
    /// Alternative candidates (n-best, or repairs), as JSON (usually an array of strings or objects).
    pub candidates: serde_json::Value,
    /// Register the analyzer detected in `text`, if it ran.
    pub detected_register: Option<String>,
    pub flagged: bool,
    pub flag_reason: Option<String>,
    /// Timings in milliseconds as JSON (e.g. `{"encode_ms": 12, "decode_ms": 340}`).
    pub timings: serde_json::Value,
}

impl Output {
    pub fn new(segment_index: i64, text: impl Into<String>) -> Self {
        Output { segment_index, text: text.into(), ..Default::default() }
    }
}

/// Run filters for `Store::list_runs`; `None` means any.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFilter {
    pub project_id: Option<ProjectId>,
    pub document_id: Option<DocumentId>,
    pub task: Option<Task>,
    pub status: Option<RunStatus>,
    /// Substring match on the system name.
    pub system: Option<String>,
    pub target_lang: Option<String>,
    pub register: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MetricResult {
    pub id: i64,
    pub run_id: RunId,
    /// `bleu`, `chrf`, `ter`, `m-acc`, `formality`, `perplexity`, …
    pub metric: String,
    /// Which reference set it was scored against (`formal`, `informal`, `formal+informal`, …), if any.
    pub reference: Option<String>,
    /// `None` for a corpus-level result, `Some(i)` for segment `i`.
    pub segment_index: Option<i64>,
    pub value: f64,
    /// sacrebleu-style signature, e.g. `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`.
    pub signature: Option<String>,
    /// Anything else (counts, confidence intervals, p-values) as JSON.
    pub detail: serde_json::Value,
    pub created_at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewMetric {
    pub metric: String,
    pub reference: Option<String>,
    pub segment_index: Option<i64>,
    pub value: f64,
    pub signature: Option<String>,
    pub detail: serde_json::Value,
}

impl NewMetric {
    /// A corpus-level result with no signature or detail.
    pub fn corpus(metric: impl Into<String>, value: f64) -> Self {
        NewMetric {
            metric: metric.into(),
            reference: None,
            segment_index: None,
            value,
            signature: None,
            detail: serde_json::Value::Null,
        }
    }
    /// A segment-level result.
    pub fn segment(metric: impl Into<String>, segment_index: i64, value: f64) -> Self {
        NewMetric { segment_index: Some(segment_index), ..Self::corpus(metric, value) }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judgment {
    pub id: i64,
    pub rater: String,
    pub run_id: RunId,
    pub segment_index: i64,
    pub scale: Scale,
    pub value: f64,
    pub note: Option<String>,
    pub created_at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewJudgment {
    pub rater: String,
    pub run_id: RunId,
    pub segment_index: i64,
    pub scale: Scale,
    pub value: f64,
    pub note: Option<String>,
}
