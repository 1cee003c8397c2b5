//! The `registro` binary refuses bad input files and nonsense evaluation options with a clear error and a non-zero
//! exit, quickly, before scoring anything: a device, a FIFO, an over-cap file, `-s add-k:-5`, `--lang xx`,
//! `--paired-bs 0`.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::{command, run_bounded, scratch};


/// Runs `registro` and kills it after 20 s: before the fix a FIFO blocked forever and `/dev/zero` ate memory.
fn registro(db: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = command(Some(db), args);
    cmd.env_remove("REGISTRO_MAX_INPUT_MB").envs(env.iter().copied());
    run_bounded(cmd, Duration::from_secs(20))
}

fn fails_with(db: &Path, args: &[&str], env: &[(&str, &str)], want: &[&str]) {
    let out = registro(db, args, env);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded: {}", String::from_utf8_lossy(&out.stdout));
    for w in want {
        assert!(err.contains(w), "{args:?}: stderr lacks {w:?}:\n{err}");
    }
}

#[test]
fn import_and_eval_refuse_devices_fifos_and_over_cap_files() {
    let dir = scratch("inputs");
    let db = dir.join("r.db");
    let ok = registro(&db, &["project", "create", "p"], &[]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    fails_with(&db, &["import", "/dev/zero", "--project", "p"], &[], &["/dev/zero is a character device", "regular files"]);
    let fifo = dir.join("pipe.txt");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let fifo = fifo.to_str().unwrap();
    fails_with(&db, &["import", fifo, "--project", "p"], &[], &["is a FIFO"]);

    let reference = dir.join("ref.txt");
    std::fs::write(&reference, "Guten Tag.\n").unwrap();
    let r = reference.to_str().unwrap();
    fails_with(&db, &["eval", "--no-store", "--hyp", "/dev/zero", "--ref", r], &[], &["/dev/zero is a character device"]);
    fails_with(&db, &["eval", "--no-store", "--hyp", r, "--ref", fifo], &[], &["is a FIFO"]);

    // Over the cap from the environment and from the flag; the flag raises it again.
    let big = dir.join("big.txt");
    let line = "Guten Tag, wie geht es Ihnen heute?\n";
    std::fs::write(&big, line.repeat((1 << 20) / line.len() + 1)).unwrap();
    let b = big.to_str().unwrap();
    let cap = [("REGISTRO_MAX_INPUT_MB", "1")];
    fails_with(&db, &["import", b, "--project", "p"], &cap, &["larger than the input limit of 1 MiB", "--max-input-mb"]);
    fails_with(&db, &["eval", "--no-store", "--hyp", b, "--ref", b], &cap, &["larger than the input limit of 1 MiB"]);
    fails_with(&db, &["import", b, "--project", "p", "--max-input-mb", "1"], &[], &["input limit of 1 MiB"]);
    let out = registro(&db, &["import", b, "--project", "p", "--max-input-mb", "2"], &cap);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = registro(&db, &["eval", "--no-store", "--hyp", b, "--ref", b, "--max-input-mb", "2", "-m", "bleu"], &cap);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    fails_with(&db, &["import", r, "--project", "p"], &[("REGISTRO_MAX_INPUT_MB", "lots")], &["REGISTRO_MAX_INPUT_MB=\"lots\" is not a valid input limit"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn eval_rejects_nonsense_options() {
    let dir = scratch("options");
    let db = dir.join("r.db");
    let hyp = dir.join("hyp.txt");
    std::fs::write(&hyp, "Guten Tag.\nWie geht es?\n").unwrap();
    let h = hyp.to_str().unwrap();
    let base = ["eval", "--no-store", "--hyp", h, h, "--ref", h];
    let with = |extra: &[&'static str]| -> Vec<&str> { base.iter().copied().chain(extra.iter().copied()).collect() };
    fails_with(&db, &with(&["-s", "add-k:-5"]), &[], &["add-k:-5 is invalid", "≥ 0"]);
    fails_with(&db, &with(&["-s", "floor:nan"]), &[], &["floor:NaN is invalid"]);
    fails_with(&db, &with(&["--lang", "xx"]), &[], &["unknown language \"xx\"", "ISO 639-1"]);
    fails_with(&db, &with(&["--paired-bs", "0"]), &[], &["--paired-bs 0", "between 10 and"]);
    fails_with(&db, &with(&["--paired-ar", "3"]), &[], &["--paired-ar 3", "between 10 and"]);
    // Sane values still score.
    let out = registro(&db, &with(&["-s", "add-k:1", "--lang", "de", "--paired-bs", "100"]), &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("BLEU"));
    std::fs::remove_dir_all(&dir).ok();
}
