//! Import reads regular files only, up to a cap the user can raise: `/dev/zero`, a FIFO, a folder given as a file
//! and an over-cap file are refused at once with what to do, instead of filling memory or blocking forever.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use registro_store::import::{parse_path, Format, ImportOptions};

/// Runs an import on another thread and gives up after `secs`: the old importer blocks forever on a FIFO and
/// reads `/dev/zero` until memory runs out, and a test must fail then, not hang.
fn import_within(path: &Path, opts: ImportOptions, secs: u64) -> String {
    let (tx, rx) = mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(parse_path(&p, &opts).map(|_| ()).map_err(|e| e.to_string()));
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(Err(message)) => message,
        Ok(Ok(())) => panic!("{} was imported", path.display()),
        Err(_) => panic!("importing {} did not return within {secs} s", path.display()),
    }
}

fn mkfifo(dir: &Path) -> PathBuf {
    let p = dir.join("pipe.txt");
    let st = std::process::Command::new("mkfifo").arg(&p).status().expect("mkfifo runs");
    assert!(st.success());
    p
}

#[test]
fn dev_zero_is_refused_as_a_device() {
    let msg = import_within(Path::new("/dev/zero"), ImportOptions::default(), 10);
    assert!(msg.contains("/dev/zero is a character device") && msg.contains("regular files"), "{msg}");
    // Forcing a format does not bypass the check.
    let opts = ImportOptions { format: Some(Format::Jsonl), ..ImportOptions::default() };
    let msg = import_within(Path::new("/dev/zero"), opts, 10);
    assert!(msg.contains("character device"), "{msg}");
}

#[test]
fn fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = mkfifo(dir.path());
    let msg = import_within(&fifo, ImportOptions::default(), 10);
    assert!(msg.contains("pipe.txt is a FIFO (named pipe)") && msg.contains("regular files"), "{msg}");
    let opts = ImportOptions { format: Some(Format::Tsv), ..ImportOptions::default() };
    assert!(import_within(&fifo, opts, 10).contains("FIFO"));
}

#[test]
fn a_folder_forced_to_a_file_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let opts = ImportOptions { format: Some(Format::Text), ..ImportOptions::default() };
    let msg = import_within(dir.path(), opts, 10);
    assert!(msg.contains("is a directory"), "{msg}");
}

#[test]
fn over_cap_file_is_refused_naming_the_limit_and_how_to_raise_it() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    // 1 MiB + 1 line of ordinary text: over a 1 MiB cap, under the default.
    let line = "a perfectly ordinary sentence of text.\n";
    std::fs::write(&big, line.repeat((1 << 20) / line.len() + 1)).unwrap();
    let capped = ImportOptions { max_input_mb: Some(1), ..ImportOptions::default() };
    let msg = import_within(&big, capped.clone(), 10);
    assert!(
        msg.contains("big.txt is larger than the input limit of 1 MiB")
            && msg.contains("--max-input-mb")
            && msg.contains("REGISTRO_MAX_INPUT_MB"),
        "{msg}"
    );
    // Raising the cap imports it.
    let raised = ImportOptions { max_input_mb: Some(2), ..ImportOptions::default() };
    let doc = &parse_path(&big, &raised).unwrap().documents[0];
    assert_eq!(doc.segments.len(), (1 << 20) / line.len() + 1);
    // Paired folders read every file under the same cap.
    let pair = dir.path().join("pair");
    std::fs::create_dir(&pair).unwrap();
    std::fs::copy(&big, pair.join("t.en")).unwrap();
    std::fs::copy(&big, pair.join("t.formal.de")).unwrap();
    let msg = import_within(&pair, capped, 10);
    assert!(msg.contains("larger than the input limit of 1 MiB"), "{msg}");
    assert_eq!(parse_path(&pair, &raised).unwrap().documents.len(), 1);
}

#[test]
fn a_zero_cap_is_an_error_not_a_refusal_of_everything() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.txt");
    std::fs::write(&p, "hello\n").unwrap();
    let opts = ImportOptions { max_input_mb: Some(0), ..ImportOptions::default() };
    let msg = parse_path(&p, &opts).unwrap_err().to_string();
    assert!(msg.contains("not a valid input limit"), "{msg}");
}
