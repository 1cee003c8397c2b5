//! Reviewing a stored translate run: the grid's rows (each segment with its analysis, flags, candidates and review
//! status), the status changes a reviewer makes (reviewed, approved), and what approved segments become — the
//! translation memory exported as TMX. A run is reopened from the store alone, so review can continue in a later
//! session or after a crash.

use anyhow::Context;
use registro_store::{NewOverride, Output, OverrideKind, ReviewOverride, RunId, SegmentStatus, Store, Task};
use serde::Serialize;

use crate::qa::flag_override;
use crate::translate::memory::{Memory, TmMatch};
use crate::translate::{check, check_output, qe, CandidateOut, Lang, Register, SegmentCheck, SegmentOut};

/// One row of the review grid.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ReviewRow {
    pub segment: SegmentOut,
    pub status: SegmentStatus,
    /// The project's best approved translation of a similar source (≥ 75%), in this run's language and register,
    /// for a segment not approved yet.
    pub tm: Option<TmMatch>,
    /// The reviewer's override of the segment's open flag (who, when, why), while the text and flag are still the
    /// ones it was given for.
    pub flag_override: Option<ReviewOverride>,
}

/// A translate run as the grid shows it.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ReviewRun {
    pub run_id: RunId,
    pub lang: String,
    pub register: Register,
    pub document_id: Option<i64>,
    pub document_name: Option<String>,
    /// What Export writes: the document's own format (`docx`, `xliff`, `po`, `srt`, `vtt`, `markdown`, `html`), or
    /// `text` for pasted text and line-based imports.
    pub export_format: String,
    /// The name the save dialog proposes.
    pub export_name: String,
    /// Every segment of the run in order; one the run did not finish is a `draft` with an empty target.
    pub rows: Vec<ReviewRow>,
    /// The other register's run of a contrastive translation (formal | informal of the same sources), shown as a
    /// second target column.
    pub contrast: Option<ContrastRun>,
}

/// The second target column of a contrastive translation: the same sources in the other register.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct ContrastRun {
    pub run_id: RunId,
    pub register: Register,
    /// Row for row with the main run's rows.
    pub rows: Vec<ReviewRow>,
}

fn run_lang_register(store: &Store, run: RunId) -> anyhow::Result<(registro_store::Run, Lang, Register)> {
    let r = store.run(run)?;
    anyhow::ensure!(r.task == Task::Translate, "run {run} is a {} run, not a translation", r.task);
    let lang: Lang = r
        .target_lang
        .as_deref()
        .with_context(|| format!("run {run} has no target language"))?
        .parse()?;
    let register: Register = r.register.as_deref().unwrap_or("formal").parse()?;
    Ok((r, lang, register))
}

/// The run `run` as grid rows: stored outputs re-analysed for highlighting, with their stored flags, candidates
/// and review status.
pub fn open_review(store: &Store, run: RunId) -> anyhow::Result<ReviewRun> {
    load_review(store, run, true, None)
}

/// Only rows `from..from + count` of [`open_review`] (no contrastive column): what the grid paints first while the
/// whole run loads, as re-analysing every row of a 10,000-segment run takes about a second.
pub fn open_review_rows(store: &Store, run: RunId, from: usize, count: usize) -> anyhow::Result<ReviewRun> {
    load_review(store, run, true, Some(from..from.saturating_add(count)))
}

