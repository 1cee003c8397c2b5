//! Reading a text file into lines with the checks every importer shares: not binary, valid UTF-8, not empty, no
//! line over the segment limit. Errors carry the file, the 1-based line and the byte offset from the file start.

use std::path::Path;

use crate::ImportError;

/// The longest line accepted as one segment (1 MB). Longer lines are almost always a wrong file or a missing
/// line break, and would make every metric quadratic in their length.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Reads `path` and checks it; returns its text with a leading BOM removed.
pub fn read_text(path: &Path) -> Result<String, ImportError> {
    let bytes = std::fs::read(path).map_err(|source| ImportError::Io { path: path.to_path_buf(), source })?;
    check_bytes(path, bytes)
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
    Ok(split_lines(&read_text(path)?))
}
