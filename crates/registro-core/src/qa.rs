//! QA of a stored translation run: loads its segments and outputs, runs `registro-qa` (register consistency,
//! standard checks, termbase) and, when asked, makes the document consistent by repairing the deviating
//! segments in place.
//!
//! A fix rewrites the run's own outputs rather than deriving a new run: the run is what the document's export,
//! the review grid and the Dashboard read, and a second run would leave the user choosing between two halves of
//! one document. The replaced text is kept in the output's `candidates.qa_fixes` (before, after, edits — the
//! same place a hand edit keeps `edited_from`), so every fix can be undone; segments no rule can repair are
//! flagged with the reason.
use std::path::Path;

use anyhow::Context;
use registro_qa::termbase;
pub use registro_qa::{blocking, CheckKind, Fix, Issue, Report, Severity, Termbase};
use registro_register::{Lang, Register};
use registro_store::{Output, OverrideKind, ReviewOverride, RunId, Store};
use serde::Serialize;

use crate::progress::{CancelToken, Progress, ProgressFn};

/// What `registro qa` / the QA panel shows.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct QaOutcome {
    pub run_id: RunId,
    /// The report on the run as stored now (after the fix when one was applied).
    pub report: Report,
    /// Empty unless a fix was asked for.
    pub fixes: Vec<Fix>,
    /// Segments repaired and written back.
    pub fixed: usize,
    /// Deviating segments no rule could repair (now flagged in the run).
    pub unrepaired: usize,
    /// Whether the report holds an error that should stop an export.
    pub blocking: bool,
    /// Each segment's translation as checked (after the fix), for a face to show the findings' spans in.
    pub targets: Vec<Option<String>>,
    /// Every time the run was exported although its check found errors: who, when, why, and what was overridden.
    pub exported_anyway: Vec<registro_store::ReviewOverride>,
}

/// Reads a termbase for translating English into `lang` (what `translate --termbase` enforces).
pub fn load_termbase(path: &Path, lang: Lang) -> anyhow::Result<std::sync::Arc<Termbase>> {
    Ok(std::sync::Arc::new(termbase::load(
        path,
        None,
        "en",
        lang.code(),
    )?))
}

/// Checks run `run` (with the termbase at `termbase`, if given); with `fix`, repairs its deviating segments first.
pub fn qa_run(
    store: &mut Store,
    run: RunId,
    termbase_path: Option<&Path>,
    fix: bool,
) -> anyhow::Result<QaOutcome> {
    qa_run_with(store, run, termbase_path, fix, &mut |_| {}, &CancelToken::new())
}

/// What a cancelled check or export fails with; faces tell it from other errors by [`is_cancelled`].
#[derive(Debug)]
pub struct Cancelled(pub &'static str);

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cancelled", self.0)
    }
}

impl std::error::Error for Cancelled {}

/// Whether `e` is a check or export the user cancelled.
pub fn is_cancelled(e: &anyhow::Error) -> bool {
    e.downcast_ref::<Cancelled>().is_some()
}