/// The grid's rows. What only the grid shows — the translation-memory lookup (a fuzzy search per segment) and the
/// contrastive partner's column — is built only `for_grid`; exports and the partner column itself skip it.
fn load_review(store: &Store, run: RunId, for_grid: bool, only: Option<std::ops::Range<usize>>) -> anyhow::Result<ReviewRun> {
    let (r, lang, register) = run_lang_register(store, run)?;
    let overrides = r.params.get("register_overrides").and_then(|o| o.as_object()).cloned().unwrap_or_default();
    let register_of = |i: usize| -> Register {
        overrides.get(&i.to_string()).and_then(|v| v.as_str()).and_then(|s| s.parse().ok()).unwrap_or(register)
    };
    let document = r.document_id.map(|d| store.document(d)).transpose()?;
    let sources = match &document {
        Some(d) => store.segment_texts(d.id)?,
        None => Vec::new(),
    };
    let statuses: std::collections::HashMap<i64, SegmentStatus> = store.output_statuses(run)?.into_iter().collect();
    let mut outputs = store.outputs(run)?.into_iter().peekable();
    let overrides_stored = store.overrides(run)?;
    let mut rows = Vec::new();
    let total = r.total_segments.max(0) as usize;
    let range = only.clone().map_or(0..total, |o| o.start.min(total)..o.end.min(total));
    for i in range {
        let reg = register_of(i);
        while outputs.next_if(|o| o.segment_index < i as i64).is_some() {}
        let stored = outputs.next_if(|o| o.segment_index == i as i64);
        let Some(o) = stored else {
            // Pasted text keeps its sources in the outputs only: an unfinished segment has nothing to show.
            let Some(source) = sources.get(i) else { continue };
            let c = check(lang, reg, "");
            rows.push(ReviewRow {
                segment: SegmentOut {
                    index: i,
                    source: source.clone(),
                    text: String::new(),
                    register: reg,
                    analysis: c.analysis,
                    verdict: c.verdict,
                    flagged: false,
                    flag_reason: None,
                    before_repair: None,
                    repair_edits: Vec::new(),
                    candidates: Vec::new(),
                    back_translation: None,
                    seconds: 0.0,
                },
                status: SegmentStatus::Draft,
                tm: None,
                flag_override: None,
            });
            continue;
        };
        let extra = &o.candidates;
        let source = sources
            .get(i)
            .cloned()
            .or_else(|| extra.get("source").and_then(|s| s.as_str()).map(str::to_string))
            .unwrap_or_default();
        let candidates: Vec<CandidateOut> =
            extra.get("candidates").and_then(|c| serde_json::from_value(c.clone()).ok()).unwrap_or_default();
        let c = check(lang, reg, &o.text);
        let flag_override = flag_override(&overrides_stored, i, &o.text, o.flagged, o.flag_reason.as_deref()).cloned();
        rows.push(ReviewRow {
            segment: SegmentOut {
                index: i,
                source,
                text: o.text,
                register: reg,
                analysis: c.analysis,
                verdict: c.verdict,
                // Stored flags include the meaning checks (numbers, refusals) that need the source and candidates.
                flagged: o.flagged,
                flag_reason: o.flag_reason,
                before_repair: extra.get("before_repair").and_then(|s| s.as_str()).map(str::to_string),
                repair_edits: extra.get("repair_edits").and_then(|e| serde_json::from_value(e.clone()).ok()).unwrap_or_default(),
                candidates,
                back_translation: extra.get("back_translation").and_then(|s| s.as_str()).map(str::to_string),
                seconds: o.timings.get("total_ms").and_then(|t| t.as_f64()).unwrap_or(0.0) / 1000.0,
            },
            status: statuses.get(&(i as i64)).copied().unwrap_or(SegmentStatus::Translated),
            tm: None,
            flag_override,
        });
    }
    let memory = if for_grid { Memory::load(store, r.project_id, lang.code(), register.as_str(), Some(run))? } else { Memory::empty() };
    if !memory.is_empty() {
        for row in rows.iter_mut().filter(|row| row.status != SegmentStatus::Approved) {
            row.tm = memory.best_match(&row.segment.source);
        }
    }
    let file_format = match &document {
        Some(d) => store.document_file(d.id)?.map(|(f, _)| f),
        None => None,
    };
    let stem = document
        .as_ref()
        .map(|d| std::path::Path::new(&d.name).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| d.name.clone()))
        .unwrap_or_else(|| "translation".into());
    let export_name = match (&file_format, &document) {
        (Some(f), Some(d)) => crate::documents::export_file_name(&d.name, f, lang.code()),
        _ => format!("{stem}.{}.txt", lang.code()),
    };
    Ok(ReviewRun {
        run_id: run,
        lang: lang.code().to_string(),
        register,
        document_id: document.as_ref().map(|d| d.id),
        document_name: document.as_ref().map(|d| d.name.clone()),
        export_format: file_format.unwrap_or_else(|| "text".into()),
        export_name,
        rows,
        contrast: if for_grid && only.is_none() { contrast_of(store, &r)? } else { None },
    })
}

