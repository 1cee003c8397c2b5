use std::path::PathBuf;

use anyhow::Result;
use registro_core::projects::{self, ExportFormat};
use registro_store::{RunFilter, RunStatus, Task};

use super::Ctx;

#[derive(clap::Subcommand)]
pub enum Command {
    /// List runs, newest first
    List {
        /// Project name or id
        #[arg(long)]
        project: Option<String>,
        /// Document id
        #[arg(long)]
        document: Option<i64>,
        /// rewrite | translate | import | eval
        #[arg(long)]
        task: Option<String>,
        /// queued | running | done | failed | cancelled
        #[arg(long)]
        status: Option<String>,
        /// Substring of the system name
        #[arg(long)]
        system: Option<String>,
        /// Target language
        #[arg(long)]
        lang: Option<String>,
        /// Requested register
        #[arg(long)]
        register: Option<String>,
        #[arg(long)]
        limit: Option<i64>,
    },
    /// Show one run with its corpus-level metrics
    Show { id: i64 },
    /// Export a run's outputs
    Export {
        id: i64,
        /// tsv | jsonl
        #[arg(long, default_value = "tsv")]
        format: String,
        /// Output file (default: stdout)
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Finish a failed, cancelled or interrupted rewrite/translate run: produce its missing segments with the
    /// parameters it was started with (the segments already done are kept, none is written twice)
    Resume { id: i64 },
    /// Delete a run with its outputs, metrics and judgments
    Delete {
        id: i64,
        #[arg(long)]
        yes: bool,
    },
}

pub fn run(ctx: &Ctx, command: Command) -> Result<()> {
    let store = projects::open_store(ctx.db.as_deref())?;
    match command {
        Command::List { project, document, task, status, system, lang, register, limit } => {
            let filter = RunFilter {
                project_id: project.map(|p| projects::find_project(&store, &p).map(|p| p.id)).transpose()?,
                document_id: document,
                task: task.as_deref().map(str::parse::<Task>).transpose()?,
                status: status.as_deref().map(str::parse::<RunStatus>).transpose()?,
                system,
                target_lang: lang,
                register,
                limit,
            };
            let runs = projects::list_runs(&store, &filter)?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
            } else if runs.is_empty() {
                println!("no runs match");
            } else {
                println!(
                    "{:>5}  {:<9} {:<28} {:<6} {:<10} {:<9} {:>11}  created",
                    "id", "task", "system", "pair", "register", "status", "segments"
                );
                for r in runs {
                    let pair = format!(
                        "{}-{}",
                        r.source_lang.as_deref().unwrap_or("?"),
                        r.target_lang.as_deref().unwrap_or("?")
                    );
                    println!(
                        "{:>5}  {:<9} {:<28} {:<6} {:<10} {:<9} {:>11}  {}",
                        r.id,
                        r.task.as_str(),
                        truncate(&r.system, 28),
                        pair,
                        r.register.as_deref().unwrap_or("-"),
                        r.status.as_str(),
                        format!("{}/{}", r.completed_segments, r.total_segments),
                        r.created_at
                    );
                }
            }
        }
        Command::Show { id } => {
            let d = projects::get_run(&store, id)?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&d)?);
                return Ok(());
            }
            let r = &d.run;
            println!("run {}  {} by {}  [{}]", r.id, r.task, r.system, r.status);
            if let Some(e) = &r.error {
                println!("  error:     {e}");
            }
            if let Some(doc) = &d.document {
                println!("  document:  {} ({:?}, {} segments)", doc.id, doc.name, doc.segments);
            }
            println!(
                "  languages: {} → {}   register: {}",
                r.source_lang.as_deref().unwrap_or("?"),
                r.target_lang.as_deref().unwrap_or("?"),
                r.register.as_deref().unwrap_or("-")
            );
            if let Some(m) = &r.model_id {
                println!("  model:     {m} {}", r.model_sha256.as_deref().unwrap_or(""));
            }
            println!("  params:    {}", r.params);
            println!("  segments:  {} of {} done", r.completed_segments, r.total_segments);
            if !d.missing_segments.is_empty() && r.status != RunStatus::Running {
                match &d.resume_blocker {
                    None => println!(
                        "  missing:   {} segment(s); `registro runs resume {}` produces them",
                        d.missing_segments.len(),
                        r.id
                    ),
                    Some(why) => println!("  missing:   {} segment(s); cannot be resumed: {why}", d.missing_segments.len()),
                }
            }
            println!("  created:   {}   finished: {}", r.created_at, r.finished_at.as_deref().unwrap_or("-"));
            if !d.corpus_metrics.is_empty() {
                println!("  metrics:");
                for m in &d.corpus_metrics {
                    let reference = m.reference.as_deref().map(|r| format!(" [{r}]")).unwrap_or_default();
                    println!(
                        "    {:<14} {:>9.4}{}  {}",
                        m.metric,
                        m.value,
                        reference,
                        m.signature.as_deref().unwrap_or("")
                    );
                }
            }
        }
        Command::Export { id, format, out } => {
            let format: ExportFormat = format.parse()?;
            let n = projects::export_run(&store, id, format, out.as_deref())?;
            if let Some(out) = out {
                if ctx.json {
                    println!("{}", serde_json::json!({ "run": id, "rows": n, "path": out }));
                } else {
                    println!("wrote {n} rows to {}", out.display());
                }
            }
        }
        Command::Resume { id } => {
            let mut store = store;
            let json = ctx.json;
            let mut progress = |p: registro_core::progress::Progress| {
                if !json {
                    eprintln!("{}/{} {}", p.done, p.total, p.message);
                }
            };
            let cancel = registro_core::progress::CancelToken::new();
            let out = registro_core::resume::resume_run(&mut store, id, &mut progress, &cancel)?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                let r = &out.run;
                println!(
                    "run {}: produced {} segment(s); {} of {} done  [{}]",
                    r.id, out.produced, r.completed_segments, r.total_segments, r.status
                );
            }
        }
        Command::Delete { id, yes } => {
            let r = store.run(id)?;
            anyhow::ensure!(yes, "this deletes run {} ({} by {}) and its outputs; add --yes to confirm", r.id, r.task, r.system);
            projects::delete_run(&store, id)?;
            if ctx.json {
                println!("{}", serde_json::json!({ "deleted": id }));
            } else {
                println!("deleted run {id}");
            }
        }
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}
