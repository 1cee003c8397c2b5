//! Documents in, documents out, the way the Okapi framework does it: an import keeps the original bytes as the
//! skeleton and records, per segment, the byte spans its translation will replace. An export with no translation
//! therefore gives back the very same bytes, and one with translations changes nothing but the text.
//!
//! Inline markup (XLIFF `<g>`, `<x/>`, `<ph>`, `<pc>`, …) reaches the translator as numbered placeholders
//! (`<1>`, `</1>`, `<2/>`) and is put back verbatim on export.
#![forbid(unsafe_code)]

mod docx;
pub mod fuzz;
mod html;
mod markdown;
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
    Docx,
    Markdown,
    Html,
}

impl Format {
    /// The format a file name's extension names (`.xlf`, `.xliff`, `.sdlxliff`, `.srt`, `.vtt`, `.po`, `.pot`,
    /// `.docx`, `.md`, `.html`/`.htm`).
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
            "docx" => Format::Docx,
            "md" | "markdown" => Format::Markdown,
            "html" | "htm" | "xhtml" => Format::Html,
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

/// One event of an XML reader over `text`, with where it stands: `raw` is `text[start..end]`.
pub(crate) struct XmlEvent<'a> {
    pub event: quick_xml::events::Event<'a>,
    pub start: usize,
    pub end: usize,
    pub raw: &'a str,
}

/// The next event `reader` reads from `text`; an error is where it happened (a byte offset) and what it is.
pub(crate) fn next_xml_event<'a>(
    reader: &mut quick_xml::Reader<&'a [u8]>,
    text: &'a str,
) -> Result<XmlEvent<'a>, (usize, String)> {
    let start = reader.buffer_position() as usize;
    let event = reader
        .read_event()
        .map_err(|e| (reader.error_position() as usize, format!("not well-formed XML: {e}")))?;
    let end = reader.buffer_position() as usize;
    // The reader's positions are byte offsets; one inside a character (a byte-order mark it skipped partly)
    // must not slice the text.
    let raw = text.get(start..end).ok_or_else(|| {
        (start, "the XML reader stopped inside a character (a misplaced byte-order mark?)".to_string())
    })?;
    Ok(XmlEvent { event, start, end, raw })
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