/// The run named as `r`'s contrastive partner, when it still exists and covers the same segments.
fn contrast_of(store: &Store, r: &registro_store::Run) -> anyhow::Result<Option<ContrastRun>> {
    let Some(other) = r.params.get("contrastive_with").and_then(|v| v.as_i64()) else { return Ok(None) };
    let Ok(o) = store.run(other) else { return Ok(None) };
    if o.document_id != r.document_id || o.total_segments != r.total_segments {
        return Ok(None);
    }
    let review = load_review(store, other, false, None)?;
    Ok(Some(ContrastRun { run_id: other, register: review.register, rows: review.rows }))
}

/// Who overrides a check, and why: stored with the override and shown wherever the segment or run is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideBy {
    pub who: String,
    pub reason: String,
}

impl OverrideBy {
    /// An override by the person logged in (`USER`/`USERNAME`).
    pub fn current_user(reason: impl Into<String>) -> OverrideBy {
        OverrideBy { who: current_user(), reason: reason.into() }
    }
}

/// The name of the person logged in, for an override's "who".
pub fn current_user() -> String {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| "unknown user".into())
}

/// Sets a segment's review status. Approving an empty or missing translation is refused: there is nothing to sign
/// off, and an empty approved segment would go into the translation memory. Marking a segment `reviewed` or
/// `approved` while its flag is open is refused too: fix it, or override it ([`set_status_overriding`]).
pub fn set_status(store: &mut Store, run: RunId, segment: usize, status: SegmentStatus) -> anyhow::Result<()> {
    set_status_overriding(store, run, segment, status, None).map(drop)
}

/// [`set_status`], overriding the segment's open flag with `by` where it has one (stored with who, when, why, and
/// the flag and text it was given for, in the same transaction as the status). Returns the override in force.
pub fn set_status_overriding(
    store: &mut Store,
    run: RunId,
    segment: usize,
    status: SegmentStatus,
    by: Option<&OverrideBy>,
) -> anyhow::Result<Option<ReviewOverride>> {
    run_lang_register(store, run)?;
    let out = store.output(run, segment as i64)?;
    match (&out, status) {
        (None, SegmentStatus::Draft) => return Ok(None),
        (None, _) => anyhow::bail!("segment {} of run {run} has no translation yet: translate it first", segment + 1),
        (Some(o), SegmentStatus::Approved) if o.text.trim().is_empty() => {
            anyhow::bail!("segment {} of run {run} is empty: write a translation before approving it", segment + 1)
        }
        _ => {}
    }
    let o = out.expect("checked above");
    let signs_off = matches!(status, SegmentStatus::Reviewed | SegmentStatus::Approved);
    if signs_off && o.flagged {
        let overrides = store.overrides(run)?;
        if let Some(existing) = flag_override(&overrides, segment, &o.text, o.flagged, o.flag_reason.as_deref()) {
            let existing = existing.clone();
            store.set_output_status(run, segment as i64, status)?;
            return Ok(Some(existing));
        }
        let flag = o.flag_reason.clone().unwrap_or_else(|| "flagged".into());
        let Some(by) = by.filter(|b| !b.reason.trim().is_empty()) else {
            anyhow::bail!(
                "segment {} of run {run} has an open flag ({flag}): fix it (edit it, or Repair) until the check passes, or mark it {} with an override and a reason",
                segment + 1,
                status.as_str()
            );
        };
        let new = NewOverride {
            segment_index: Some(segment as i64),
            kind: OverrideKind::Flag,
            what: flag,
            text: Some(o.text.clone()),
            reason: by.reason.clone(),
            who: by.who.clone(),
        };
        let id = store.set_output_status_overriding(run, segment as i64, status, &new)?;
        return Ok(store.overrides(run)?.into_iter().find(|o| o.id == id));
    }
    store.set_output_status(run, segment as i64, status)?;
    Ok(None)
}

