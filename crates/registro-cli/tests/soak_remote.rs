//! The soak: a generated 10,000-segment XLIFF file and a 10,000-entry PO file, each translated by the `registro`
//! binary through the OpenAI-compatible backend against a scripted server on 127.0.0.1 (its answer a fixed function
//! of the segment's source; faults on a fixed share of first requests: 429/503, 500, dropped connections, bodies
//! cut short, truncated JSON, slow answers). The CLI is killed with SIGKILL at 20 seeded points (most once a
//! seeded number of segments is stored, a few a seeded moment after it started); after each kill `registro runs
//! resume` continues. At the end every segment is stored exactly once, in order, equal to the server's answer; the
//! store passes `PRAGMA integrity_check`; the run exported in its document's format is valid (xmllint / msgfmt
//! where installed), parses again with registro-formats to the same sources and targets, and exports to the same
//! bytes. The peak resident memory of every CLI process is printed and checked against [`rss_bound_mib`].
//!
//! `REGISTRO_SOAK_SEGMENTS` (default 10,000), `REGISTRO_SOAK_KILLS` (20) and `REGISTRO_SOAK_SEED` (42) change the
//! run; `scripts/bench-soak.sh` runs it at two lengths and prints the numbers.
#![cfg(unix)]

#[path = "support/soak.rs"]
mod soak;

use std::time::{Duration, Instant};

use registro_store::Store;
use soak::{Kind, Proc, Rng};

/// The bound on any one CLI process's peak resident memory for a document of `segments` segments, in MiB.
///
/// Measured in the dev build (x86-64 Linux, `KILLS=0 scripts/bench-soak.sh`, XLIFF of ~110 bytes a unit), as the
/// process's own high-water mark (`VmHWM`; see `soak::Proc`): 32 MiB at 2,000 segments and 44 MiB at 10,000 for one
/// uninterrupted run, i.e. 22 MiB of mapped binary and libraries, ~8 MiB of fixed heap (SQLite cache, the example
/// pool, threads) and 1.5 KiB of heap per segment; with 20 kills the largest process (the first, which imports the
/// document) peaked at 38–40 MiB, the resumes at ~29 MiB. Nothing of a segment's result outlives its storing
/// (`translate::store_translation`, `Translator::translate_streamed`; the export reads the texts back from the
/// store), and prompts are prepared one window of 256 at a time (`translate::WINDOW`). What still grows is the
/// document itself, held as the file, its parsed units, the sentence list and, at the end, the exported file (~13
/// bytes of memory per byte of this XLIFF). Before windows, every prompt was prepared at once: 13.5 KiB per
/// segment. The bound: 40 MiB + 2 KiB per segment (8 MiB over the fixed part, 1.3× the measured slope), so a
/// return of per-segment prompts or results, or a leak across resumes, fails the test.
fn rss_bound_mib(segments: usize) -> u64 {
    40 + (segments as u64 * 2).div_ceil(1024)
}

#[test]
fn a_long_xliff_survives_kills_and_a_faulty_server() {
    soak(Kind::Xliff, 1);
}

#[test]
fn a_long_po_file_survives_kills_and_a_faulty_server() {
    soak(Kind::Po, 2);
}

