//! The store's disk fills during a translation, and the store is read-only: the `registro` binary stops with an
//! error that names the store's file and says what to do, nothing already stored is damaged (`PRAGMA
//! integrity_check`, every stored segment still the server's answer), and `registro runs resume` finishes the run
//! once the disk has space again / the store is writable again.
//!
//! A full disk is a small tmpfs mounted for the test (which another file fills while the run writes), where the
//! test may mount one (root with CAP_SYS_ADMIN, as here); elsewhere the process's file size limit (RLIMIT_FSIZE,
//! SIGXFSZ ignored) stands in for it: SQLite sees a write cut short either way. `REGISTRO_TEST_NO_MOUNT=1` forces
//! the fallback. A read-only store is a tmpfs remounted read-only, or, without root, a file and folder without
//! write permission (root writes through permissions, so there it needs the mount).
#![cfg(unix)]

#[path = "support/soak.rs"]
mod soak;

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use registro_store::{RunStatus, Store};
use soak::{Kind, Proc};

const SEGMENTS: usize = 3000;

/// A tmpfs mounted on a folder for the test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// `None` where this process may not mount (not root, no CAP_SYS_ADMIN, a container that forbids it).
    fn mount(dir: &Path, size_mib: usize) -> Option<Tmpfs> {
        if std::env::var_os("REGISTRO_TEST_NO_MOUNT").is_some() {
            return None;
        }
        std::fs::create_dir_all(dir).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size_mib}m"), "tmpfs"])
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }

    fn remount(&self, opts: &str) {
        let s = std::process::Command::new("mount").args(["-o", &format!("remount,{opts}")]).arg(&self.0).status().unwrap();
        assert!(s.success(), "remount {opts} of {}", self.0.display());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// Every stored output of `run` is the server's answer for its segment; how many there are.
fn stored_ok(store: &Store, run: i64) -> usize {
    let outputs = store.outputs(run).unwrap();
    for o in &outputs {
        assert_eq!(o.text, soak::expected(Kind::Xliff, o.segment_index as usize), "segment {}", o.segment_index);
    }
    outputs.len()
}

/// The store opened only to read (a full disk or a read-only folder must not stop the test from looking).
fn look(db: &Path) -> Store {
    Store::open(db).unwrap_or_else(|e| panic!("the store at {} opens: {e}", db.display()))
}

/// `runs resume RUN` with `--json`, which must succeed; how many segments it produced.
fn resume(dir: &Path, db: &Path, run: i64, label: &str) -> u64 {
    let mut p = Proc::spawn(soak::command(dir, db, &["--json", "runs", "resume", &run.to_string()], label));
    let e = p.wait(Duration::from_secs(300));
    assert!(e.success(), "{label} failed:\n{}", soak::tail(dir, label));
    let out: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{label}.stdout"))).unwrap()).unwrap();
    out["produced"].as_u64().unwrap()
}

fn stderr_of(dir: &Path, label: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{label}.stderr"))).unwrap_or_default()
}

#[test]
fn a_disk_that_fills_mid_run_stops_it_with_a_clear_error_and_resume_finishes_once_space_is_back() {
    let scratch = soak::Scratch::new("disk-full");
    let dir = scratch.0.as_path();
    let store_dir = dir.join("store");
    let input = soak::write_document(dir, Kind::Xliff, SEGMENTS);
    let output = dir.join("out.xlf");
    let server = soak::server();
    let tmpfs = Tmpfs::mount(&store_dir, 32);
    std::fs::create_dir_all(&store_dir).unwrap();
    let db = store_dir.join("registro.db");
    let args = soak::translate_args(&server.url(), &input, &output);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let watch = look(&db);
    let mut cmd = soak::command(dir, &db, &args, "translate");
    let filler = store_dir.join("filler");
    let how;
    let ended = if tmpfs.is_some() {
        how = "a 32 MiB tmpfs filled by another file";
        // The disk fills while the run writes: once a quarter of the segments are stored, another file takes every
        // byte left.
        let mut p = Proc::spawn(cmd);
        let t0 = Instant::now();
        loop {
            assert!(t0.elapsed() < Duration::from_secs(300), "a quarter of the segments were not stored within 5 minutes");
            let done = watch.list_runs(&Default::default()).ok().and_then(|r| r.first().map(|r| r.completed_segments)).unwrap_or(0);
            if done as usize >= SEGMENTS / 4 {
                break;
            }
            assert!(p.poll().is_none(), "the translation ended before the disk filled:\n{}", soak::tail(dir, "translate"));
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0u8; 64 << 10];
        while f.write_all(&chunk).is_ok() {}
        let _ = f.sync_all();
        p.wait(Duration::from_secs(300))
    } else {
        how = "the file size limit (RLIMIT_FSIZE) of the process";
        // Every file the process writes stops growing at 1.5 MiB: the document (about 0.6 MiB of segments and the
        // original file) fits, its translations do not.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let lim = libc::rlimit { rlim_cur: 3 << 19, rlim_max: 3 << 19 };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Proc::spawn(cmd).wait(Duration::from_secs(300))
    };
    println!("disk full by {how}");
    let err = stderr_of(dir, "translate");
    assert!(!ended.success(), "the translation succeeded on a full disk:\n{err}");
    let run = watch.list_runs(&Default::default()).unwrap().first().map(|r| r.id).expect("the run was stored before the disk filled");
    assert!(
        err.contains("the disk holding it is full")
            && err.contains(&db.display().to_string())
            && err.contains(&format!("registro runs resume {run}"))
            && err.contains("already stored is intact"),
        "the error must say the disk is full, which store, and how to finish: {err}"
    );
    assert!(!output.exists(), "no translated file is written from a failed run");
    println!("disk full: {}", err.trim());

    // Nothing stored is damaged.
    assert_eq!(watch.integrity_check().unwrap(), "ok");
    let before = stored_ok(&watch, run);
    let r = watch.run(run).unwrap();
    assert!(before < SEGMENTS, "{before} of {SEGMENTS} stored");
    assert_ne!(r.status, RunStatus::Done);
    drop(watch);

    // Space is back: the resume produces exactly the missing segments.
    let _ = std::fs::remove_file(&filler);
    let produced = resume(dir, &db, run, "resume");
    let store = look(&db);
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert_eq!(produced as usize, SEGMENTS - before, "only the missing segments are produced");
    assert_eq!(stored_ok(&store, run), SEGMENTS);
    assert_eq!(store.run(run).unwrap().status, RunStatus::Done);
    println!("disk full: stopped with {before} of {SEGMENTS} segments stored; the resume produced {produced}");
    drop(store);
    drop(tmpfs);
}

#[test]
fn a_read_only_store_is_a_clear_error_and_resume_finishes_once_it_is_writable() {
    let scratch = soak::Scratch::new("read-only");
    let dir = scratch.0.as_path();
    let store_dir = dir.join("store");
    let tmpfs = Tmpfs::mount(&store_dir, 64);
    if tmpfs.is_none() && is_root() {
        println!("skipped: root writes through file permissions, and this process may not mount a read-only tmpfs");
        return;
    }
    std::fs::create_dir_all(&store_dir).unwrap();
    let db = store_dir.join("registro.db");
    let input = soak::write_document(dir, Kind::Xliff, SEGMENTS);
    let server = soak::server();
    let args = soak::translate_args(&server.url(), &input, &dir.join("out.xlf"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();

    // An unfinished run: killed after a third of its segments.
    let watch = look(&db);
    let mut p = Proc::spawn(soak::command(dir, &db, &args, "translate"));
    let t0 = Instant::now();
    let run = loop {
        assert!(t0.elapsed() < Duration::from_secs(300), "a third of the segments were not stored within 5 minutes");
        assert!(p.poll().is_none(), "the translation ended before it could be killed");
        if let Some(r) = watch.list_runs(&Default::default()).ok().and_then(|r| r.into_iter().next()) {
            if r.completed_segments as usize >= SEGMENTS / 3 {
                p.kill();
                break r.id;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let before = stored_ok(&watch, run);
    drop(watch);
    let bytes = std::fs::read(&db).unwrap();

    let make_read_only = |ro: bool| match &tmpfs {
        Some(t) => t.remount(if ro { "ro" } else { "rw" }),
        None => {
            use std::os::unix::fs::PermissionsExt;
            for (p, rw, ro_mode) in [(db.clone(), 0o644, 0o444), (store_dir.clone(), 0o755, 0o555)] {
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(if ro { ro_mode } else { rw })).unwrap();
            }
        }
    };
    make_read_only(true);
    let mut p = Proc::spawn(soak::command(dir, &db, &["runs", "resume", &run.to_string()], "resume-ro"));
    let ended = p.wait(Duration::from_secs(120));
    let err = stderr_of(dir, "resume-ro");
    assert!(!ended.success(), "a resume succeeded on a read-only store");
    assert!(
        err.contains("read-only") && err.contains(&db.display().to_string()) && err.contains("writable"),
        "the error must say the store is read-only, which file, and what to do: {err}"
    );
    // A new translation into it says so too.
    let mut p = Proc::spawn(soak::command(dir, &db, &args, "translate-ro"));
    let ended = p.wait(Duration::from_secs(120));
    let err2 = stderr_of(dir, "translate-ro");
    assert!(!ended.success() && err2.contains("read-only") && err2.contains("writable"), "{err2}");
    assert!(std::fs::read(&db).unwrap() == bytes, "the read-only store's file changed");
    println!("read-only store: {}", err.trim());

    make_read_only(false);
    let produced = resume(dir, &db, run, "resume");
    let store = look(&db);
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert_eq!(produced as usize, SEGMENTS - before);
    assert_eq!(stored_ok(&store, run), SEGMENTS);
    assert_eq!(store.run(run).unwrap().status, RunStatus::Done);
    drop(store);
    drop(tmpfs);
}
