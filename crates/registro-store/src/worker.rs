//! Identity and liveness of the process driving a run. A pid alone is reused by the OS, so on Linux the identity
//! is `pid:start-time` (field 22 of /proc/<pid>/stat), which no other process shares.
//!
//! This process's own runs need more than a pid: the app lives for days, and a run whose thread panicked is as
//! dead as one whose process was killed. So `start_run` registers (database, run) here and `finish_run` removes
//! it; a run of this process that is not registered is no longer executing.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::RunId;

/// (database, run) → the store (connection) executing it.
static EXECUTING: Mutex<Option<HashMap<(String, RunId), u64>>> = Mutex::new(None);

pub(crate) fn register(db: &str, run: RunId, store: u64) {
    let mut g = EXECUTING.lock().unwrap_or_else(PoisonError::into_inner);
    g.get_or_insert_with(HashMap::new).insert((db.to_string(), run), store);
}

/// Forgets the run; with `owner`, only if that store is still the one executing it (a store being dropped must
/// not forget a run another store resumed meanwhile). Returns whether it was forgotten.
pub(crate) fn unregister(db: &str, run: RunId, owner: Option<u64>) -> bool {
    let mut g = EXECUTING.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(map) = g.as_mut() else { return false };
    let key = (db.to_string(), run);
    match (map.get(&key), owner) {
        (Some(&s), Some(o)) if s != o => false,
        (Some(_), _) => map.remove(&key).is_some(),
        (None, _) => false,
    }
}

fn executing_here(db: &str, run: RunId) -> bool {
    let g = EXECUTING.lock().unwrap_or_else(PoisonError::into_inner);
    g.as_ref().is_some_and(|map| map.contains_key(&(db.to_string(), run)))
}

pub(crate) fn current() -> String {
    let pid = std::process::id();
    match start_time(pid) {
        Some(t) => format!("{pid}:{t}"),
        None => pid.to_string(),
    }
}

/// Whether run `run` of database `db`, recorded as driven by `worker`, is still being executed: by another process
/// that still exists, or by this process with the run still registered. An unparsable worker counts as dead.
pub(crate) fn is_alive(worker: &str, db: &str, run: RunId) -> bool {
    let mut parts = worker.splitn(2, ':');
    let Some(pid) = parts.next().and_then(|p| p.parse::<u32>().ok()) else { return false };
    let start = parts.next();
    if pid == std::process::id() && (start.is_none() || start_time(pid).as_deref() == start) {
        return executing_here(db, run);
    }
    alive_other(pid, start)
}

#[cfg(target_os = "linux")]
fn alive_other(pid: u32, start: Option<&str>) -> bool {
    match start_time(pid) {
        None => false,
        Some(t) => start.is_none_or(|s| s == t),
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn alive_other(pid: u32, _start: Option<&str>) -> bool {
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(true)
}

#[cfg(not(unix))]
fn alive_other(_pid: u32, _start: Option<&str>) -> bool {
    // No cheap portable probe: treat other processes' runs as dead. A live writer is not harmed: its outputs keep
    // landing and its final status overwrites the "interrupted" mark.
    false
}

#[cfg(target_os = "linux")]
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses; fields after the last ')' are plain.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_string)
}

#[cfg(not(target_os = "linux"))]
fn start_time(_pid: u32) -> Option<String> {
    None
}
