//! Reading a text file into lines with the checks every importer shares: a regular file, under the input size cap,
//! not binary, valid UTF-8, not empty, no line over the segment limit. Errors carry the file, the 1-based line and
//! the byte offset from the file start.

use std::io::Read;
use std::path::Path;

use crate::ImportError;

/// The longest line accepted as one segment (1 MB). Longer lines are almost always a wrong file or a missing
/// line break, and would make every metric quadratic in their length.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The default cap on one input file, in MiB. Far above any real test set (CoCoA-MT is under 1 MB, WMT's largest
/// under 10), low enough that `/dev/zero` or a wrong multi-GB dump is refused before it exhausts memory.
pub const DEFAULT_MAX_INPUT_MB: u64 = 512;

/// The environment variable that raises (or lowers) the cap, in MiB; `--max-input-mb` overrides it.
pub const MAX_INPUT_ENV: &str = "REGISTRO_MAX_INPUT_MB";

/// The cap in MiB: `explicit` when given, else `REGISTRO_MAX_INPUT_MB`, else [`DEFAULT_MAX_INPUT_MB`].
pub fn max_input_mb(explicit: Option<u64>) -> Result<u64, ImportError> {
    let mb = match explicit {
        Some(mb) => mb,
        None => match std::env::var(MAX_INPUT_ENV) {
            Ok(v) => v.trim().parse::<u64>().map_err(|_| ImportError::BadInputLimit(format!("{MAX_INPUT_ENV}={v:?}")))?,
            Err(_) => DEFAULT_MAX_INPUT_MB,
        },
    };
    if mb == 0 {
        return Err(ImportError::BadInputLimit(format!("an input limit of 0 MiB (from --max-input-mb or {MAX_INPUT_ENV})")));
    }
    Ok(mb)
}

/// What a non-regular file is, in words a user recognises.
fn kind_of(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "FIFO (named pipe)";
        }
        if ft.is_char_device() {
            return "character device";
        }
        if ft.is_block_device() {
            return "block device";
        }
        if ft.is_socket() {
            return "socket";
        }
    }
    if ft.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

/// Reads the bytes of a regular file, refusing devices, FIFOs and directories before opening them (opening a FIFO
/// blocks until a writer appears; `/dev/zero` never ends) and anything over `max_mb` MiB. The read itself stops at
/// the cap + 1 byte, so even a file that grows while it is read cannot take more memory than the cap.
pub fn read_capped(path: &Path, max_mb: Option<u64>) -> Result<Vec<u8>, ImportError> {
    let io = |source| ImportError::Io { path: path.to_path_buf(), source };
    let (file, cap) = open_capped(path, max_mb)?;
    let mut bytes = Vec::with_capacity(file.metadata().map_or(0, |m| m.len()).min(cap) as usize);
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(cap_exceeded(path, cap));
    }
    Ok(bytes)
}

/// Opens a regular file no larger than `max_mb` MiB (the checks of [`read_capped`], for a caller that streams
/// it), and returns it with the cap in bytes, which a reader must still enforce: the file may grow while read.
pub fn open_capped(path: &Path, max_mb: Option<u64>) -> Result<(std::fs::File, u64), ImportError> {
    let io = |source| ImportError::Io { path: path.to_path_buf(), source };
    let cap = max_input_mb(max_mb)?.saturating_mul(1 << 20);
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(ImportError::NotRegularFile { path: path.to_path_buf(), kind: kind_of(meta.file_type()) });
    }
    if meta.len() > cap {
        return Err(cap_exceeded(path, cap));
    }
    Ok((std::fs::File::open(path).map_err(io)?, cap))
}

/// The error for a file over a cap of `cap` bytes.
pub fn cap_exceeded(path: &Path, cap: u64) -> ImportError {
    ImportError::TooLarge { path: path.to_path_buf(), limit_mb: cap >> 20 }
}

/// Reads `path` (a regular file under the default / environment cap) and checks it; returns its text with a
/// leading BOM removed.
pub fn read_text(path: &Path) -> Result<String, ImportError> {
    read_text_capped(path, None)
}

/// [`read_text`] with an explicit cap in MiB (`None`: `REGISTRO_MAX_INPUT_MB` or the default).
pub fn read_text_capped(path: &Path, max_mb: Option<u64>) -> Result<String, ImportError> {
    check_bytes(path, read_capped(path, max_mb)?)
}

/// The checks of [`read_text`] on bytes already read.
pub fn check_bytes(path: &Path, bytes: Vec<u8>) -> Result<String, ImportError> {
    let line_at = |offset: usize| bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(ImportError::Binary { path: path.to_path_buf(), line: line_at(offset), byte_offset: offset });
    }
    if let Err(e) = std::str::from_utf8(&bytes) {
        let offset = e.valid_up_to();
        return Err(ImportError::InvalidUtf8 { path: path.to_path_buf(), line: line_at(offset), byte_offset: offset });
    }
    let mut text = String::from_utf8(bytes).expect("checked above");
    if text.starts_with('\u{feff}') {
        text.drain(..3);
    }
    if text.trim().is_empty() {
        return Err(ImportError::Empty { path: path.to_path_buf() });
    }
    for (i, line) in text.split('\n').enumerate() {
        if line.len() > MAX_LINE_BYTES {
            return Err(ImportError::LineTooLong { path: path.to_path_buf(), line: i + 1, len: line.len() });
        }
    }
    Ok(text)
}

/// Splits checked text into lines: `\n` or `\r\n` separated, a final newline does not add an empty line.
/// Blank lines are kept, because paired files are aligned by line number.
pub fn split_lines(text: &str) -> Vec<String> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l).to_string()).collect()
}

/// [`read_text`] then [`split_lines`].
pub fn read_lines(path: &Path) -> Result<Vec<String>, ImportError> {
    read_lines_capped(path, None)
}

/// [`read_text_capped`] then [`split_lines`].
pub fn read_lines_capped(path: &Path, max_mb: Option<u64>) -> Result<Vec<String>, ImportError> {
    Ok(split_lines(&read_text_capped(path, max_mb)?))
}
