//! What the window holds once a user has translated and computed eval's Sim: the LLM, translation's int8 meaning
//! check and eval's f32 one. Prints each load's seconds and the process's resident memory after it, then after both
//! checks have embedded a few sentences (mapped weight pages count once they are read).
//!
//! `cargo run --release -p registro-core --example resident_memory -- [--model ID]`
use std::time::Instant;

use registro_core::translate::qe::MeaningCheck;
use registro_core::translate::EngineGenerator;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let model = args.iter().position(|a| a == "--model").and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(registro_core::models::default_model);
    let step = |what: &str, t: Instant| {
        let mib = |field| registro_engine::bench::process_memory_mib(field).unwrap_or(0);
        let (rss, peak) = (mib("VmRSS"), mib("VmHWM"));
        println!("{what:<34} {:>6.2} s   RSS {rss:>5} MiB   peak {peak:>5} MiB", t.elapsed().as_secs_f64());
    };
    let t = Instant::now();
    let llm = EngineGenerator::load(&model)?;
    step(&format!("LLM {model}"), t);
    let t = Instant::now();
    let int8 = MeaningCheck::installed()?.ok_or_else(|| anyhow::anyhow!("{} is not installed: registro models fetch {}", registro_core::translate::qe::MODEL, registro_core::translate::qe::MODEL))?;
    step("meaning check (int8)", t);
    let t = Instant::now();
    let exact = MeaningCheck::installed_exact()?.expect("installed above");
    step("eval's Sim (f32)", t);
    let texts = ["Could you please send me the report by Friday?", "Könnten Sie mir bitte den Bericht bis Freitag schicken?", "¿Dónde desea que envíe el paquete?", "金曜日までに報告書を送っていただけますか。"];
    let t = Instant::now();
    let (a, b) = (int8.embed(&texts)?, exact.embed(&texts)?);
    step(&format!("{} sentences embedded by both", a.len().min(b.len())), t);
    drop(llm);
    Ok(())
}
