//! The per-model lock file `<cache>/<id>/.registro-lock.json`: what each file was when it was last fetched or
//! verified — size, a fingerprint of its inode (modification and change times, inode number), its sha256 and
//! whether that hash was the right one. It lets `list` say "ready" without rehashing gigabytes, remembers a file
//! that failed verification (so it is never loaded until fetched again), and keeps a trust-on-first-download
//! file's first hash.
//!
//! The fingerprint includes the inode change time (ctime), which no program can set back: a byte changed in
//! place with its size and mtime restored still changes it, so the file counts as unverified and is hashed again
//! before it is loaded.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub const LOCK_FILE: &str = ".registro-lock.json";

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Lock {
    pub files: BTreeMap<String, LockEntry>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LockEntry {
    pub bytes: u64,
    /// The hash the file had when it was checked.
    pub sha256: String,
    /// Modification time (seconds) when hashed; kept for lock files written by older versions.
    pub mtime: u64,
    /// Size, mtime and ctime in nanoseconds, device and inode when hashed; empty in older lock files, whose
    /// entries therefore count as stale (the file is hashed again once).
    #[serde(default)]
    pub fingerprint: String,
    pub source: String,
    /// Unix seconds of the fetch or verification.
    pub checked_at: u64,
    /// False when the hash differed from the expected one: the file is damaged and must not be loaded.
    #[serde(default = "yes")]
    pub ok: bool,
    /// For a failed file, the hash it should have had (empty when none was known).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub expected: String,
}

fn yes() -> bool {
    true
}

impl Lock {
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(LOCK_FILE)
    }

    /// A missing or unreadable lock is an empty one: it only costs a rehash.
    pub fn load(dir: &Path) -> Self {
        std::fs::read_to_string(Self::path(dir)).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        let path = Self::path(dir);
        let tmp = dir.join(format!("{LOCK_FILE}.tmp"));
        std::fs::write(&tmp, serde_json::to_string_pretty(self)?).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }

    /// Records that `path` hashed to `sha256` and that this is the right hash.
    pub fn record(&mut self, name: &str, path: &Path, sha256: &str, source: &str) {
        self.insert(name, path, sha256, source, true, "");
    }

    /// Records that `path` hashed to `actual` where `expected` was wanted: it stays refused until it changes.
    pub fn record_failure(&mut self, name: &str, path: &Path, actual: &str, expected: &str) {
        let source = self.files.get(name).map(|e| e.source.clone()).unwrap_or_default();
        self.insert(name, path, actual, &source, false, expected);
    }

    fn insert(&mut self, name: &str, path: &Path, sha256: &str, source: &str, ok: bool, expected: &str) {
        let (bytes, mtime) = stat(path).unwrap_or((0, 0));
        let now = std::time::SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        self.files.insert(
            name.to_string(),
            LockEntry {
                bytes,
                sha256: sha256.to_string(),
                mtime,
                fingerprint: fingerprint(path).unwrap_or_default(),
                source: source.to_string(),
                checked_at: now,
                ok,
                expected: expected.to_string(),
            },
        );
    }

    /// The entry for `name`, if the file on disk is still the one that was hashed.
    pub fn fresh(&self, name: &str, path: &Path) -> Option<&LockEntry> {
        let e = self.files.get(name)?;
        let now = fingerprint(path)?;
        (!e.fingerprint.is_empty() && e.fingerprint == now).then_some(e)
    }

    /// The recorded hash of a file that verified, if it is still the file that was hashed.
    pub fn fresh_sha(&self, name: &str, path: &Path) -> Option<&str> {
        self.fresh(name, path).filter(|e| e.ok).map(|e| e.sha256.as_str())
    }

    /// The hash a file must have according to this cache (trust-on-first-download files have no other record):
    /// the one it verified with, or the one it failed to match.
    pub fn trusted_sha(&self, name: &str) -> Option<String> {
        let e = self.files.get(name)?;
        let sha = if e.ok { &e.sha256 } else { &e.expected };
        (!sha.is_empty()).then(|| sha.clone())
    }
}

pub fn stat(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    let mtime = m.modified().ok()?.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some((m.len(), mtime))
}

/// What identifies this version of the file without reading it.
fn fingerprint(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    let mtime = m.modified().ok()?.duration_since(UNIX_EPOCH).ok()?.as_nanos();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(format!("{}:{mtime}:{}.{}:{}:{}", m.len(), m.ctime(), m.ctime_nsec(), m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let created = m.created().ok().and_then(|c| c.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
        Some(format!("{}:{mtime}:{created}", m.len()))
    }
}
