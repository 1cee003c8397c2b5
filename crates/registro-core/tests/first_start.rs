//! The window's first start and Settings → Models, below the window: the default model missing, downloaded from a
//! real HTTP server on 127.0.0.1, cancelled part-way, continued after the cancel and after a dropped connection,
//! verified, damaged, repaired, removed; and failures in words that say what to do.
//!
//! One test: the model cache, the catalogue and the default model are process-wide settings (environment
//! variables), so the steps run in order in this binary of their own.
use std::sync::Arc;

use registro_core::models::{self, DownloadProgress};
use registro_core::progress::CancelToken;
use registro_testkit::file_server::{Body, FileServer, Plan};
use sha2::Digest;

fn payload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7919 % 251) as u8).collect()
}

fn hex(data: &[u8]) -> String {
    sha2::Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

fn manifest(id: &str, data_len: usize, sha: &str, url: &str) -> String {
    format!(
        "id = \"{id}\"\nname = \"Demo {id}\"\nfamily = \"demo\"\narchitecture = \"qwen2\"\nrole = \"llm\"\nlicence = \"Apache-2.0\"\n\
         [[files]]\nname = \"demo.gguf\"\nbytes = {data_len}\nsha256 = \"{sha}\"\n[[files.sources]]\nkind = \"url\"\nurl = \"{url}\"\n"
    )
}

#[test]
fn the_default_model_is_downloaded_cancelled_resumed_verified_repaired_and_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = payload(6_000_000);
    // Request 1 is slow (the user cancels it), request 2 drops after 1 MB (a failing network), request 3 finishes.
    let plan = Plan { rates: vec![Some(2_000_000), Some(4_000_000)], cuts: vec![None, Some(1_000_000)] };
    let server = FileServer::start("demo.gguf", Body::Bytes(Arc::new(data.clone())), plan);
    let cat = tmp.path().join("catalogue");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("demo.toml"), manifest("demo-default", data.len(), &hex(&data), &server.url())).unwrap();
    std::fs::write(cat.join("bad.toml"), manifest("demo-bad", data.len(), &hex(b"not it"), &server.url())).unwrap();
    let closed = format!("http://127.0.0.1:{}/demo.gguf", registro_testkit::free_port());
    std::fs::write(cat.join("offline.toml"), manifest("demo-offline", data.len(), &hex(&data), &closed)).unwrap();
    std::env::set_var("REGISTRO_MODELS", tmp.path().join("cache"));
    std::env::set_var("REGISTRO_CATALOGUE", &cat);
    std::env::set_var("REGISTRO_DEFAULT_MODEL", "demo-default");
    std::env::remove_var("REGISTRO_WHEELHOUSE");

    // An empty cache: the window opens on the setup card, with the model's name, size and licence.
    let first = models::first_start();
    let m = first.model.clone().expect("the default model is in the catalogue");
    assert!(first.needed);
    assert_eq!((m.id.as_str(), m.state.as_str(), m.bytes, m.licence.as_str()), ("demo-default", "missing", 6_000_000, "Apache-2.0"));
    assert!(m.default && m.have_bytes == 0);
    let all = models::summaries();
    assert!(all.iter().any(|s| s.id == "gemma-3-270m"), "Settings lists the whole catalogue");
    assert_eq!(all[0].id, "demo-default", "the default model comes first");

    // Download, cancelled once a megabyte is in: an outcome, not an error, and the bytes stay.
    let cancel = CancelToken::new();
    let mut seen: Vec<DownloadProgress> = Vec::new();
    let out = models::download("demo-default", &mut |p| {
        if p.stage == "download" && p.done >= 1_000_000 {
            cancel.cancel();
        }
        seen.push(p);
    }, &cancel)
    .expect("a cancel is not a failure");
    assert!(out.cancelled);
    assert_eq!(out.model.state, "partial");
    assert!(out.model.have_bytes >= 1_000_000 && out.model.have_bytes < 6_000_000, "{}", out.model.have_bytes);
    let p = seen.iter().rev().find(|p| p.stage == "download").expect("download progress");
    assert_eq!(p.total, 6_000_000, "progress knows the size, for bytes and percent");
    assert!(p.message.contains("download") && p.message.contains("MB"), "{}", p.message);
    assert!(models::first_start().needed, "a partial model still needs the card");

    // Continue: the second request asks for the rest, drops after 1 MB, and the third continues again.
    let kept = out.model.have_bytes;
    let again = models::download("demo-default", &mut |_| {}, &CancelToken::new()).unwrap();
    assert!(!again.cancelled);
    assert_eq!(again.model.state, "ready");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "{reqs:?}");
    assert_eq!(reqs[0], None);
    assert_eq!(reqs[1], Some(kept), "continued from the cancel, not from zero");
    assert!(reqs[2].is_some_and(|r| r >= kept + 1_000_000), "continued after the dropped connection: {reqs:?}");
    assert_eq!(std::fs::read(tmp.path().join("cache/demo-default/demo.gguf")).unwrap(), data);
    assert!(!tmp.path().join("cache/demo-default/demo.gguf.part").exists());
    assert!(!models::first_start().needed);

    // Verify passes; a flipped byte is found, the model refused, and Download repairs it.
    let v = models::verify_model("demo-default", &mut |_| {}, &CancelToken::new()).unwrap();
    assert!(v.ok, "{:?}", v.lines);
    assert!(v.lines[0].contains("intact"), "{:?}", v.lines);
    let file = tmp.path().join("cache/demo-default/demo.gguf");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[12345] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    let v = models::verify_model("demo-default", &mut |_| {}, &CancelToken::new()).unwrap();
    assert!(!v.ok && v.lines[0].contains("damaged") && v.lines[0].contains("Download"), "{:?}", v.lines);
    assert_eq!(v.model.state, "damaged");
    assert!(models::first_start().needed, "a damaged default model brings the card back");
    assert!(models::resolve_llm("demo-default").is_err(), "a damaged model is never loaded");
    let fixed = models::download("demo-default", &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(fixed.model.state, "ready");

    // Remove: the folder goes, the model is listed as not downloaded.
    let removed = models::remove_model("demo-default").unwrap();
    assert!(removed.freed_bytes >= 6_000_000, "the model file and its checksum record: {}", removed.freed_bytes);
    assert_eq!(removed.model.map(|m| m.state), Some("missing".to_string()));
    assert!(!tmp.path().join("cache/demo-default").exists());

    // A file that is not the model: deleted, and the words say so and what to do.
    let err = format!("{:#}", models::download("demo-bad", &mut |_| {}, &CancelToken::new()).unwrap_err());
    assert!(err.starts_with("Could not download demo-bad: the file that arrived is not the one Registro expects"), "{err}");
    assert!(err.contains("Press Download to try again") && err.contains("Details: "), "{err}");
    assert!(!tmp.path().join("cache/demo-bad/demo.gguf.part").exists(), "a bad download is not kept");

    // No server: says to check the connection, and that the bytes already there are kept.
    std::fs::create_dir_all(tmp.path().join("cache/demo-offline")).unwrap();
    std::fs::write(tmp.path().join("cache/demo-offline/demo.gguf.part"), &data[..2_000_000]).unwrap();
    let err = format!("{:#}", models::download("demo-offline", &mut |_| {}, &CancelToken::new()).unwrap_err());
    assert!(err.contains("did not answer") && err.contains("Check that this computer is online"), "{err}");
    assert!(err.contains("The 2.0 MB already downloaded are kept"), "{err}");
    assert_eq!(models::summary("demo-offline").unwrap().state, "partial");

}