/// The source of a stored output: its document's segment, or for pasted text the one the output carries.
fn stored_source(store: &Store, run: RunId, out: &Output) -> anyhow::Result<Option<String>> {
    let r = store.run(run)?;
    if let Some(d) = r.document_id {
        if let Some(s) = store.segment_texts(d)?.get(out.segment_index as usize) {
            return Ok(Some(s.clone()));
        }
    }
    Ok(out.candidates.get("source").and_then(|s| s.as_str()).map(str::to_string))
}

const DRIFT: &str = "meaning drift";
/// How a flag of the back-translation's second opinion starts (`registro_register::back_translation::disagreement`).
const READ_BACK: &str = registro_register::back_translation::FLAG;

/// Runs every output check on `text` as segment `out`'s new translation and stores it: the register and meaning
/// checks against the stored source ([`check_output`]), and the cross-lingual meaning check when its model is
/// loaded. A flag is cleared only when the checks pass on the new text; a meaning-drift flag that cannot be
/// checked again (no model) stays open. Storing puts the segment back to `translated`; `by_person` makes it
/// `reviewed` where no flag is open.
#[allow(clippy::too_many_arguments)]
pub(crate) fn recheck_and_store(
    store: &mut Store,
    run: RunId,
    mut out: Output,
    text: &str,
    lang: Lang,
    register: Register,
    meaning: Option<&qe::MeaningCheck>,
    by_person: bool,
) -> anyhow::Result<SegmentCheck> {
    let source = stored_source(store, run, &out)?;
    if by_person {
        if let Some(why) = source.as_deref().and_then(|src| broken_tags(src, &out.text, text)) {
            anyhow::bail!("segment {}: the edit was not stored: {why}", out.segment_index + 1);
        }
    }
    let mut c = check_output(lang, register, source.as_deref(), text);
    let old_drift: Option<String> =
        out.flag_reason.as_deref().and_then(|r| r.split("; ").find(|p| p.starts_with(DRIFT)).map(str::to_string));
    let drift = match (meaning, source.as_deref()) {
        (Some(m), Some(src)) if !text.trim().is_empty() => m.similarities(src, &[text])?.first().copied().and_then(qe::drift_flag),
        _ if text == out.text => old_drift,
        _ => old_drift.map(|_| format!("{DRIFT}: not checked again after the change (the meaning model is not loaded): check the translation says what the source says")),
    };
    // The back-translation's second opinion runs only while a model translates: a changed text keeps its flag,
    // saying so, until a check passes on it (re-translating) or a person overrides it.
    let old_reversal: Option<String> =
        out.flag_reason.as_deref().and_then(|r| r.split("; ").find(|p| p.starts_with(READ_BACK)).map(str::to_string));
    let reversal = match old_reversal {
        Some(r) if text == out.text => Some(r),
        Some(_) => Some(format!("{READ_BACK}: not checked again after the change (a translation is read back only while it is translated): check its negations, numbers and who does what")),
        None => None,
    };
    for d in drift.into_iter().chain(reversal) {
        c.flagged = true;
        c.flag_reason = Some(c.flag_reason.map_or(d.clone(), |r| format!("{r}; {d}")));
    }
    if let serde_json::Value::Object(m) = &mut out.candidates {
        // What the model read back belongs to the text it read.
        if text != out.text {
            m.remove("back_translation");
        }
        m.insert("markers".into(), serde_json::json!(c.analysis.markers));
        m.insert("verdict".into(), serde_json::json!(c.verdict));
    }
    out.text = text.to_string();
    out.detected_register = Some(c.analysis.label.as_str().to_lowercase());
    out.flagged = c.flagged;
    out.flag_reason = c.flag_reason.clone();
    store.put_output(run, &out)?;
    let status = if by_person && !c.flagged { SegmentStatus::Reviewed } else { SegmentStatus::Translated };
    if status != SegmentStatus::Translated {
        store.set_output_status(run, out.segment_index, status)?;
    }
    c.status = Some(status);
    Ok(c)
}

