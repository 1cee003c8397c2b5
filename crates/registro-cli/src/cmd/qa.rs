use std::path::PathBuf;

use anyhow::Result;
use registro_core::qa;

use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// The translation run to check (see `registro runs list --task translate`)
    run: i64,
    /// Glossary to check terms against: .tsv/.csv (source, target[, target_formal, target_informal, forbidden,
    /// note]) or .tbx
    #[arg(long)]
    termbase: Option<PathBuf>,
    /// Make the register consistent: repair the deviating segments in place (the old text stays in the run's
    /// candidates) and flag those no rule can repair
    #[arg(long)]
    fix: bool,
}

/// Prints the report; a report with errors ends with a non-zero exit so scripts can stop an export.
pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    let mut store = registro_core::projects::open_store(ctx.db.as_deref())?;
    let out = qa::qa_run(&mut store, a.run, a.termbase.as_deref(), a.fix)?;
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_human(&out);
    }
    if out.blocking {
        anyhow::bail!(
            "run {}: {} error(s) block an export (see the report above)",
            out.run_id,
            out.report.errors
        );
    }
    Ok(())
}

fn print_human(out: &qa::QaOutcome) {
    let r = &out.report;
    let c = &r.consistency;
    println!(
        "run {} · {} · {} · {} segments",
        out.run_id,
        r.lang,
        r.register.map_or("no register requested", |x| x.as_str()),
        r.segments
    );
    if !r.sources_known {
        println!("(this run kept no sources: numbers, tags, untranslated, length and terms need them and were not checked; translate again to check them)");
    }
    let forms = c
        .forms
        .iter()
        .map(|f| format!("{} ×{}", f.form, f.segments.len()))
        .collect::<Vec<_>>()
        .join(", ");
    match (&c.dominant, c.mixed) {
        (None, _) => println!("register: no address form in any segment"),
        (Some(_), false) => println!("register: consistent ({forms})"),
        (Some(d), true) => println!(
            "register: MIXED — {forms}; dominant {d}; the document should be {}; deviating segments: {}",
            c.target.map_or("?", |t| t.as_str()),
            c.deviating.iter().map(|i| (i + 1).to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
    if !out.fixes.is_empty() {
        println!("fix: {} segment(s) repaired (the old text is kept in the run's candidates.qa_fixes), {} not repairable", out.fixed, out.unrepaired);
        for f in &out.fixes {
            match &f.after {
                Some(after) => {
                    println!("  {:>4}  {}\n        → {}", f.segment + 1, f.before, after)
                }
                None => println!(
                    "  {:>4}  not repaired: {}",
                    f.segment + 1,
                    f.reason.as_deref().unwrap_or("")
                ),
            }
        }
    }
    if let Some(t) = &r.terms {
        println!(
            "terms: {} entries; {} source occurrence(s); {} missing; {} forbidden",
            t.entries, t.source_occurrences, t.missing, t.forbidden
        );
    }
    println!("{} error(s), {} warning(s)", r.errors, r.warnings);
    for o in &out.exported_anyway {
        println!("exported anyway by {} at {}: {} ({})", o.who, o.created_at, o.reason, o.what);
    }
    for i in &r.issues {
        let sev = match i.severity {
            qa::Severity::Error => "error",
            qa::Severity::Warning => "warning",
        };
        println!(
            "  {:>4}  {sev:<7}  {:<14}  {}",
            i.segment + 1,
            i.kind.as_str(),
            i.message
        );
    }
}
