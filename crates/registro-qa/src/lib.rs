//! registro-qa: the checks a translator runs over a whole translated document before delivering it.
//!
//! - **Register consistency** ([`consistency`]): every segment's register markers, found by the per-language
//!   analyzers of `registro-register`, collected over the document; which form dominates (du/Sie, tu/vous,
//!   tú/usted, tu/Lei, jij/u, tum/aap, ты/вы, plain/polite/respectful…), which segments deviate and where, and
//!   the rule-based repair that makes the document consistent where the language has one.
//! - **Standard checks** ([`checks`]): numbers (the one number check, `registro_register::meaning`), inline
//!   placeholder tags and raw markup, untranslated (English left in) / identical / empty segments, length
//!   ratio, whitespace.
//! - **Terms** ([`termbase`]): a glossary per register (TSV/CSV/TBX) checked after translation, and the terms a
//!   segment must or must not contain, for the translate path's constrained decoding.
//!
//! Each finding has a severity; [`blocking`] says whether a report should stop an export. This crate reads no
//! database and runs no model: `registro-core::qa` loads a run and writes fixes back.
#![forbid(unsafe_code)]

pub mod checks;
pub mod consistency;
pub mod tags;
pub mod termbase;

use registro_register::{Lang, Register};
use serde::{Deserialize, Serialize};

pub use consistency::{Consistency, Fix};
pub use termbase::{Termbase, TermbaseError, TermbaseFormat};

/// Errors can block an export; warnings are shown and never block.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// What a finding is about.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// The segment's address form differs from the document's register.
    Register,
    /// No translation stored for the segment.
    NoTarget,
    Empty,
    /// Left in English (or in the wrong script).
    Untranslated,
    /// Same text as the source (a name, a code, a URL may legitimately be).
    Identical,
    /// The model commented or refused instead of translating.
    Refusal,
    Number,
    Tags,
    Length,
    Whitespace,
    TermMissing,
    TermForbidden,
    /// Markup that is no placeholder of the source (`<b>`, `< 1>`, `&lt;1&gt;`): it would show as text.
    RawMarkup,
    /// A segment's flag from translation, repair or edit that is still open: not fixed and not overridden.
    OpenFlag,
    /// A flag a reviewer overrode (who, when, why): shown, never blocking.
    OverriddenFlag,
    /// The meaning may be reversed: the source is negated and the translation is not.
    Meaning,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Register => "register",
            CheckKind::NoTarget => "no-target",
            CheckKind::Empty => "empty",
            CheckKind::Untranslated => "untranslated",
            CheckKind::Identical => "identical",
            CheckKind::Refusal => "refusal",
            CheckKind::Number => "number",
            CheckKind::Tags => "tags",
            CheckKind::Length => "length",
            CheckKind::Whitespace => "whitespace",
            CheckKind::TermMissing => "term-missing",
            CheckKind::TermForbidden => "term-forbidden",
            CheckKind::RawMarkup => "raw-markup",
            CheckKind::OpenFlag => "open-flag",
            CheckKind::OverriddenFlag => "overridden-flag",
            CheckKind::Meaning => "meaning",
        }
    }
}

/// `words` as a finding's message names them: each quoted and escaped, joined by `sep`. `escape_debug` escapes
/// quotes and control characters but leaves a vowel sign inside a word as written (`{:?}` showed "श\u{941}क…").
pub(crate) fn quoted<S: AsRef<str>>(words: impl IntoIterator<Item = S>, sep: &str) -> String {
    words.into_iter().map(|w| format!("\"{}\"", w.as_ref().escape_debug())).collect::<Vec<_>>().join(sep)
}

/// A stretch of the target text a finding points at: bytes for Rust, characters for the UI (`Array.from`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub text: String,
}