/// Why an edit from `before` to `after` breaks the source's inline tags (`<1>`…`</1>`, `<2/>`: the markup the
/// file's export puts back), or `None` when it keeps them. Only what the edit itself broke counts: a tag the text
/// already lacked does not stop an edit that fixes something else. Moving a tag is fine; dropping, adding, or
/// closing one before it opens is refused.
pub fn broken_tags(source: &str, before: &str, after: &str) -> Option<String> {
    use registro_qa::tags::compare;
    let (was, now) = (compare(source, before), compare(source, after));
    let dropped: Vec<&String> = now.missing.iter().filter(|t| !was.missing.contains(t)).collect();
    let added: Vec<&str> = now.extra.iter().map(|t| t.token.as_str()).filter(|t| !was.extra.iter().any(|x| x.token == *t)).collect();
    let inverted: Vec<&str> =
        now.closes_before_open.iter().map(|t| t.token.as_str()).filter(|t| !was.closes_before_open.iter().any(|x| x.token == *t)).collect();
    let list = |v: &[&str]| v.join(" ");
    if !dropped.is_empty() {
        let names: Vec<&str> = dropped.iter().map(|t| t.as_str()).collect();
        return Some(format!(
            "it drops the inline tag{} {} of the source; tags carry the file's formatting and must stay (move them, do not delete them)",
            if names.len() == 1 { "" } else { "s" },
            list(&names)
        ));
    }
    if !added.is_empty() {
        return Some(format!("it adds the inline tag{} {} that the source does not have", if added.len() == 1 { "" } else { "s" }, list(&added)));
    }
    if !inverted.is_empty() {
        return Some(format!("it puts the closing tag{} {} before the opening one, so the formatting cannot be rebuilt", if inverted.len() == 1 { "" } else { "s" }, list(&inverted)));
    }
    None
}

/// What a Repair did to a stored segment.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
pub struct RepairOutcome {
    /// The segment's text after the repair (the same text when no rule applied).
    pub text: String,
    /// Whether a rule changed the text.
    pub changed: bool,
    /// Every output check on the new text: the flag stays open unless they all pass.
    pub check: SegmentCheck,
}

/// Repairs segment `segment` of run `run` in place: the rule-based register repair of its stored text into the
/// segment's register, then every output check again on the result ([`recheck_and_store`]). Repair changes the
/// register only: a text still in English, with a changed number or drifting in meaning keeps its flag. The text
/// before is kept in the output's `candidates.before_repair`; the segment is `translated` (a machine's text).
pub fn repair_segment(store: &mut Store, run: RunId, segment: usize, meaning: Option<&qe::MeaningCheck>) -> anyhow::Result<RepairOutcome> {
    let (r, lang, register) = run_lang_register(store, run)?;
    let register = r
        .params
        .get("register_overrides")
        .and_then(|o| o.get(segment.to_string()))
        .and_then(|v| v.as_str())
        .and_then(|s| s.parse().ok())
        .unwrap_or(register);
    let mut out = store.output(run, segment as i64)?.with_context(|| format!("run {run} has no output for segment {}: translate it first", segment + 1))?;
    let repaired = registro_register::repair::convert(lang, &out.text, register);
    let changed = repaired.changed() && repaired.text != out.text;
    if changed {
        if let serde_json::Value::Object(m) = &mut out.candidates {
            m.insert("before_repair".into(), serde_json::json!(out.text));
            m.insert("repair_edits".into(), serde_json::json!(repaired.edits));
        }
    }
    let text = if changed { repaired.text } else { out.text.clone() };
    let check = recheck_and_store(store, run, out, &text, lang, register, meaning, false)?;
    Ok(RepairOutcome { text, changed, check })
}

/// The approved segments of `run` as a TMX 1.4 translation memory (source → target).
pub fn export_tmx(store: &Store, run: RunId) -> anyhow::Result<(String, usize)> {
    let review = load_review(store, run, false, None)?;
    let units: Vec<registro_formats::TmxUnit> = review
        .rows
        .iter()
        .filter(|r| r.status == SegmentStatus::Approved && !r.segment.source.trim().is_empty())
        .map(|r| registro_formats::TmxUnit { source: r.segment.source.clone(), target: r.segment.text.clone() })
        .collect();
    anyhow::ensure!(
        !units.is_empty(),
        "run {run} has no approved segment: approve segments in the grid (Ctrl+Enter) before exporting a translation memory"
    );
    Ok((registro_formats::tmx(&units, "en", &review.lang), units.len()))
}

