//! `registro bench …`: each benchmark's arguments and body live with the subcommand it measures.
use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    which: Which,
}

#[derive(clap::Subcommand)]
enum Which {
    // Filled by the issues: `engine` (generate.rs), `eval` (eval.rs), `rules` (rewrite.rs),
    // `dashboard` (report.rs), `translate` (translate.rs).
    #[command(hide = true)]
    None,
}

pub fn run(_ctx: &Ctx, args: Args) -> anyhow::Result<()> {
    match args.which {
        Which::None => anyhow::bail!("choose a benchmark"),
    }
}
