//! Documents in, documents out, the way the Okapi framework does it: an import keeps the original bytes as the
//! skeleton and records, per segment, the byte spans its translation will replace. An export with no translation
//! therefore gives back the very same bytes, and one with translations changes nothing but the text.
//!
//! Inline markup (XLIFF `<g>`, `<x/>`, `<ph>`, `<pc>`, …) reaches the translator as numbered placeholders
//! (`<1>`, `</1>`, `<2/>`) and is put back verbatim on export.

mod po;
pub mod segment;
mod subtitles;
mod tmx;
mod xliff;

use std::ops::Range;

pub use segment::split_sentences;
pub use subtitles::long_lines;
pub use tmx::{tmx, TmxUnit};

/// Imports refuse bigger files: every format here is text a translator reads, and a bound keeps a hostile file
/// from exhausting memory.
pub const MAX_INPUT_BYTES: usize = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Xliff,
    Srt,
    Vtt,
    Po,
}

impl Format {
    /// The format a file name's extension names (`.xlf`, `.xliff`, `.sdlxliff`, `.srt`, `.vtt`, `.po`, `.pot`).
    pub fn from_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Format::from_name(&ext)
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Some(match name.to_ascii_lowercase().as_str() {
            "xlf" | "xliff" | "sdlxliff" | "mqxliff" => Format::Xliff,
            "srt" => Format::Srt,
            "vtt" | "webvtt" => Format::Vtt,
            "po" | "pot" => Format::Po,
            _ => return None,
        })
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FormatError {
    #[error("{what} is {size} bytes; the limit is {limit} bytes (split the file)")]
    TooBig {
        what: String,
        size: usize,
        limit: usize,
    },
    #[error("the file is not UTF-8 text (byte {0}); save it as UTF-8 and import it again")]
    NotUtf8(usize),
    #[error("line {line}: {msg}")]
    Syntax { line: usize, msg: String },
    #[error("{0}")]
    Unsupported(String),
}

pub(crate) fn line_of(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// One piece of an inline tag kept aside while the text is translated.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InlineTag {
    /// What the translator sees, e.g. `<1>`, `</1>`, `<2/>`.
    pub token: String,
    /// The original markup, written back verbatim.
    pub raw: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Segment {
    /// The unit's id in the file (XLIFF id, cue number, msgctxt+msgid), for the grid and for QA reports.
    pub id: String,
    /// Source text with inline tags as placeholders.
    pub source: String,
    pub tags: Vec<InlineTag>,
    /// Notes and comments the file carries for the translator.
    pub notes: Vec<String>,
    /// gettext's `fuzzy` flag, XLIFF's `needs-*` states: the existing target is not to be trusted.
    pub fuzzy: bool,
    /// The target already in the file, placeholders included, if any.
    pub existing_target: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escape {
    Xml,
    Po,
    /// Subtitles: text as is, with the file's line ending.
    Plain {
        crlf: bool,
    },
}

/// A span of the skeleton replaced on export: `prefix + target + suffix`, or only `prefix` when `fixed`.
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    pub range: Range<usize>,
    pub prefix: String,
    pub suffix: String,
    pub escape: Escape,
    pub fixed: bool,
}

#[derive(Debug, Clone)]
pub struct Document {
    pub format: Format,
    pub segments: Vec<Segment>,
    skeleton: String,
    edits: Vec<Vec<Edit>>,
}

pub fn import(bytes: &[u8], format: Format) -> Result<Document, FormatError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(FormatError::TooBig {
            what: "the file".into(),
            size: bytes.len(),
            limit: MAX_INPUT_BYTES,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| FormatError::NotUtf8(e.valid_up_to()))?;
    let (segments, edits) = match format {
        Format::Xliff => xliff::import(text)?,
        Format::Srt => subtitles::import(text, false)?,
        Format::Vtt => subtitles::import(text, true)?,
        Format::Po => po::import(text)?,
    };
    debug_assert_eq!(segments.len(), edits.len());
    Ok(Document {
        format,
        segments,
        skeleton: text.to_string(),
        edits,
    })
}

impl Document {
    /// The file with `targets[i]` in place of segment i's translation; `None` leaves that segment as it was.
    /// Placeholders missing from a target are appended at its end, so no tag of the file is lost.
    pub fn export(&self, targets: &[Option<String>]) -> Result<Vec<u8>, FormatError> {
        if targets.len() != self.segments.len() {
            return Err(FormatError::Unsupported(format!(
                "{} targets for {} segments",
                targets.len(),
                self.segments.len()
            )));
        }
        let mut all: Vec<(&Edit, String)> = Vec::new();
        for ((seg, edits), target) in self.segments.iter().zip(&self.edits).zip(targets) {
            let Some(target) = target else { continue };
            for e in edits {
                let body = if e.fixed {
                    String::new()
                } else {
                    render(target, &seg.tags, e.escape)
                };
                all.push((e, format!("{}{}{}", e.prefix, body, e.suffix)));
            }
        }
        all.sort_by_key(|(e, _)| (e.range.start, e.range.end));
        let mut out = String::with_capacity(self.skeleton.len());
        let mut at = 0;
        for (e, text) in all {
            if e.range.start < at {
                return Err(FormatError::Unsupported(
                    "overlapping edits (a bug: please report the file)".into(),
                ));
            }
            out.push_str(&self.skeleton[at..e.range.start]);
            out.push_str(&text);
            at = e.range.end;
        }
        out.push_str(&self.skeleton[at..]);
        Ok(out.into_bytes())
    }
}

fn escape(text: &str, how: Escape, out: &mut String) {
    match how {
        Escape::Xml => {
            for c in text.chars() {
                match c {
                    '&' => out.push_str("&amp;"),
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    _ => out.push(c),
                }
            }
        }
        Escape::Po => {
            for c in text.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    _ => out.push(c),
                }
            }
        }
        Escape::Plain { crlf } => {
            // A blank line would end the cue early: blank lines inside a subtitle target are dropped.
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            out.push_str(&lines.join(if crlf { "\r\n" } else { "\n" }));
        }
    }
}

/// Target text with placeholders turned back into the original markup.
fn render(target: &str, tags: &[InlineTag], how: Escape) -> String {
    let mut used = vec![false; tags.len()];
    let mut out = String::new();
    let mut rest = target;
    'outer: while !rest.is_empty() {
        if let Some(lt) = rest.find('<') {
            let (before, after) = rest.split_at(lt);
            escape(before, how, &mut out);
            for (i, t) in tags.iter().enumerate() {
                if !used[i] && after.starts_with(&t.token) {
                    used[i] = true;
                    out.push_str(&t.raw);
                    rest = &after[t.token.len()..];
                    continue 'outer;
                }
            }
            escape("<", how, &mut out);
            rest = &after[1..];
        } else {
            escape(rest, how, &mut out);
            break;
        }
    }
    for (i, t) in tags.iter().enumerate() {
        if !used[i] {
            out.push_str(&t.raw);
        }
    }
    out
}
