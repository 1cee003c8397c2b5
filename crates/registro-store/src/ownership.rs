//! Whose file is this? Before the store changes anything in a file (journal mode, migrations, its header), it
//! looks at the file through a read-only connection and decides whether it is a Registro store, an empty file to
//! initialise, or somebody else's data, which must be left byte-identical.
//!
//! A store is recognised by `PRAGMA application_id` = [`APPLICATION_ID`]. Stores written before the id existed
//! (schema version 1) have id 0; they are recognised by having exactly Registro's tables, and get the id stamped
//! when they are migrated.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::error::StoreError;
use crate::schema::SCHEMA_VERSION;

/// "Rgst" — written to the SQLite header of every store (`PRAGMA application_id`).
pub const APPLICATION_ID: i32 = 0x5267_7374;

/// The tables of schema version 1, the last version written without an application id.
const V1_TABLES: &[&str] = &["documents", "judgments", "metric_results", "outputs", "projects", "refs", "runs", "segments"];

/// What the read-only look found.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// No file, an empty file, or a SQLite file with nothing in it: initialise it.
    New,
    /// A Registro store (possibly one from before the application id, which gets it stamped by the migration).
    Ours,
}

/// Looks at `path` without writing to it (nor creating `-wal`/`-shm`/`-journal` files beside it) and says whether
/// the store may open it. Every refusal names the file and what it is.
pub(crate) fn check(path: &Path) -> Result<Verdict, StoreError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Verdict::New),
        Err(source) => return Err(StoreError::Io { path: path.to_path_buf(), source }),
    };
    if !meta.is_file() {
        // A FIFO or a device would block or stream forever; a folder is a typo.
        return Err(StoreError::NotAStore {
            path: path.to_path_buf(),
            what: format!("{}, not a regular file", kind_of(&meta)),
        });
    }
    if meta.len() == 0 {
        return Ok(Verdict::New);
    }
    // SQLite looks first. Reading the file with `std::fs` would be simpler, but closing that descriptor drops every
    // POSIX lock this process holds on the file (they belong to the process, not the descriptor): with the app's
    // shared connection open, another process could then take the store as unused, checkpoint and delete the WAL
    // under it — "database disk image is malformed" (tests/two_processes.rs). SQLite's own descriptors know this.
    let info = match inspect(path) {
        Ok(info) => info,
        Err(e) => {
            // Not readable as SQLite: no connection of ours can be using it, so the raw bytes may say what it is.
            let header = read_header(path)?;
            if !header.starts_with(b"SQLite format 3\0") {
                let what = if header.len() < 16 {
                    format!("not a SQLite database (only {} bytes long)", meta.len())
                } else {
                    format!("not a SQLite database (it starts with {})", describe_bytes(&header[..16]))
                };
                return Err(StoreError::NotAStore { path: path.to_path_buf(), what });
            }
            return Err(e);
        }
    };
    classify(path, &info)
}

/// The schema version of the store at `path`, looked at read-only (the file is never created, migrated or locked;
/// for `registro doctor`): None when there is no file yet or it is empty, an error saying what the file is when the
/// store would refuse it.
pub fn peek_schema_version(path: &Path) -> Result<Option<i64>, StoreError> {
    match check(path)? {
        Verdict::New => Ok(None),
        Verdict::Ours => Ok(Some(inspect(path)?.user_version)),
    }
}

/// What the header and schema of a SQLite file say.
#[derive(Debug)]
struct Info {
    application_id: i32,
    user_version: i64,
    tables: Vec<String>,
}

fn classify(path: &Path, info: &Info) -> Result<Verdict, StoreError> {
    let not_ours = |what: String| Err(StoreError::NotAStore { path: path.to_path_buf(), what });
    let tables = info.tables.join(", ");
    if info.application_id == APPLICATION_ID {
        if info.user_version < 0 {
            return Err(StoreError::Damaged {
                path: path.to_path_buf(),
                what: format!("schema version {} (negative; Registro never writes that)", info.user_version),
            });
        }
        if info.user_version > SCHEMA_VERSION {
            return Err(StoreError::TooNew { path: path.to_path_buf(), found: info.user_version, supported: SCHEMA_VERSION });
        }
        if info.user_version == 0 && !info.tables.is_empty() {
            return Err(StoreError::Damaged {
                path: path.to_path_buf(),
                what: format!("schema version 0 but it has tables ({tables})"),
            });
        }
        return Ok(Verdict::Ours);
    }
    if info.application_id != 0 {
        return not_ours(format!(
            "a SQLite database of another application (application_id {:#010x}, tables: {})",
            info.application_id,
            if tables.is_empty() { "none".into() } else { tables }
        ));
    }
    if info.tables.is_empty() && info.user_version == 0 {
        return Ok(Verdict::New);
    }
    let ours = info.tables.iter().map(String::as_str).eq(V1_TABLES.iter().copied());
    if ours {
        match info.user_version {
            1 => return Ok(Verdict::Ours),
            v if v > SCHEMA_VERSION => {
                return Err(StoreError::TooNew { path: path.to_path_buf(), found: v, supported: SCHEMA_VERSION })
            }
            v => {
                return Err(StoreError::Damaged {
                    path: path.to_path_buf(),
                    what: format!("Registro's tables but schema version {v}, which no Registro store without an application id has"),
                })
            }
        }
    }
    not_ours(format!(
        "a SQLite database of another application (application_id 0, user_version {}, tables: {})",
        info.user_version,
        if tables.is_empty() { "none".into() } else { tables }
    ))
}

fn read_header(path: &Path) -> Result<Vec<u8>, StoreError> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?;
    let mut buf = Vec::with_capacity(100);
    f.by_ref().take(100).read_to_end(&mut buf).map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?;
    Ok(buf)
}

/// Reads id, version and table names through a connection that cannot write. When no `-wal` file exists, the
/// main file holds everything and is opened `immutable` (no locks, no side files at all); when one exists, a
/// writer is using the file and a plain read-only connection shares its WAL.
fn inspect(path: &Path) -> Result<Info, StoreError> {
    let wal = sidecar(path, "-wal");
    let immutable = !wal.exists();
    let uri = format!("file:{}{}", uri_path(path), if immutable { "?immutable=1" } else { "" });
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let damaged = |e: rusqlite::Error| StoreError::Damaged { path: path.to_path_buf(), what: format!("unreadable ({e})") };
    let conn = Connection::open_with_flags(&uri, flags).map_err(|source| StoreError::Open { path: path.to_path_buf(), source })?;
    let application_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(damaged)?;
    let user_version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(damaged)?;
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        .map_err(damaged)?;
    let tables = stmt.query_map([], |r| r.get(0)).and_then(|rows| rows.collect::<Result<Vec<String>, _>>()).map_err(damaged)?;
    Ok(Info { application_id, user_version, tables })
}

pub(crate) fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// A path as the path part of a SQLite `file:` URI: everything but unreserved characters and `/` percent-encoded,
/// so `?`, `#` and `%` in file names cannot be read as URI syntax.
fn uri_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        abs.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = abs.to_string_lossy().replace('\\', "/").into_bytes();
    let mut out = String::with_capacity(bytes.len() + 8);
    if cfg!(not(unix)) {
        // Windows paths start with a drive letter; the URI path must start with a slash.
        out.push('/');
    }
    for b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~' | b':') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

fn describe_bytes(b: &[u8]) -> String {
    if let Ok(s) = std::str::from_utf8(b) {
        if s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t') {
            return format!("{:?}", s);
        }
    }
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}
