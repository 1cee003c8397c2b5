//! The per-model lock file `<cache>/<id>/.registro-lock.json`: the size, mtime and sha256 each file had when it
//! was last fetched or verified. It lets `list` report "verified" without rehashing gigabytes, and it is where a
//! trust-on-first-download file's first hash is kept.
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
    pub sha256: String,
    /// Modification time (seconds) when hashed; a different mtime means the file changed since.
    pub mtime: u64,
    pub source: String,
    /// Unix seconds of the fetch or verification.
    pub checked_at: u64,
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

    pub fn record(&mut self, name: &str, path: &Path, sha256: &str, source: &str) {
        let (bytes, mtime) = stat(path).unwrap_or((0, 0));
        let now = std::time::SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        self.files.insert(
            name.to_string(),
            LockEntry { bytes, sha256: sha256.to_string(), mtime, source: source.to_string(), checked_at: now },
        );
    }

    /// The recorded hash, if the file on disk is still the one that was hashed.
    pub fn fresh_sha(&self, name: &str, path: &Path) -> Option<&str> {
        let e = self.files.get(name)?;
        let (bytes, mtime) = stat(path)?;
        (e.bytes == bytes && e.mtime == mtime).then_some(e.sha256.as_str())
    }
}

pub fn stat(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    let mtime = m.modified().ok()?.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some((m.len(), mtime))
}
