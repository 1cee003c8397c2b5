//! `registro review`: the review grid's actions on a stored translate run, headless — show each segment with its
//! status, flag and override; edit or repair a segment (every output check runs again on the new text); mark it
//! reviewed/approved (a segment with an open flag needs `--override REASON`, stored with who and when); export
//! the run in its document's format (quality-check errors block it unless `--anyway REASON`, recorded).
//! Segments are numbered from 1, as the grid and `registro qa` show them.

use std::path::PathBuf;

use anyhow::{Context, Result};
use registro_core::review;
use registro_core::translate as tr;
use registro_store::SegmentStatus;

use super::Ctx;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Every segment of a translate run: status, text, open or overridden flag
    Show { run: i64 },
    /// Store a new translation for one segment; every output check runs again on it
    Edit {
        run: i64,
        /// Segment number (from 1)
        segment: usize,
        text: String,
    },
    /// Repair one segment's register in place; every output check runs again (the flag stays unless they pass)
    Repair {
        run: i64,
        /// Segment number (from 1)
        segment: usize,
    },
    /// Set one segment's status: draft | translated | reviewed | approved
    Status {
        run: i64,
        /// Segment number (from 1)
        segment: usize,
        status: String,
        /// Sign off a segment whose flag is open, for this reason (stored with --by and the time)
        #[arg(long = "override", value_name = "REASON")]
        override_reason: Option<String>,
        /// Who overrides [default: the logged-in user]
        #[arg(long)]
        by: Option<String>,
    },
    /// Export the run in its document's own format (or as text, one segment per line)
    Export {
        run: i64,
        #[arg(long)]
        out: PathBuf,
        /// Export although the quality check found errors, for this reason (stored with --by, the time and the errors)
        #[arg(long, value_name = "REASON")]
        anyway: Option<String>,
        /// Who exports anyway [default: the logged-in user]
        #[arg(long)]
        by: Option<String>,
    },
}

fn by(who: Option<String>, reason: String) -> review::OverrideBy {
    review::OverrideBy { who: who.unwrap_or_else(review::current_user), reason }
}

fn index(segment: usize) -> Result<usize> {
    segment.checked_sub(1).context("segments are numbered from 1")
}

fn print_check(segment: usize, c: &tr::SegmentCheck) {
    let status = c.status.map_or("-", |s| s.as_str());
    match &c.flag_reason {
        Some(r) if c.flagged => println!("segment {segment}: {status} · ⚑ FLAGGED: {r}"),
        _ => println!("segment {segment}: {status} · [{}] checks pass", c.analysis.label.as_str()),
    }
}

pub fn run(ctx: &Ctx, command: Command) -> Result<()> {
    let mut store = registro_core::projects::open_store(ctx.db.as_deref())?;
    let meaning = || tr::qe::MeaningCheck::installed().ok().flatten();
    match command {
        Command::Show { run } => {
            let r = review::open_review(&store, run)?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&r)?);
                return Ok(());
            }
            println!("run {} · {} · {} · {} segments", r.run_id, r.lang, r.register.as_str(), r.rows.len());
            for row in &r.rows {
                let s = &row.segment;
                println!("{:>4}  {:<10}  {}", s.index + 1, row.status.as_str(), s.text);
                if s.flagged {
                    let reason = s.flag_reason.as_deref().unwrap_or("flagged");
                    match &row.flag_override {
                        Some(o) => println!("      ⚑ {reason}\n      overridden by {} at {}: {}", o.who, o.created_at, o.reason),
                        None => println!("      ⚑ OPEN FLAG: {reason}"),
                    }
                }
            }
            let q = registro_core::qa::qa_run(&mut store, run, None, false)?;
            for o in &q.exported_anyway {
                println!("exported anyway by {} at {} to {}: {} ({})", o.who, o.created_at, o.text.as_deref().unwrap_or("?"), o.reason, o.what);
            }
        }
        Command::Edit { run, segment, text } => {
            let i = index(segment)?;
            let rv = review::open_review(&store, run)?;
            let row = rv.rows.iter().find(|r| r.segment.index == i).with_context(|| format!("run {run} has no segment {segment}"))?;
            let lang: tr::Lang = rv.lang.parse()?;
            let c = review::store_edit_checked(&mut store, run, i, lang, row.segment.register, &text, meaning().as_deref())?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&c)?);
            } else {
                print_check(segment, &c);
            }
        }
        Command::Repair { run, segment } => {
            let out = review::repair_segment(&mut store, run, index(segment)?, meaning().as_deref())?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!("{}{}", out.text, if out.changed { "" } else { "  (no rule changed the text)" });
                print_check(segment, &out.check);
            }
        }
        Command::Status { run, segment, status, override_reason, by: who } => {
            let status: SegmentStatus = status.parse()?;
            let by = override_reason.map(|r| by(who, r));
            let o = review::set_status_overriding(&mut store, run, index(segment)?, status, by.as_ref())?;
            if ctx.json {
                println!("{}", serde_json::json!({ "run": run, "segment": segment, "status": status, "override": o }));
            } else {
                match o {
                    Some(o) => println!("segment {segment}: {} · flag overridden by {} at {}: {}", status.as_str(), o.who, o.created_at, o.reason),
                    None => println!("segment {segment}: {}", status.as_str()),
                }
            }
        }
        Command::Export { run, out, anyway, by: who } => {
            let anyway = anyway.map(|r| by(who, r));
            let said = review::export_to(&mut store, run, &out, anyway.as_ref())?;
            if ctx.json {
                println!("{}", serde_json::json!({ "run": run, "path": out, "written": said }));
            } else {
                println!("wrote {said}");
            }
        }
    }
    Ok(())
}
