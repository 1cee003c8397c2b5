use super::Ctx;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_ctx: &Ctx, _args: Args) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}

#[derive(clap::Args)]
pub struct BenchArgs {}

pub fn bench(_ctx: &Ctx, _args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