fn soak(kind: Kind, seed_offset: u64) {
    let n = soak::env_usize("REGISTRO_SOAK_SEGMENTS", 10_000);
    let kills_wanted = soak::env_usize("REGISTRO_SOAK_KILLS", 20);
    let seed = soak::env_usize("REGISTRO_SOAK_SEED", 42) as u64 + seed_offset;
    assert!(n >= 20 * kills_wanted.max(1), "{n} segments are too few for {kills_wanted} kills");
    let scratch = soak::Scratch::new(&format!("{kind:?}").to_lowercase());
    let dir = scratch.0.as_path();
    let input = soak::write_document(dir, kind, n);
    let output = dir.join(format!("out.{}", input.extension().unwrap().to_str().unwrap()));
    let db = dir.join("soak.db");
    let server = soak::server();
    let url = server.url();
    // The store exists before the CLI runs, so the test can watch it from the start.
    let watch = Store::open(&db).unwrap();

    // The kill points: segments stored before each kill, seeded, increasing, the last well before the end; about
    // one kill in five instead lands a seeded 0–600 ms after the process started (while it opens the store,
    // reconnects, reads the document and prepares its requests).
    let mut rng = Rng::new(seed);
    let mut targets: Vec<u64> = (0..kills_wanted).map(|_| rng.range(n as u64 / 50, n as u64 * 9 / 10)).collect();
    targets.sort_unstable();
    let early: Vec<bool> = (0..kills_wanted).map(|k| k > 0 && rng.range(0, 5) == 0).collect();

    let started = Instant::now();
    let translate = soak::translate_args(&url, &input, &output);
    let translate: Vec<&str> = translate.iter().map(String::as_str).collect();
    let limit = Duration::from_secs(600);
    let mut run_id: Option<i64> = None;
    let mut kills = 0;
    let mut peaks: Vec<u64> = Vec::new();
    let mut parts: Vec<[u64; 3]> = Vec::new();
    let mut phase = 0;
    // Each phase: the translation (phase 0) or a resume, killed at its point unless it is the last.
    loop {
        let label = format!("phase{phase}");
        let args: Vec<String> = match run_id {
            None => translate.iter().map(|s| s.to_string()).collect(),
            Some(id) => vec!["runs".into(), "resume".into(), id.to_string()],
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut p = Proc::spawn(soak::command(dir, &db, &args, &label));
        let kill_at = (kills < kills_wanted).then(|| (targets[kills], early[kills], Duration::from_millis(rng.range(0, 600)), rng.range(0, 25)));
        let ended = loop {
            if let Some(e) = p.poll() {
                break e;
            }
            assert!(p.elapsed() < limit, "{label} ran past {limit:?}");
            if run_id.is_none() {
                run_id = watch.list_runs(&Default::default()).ok().and_then(|r| r.first().map(|r| r.id));
            }
            if let Some((target, early, after, jitter)) = kill_at {
                let stored = run_id.and_then(|id| watch.run(id).ok()).map_or(0, |r| r.completed_segments as u64);
                let due = if early { p.elapsed() >= after } else { run_id.is_some() && stored >= target };
                if due {
                    // A few milliseconds more, so the kill lands anywhere in the write path, not right after a
                    // commit the test saw.
                    std::thread::sleep(Duration::from_millis(jitter));
                    break p.kill();
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        peaks.push(ended.peak_rss_kib);
        parts.push(p.parts_kib);
        if ended.killed() {
            kills += 1;
            phase += 1;
            assert!(run_id.is_some(), "{label}: killed before its run was stored");
            continue;
        }
        assert!(ended.success(), "{label} failed (status {}):\n{}", ended.status, soak::tail(dir, &label));
        if kills < kills_wanted {
            // The process finished before its kill point: only a final resume may do that.
            panic!("{label} finished before kill {} of {kills_wanted} (its point: {:?})", kills + 1, kill_at);
        }
        break;
    }
    let seconds = started.elapsed().as_secs_f64();
    let run = run_id.unwrap();

    // Every segment exactly once, in order, the server's answer; the run done; the store intact; the run in its
    // document's format valid, and the same when read back.
    drop(watch);
    let (store, outputs) = soak::finished_run(&db, run, n);
    for (i, o) in outputs.iter().enumerate() {
        assert_eq!(o.text, soak::expected(kind, i), "segment {i}");
    }
    soak::check_export(&store, run, kind, dir, n, |i| soak::expected(kind, i));

    let peak = peaks.iter().copied().max().unwrap_or(0);
    let worst = peaks.iter().position(|&p| p == peak).unwrap_or(0);
    // One line `scripts/bench-soak.sh` reads.
    println!(
        "soak {kind:?}: {n} segments, {kills} kills, {} processes, {seconds:.1} s, {:.1} segments/s; {} requests; faults \
         injected: {}; peak RSS {} MiB (first process {} MiB, last {} MiB; bound {} MiB; the largest process's peaks \
         sampled: heap {} MiB, files {} MiB, shared {} MiB); seed {seed}",
        peaks.len(),
        n as f64 / seconds,
        server.requests(),
        soak::faults_summary(kind),
        peak / 1024,
        peaks[0] / 1024,
        peaks.last().unwrap() / 1024,
        rss_bound_mib(n),
        parts[worst][0] / 1024,
        parts[worst][1] / 1024,
        parts[worst][2] / 1024,
    );
    assert_eq!(kills, kills_wanted);
    assert!(
        peak / 1024 <= rss_bound_mib(n),
        "peak RSS {} MiB over the bound of {} MiB for {n} segments (per process: {:?} KiB)",
        peak / 1024,
        rss_bound_mib(n),
        peaks
    );
}