impl Segment {
    /// A segment as a file without ids, notes or existing targets has it (DOCX, HTML, Markdown, subtitles): the
    /// text and its inline tags; the document numbers it.
    pub(crate) fn text(source: String, tags: Vec<InlineTag>) -> Self {
        Segment { id: String::new(), source, tags, notes: Vec::new(), fuzzy: false, existing_target: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escape {
    Xml,
    Po,
    /// Subtitles: text as is, with the file's line ending.
    Plain {
        crlf: bool,
    },
    /// Text of a DOCX run (`<w:t>`): XML-escaped, characters XML 1.0 forbids dropped (Word refuses the file).
    Docx,
    /// Markdown inline text: one line (a blank line would end the paragraph); `|` escaped inside a table cell.
    Markdown {
        table: bool,
    },
    /// HTML text: `<` escaped, `&` escaped unless it starts a character reference the translation kept.
    Html,
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

impl Edit {
    /// The translation replaces `range`, escaped for the format, with nothing written around it.
    pub(crate) fn bare(range: Range<usize>, escape: Escape) -> Self {
        Edit { range, prefix: String::new(), suffix: String::new(), escape, fixed: false }
    }
}

#[derive(Debug, Clone)]
pub struct Document {
    pub format: Format,
    pub segments: Vec<Segment>,
    skeleton: String,
    edits: Vec<Vec<Edit>>,
    /// DOCX: the zip the XML parts came from; `skeleton` is those parts one after the other.
    package: Option<docx::Package>,
}

pub fn import(bytes: &[u8], format: Format) -> Result<Document, FormatError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(FormatError::TooBig {
            what: "the file".into(),
            size: bytes.len(),
            limit: MAX_INPUT_BYTES,
        });
    }
    if format == Format::Docx {
        let (package, skeleton, segments, edits) = docx::import(bytes)?;
        return Ok(Document {
            format,
            segments,
            skeleton,
            edits,
            package: Some(package),
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| FormatError::NotUtf8(e.valid_up_to()))?;
    let (segments, edits) = match format {
        Format::Xliff => xliff::import(text)?,
        Format::Srt => subtitles::import(text, false)?,
        Format::Vtt => subtitles::import(text, true)?,
        Format::Po => po::import(text)?,
        Format::Markdown => markdown::import(text)?,
        Format::Html => html::import(text)?,
        Format::Docx => unreachable!("read from its zip above"),
    };
    debug_assert_eq!(segments.len(), edits.len());
    Ok(Document {
        format,
        segments,
        skeleton: text.to_string(),
        edits,
        package: None,
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
            // A reordered pair of placeholders would write `</a>` before `<a>` (a broken file): such a target
            // loses its paired tags, which then go back in the source's order.
            let balanced;
            let target = match self.format {
                Format::Docx | Format::Markdown | Format::Html => {
                    balanced = balance_tags(target, &seg.tags);
                    &balanced
                }
                _ => target,
            };
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
        if let Some(package) = &self.package {
            return docx::export(package, &self.skeleton, &all);
        }
        Ok(splice(&self.skeleton, 0, &all)?.into_bytes())
    }
}

/// `skeleton` (which starts at byte `base` of the document's skeleton) with the sorted edits applied.
pub(crate) fn splice(
    skeleton: &str,
    base: usize,
    edits: &[(&Edit, String)],
) -> Result<String, FormatError> {
    let mut out = String::with_capacity(skeleton.len());
    let mut at = 0;
    for (e, text) in edits {
        let (start, end) = (e.range.start - base, e.range.end - base);
        if start < at {
            return Err(FormatError::Unsupported(
                "overlapping edits (a bug: please report the file)".into(),
            ));
        }
        out.push_str(&skeleton[at..start]);
        out.push_str(text);
        at = end;
    }
    out.push_str(&skeleton[at..]);
    Ok(out)
}

/// The target as is when each pair of placeholders it uses is complete, opened before closed and nested;
/// otherwise the target without its paired placeholders (standalone ones stay).
fn balance_tags(target: &str, tags: &[InlineTag]) -> String {
    let known: std::collections::HashSet<&str> = tags.iter().map(|t| t.token.as_str()).collect();
    let pair_of = |token: &str| -> Option<(usize, bool)> {
        let close = token.starts_with("</");
        let n = token
            .trim_start_matches("</")
            .trim_start_matches('<')
            .trim_end_matches('>');
        let partner = if close {
            format!("<{n}>")
        } else if token.ends_with("/>") {
            return None;
        } else {
            format!("</{n}>")
        };
        known.contains(partner.as_str()).then_some(())?;
        Some((n.parse().ok()?, close))
    };
    // The paired placeholders in the order the target uses them (the first occurrence of each, as `render` does).
    let mut seen: Vec<(usize, bool)> = Vec::new(); // (n, close)
    let mut used = std::collections::HashSet::new();
    for (at, _) in target.match_indices('<') {
        let Some(len) = target[at..].find('>') else {
            break;
        };
        let token = &target[at..=at + len];
        if known.contains(token) && used.insert(token) {
            if let Some(p) = pair_of(token) {
                seen.push(p);
            }
        }
    }
    let mut stack = Vec::new();
    let mut ok = true;
    for &(n, close) in &seen {
        if !close {
            stack.push(n);
        } else if stack.pop() != Some(n) {
            ok = false;
        }
    }
    if ok && stack.is_empty() {
        return target.to_string();
    }
    // Each paired placeholder's first occurrence goes (the one `render` would have used).
    let mut out = String::with_capacity(target.len());
    let mut dropped = std::collections::HashSet::new();
    let mut rest = target;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let after = &rest[lt..];
        match after.find('>').map(|j| &after[..=j]) {
            Some(tok) if known.contains(tok) && pair_of(tok).is_some() && dropped.insert(tok) => {
                rest = &after[tok.len()..];
            }
            _ => {
                out.push('<');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
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
        Escape::Docx => {
            for c in text.chars() {
                match c {
                    '&' => out.push_str("&amp;"),
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '\t' | '\n' | '\r' => out.push(' '),
                    c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
                    _ => out.push(c),
                }
            }
        }
        Escape::Markdown { table } => {
            let mut backslashes = 0;
            for c in text.chars() {
                match c {
                    '\n' | '\r' => out.push(' '),
                    // A `|` the text already escapes (`\|`) stays as it is.
                    '|' if table && backslashes % 2 == 0 => out.push_str("\\|"),
                    _ => out.push(c),
                }
                backslashes = if c == '\\' { backslashes + 1 } else { 0 };
            }
        }
        Escape::Html => html::escape_text(text, out),
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
    // Placeholders end at their first `>`: one lookup per `<`, so a unit with thousands of tags stays linear.
    let index: std::collections::HashMap<&str, usize> = tags
        .iter()
        .enumerate()
        .rev()
        .map(|(i, t)| (t.token.as_str(), i))
        .collect();
    let mut out = String::new();
    let mut rest = target;
    while !rest.is_empty() {
        if let Some(lt) = rest.find('<') {
            let (before, after) = rest.split_at(lt);
            escape(before, how, &mut out);
            let hit = after
                .find('>')
                .and_then(|j| index.get(&after[..=j]))
                .copied()
                .filter(|&i| !used[i]);
            if let Some(i) = hit {
                used[i] = true;
                out.push_str(&tags[i].raw);
                rest = &after[tags[i].token.len()..];
                continue;
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
