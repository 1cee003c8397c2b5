//! Why a fetch failed, as a kind a face can turn into advice ("check the connection", "free disk space"). The
//! kind travels inside the `anyhow` error as a [`Failure`], so the message and its context chain stay as they were
//! and only the places that know the cause (HTTP, the `.part` writer, the checksum check) have to say it.
use serde::Serialize;

/// What went wrong, from the user's side of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// No answer from the server: no network, DNS, refused or dropped connection, a proxy in the way.
    Offline,
    /// The server's TLS certificate is not trusted by this machine.
    Certificate,
    /// The disk holding the cache is full (or over quota).
    DiskFull,
    /// The file arrived but is not the manifest's (size or sha256); it was deleted.
    Checksum,
    /// The server answered with an HTTP error (404, 403, 500 …).
    Server,
    /// Anything else (a missing local file, a malformed archive, …): the message says it.
    Other,
}

/// An error with its [`FailureKind`]; displays as its message alone.
#[derive(Debug)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Failure { kind, message: message.into() }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The kind of a fetch error: the first [`Failure`] in its chain, else a full disk when an I/O error says so.
pub fn failure_kind(err: &anyhow::Error) -> FailureKind {
    for cause in err.chain() {
        if let Some(f) = cause.downcast_ref::<Failure>() {
            return f.kind;
        }
        if cause.downcast_ref::<crate::http::Retryable>().is_some() {
            return FailureKind::Offline;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            if is_disk_full(io) {
                return FailureKind::DiskFull;
            }
        }
    }
    FailureKind::Other
}

fn is_disk_full(e: &std::io::Error) -> bool {
    // ENOSPC and EDQUOT on Linux (28, 122); `StorageFull` covers the other systems' codes.
    e.kind() == std::io::ErrorKind::StorageFull || (cfg!(unix) && matches!(e.raw_os_error(), Some(28) | Some(122)))
}

/// Which of several sources' failures speaks for all of them: a full disk or a bad file first (another source
/// cannot help), then an untrusted certificate, then the network, before a server's refusal or a missing local
/// copy (listed for every model that has a local source, and never the reason a download failed).
pub(crate) fn dominant(kinds: &[FailureKind]) -> FailureKind {
    const ORDER: [FailureKind; 6] = [
        FailureKind::DiskFull,
        FailureKind::Checksum,
        FailureKind::Certificate,
        FailureKind::Offline,
        FailureKind::Server,
        FailureKind::Other,
    ];
    ORDER.into_iter().find(|k| kinds.contains(k)).unwrap_or(FailureKind::Other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn the_kind_is_found_under_context() {
        let e = anyhow::Error::new(Failure::new(FailureKind::Checksum, "sha256 mismatch")).context("fetching model x");
        assert_eq!(failure_kind(&e), FailureKind::Checksum);
        assert_eq!(format!("{e:#}"), "fetching model x: sha256 mismatch");
        let full: anyhow::Result<()> = Err(std::io::Error::from_raw_os_error(28)).context("writing a.part");
        assert_eq!(failure_kind(&full.unwrap_err()), FailureKind::DiskFull);
        assert_eq!(failure_kind(&anyhow::anyhow!("something")), FailureKind::Other);
    }

    #[test]
    fn a_local_copy_missing_never_hides_the_network() {
        assert_eq!(dominant(&[FailureKind::Other, FailureKind::Offline, FailureKind::Offline]), FailureKind::Offline);
        assert_eq!(dominant(&[FailureKind::Offline, FailureKind::DiskFull]), FailureKind::DiskFull);
        assert_eq!(dominant(&[]), FailureKind::Other);
    }
}
