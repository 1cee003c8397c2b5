//! The catalogue a deployment (or a test) adds to the shipped one, and failed downloads told apart by cause: each
//! against a real HTTP server on 127.0.0.1.
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use registro_models::{failure_kind, FailureKind, FileState, ModelManager, ModelState};
use registro_testkit::file_server::{Body, FileServer, Plan};

mod common;
use common::{payload, sha};

/// The id a catalogue file replaces: the shipped default LLM.
const SHIPPED: &str = "qwen2.5-coder-1.5b-instruct";

fn url_manifest(id: &str, name: &str, bytes: usize, sha256: &str, url: &str) -> String {
    format!(
        "id = \"{id}\"\nname = \"{name}\"\nfamily = \"demo\"\narchitecture = \"qwen2\"\nrole = \"llm\"\nlicence = \"Apache-2.0\"\n\
         [[files]]\nname = \"demo.gguf\"\nbytes = {bytes}\nsha256 = \"{sha256}\"\n[[files.sources]]\nkind = \"url\"\nurl = \"{url}\"\n"
    )
}

#[test]
fn a_catalogue_folder_replaces_a_shipped_id_adds_new_ones_and_names_the_files_it_cannot_read() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(200_000);
    let server = FileServer::start("demo.gguf", Body::Bytes(Arc::new(data.clone())), Plan::default());
    let cat = tmp.path().join("catalogue");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("a.toml"), url_manifest(SHIPPED, "Local mirror", data.len(), &sha(&data), &server.url())).unwrap();
    std::fs::write(cat.join("b.toml"), url_manifest("house-model", "House model", data.len(), &sha(&data), &server.url())).unwrap();
    std::fs::write(cat.join("broken.toml"), "id = \"Not An Id\"\n").unwrap();
    std::fs::write(cat.join("notes.txt"), "not a manifest").unwrap();

    let mgr = ModelManager::new(tmp.path().join("cache")).with_catalogue(&cat);
    let replaced = mgr.manifest(SHIPPED).unwrap();
    assert_eq!(replaced.name, "Local mirror");
    assert_eq!(mgr.manifests().filter(|m| m.id == SHIPPED).count(), 1, "replaced, not listed twice");
    assert!(mgr.manifest("house-model").is_some());
    assert!(mgr.manifest("gemma-3-270m").is_some(), "the other shipped models stay");
    let problems = mgr.catalogue_problems().join("\n");
    assert!(problems.contains("broken.toml") && mgr.catalogue_problems().len() == 1, "{problems}");
    assert!(!mgr.status(SHIPPED).unwrap().imported, "a catalogue model is not an import");

    mgr.fetch(SHIPPED, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(mgr.status(SHIPPED).unwrap().state, ModelState::Ready);
    assert_eq!(server.requests(), vec![None], "fetched from the catalogue's URL, whole");

    let missing = ModelManager::new(tmp.path().join("cache")).with_catalogue(&tmp.path().join("nowhere"));
    assert!(missing.catalogue_problems()[0].contains("REGISTRO_CATALOGUE"), "{:?}", missing.catalogue_problems());
}

#[test]
fn from_env_reads_the_catalogue_folder() {
    // The only test of this binary that reads the environment.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("x.toml"), url_manifest("env-model", "From the environment", 10, &sha(b"0123456789"), "http://127.0.0.1:9/x")).unwrap();
    std::env::set_var("REGISTRO_CATALOGUE", tmp.path());
    std::env::set_var("REGISTRO_MODELS", tmp.path().join("cache"));
    let mgr = ModelManager::from_env();
    std::env::remove_var("REGISTRO_CATALOGUE");
    assert_eq!(mgr.manifest("env-model").map(|m| m.name.as_str()), Some("From the environment"));
}

#[test]
fn a_wrong_checksum_is_a_checksum_failure_that_leaves_no_file_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(300_000);
    let server = FileServer::start("demo.gguf", Body::Bytes(Arc::new(data.clone())), Plan::default());
    let cat = tmp.path().join("catalogue");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("m.toml"), url_manifest("demo", "Demo", data.len(), &sha(b"another file"), &server.url())).unwrap();
    let mgr = ModelManager::new(tmp.path().join("cache")).with_catalogue(&cat);
    let err = mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert_eq!(failure_kind(&err), FailureKind::Checksum, "{err:#}");
    assert!(format!("{err:#}").contains("sha256 mismatch"), "{err:#}");
    let dir = tmp.path().join("cache/demo");
    assert!(!dir.join("demo.gguf").exists() && !dir.join("demo.gguf.part").exists(), "nothing half-written stays");
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Missing);
}

#[test]
fn no_server_is_an_offline_failure_and_keeps_what_was_downloaded() {
    let tmp = tempfile::tempdir().unwrap();
    let port = registro_testkit::free_port();
    let cat = tmp.path().join("catalogue");
    std::fs::create_dir_all(&cat).unwrap();
    let data = payload(1000);
    std::fs::write(cat.join("m.toml"), url_manifest("demo", "Demo", data.len(), &sha(&data), &format!("http://127.0.0.1:{port}/demo.gguf"))).unwrap();
    let mgr = ModelManager::new(tmp.path().join("cache")).with_catalogue(&cat);
    // Half the file from an earlier try: a network failure must not throw it away.
    std::fs::create_dir_all(tmp.path().join("cache/demo")).unwrap();
    std::fs::write(tmp.path().join("cache/demo/demo.gguf.part"), &data[..500]).unwrap();
    let err = mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert_eq!(failure_kind(&err), FailureKind::Offline, "{err:#}");
    assert_eq!(mgr.status("demo").unwrap().files[0].state, FileState::Partial { bytes: 500 });
}

#[test]
fn a_server_error_is_told_apart_from_the_network() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(1000);
    let server = FileServer::start("other.gguf", Body::Bytes(Arc::new(data.clone())), Plan::default());
    let cat = tmp.path().join("catalogue");
    std::fs::create_dir_all(&cat).unwrap();
    let url = format!("http://127.0.0.1:{}/demo.gguf", server.port);
    std::fs::write(cat.join("m.toml"), url_manifest("demo", "Demo", data.len(), &sha(&data), &url)).unwrap();
    let mgr = ModelManager::new(tmp.path().join("cache")).with_catalogue(&cat);
    let err = mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert_eq!(failure_kind(&err), FailureKind::Server, "{err:#}");
    assert!(format!("{err:#}").contains("HTTP 404"), "{err:#}");
}

/// `/dev/full` answers every write with ENOSPC: a `.part` that leads there is a disk that filled up under the
/// download.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_said_and_the_unfinished_download_is_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(300_000);
    let server = FileServer::start("demo.gguf", Body::Bytes(Arc::new(data.clone())), Plan::default());
    let cat = tmp.path().join("catalogue");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("m.toml"), url_manifest("demo", "Demo", data.len(), &sha(&data), &server.url())).unwrap();
    let mgr = ModelManager::new(tmp.path().join("cache")).with_catalogue(&cat);
    let dir = tmp.path().join("cache/demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.join("demo.gguf.part")).unwrap();
    let err = mgr.fetch("demo", &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert_eq!(failure_kind(&err), FailureKind::DiskFull, "{err:#}");
    assert!(format!("{err:#}").contains("deleted"), "{err:#}");
    assert!(std::fs::symlink_metadata(dir.join("demo.gguf.part")).is_err(), "the unfinished download is gone");
    assert_eq!(mgr.status("demo").unwrap().state, ModelState::Missing);
}