/// [`qa_run`], reporting how far the check is to `progress` ("checking segments", done of total) and stopping
/// with a [`Cancelled`] error, nothing written, as soon as `cancel` is set — a fix's repairs are written in one
/// transaction after the check, so a cancel leaves the run as it was.
pub fn qa_run_with(
    store: &mut Store,
    run: RunId,
    termbase_path: Option<&Path>,
    fix: bool,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> anyhow::Result<QaOutcome> {
    let r = store.run(run)?;
    let code = r.target_lang.as_deref().with_context(|| {
        format!("run {run} has no target language: only translations can be checked")
    })?;
    let lang: Lang = code.parse().with_context(|| format!("run {run}"))?;
    let register: Option<Register> = r
        .register
        .as_deref()
        .map(str::parse)
        .transpose()
        .with_context(|| format!("run {run}"))?;
    let overrides = r
        .params
        .get("register_overrides")
        .and_then(|o| o.as_object())
        .cloned()
        .unwrap_or_default();
    let tb = termbase_path
        .map(|p| termbase::load(p, None, r.source_lang.as_deref().unwrap_or("en"), code))
        .transpose()?;
    let doc_sources: Option<Vec<String>> =
        r.document_id.map(|d| store.segment_texts(d)).transpose()?;
    let total = doc_sources
        .as_ref()
        .map_or(r.total_segments.max(0) as usize, Vec::len);
    let mut outputs: Vec<Option<Output>> = vec![None; total];
    for o in store.outputs(run)? {
        if let Some(slot) = usize::try_from(o.segment_index)
            .ok()
            .and_then(|i| outputs.get_mut(i))
        {
            *slot = Some(o);
        }
    }
    // A run over pasted text has no document; its outputs carry their source (`translate::to_output`).
    let sources = doc_sources.or_else(|| {
        outputs
            .iter()
            .map(|o| {
                o.as_ref()?
                    .candidates
                    .get("source")?
                    .as_str()
                    .map(str::to_string)
            })
            .collect::<Option<Vec<String>>>()
    });
    let registers: Vec<Option<Register>> = (0..total)
        .map(|i| {
            overrides
                .get(&i.to_string())
                .and_then(|v| serde_json::from_value(v.clone()).ok())
        })
        .collect();
    let check = |outputs: &[Option<Output>], progress: ProgressFn<'_>, cancel: &CancelToken| -> anyhow::Result<(Report, Vec<Fix>)> {
        let segs: Vec<registro_qa::Segment<'_>> = (0..total)
            .map(|i| registro_qa::Segment {
                source: sources.as_ref().map(|s| s[i].as_str()),
                target: outputs[i].as_ref().map(|o| o.text.as_str()),
                register: registers[i],
            })
            .collect();
        let mut step = |done: usize, of: usize| {
            progress(Progress { done: done as u64, total: of as u64, message: format!("checking {total} segments") });
            !cancel.is_cancelled()
        };
        let report = registro_qa::check_with(lang, register, &segs, tb.as_ref(), &mut step).ok_or(Cancelled("the quality check"))?;
        let fixes = if fix {
            registro_qa::consistency::fixes(lang, &report.consistency, &segs)
        } else {
            Vec::new()
        };
        Ok((report, fixes))
    };
    let stored_overrides = store.overrides(run)?;
    let exported_anyway: Vec<registro_store::ReviewOverride> =
        stored_overrides.iter().filter(|o| o.kind == registro_store::OverrideKind::Export).cloned().collect();
    let (mut report, fixes) = check(&outputs, progress, cancel)?;
    if !fix || fixes.is_empty() {
        add_flags(&mut report, &outputs, &stored_overrides);
        let blocking = blocking(&report);
        return Ok(QaOutcome {
            run_id: run,
            report,
            fixes,
            fixed: 0,
            unrepaired: 0,
            blocking,
            targets: texts(&outputs),
            exported_anyway,
        });
    }
    let target = report.consistency.target.unwrap_or(Register::Formal);
    let mut changed = Vec::new();
    for f in &fixes {
        let Some(out) = outputs[f.segment].as_mut() else {
            continue;
        };
        let want = registers[f.segment].unwrap_or(target);
        match &f.after {
            Some(after) => {
                record_fix(out, f);
                out.text = after.clone();
                let c = crate::translate::check_output(lang, want, sources.as_ref().map(|s| s[f.segment].as_str()), after);
                let (flagged, reason) = (c.flagged, c.flag_reason);
                out.detected_register = Some(c.analysis.label.as_str().to_lowercase());
                out.flagged = flagged;
                out.flag_reason = reason;
            }
            None => {
                let why = format!(
                    "qa: {} document, not repaired: {}",
                    want.as_str(),
                    f.reason.as_deref().unwrap_or("edit by hand")
                );
                out.flagged = true;
                out.flag_reason = Some(match out.flag_reason.take() {
                    Some(old) if !old.contains(&why) => format!("{old}; {why}"),
                    Some(old) => old,
                    None => why,
                });
            }
        }
        changed.push(out.clone());
    }
    // One transaction: the document is consistent or untouched, never half-fixed.
    if cancel.is_cancelled() {
        return Err(Cancelled("the quality check").into());
    }
    store
        .put_outputs(run, &changed)
        .with_context(|| format!("writing the repaired segments of run {run}"))?;
    // The repairs are written: the check of the result runs to its end.
    let (mut report, _) = check(&outputs, &mut |_| {}, &CancelToken::new())?;
    add_flags(&mut report, &outputs, &stored_overrides);
    let fixed = fixes.iter().filter(|f| f.after.is_some()).count();
    Ok(QaOutcome {
        run_id: run,
        blocking: blocking(&report),
        report,
        fixed,
        unrepaired: fixes.len() - fixed,
        fixes,
        targets: texts(&outputs),
        exported_anyway,
    })
}

