//! `registro doctor`: the facts a bug report needs (core `doctor::gather`), as text or `--json`.
use anyhow::Result;
use registro_core::doctor::{self, DoctorOptions};

use super::Ctx;

#[derive(clap::Args)]
pub struct Args {
    /// Skip asking each model source whether it answers (no network requests)
    #[arg(long)]
    offline: bool,
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    let opts = DoctorOptions {
        db: ctx.db.clone(),
        check_sources: !a.offline,
        commit: env!("REGISTRO_COMMIT").to_string(),
    };
    let report = doctor::gather(&opts);
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", doctor::to_text(&report));
    }
    Ok(())
}
