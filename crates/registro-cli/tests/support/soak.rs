//! What the soak and store-fault tests of the `registro` binary share: long generated documents (XLIFF 1.2, PO), a
//! scripted OpenAI-compatible server whose answer to a segment is a fixed function of the segment's source text and
//! which misbehaves on a fixed, seeded share of first requests (429/503 with Retry-After, 500, a dropped connection,
//! an HTTP body cut short, truncated JSON, slow answers), and the CLI run as a child process whose peak resident
//! memory is read from the kernel (its `VmHWM` high-water mark, read at every poll until it ends), killed with SIGKILL
//! or bounded in time.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

#[path = "../../../registro-remote/testsupport/fake.rs"]
pub mod fake;
use fake::{completion, Act, FakeServer};

/// A document kind of the soak: its English source lines and the formal German the server answers them with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Xliff,
    Po,
}

/// (English, formal German) sentence patterns; `{}` is the segment's number, which both keep (so the number check
/// passes and no two segments have the same text). XLIFF and PO use different patterns: the server's attempt
/// counts are kept per source text, and two tests run side by side.
const XLIFF_PATTERNS: [(&str, &str); 6] = [
    ("Please check item {} in the list.", "Bitte prüfen Sie Punkt {} in der Liste."),
    ("Could you send me report {} tomorrow?", "Könnten Sie mir morgen den Bericht {} senden?"),
    ("Thank you for your message number {}.", "Vielen Dank für Ihre Nachricht Nummer {}."),
    ("Your order {} has been shipped.", "Ihre Bestellung {} wurde versandt."),
    ("Can you call me about ticket {}?", "Können Sie mich wegen Ticket {} anrufen?"),
    ("Where do you keep folder {}?", "Wo bewahren Sie Ordner {} auf?"),
];
const PO_PATTERNS: [(&str, &str); 4] = [
    ("Do you want to save file {} before closing?", "Möchten Sie Datei {} vor dem Schließen speichern?"),
    ("You have {} new messages.", "Sie haben {} neue Nachrichten."),
    ("Please enter your password for account {}.", "Bitte geben Sie Ihr Passwort für Konto {} ein."),
    ("Your session {} has expired.", "Ihre Sitzung {} ist abgelaufen."),
];

fn patterns(kind: Kind) -> &'static [(&'static str, &'static str)] {
    match kind {
        Kind::Xliff => &XLIFF_PATTERNS,
        Kind::Po => &PO_PATTERNS,
    }
}

/// Segment `i` (0-based) of a document of `kind`: its English source.
pub fn source(kind: Kind, i: usize) -> String {
    let p = patterns(kind);
    p[i % p.len()].0.replace("{}", &(i + 1).to_string())
}

/// What the server answers for `source`, or `None` for a text no pattern makes (the connect-time probes).
pub fn answer(source: &str) -> Option<String> {
    answer_of(source).map(|(_, a)| a)
}

/// The kind of document `source` comes from, and the server's answer.
fn answer_of(source: &str) -> Option<(Kind, String)> {
    for kind in [Kind::Xliff, Kind::Po] {
        for (en, de) in patterns(kind) {
            let (head, tail) = en.split_once("{}").unwrap();
            let Some(n) = source.strip_prefix(head).and_then(|r| r.strip_suffix(tail)) else { continue };
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                return Some((kind, de.replace("{}", n)));
            }
        }
    }
    None
}

/// The expected translation of segment `i` of a document of `kind`.
pub fn expected(kind: Kind, i: usize) -> String {
    answer(&source(kind, i)).unwrap()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Writes a document of `n` segments of `kind` into `dir`; its path.
pub fn write_document(dir: &Path, kind: Kind, n: usize) -> PathBuf {
    let mut text = String::new();
    let path = match kind {
        Kind::Xliff => {
            text.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n<file original=\"manual.txt\" source-language=\"en\" target-language=\"de\" datatype=\"plaintext\"><body>\n");
            for i in 0..n {
                text.push_str(&format!("<trans-unit id=\"u{}\"><source>{}</source></trans-unit>\n", i + 1, xml_escape(&source(kind, i))));
            }
            text.push_str("</body></file>\n</xliff>\n");
            dir.join("manual.xlf")
        }
        Kind::Po => {
            text.push_str("msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Language: de\\n\"\n\n");
            for i in 0..n {
                text.push_str(&format!("#: src/ui.c:{}\nmsgid \"{}\"\nmsgstr \"\"\n\n", i + 1, source(kind, i)));
            }
            dir.join("ui.po")
        }
    };
    std::fs::write(&path, text).unwrap();
    path
}

