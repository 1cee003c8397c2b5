//! Fixtures shared by the tests of several crates (core, CLI, the window tests), so each is written once. Only
//! `[dev-dependencies]` name this crate; nothing a user runs links it.
#![forbid(unsafe_code)]

pub mod file_server;
pub mod llama_server;

use registro_store::{DocumentId, NewDocument, NewRun, NewSegment, Output, ProjectId, RunId, Store, Task};

/// Every file of the kept fuzz corpus `fuzz/corpus/<target>` (crash inputs included), sorted, with its bytes;
/// fails when there is none, so a moved corpus cannot pass unnoticed.
pub fn fuzz_corpus(target: &str) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let dir = fuzz_corpus_dir(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no corpus", dir.display());
    files
}

/// A loopback port nobody listens on now (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A real HTTP server on loopback that answers one request with `404 Not Found` and closes (a host that is
/// reachable): its port, and its thread to join once the request was made.
pub fn one_404_server() -> (u16, std::thread::JoinHandle<()>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        let mut buf = [0u8; 2048];
        let _ = c.read(&mut buf);
        c.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").unwrap();
    });
    (port, server)
}

/// The calling test's crate folder (`crates/<name>`), which `cargo test` names in `CARGO_MANIFEST_DIR` at run time.
/// Not a compile-time path (`env!`): cargo reuses a build across checkouts of the repository (the target dir is
/// shared), so a path baked in at compile time can name another clone, and tests failed with "No such file or
/// directory" in the one that did not build them last.
pub fn crate_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from).unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into())
}

/// The folder of the kept fuzz corpus `fuzz/corpus/<target>`, found from the calling test's crate ([`crate_dir`]).
pub fn fuzz_corpus_dir(target: &str) -> std::path::PathBuf {
    crate_dir().join("../../fuzz/corpus").join(target)
}

/// An English text document `name` of `sources`, without references: what a paste or a .txt import stores.
pub fn text_document(name: &str, sources: &[&str]) -> NewDocument {
    NewDocument {
        name: name.into(),
        source_lang: "en".into(),
        format: "text".into(),
        segments: sources.iter().map(|s| NewSegment { text: s.to_string(), references: Vec::new() }).collect(),
        ..Default::default()
    }
}

/// [`text_document`] stored in `project`.
pub fn store_text_document(store: &mut Store, project: ProjectId, name: &str, sources: &[&str]) -> DocumentId {
    store.insert_document(project, &text_document(name, sources)).expect("the fixture document is stored")
}

/// A finished-looking translation run, as Translate leaves it: an EN→`target_lang` document of the `pairs`'
/// sources (named `doc_name`, format taken from its extension) and a run over it whose outputs are the pairs'
/// targets, in project `project`.
pub struct StoredTranslation<'a> {
    pub project: ProjectId,
    pub doc_name: &'a str,
    pub target_lang: &'a str,
    pub register: Option<&'a str>,
    pub pairs: &'a [(&'a str, &'a str)],
    /// The run's parameters; `None` leaves `NewRun`'s default.
    pub params: Option<serde_json::Value>,
}

impl StoredTranslation<'_> {
    pub fn store(&self, store: &mut Store) -> RunId {
        let format = match self.doc_name.rsplit_once('.').map(|(_, ext)| ext) {
            Some("xlf" | "xliff") => "xliff",
            _ => "text",
        };
        let sources: Vec<&str> = self.pairs.iter().map(|(s, _)| *s).collect();
        let doc = NewDocument {
            target_lang: Some(self.target_lang.into()),
            format: format.into(),
            ..text_document(self.doc_name, &sources)
        };
        let doc = store.insert_document(self.project, &doc).expect("the fixture document is stored");
        let mut run = NewRun::new(self.project, Task::Translate, "registro-prompt");
        run.document_id = Some(doc);
        run.source_lang = Some("en".into());
        run.target_lang = Some(self.target_lang.into());
        run.register = self.register.map(str::to_string);
        if let Some(params) = &self.params {
            run.params = params.clone();
        }
        let id = store.create_run(&run).expect("the fixture run is stored");
        let outputs: Vec<Output> = self.pairs.iter().enumerate().map(|(i, (_, t))| Output::new(i as i64, *t)).collect();
        store.put_outputs(id, &outputs).expect("the fixture outputs are stored");
        id
    }
}