/// Exports run `run` into `path`: in its document's own format when it came from a translator's file, else as
/// text (one segment per line; unfinished segments empty). The document's original file is never overwritten.
/// Errors of the quality check (English left in, a changed number, raw markup, a broken tag, an empty segment,
/// mixed address, a flag not overridden…) block the export unless `anyway` says who exports anyway and why, which
/// is stored with the errors it overrode; warnings never block. Returns what was written, for the status bar.
pub fn export_to(store: &mut Store, run: RunId, path: &std::path::Path, anyway: Option<&OverrideBy>) -> anyhow::Result<String> {
    export_to_with(store, run, path, anyway, &mut |_| {}, &crate::progress::CancelToken::new())
}

/// [`export_to`], reporting each step to `progress` (the quality check segment by segment, reading the
/// translations, writing the file) and stopping with a [`crate::qa::Cancelled`] error as soon as `cancel` is set:
/// a cancelled export writes nothing — no file at `path` (the bytes go to a temporary file beside it, renamed only
/// when complete) and no "exported anyway" record.
pub fn export_to_with(
    store: &mut Store,
    run: RunId,
    path: &std::path::Path,
    anyway: Option<&OverrideBy>,
    progress: crate::progress::ProgressFn<'_>,
    cancel: &crate::progress::CancelToken,
) -> anyhow::Result<String> {
    use crate::progress::Progress;
    let stopped = || -> anyhow::Result<()> {
        if cancel.is_cancelled() {
            return Err(crate::qa::Cancelled("the export").into());
        }
        Ok(())
    };
    let qa = crate::qa::qa_run_with(store, run, None, false, &mut |p| progress(Progress { message: format!("export: {}", p.message), ..p }), cancel)
        .map_err(|e| if crate::qa::is_cancelled(&e) { crate::qa::Cancelled("the export").into() } else { e })?;
    let mut overridden = String::new();
    let mut record = None;
    if qa.blocking {
        let errors: Vec<&crate::qa::Issue> = qa.report.issues.iter().filter(|i| i.severity == crate::qa::Severity::Error).collect();
        let summary = format!("{} error{}", errors.len(), if errors.len() == 1 { "" } else { "s" });
        match anyway.filter(|a| !a.reason.trim().is_empty()) {
            None => anyhow::bail!(
                "export blocked: the quality check found {summary}{}; fix them (Quality check panel, `registro qa {run}`) or export anyway with a reason",
                errors.first().map(|i| format!(" (first: segment {}: {})", i.segment + 1, i.message)).unwrap_or_default()
            ),
            Some(by) => {
                let listed: Vec<String> = errors.iter().take(20).map(|i| format!("segment {}: {} ({})", i.segment + 1, i.message, i.kind.as_str())).collect();
                // Recorded once the file is written: a cancelled or failed export overrode nothing.
                record = Some(NewOverride {
                    segment_index: None,
                    kind: OverrideKind::Export,
                    what: format!("{summary}: {}{}", listed.join("; "), if errors.len() > 20 { "; …" } else { "" }),
                    text: Some(path.display().to_string()),
                    reason: by.reason.clone(),
                    who: by.who.clone(),
                });
                overridden = format!(" — exported anyway with {summary} (recorded: {}, \"{}\")", by.who, by.reason.trim());
            }
        }
    }
    stopped()?;
    let total = store.run(run)?.total_segments.max(0) as u64;
    progress(Progress { done: 0, total, message: "export: reading the translations".into() });
    let review = load_review(store, run, false, None)?;
    stopped()?;
    let (bytes, what) = if review.export_format == "text" {
        let mut text = String::new();
        for row in &review.rows {
            text.push_str(&row.segment.text.replace(['\n', '\r'], " "));
            text.push('\n');
        }
        (text.into_bytes(), format!("{} segments as text", review.rows.len()))
    } else {
        progress(Progress { done: 0, total, message: format!("export: writing the {}", review.export_format.to_uppercase()) });
        let out = crate::documents::export_run(store, run)?;
        let what = format!("{} ({} of {} sentences translated)", review.export_format.to_uppercase(), out.translated, out.sentences);
        (out.bytes, what)
    };
    stopped()?;
    progress(Progress { done: total, total, message: format!("export: writing {}", path.display()) });
    let origin = review.document_id.map(|d| store.document(d)).transpose()?.and_then(|d| d.origin);
    crate::documents::write_export_unless(std::path::Path::new(origin.as_deref().unwrap_or("")), path, &bytes, cancel)
        .map_err(|e| if crate::qa::is_cancelled(&e) { crate::qa::Cancelled("the export").into() } else { e })?;
    if let Some(o) = record {
        store.add_override(run, &o)?;
    }
    Ok(format!("{} — {what}{overridden}", path.display()))
}

