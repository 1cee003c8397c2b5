use std::path::PathBuf;

use anyhow::Result;
use registro_core::projects::{self, Format, ImportOptions};

use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// File or folder to import
    path: PathBuf,
    /// Project name or id (see `registro project list`)
    #[arg(long, short)]
    project: String,
    /// Source language (ISO 639-1); default: from file names, else en
    #[arg(long)]
    lang: Option<String>,
    /// Target language of the references; default: from file names
    #[arg(long)]
    target_lang: Option<String>,
    /// text | tsv | csv | jsonl | cocoa (CoCoA-MT/IWSLT folder) | xformal (XFORMAL/GYAFC folder); default: detected
    #[arg(long)]
    format: Option<String>,
    /// TSV/CSV text column (header name or 1-based number), or JSONL text field
    #[arg(long)]
    column: Option<String>,
    /// Document name (default: the file name or the source file's stem)
    #[arg(long)]
    name: Option<String>,
    /// Refuse files larger than this many MiB [default: $REGISTRO_MAX_INPUT_MB, else 512]
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    max_input_mb: Option<u64>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let mut store = projects::open_store(ctx.db.as_deref())?;
    let project = projects::find_project(&store, &args.project)?;
    let opts = ImportOptions {
        format: args.format.as_deref().map(str::parse::<Format>).transpose()?,
        source_lang: args.lang,
        target_lang: args.target_lang,
        column: args.column,
        name: args.name,
        max_input_mb: args.max_input_mb,
    };
    let bar = crate::term::Bar::new(ctx.json, "files");
    let summary = projects::import_path(&mut store, project.id, &args.path, &opts, &mut bar.sink(), &crate::term::cancel_on_ctrl_c())?;
    drop(bar);
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
        return Ok(());
    }
    println!(
        "imported {} document(s), {} segments into project {:?}",
        summary.documents.len(),
        summary.segments,
        summary.project.name
    );
    for d in &summary.documents {
        let langs = match &d.target_lang {
            Some(t) => format!("{}→{}", d.source_lang, t),
            None => d.source_lang.clone(),
        };
        let refs = if d.reference_names.is_empty() { "-".to_string() } else { d.reference_names.join(", ") };
        println!("  {:>4}  {:<45} {:>6} segments  {:<7} refs: {}", d.id, d.name, d.segments, langs, refs);
    }
    if !summary.ignored.is_empty() {
        eprintln!("ignored {} file(s) that are neither sources nor references:", summary.ignored.len());
        for f in &summary.ignored {
            eprintln!("  {f}");
        }
    }
    Ok(())
}
