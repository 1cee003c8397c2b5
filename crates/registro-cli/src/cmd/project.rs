use anyhow::Result;
use registro_core::projects;

use super::Ctx;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Create a project
    Create { name: String },
    /// List projects with their document and run counts
    List,
    /// Delete a project with all its documents and runs
    Delete {
        /// Project name or id
        project: String,
        /// Confirm the deletion
        #[arg(long)]
        yes: bool,
    },
}

pub fn run(ctx: &Ctx, command: Command) -> Result<()> {
    let store = projects::open_store(ctx.db.as_deref())?;
    match command {
        Command::Create { name } => {
            let p = projects::create_project(&store, &name)?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&p)?);
            } else {
                println!("created project {} ({:?})", p.id, p.name);
            }
        }
        Command::List => {
            let list = projects::list_projects(&store)?;
            if ctx.json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                println!("no projects yet; create one with `registro project create NAME`");
            } else {
                println!("{:>4}  {:<30} {:>9} {:>6}  created", "id", "name", "documents", "runs");
                for p in list {
                    println!("{:>4}  {:<30} {:>9} {:>6}  {}", p.id, p.name, p.documents, p.runs, p.created_at);
                }
            }
        }
        Command::Delete { project, yes } => {
            let p = projects::find_project(&store, &project)?;
            anyhow::ensure!(
                yes,
                "this deletes project {:?} with {} documents and {} runs; add --yes to confirm",
                p.name,
                p.documents,
                p.runs
            );
            projects::delete_project(&store, p.id)?;
            if ctx.json {
                println!("{}", serde_json::json!({ "deleted": p.id }));
            } else {
                println!("deleted project {} ({:?})", p.id, p.name);
            }
        }
    }
    Ok(())
}