impl Span {
    pub fn of(text: &str, start: usize, end: usize) -> Span {
        let char_start = text[..start].chars().count();
        Span {
            start,
            end,
            char_start,
            char_end: char_start + text[start..end].chars().count(),
            text: text[start..end].to_string(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "QaIssue")]
pub struct Issue {
    /// 0-based segment index.
    pub segment: usize,
    pub kind: CheckKind,
    pub severity: Severity,
    pub message: String,
    /// Where in the target (empty when the finding is about something absent).
    pub spans: Vec<Span>,
    /// For term findings: how many occurrences this finding counts.
    #[serde(default)]
    pub count: usize,
}

/// One segment as QA sees it: the source and the stored translation, if any.
#[derive(Clone, Copy, Debug)]
pub struct Segment<'a> {
    /// `None` when the run kept no source (pasted text is not stored as a document): the checks that compare
    /// with the source are skipped, register consistency still runs.
    pub source: Option<&'a str>,
    pub target: Option<&'a str>,
    /// A register chosen for this segment alone (a per-sentence override); `None` follows the document.
    pub register: Option<Register>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TermSummary {
    pub entries: usize,
    /// Source-term occurrences found in the document.
    pub source_occurrences: usize,
    /// Occurrences whose required target is missing.
    pub missing: usize,
    /// Forbidden target terms found.
    pub forbidden: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "QaReport")]
pub struct Report {
    /// Target language code.
    pub lang: String,
    /// The register the run asked for, if known.
    pub register: Option<Register>,
    pub segments: usize,
    /// Whether the sources were known; without them numbers, tags, untranslated, length and terms are not checked.
    pub sources_known: bool,
    pub consistency: Consistency,
    /// Every finding, by segment then kind.
    pub issues: Vec<Issue>,
    pub terms: Option<TermSummary>,
    pub errors: usize,
    pub warnings: usize,
}

/// Runs every check over a document. `register` is what the run asked for; without one the dominant register
/// of the document is what the others must match.
pub fn check(
    lang: Lang,
    register: Option<Register>,
    segments: &[Segment<'_>],
    termbase: Option<&Termbase>,
) -> Report {
    check_with(lang, register, segments, termbase, &mut |_, _| true).expect("never stopped")
}

/// How often [`check_with`] reports: every this many segments of a pass.
const STEP: usize = 256;

/// [`check`], telling `step(done, total)` how far it is (the address forms of every segment, then each segment's
/// checks, then the terms: `total` counts a segment once per pass) and stopping with `None` as soon as `step`
/// returns false — a document of 10,000 segments shows progress and can be cancelled.
pub fn check_with(
    lang: Lang,
    register: Option<Register>,
    segments: &[Segment<'_>],
    termbase: Option<&Termbase>,
    step: &mut dyn FnMut(usize, usize) -> bool,
) -> Option<Report> {
    let n = segments.len();
    let total = n * if termbase.is_some() { 3 } else { 2 };
    if !step(0, total) {
        return None;
    }
    let consistency = consistency::analyze_with(lang, register, segments, &mut |done| step(done, total))?;
    let mut issues = consistency::issues(&consistency, segments);
    for (i, s) in segments.iter().enumerate() {
        if i % STEP == STEP - 1 && !step(n + i + 1, total) {
            return None;
        }
        issues.extend(match s.source {
            Some(source) => checks::segment(lang, i, source, s.target),
            None => checks::target_only(i, s.target),
        });
    }
    let terms = match termbase {
        None => None,
        Some(tb) => {
            let reg = consistency.target;
            let mut summary = TermSummary {
                entries: tb.entries.len(),
                ..Default::default()
            };
            for (i, s) in segments.iter().enumerate() {
                if i % STEP == STEP - 1 && !step(2 * n + i + 1, total) {
                    return None;
                }
                let (Some(source), Some(target)) = (s.source, s.target) else {
                    continue;
                };
                let found = tb.check_segment(i, source, target, s.register.or(reg));
                summary.source_occurrences += found.source_occurrences;
                for issue in found.issues {
                    match issue.kind {
                        CheckKind::TermMissing => summary.missing += issue.count,
                        CheckKind::TermForbidden => summary.forbidden += issue.count,
                        _ => {}
                    }
                    issues.push(issue);
                }
            }
            Some(summary)
        }
    };
    if !step(total, total) {
        return None;
    }
    issues.sort_by(|a, b| (a.segment, a.severity, a.kind).cmp(&(b.segment, b.severity, b.kind)));
    let errors = issues
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .count();
    Some(Report {
        lang: lang.code().to_string(),
        register,
        segments: segments.len(),
        sources_known: segments.iter().all(|s| s.source.is_some()),
        consistency,
        warnings: issues.len() - errors,
        errors,
        issues,
        terms,
    })
}

impl Report {
    /// Adds findings made outside this crate (the store's open and overridden flags), keeping the order and the
    /// counts.
    pub fn extend(&mut self, more: impl IntoIterator<Item = Issue>) {
        self.issues.extend(more);
        self.issues.sort_by(|a, b| (a.segment, a.severity, a.kind).cmp(&(b.segment, b.severity, b.kind)));
        self.errors = self.issues.iter().filter(|i| i.severity == Severity::Error).count();
        self.warnings = self.issues.len() - self.errors;
    }
}

/// Whether the report holds an error, which an export should refuse until it is fixed (warnings never block).
pub fn blocking(report: &Report) -> bool {
    report.issues.iter().any(|i| i.severity == Severity::Error)
}