/// The faults the servers injected, per document kind (XLIFF, PO) and fault.
pub static FAULTS: [[AtomicUsize; 7]; 2] = [const { [const { AtomicUsize::new(0) }; 7] }; 2];
pub const FAULT_NAMES: [&str; 7] = ["429", "503", "500", "dropped", "cut body", "truncated JSON", "slow"];

/// How often each source text has been asked for: a fault is injected on the first request for a text (and on the
/// second for a few), so every retry or resume eventually gets the answer.
fn attempts() -> &'static Mutex<HashMap<String, u32>> {
    static A: OnceLock<Mutex<HashMap<String, u32>>> = OnceLock::new();
    A.get_or_init(Default::default)
}

/// FNV-1a: the seeded, platform-independent choice of which texts misbehave.
pub fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// The fault (if any) for the `attempt`-th request of a text hashed to `h`: about 4% of texts get a quick one
/// (429/503 with Retry-After 0), 4% one the client backs off from (500, dropped, cut, truncated JSON), 0.5% two in
/// a row, 3% a slow answer (0.1–0.4 s).
fn fault(h: u64, attempt: u32) -> Option<(usize, Act)> {
    let busy = r#"{"error":{"message":"busy"}}"#;
    let slot = h % 200;
    let act = match (slot, attempt) {
        (0..=5, 0) => (0, Act::json(429, busy).header("Retry-After", "0")),
        (6..=7, 0) => (1, Act::json(503, busy).header("Retry-After", "0")),
        (8..=9, 0) | (30, 0) => (2, Act::json(500, r#"{"error":{"message":"internal error"}}"#)),
        (10..=11, 0) | (30, 1) => (3, Act::Drop),
        (12..=13, 0) => (4, Act::Truncate(r#"{"choices":[{"text":"Bitte"#.into())),
        (14..=15, 0) => (5, Act::json(200, r#"{"choices":[{"text":"Bitte prü"#)),
        _ => return None,
    };
    Some(act)
}

/// Answers like vLLM serving one Qwen model (no tokenize endpoint), each completion by its prompt's last user turn.
pub fn respond(path: &str, body: &str) -> Act {
    fake::vllm_qwen(path, body, answer_turn)
}

/// A completion for the last user turn `turn`: the server's deterministic answer, after the fault (if any) this
/// attempt at the text gets.
fn answer_turn(turn: Option<&str>) -> Act {
    // The connect-time probes ("The capital of France is") and anything else unknown.
    let Some((source, (kind, answer))) = turn.and_then(|s| Some((s, answer_of(s)?))) else {
        return completion(" Paris");
    };
    let attempt = {
        let mut a = attempts().lock().unwrap();
        let n = a.entry(source.to_string()).or_default();
        *n += 1;
        *n - 1
    };
    let h = fnv(source);
    let faults = &FAULTS[kind as usize];
    if let Some((which, act)) = fault(h, attempt) {
        faults[which].fetch_add(1, Ordering::SeqCst);
        return act;
    }
    if attempt == 0 && (16..=21).contains(&(h % 200)) {
        faults[6].fetch_add(1, Ordering::SeqCst);
        return completion(&answer).delay(Duration::from_millis(100 + (h >> 8) % 300));
    }
    completion(&answer)
}

/// The scripted server for a soak (one per test; its port stays the same across kills, as a resume reconnects to
/// the run's backend URL).
pub fn server() -> FakeServer {
    FakeServer::start_with(Vec::new(), respond)
}

/// The faults injected so far into requests for documents of `kind`, for the log.
pub fn faults_summary(kind: Kind) -> String {
    FAULT_NAMES.iter().zip(&FAULTS[kind as usize]).map(|(n, c)| format!("{n} {}", c.load(Ordering::SeqCst))).collect::<Vec<_>>().join(", ")
}

/// A small seeded generator (xorshift64*): the kill points are the same on every machine for one seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo).max(1)
    }
}

/// `registro --db DB ARGS` against the fast path's environment: no `REGISTRO_DB`/`REGISTRO_BACKEND` of the caller,
/// an API key in the environment so the OS keyring is never asked, output into files of `dir` named `label`.
pub fn command(dir: &Path, db: &Path, args: &[&str], label: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_registro"));
    cmd.arg("--db")
        .arg(db)
        .args(args)
        .env_remove("REGISTRO_DB")
        .env_remove("REGISTRO_BACKEND")
        .env_remove("REGISTRO_BACKEND_MODEL")
        .env("REGISTRO_API_KEY", "sk-soak-test")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join(format!("{label}.stdout"))).unwrap())
        .stderr(std::fs::File::create(dir.join(format!("{label}.stderr"))).unwrap());
    cmd
}

/// `translate`'s fast path for a document through the backend at `url`: formal German, one greedy candidate, no
/// sentence examples, no meaning check.
pub fn translate_args(url: &str, input: &Path, output: &Path) -> Vec<String> {
    [
        "translate", "--backend", url, "--lang", "de", "--register", "formal", "--n-best", "1", "--sentence-examples", "0",
        "--no-meaning-check", "--input",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([input.display().to_string(), "--output".into(), output.display().to_string()])
    .collect()
}

/// A child `registro` whose exit (and peak memory) is collected with `wait4`.
pub struct Proc {
    pub pid: libc::pid_t,
    started: Instant,
    done: Option<(i32, u64)>,
    /// The child's own peak resident memory (`VmHWM`, KiB) and the largest RssAnon, RssFile and RssShmem seen in
    /// /proc while it ran, read at each poll: its peak, and what it is made of (heap, mapped files, shared memory).
    /// `wait4`'s `ru_maxrss` is not used: Linux carries the spawning process's memory into it at exec (a child of
    /// this test process read 68 MiB there while its own high-water mark never passed 30 MiB).
    hwm_kib: u64,
    pub parts_kib: [u64; 3],
}

/// How a child ended: its raw wait status, and its peak resident memory in KiB.
#[derive(Clone, Copy, Debug)]
pub struct Ended {
    pub status: i32,
    pub peak_rss_kib: u64,
}

impl Ended {
    pub fn success(&self) -> bool {
        libc::WIFEXITED(self.status) && libc::WEXITSTATUS(self.status) == 0
    }

    pub fn killed(&self) -> bool {
        libc::WIFSIGNALED(self.status) && libc::WTERMSIG(self.status) == libc::SIGKILL
    }
}

impl Proc {
    pub fn spawn(mut cmd: Command) -> Proc {
        let child = cmd.spawn().expect("the registro binary starts");
        // The child is reaped with wait4 below, not through std's handle (whose wait would race the /proc reads).
        let pid = child.id() as libc::pid_t;
        std::mem::forget(child);
        Proc { pid, started: Instant::now(), done: None, hwm_kib: 0, parts_kib: [0; 3] }
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The child's end, if it has ended (reaped once; later calls return the same).
    pub fn poll(&mut self) -> Option<Ended> {
        if self.done.is_none() {
            if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", self.pid)) {
                let kib = |key: &str| -> u64 {
                    status.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()).unwrap_or(0)
                };
                // Before its exec the child is a copy of this process: only the registro image counts.
                if status.lines().any(|l| l.starts_with("Name:") && l.contains("registro")) {
                    self.hwm_kib = self.hwm_kib.max(kib("VmHWM:"));
                    for (k, key) in ["RssAnon:", "RssFile:", "RssShmem:"].iter().enumerate() {
                        self.parts_kib[k] = self.parts_kib[k].max(kib(key));
                    }
                }
            }
            let mut status = 0;
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            let r = unsafe { libc::wait4(self.pid, &mut status, libc::WNOHANG, &mut usage) };
            if r == self.pid {
                self.done = Some((status, self.hwm_kib));
            }
        }
        self.done.map(|(status, peak_rss_kib)| Ended { status, peak_rss_kib })
    }

    /// SIGKILL (no chance to clean up, as a power cut), then reaped.
    pub fn kill(&mut self) -> Ended {
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        self.wait(Duration::from_secs(30))
    }

    /// Waits for the end; past `limit` the child is killed and the test fails.
    pub fn wait(&mut self, limit: Duration) -> Ended {
        let t0 = Instant::now();
        loop {
            if let Some(e) = self.poll() {
                return e;
            }
            if t0.elapsed() > limit {
                unsafe { libc::kill(self.pid, libc::SIGKILL) };
                std::thread::sleep(Duration::from_millis(200));
                self.poll();
                panic!("registro (pid {}) did not finish within {limit:?}", self.pid);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Proc {
    /// A test that fails midway leaves no child behind.
    fn drop(&mut self) {
        if self.poll().is_none() {
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
            let mut status = 0;
            unsafe { libc::waitpid(self.pid, &mut status, 0) };
        }
    }
}

/// The last lines of a child's stderr file, for a failure message.
pub fn tail(dir: &Path, label: &str) -> String {
    let t = std::fs::read_to_string(dir.join(format!("{label}.stderr"))).unwrap_or_default();
    let lines: Vec<&str> = t.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

/// An empty folder for test `name`, removed when the value is dropped (kept when `REGISTRO_SOAK_KEEP` is set).
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("registro-soak-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("REGISTRO_SOAK_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A number from the environment, else `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Run `run` of the store at `db` after a soak: the store passes `PRAGMA integrity_check`, the run is done with `n`
/// segments, each stored exactly once and in order, none missing. Returns the store and the outputs.
pub fn finished_run(db: &Path, run: i64, n: usize) -> (registro_store::Store, Vec<registro_store::Output>) {
    let store = registro_store::Store::open(db).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let r = store.run(run).unwrap();
    assert_eq!(r.status, registro_store::RunStatus::Done, "{:?}", r.error);
    assert_eq!(r.total_segments as usize, n);
    let outputs = store.outputs(run).unwrap();
    assert_eq!(outputs.len(), n, "every segment stored exactly once");
    for (i, o) in outputs.iter().enumerate() {
        assert_eq!(o.segment_index as usize, i, "segments in order, none twice");
    }
    assert!(store.missing_segments(run).unwrap().is_empty());
    (store, outputs)
}

/// The run exported in `kind`'s format (written to `dir`): valid by the format's own tool where it is installed
/// (xmllint / msgfmt), one unit per segment with its source and `target(i)`, and the same bytes when what was read
/// back is exported again.
pub fn check_export(store: &registro_store::Store, run: i64, kind: Kind, dir: &Path, n: usize, target: impl Fn(usize) -> String) {
    let export = registro_core::documents::export_run(store, run).unwrap();
    assert_eq!((export.translated, export.sentences), (n, n));
    let (format, ext, tool, args): (_, _, _, &[&str]) = match kind {
        Kind::Xliff => (registro_formats::Format::Xliff, "xlf", "xmllint", &["--noout"]),
        Kind::Po => (registro_formats::Format::Po, "po", "msgfmt", &["--check", "-o", "/dev/null"]),
    };
    let exported = dir.join(format!("exported.{ext}"));
    std::fs::write(&exported, &export.bytes).unwrap();
    match Command::new(tool).args(args).arg(&exported).output() {
        Ok(out) => assert!(out.status.success(), "{tool} refuses the export: {}", String::from_utf8_lossy(&out.stderr)),
        Err(_) => println!("{tool} is not installed: the export is checked by registro-formats only"),
    }
    let back = registro_formats::import(&export.bytes, format).expect("the export parses");
    let units: Vec<_> = back.segments.iter().filter(|s| !s.source.is_empty()).collect();
    assert_eq!(units.len(), n, "one unit per segment");
    for (i, u) in units.iter().enumerate() {
        assert_eq!(u.source, source(kind, i), "unit {i}'s source");
        assert_eq!(u.existing_target.as_deref(), Some(target(i).as_str()), "unit {i}'s target");
    }
    let targets: Vec<Option<String>> = back.segments.iter().map(|s| s.existing_target.clone()).collect();
    assert!(back.export(&targets).unwrap() == export.bytes, "exporting what was read back gives the same bytes");
}