/// The stored flags in the report: a flag still open (not fixed, not overridden) is an error that blocks an export;
/// an overridden one is a warning naming who, when and why, and the segment's other errors become warnings too
/// (the reviewer signed the segment off as it is) — except a missing or empty translation.
fn add_flags(report: &mut Report, outputs: &[Option<Output>], overrides: &[registro_store::ReviewOverride]) {
    let mut more = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        let Some(o) = o.as_ref().filter(|o| o.flagged) else { continue };
        let reason = o.flag_reason.as_deref().unwrap_or("flagged");
        match flag_override(overrides, i, &o.text, o.flagged, o.flag_reason.as_deref()) {
            None => more.push(Issue {
                segment: i,
                kind: CheckKind::OpenFlag,
                severity: Severity::Error,
                message: format!("open flag: {reason} — fix it (edit or Repair until the check passes) or approve it with an override"),
                spans: Vec::new(),
                count: 1,
            }),
            Some(ov) => {
                let by = format!("overridden by {} on {}: {}", ov.who, ov.created_at.get(..10).unwrap_or(&ov.created_at), ov.reason);
                for issue in report.issues.iter_mut().filter(|x| x.segment == i && x.severity == Severity::Error) {
                    if !matches!(issue.kind, CheckKind::NoTarget | CheckKind::Empty) {
                        issue.severity = Severity::Warning;
                        issue.message = format!("{} — {by}", issue.message);
                    }
                }
                more.push(Issue {
                    segment: i,
                    kind: CheckKind::OverriddenFlag,
                    severity: Severity::Warning,
                    message: format!("flag {by} (flag: {reason})"),
                    spans: Vec::new(),
                    count: 1,
                });
            }
        }
    }
    report.extend(more);
}

fn texts(outputs: &[Option<Output>]) -> Vec<Option<String>> {
    outputs
        .iter()
        .map(|o| o.as_ref().map(|o| o.text.clone()))
        .collect()
}

/// Appends the fix to the output's `candidates.qa_fixes`, keeping whatever shape the candidates had.
fn record_fix(out: &mut Output, f: &Fix) {
    let entry = serde_json::json!({ "before": f.before, "after": f.after, "edits": f.edits });
    let mut obj = match std::mem::take(&mut out.candidates) {
        serde_json::Value::Object(m) => m,
        serde_json::Value::Null => serde_json::Map::new(),
        other => serde_json::Map::from_iter([("candidates".to_string(), other)]),
    };
    match obj.get_mut("qa_fixes").and_then(|v| v.as_array_mut()) {
        Some(list) => list.push(entry),
        None => {
            obj.insert("qa_fixes".into(), serde_json::json!([entry]));
        }
    }
    out.candidates = serde_json::Value::Object(obj);
}

/// The text a segment had before its first QA fix, if it was fixed: what "undo" restores.
pub fn text_before_fixes(out: &Output) -> Option<String> {
    out.candidates
        .get("qa_fixes")?
        .as_array()?
        .first()?
        .get("before")?
        .as_str()
        .map(str::to_string)
}
/// The newest override of segment `segment`'s flag that still applies: given for this very text and flag.
pub fn flag_override<'a>(overrides: &'a [ReviewOverride], segment: usize, text: &str, flagged: bool, flag: Option<&str>) -> Option<&'a ReviewOverride> {
    if !flagged {
        return None;
    }
    overrides.iter().rev().find(|o| {
        o.kind == OverrideKind::Flag && o.segment_index == Some(segment as i64) && o.text.as_deref() == Some(text) && Some(o.what.as_str()) == flag
    })
}

