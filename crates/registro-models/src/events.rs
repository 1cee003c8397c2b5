//! What the manager tells its caller while it works: the CLI prints these, the app forwards them to the UI.
use std::time::{Duration, Instant};

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Download,
    Copy,
    Extract,
    Hash,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum FetchEvent {
    /// Trying `source` for `file`.
    Trying { file: String, source: String },
    Progress {
        file: String,
        stage: Stage,
        done: u64,
        /// Unknown when a server sends no length.
        total: Option<u64>,
        bytes_per_sec: f64,
        eta_secs: Option<f64>,
    },
    /// A source failed; the next one is tried.
    SourceFailed { file: String, source: String, error: String },
    /// The file is in place and its hash matched (or was recorded, for trust-on-first-download files).
    Done { file: String, sha256: String, bytes: u64, recorded_first_hash: bool },
    /// Already present and verified earlier; nothing to do.
    AlreadyPresent { file: String },
    /// Another fetch or verification of model `id` holds its lock (`holder` says which process, when known);
    /// this one waits for it to finish.
    Waiting { id: String, holder: String, lock: std::path::PathBuf },
}

/// Turns byte counts into throttled progress events with rate and ETA.
pub(crate) struct Meter<'a> {
    file: String,
    stage: Stage,
    total: Option<u64>,
    start: Instant,
    base: u64,
    last_emit: Option<Instant>,
    sink: &'a mut dyn FnMut(FetchEvent),
}

impl<'a> Meter<'a> {
    /// `base` bytes were already there (a resumed download): they count toward `done` but not toward the rate.
    pub fn new(file: &str, stage: Stage, total: Option<u64>, base: u64, sink: &'a mut dyn FnMut(FetchEvent)) -> Self {
        Self { file: file.to_string(), stage, total, start: Instant::now(), base, last_emit: None, sink }
    }

    pub fn update(&mut self, done: u64) {
        let now = Instant::now();
        if self.last_emit.is_some_and(|t| now - t < Duration::from_millis(250)) {
            return;
        }
        self.last_emit = Some(now);
        self.emit(done);
    }

    pub fn finish(&mut self, done: u64) {
        self.emit(done);
    }

    fn emit(&mut self, done: u64) {
        let secs = self.start.elapsed().as_secs_f64().max(1e-6);
        let rate = done.saturating_sub(self.base) as f64 / secs;
        let eta = match self.total {
            Some(t) if rate > 0.0 && t >= done => Some((t - done) as f64 / rate),
            _ => None,
        };
        (self.sink)(FetchEvent::Progress {
            file: self.file.clone(),
            stage: self.stage,
            done,
            total: self.total,
            bytes_per_sec: rate,
            eta_secs: eta,
        });
    }
}

/// "1.2 GB", "35.0 MB" for messages.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u < UNITS.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
