//! Identity and liveness of the process driving a run. A pid alone is reused by the OS, so on Linux the identity
//! is `pid:start-time` (field 22 of /proc/<pid>/stat), which no other process shares.

pub(crate) fn current() -> String {
    let pid = std::process::id();
    match start_time(pid) {
        Some(t) => format!("{pid}:{t}"),
        None => pid.to_string(),
    }
}

/// Whether the process recorded as `worker` still exists. An unparsable worker counts as dead.
pub(crate) fn is_alive(worker: &str) -> bool {
    let mut parts = worker.splitn(2, ':');
    let Some(pid) = parts.next().and_then(|p| p.parse::<u32>().ok()) else { return false };
    let start = parts.next();
    if pid == std::process::id() {
        return start.is_none() || start_time(pid).as_deref() == start;
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