/// Writes the approved segments of `run` as TMX into `path`; returns what was written.
pub fn export_tmx_to(store: &Store, run: RunId, path: &std::path::Path) -> anyhow::Result<String> {
    let (tmx, units) = export_tmx(store, run)?;
    crate::documents::write_export(std::path::Path::new(""), path, tmx.as_bytes())?;
    Ok(format!("{} — {units} approved segment{} as TMX", path.display(), if units == 1 { "" } else { "s" }))
}

/// Re-checks a translation the user edited (or picked among the candidates, or took from the translation memory)
/// with every output check ([`check_output`], against the segment's stored source) and stores it in place of the
/// run's output, with its new detected register and flag. A person's text is `reviewed` when the checks pass; with
/// a flag still open it stays `translated` until the flag is fixed or overridden ([`set_status_overriding`]).
pub fn store_edit(store: &mut Store, run: RunId, segment: usize, lang: Lang, register: Register, text: &str) -> anyhow::Result<SegmentCheck> {
    store_edit_checked(store, run, segment, lang, register, text, None)
}

/// [`store_edit`] with the cross-lingual meaning check run on the new text when its model is loaded.
pub fn store_edit_checked(
    store: &mut Store,
    run: RunId,
    segment: usize,
    lang: Lang,
    register: Register,
    text: &str,
    meaning: Option<&qe::MeaningCheck>,
) -> anyhow::Result<SegmentCheck> {
    let mut out = store.output(run, segment as i64)?.with_context(|| format!("run {run} has no output for segment {}", segment + 1))?;
    if let serde_json::Value::Object(m) = &mut out.candidates {
        m.insert("edited_from".into(), serde_json::json!(out.text));
    }
    recheck_and_store(store, run, out, text, lang, register, meaning, true)
}

#[cfg(test)]
mod tag_tests {
    use super::broken_tags;

    #[test]
    fn an_edit_may_move_tags_but_not_drop_add_or_invert_them() {
        let src = "Click <1>Save</1> and <2/> then exit.";
        let before = "Klicken Sie auf <1>Speichern</1> und <2/> dann beenden.";
        assert_eq!(broken_tags(src, before, "Klicken Sie <2/> auf <1>Speichern</1> und dann beenden."), None, "moved");
        let why = broken_tags(src, before, "Klicken Sie auf Speichern</1> und <2/> dann beenden.").unwrap();
        assert!(why.contains("drops the inline tag <1>"), "{why}");
        let why = broken_tags(src, before, "Klicken Sie auf <1>Speichern</1> und <2/> <3/> dann beenden.").unwrap();
        assert!(why.contains("adds the inline tag <3/>"), "{why}");
        let why = broken_tags(src, before, "Klicken Sie auf </1>Speichern<1> und <2/> dann beenden.").unwrap();
        assert!(why.contains("closing tag </1> before"), "{why}");
        // A tag the model already dropped does not stop an edit that fixes something else.
        let lacking = "Klicken Sie auf Speichern und <2/> dann beenden.";
        assert_eq!(broken_tags(src, lacking, "Klicken Sie auf Speichern und <2/> danach beenden."), None);
    }
}
