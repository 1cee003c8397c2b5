//! What the back-translation second opinion (`Options::back_translation`) catches and what it flags wrongly, on
//! development pairs only: the good side is the reference translations (both registers) of the development split of
//! the shipped example pool (the last 50 sources of each domain, which prompts never show) that the check would read
//! back; the bad side is `tests/data/reversals.tsv`, reversed translations written for Registro. Beside each bad
//! pair it prints what the other checks say: the rule check (`meaning::check`) and, when EmbeddingGemma is
//! installed, its similarity to the source and whether the drift check (below `qe::DRIFT_BELOW`) flags it.
//!
//! `cargo run --release -p registro-core --example back_translation_dev -- LANG [MODEL] [GOOD_LIMIT] [SKIP]`
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use registro_core::translate::{self as tr, qe, Generator, Lang};
use registro_register::{back_translation, data, meaning};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lang: Lang = args.first().context("usage: back_translation_dev LANG [MODEL] [GOOD_LIMIT]")?.parse()?;
    let model = args.get(1).cloned().unwrap_or_else(registro_core::models::default_model);
    let limit: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(40);
    // Skip this many checkable pairs first: a second slice to confirm on what the rules were not tuned on.
    let skip: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(0);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let dir = ["cocoa-mt", "iwslt2023"]
        .iter()
        .map(|d| std::path::Path::new(root).join(format!("data/examples/{d}/en-{}", lang.code())))
        .find(|d| d.is_dir())
        .with_context(|| format!("no development split for {}", lang.name()))?;
    let dev = data::split(data::load_dir(&dir, lang)?).1;
    let mut good: Vec<(String, String)> = Vec::new();
    for p in &dev {
        for t in [&p.formal, &p.informal] {
            if back_translation::worth_checking(lang, &p.source, t) && !good.iter().any(|(s, g)| s == &p.source && g == t) {
                good.push((p.source.clone(), t.clone()));
            }
        }
        if good.len() >= skip + limit {
            break;
        }
    }
    let good: Vec<(String, String)> = good.into_iter().skip(skip).take(limit).collect();
    let bad: Vec<(String, String, String)> = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/reversals.tsv"))?
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect::<Vec<_>>())
        .filter(|f| f[0] == lang.code())
        .map(|f| (f[1].clone(), f[2].clone(), f[3].clone()))
        .collect();
    let mut gen = tr::EngineGenerator::load(&model)?;
    let texts: Vec<(&str, &str)> = good.iter().map(|(s, t)| (s.as_str(), t.as_str())).chain(bad.iter().map(|(_, s, t)| (s.as_str(), t.as_str()))).collect();
    let reqs = texts
        .iter()
        .map(|(s, t)| registro_generate::back_translation::request(gen.chat_format(), lang, t, 2 * s.split_whitespace().count() + 24))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let t0 = std::time::Instant::now();
    let mut backs = vec![String::new(); reqs.len()];
    gen.generate_many(&reqs, &AtomicBool::new(false), &mut |k, g| {
        backs[k] = g?.into_iter().next().map(|g| g.text).filter(|b| registro_generate::back_translation::usable(lang, b)).unwrap_or_default();
        Ok(())
    })?;
    let secs = t0.elapsed().as_secs_f64();
    let check = qe::MeaningCheck::installed()?;
    let mut false_flags = 0;
    println!("== {} good (dev references), read back by {model}", good.len());
    for (k, (s, t)) in good.iter().enumerate() {
        if let Some(why) = back_translation::disagreement(s, &backs[k]) {
            false_flags += 1;
            println!("  FALSE FLAG  {s}\n              {t}\n              {why}");
        }
    }
    println!("== {} reversed (tests/data/reversals.tsv)", bad.len());
    let (mut caught, mut caught_before, mut caught_rules, mut caught_drift) = (0, 0, 0, 0);
    for (k, (what, s, t)) in bad.iter().enumerate() {
        let back = &backs[good.len() + k];
        let why = back_translation::disagreement(s, back);
        let rules = meaning::check(lang, s, t);
        let sim = match &check {
            Some(c) => c.similarities(s, &[t.as_str()])?.first().copied(),
            None => None,
        };
        let drift = sim.is_some_and(|x| x < qe::DRIFT_BELOW);
        caught += why.is_some() as usize;
        caught_rules += !rules.is_empty() as usize;
        caught_drift += drift as usize;
        caught_before += (!rules.is_empty() || drift) as usize;
        println!(
            "  {:<8} {}  {s} → {t}\n           read back: {back}\n           rules: {}  embedding: {}",
            what,
            if why.is_some() { "CAUGHT" } else { "missed" },
            if rules.is_empty() { "pass".to_string() } else { format!("{} flag(s)", rules.len()) },
            sim.map_or("not installed".to_string(), |x| format!("{x:.2}{}", if drift { " (drift flag)" } else { "" })),
        );
    }
    println!(
        "SUMMARY {} {model}: good read back {} , false flags {} ({:.1}%); reversed {}: caught by reading back {}, by the rules {}, by the embedding check {}, by rules or embedding {}; {:.1} s for {} back-translations",
        lang.code(),
        good.len(),
        false_flags,
        100.0 * false_flags as f64 / good.len().max(1) as f64,
        bad.len(),
        caught,
        caught_rules,
        caught_drift,
        caught_before,
        secs,
        reqs.len()
    );
    Ok(())
}
