//! DOCX: a zip of XML parts. The text lives in `word/document.xml`, the headers and footers
//! (`word/header*.xml`, `word/footer*.xml`) and the foot- and endnotes; each paragraph (`w:p`, also inside table
//! cells) with text is a segment. The parts are the skeleton (one after the other) and a translated paragraph
//! replaces only the span from its first to its last text-bearing run: paragraph properties (styles, list
//! numbering), bookmarks before the text and everything outside paragraphs stay byte for byte.
//!
//! Formatting inside a sentence travels as inline tags. Runs are grouped by their properties (`w:rPr`): text in the
//! first text run's properties is plain, a stretch in other properties (bold, italic, a colour) is `<n>…</n>`,
//! hyperlinks and simple fields are `<n>…</n>` around their runs, and non-text run content (tabs, breaks,
//! drawings, field codes, note references) is `<n/>`. Each tag's markup closes the current text run and opens the
//! next, so the paragraph's runs are rebuilt from the translation wherever the translator moved the tags (a pair
//! put out of order loses its tags rather than breaking the XML: see `balance_tags`). Content controls (`w:sdt`
//! inside a paragraph), text boxes and tracked deletions are kept whole as `<n/>`: their text is not translated.
//!
//! On export, changed parts are deflated again and every other zip entry is copied as its compressed bytes, in
//! the same order. The zip is bounded before anything is inflated: entry count, each text part's inflated size and
//! the parts' total; an entry whose declared size lies is cut off at the bound, not trusted.

use crate::{line_of, next_xml_event, splice, Edit, Escape, FormatError, InlineTag, Segment, XmlEvent, MAX_INPUT_BYTES};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::io::{Cursor, Read, Write};
use std::ops::Range;

const MAX_ENTRIES: usize = 10_000;
/// All text parts together, inflated: a document of 64 MiB of XML is already far beyond a real one.
const MAX_PARTS_TOTAL: usize = 2 * MAX_INPUT_BYTES;
const MAX_DEPTH: usize = 256;
const WORDML: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/// Elements around runs inside a paragraph whose runs are text of the sentence: kept as a tag pair.
const WRAPPERS: &[&str] = &[
    "hyperlink",
    "fldSimple",
    "smartTag",
    "ins",
    "customXml",
    "dir",
    "bdo",
    "moveTo",
];
/// Rendering and spell-check caches Word recomputes; dropped inside a translated span rather than handed to the
/// translator as meaningless placeholders.
const CACHES: &[&str] = &["lastRenderedPageBreak", "proofErr"];

#[derive(Clone)]
pub(crate) struct Package {
    zip: Vec<u8>,
    /// Each text part: its zip entry index, name and span in the skeleton.
    parts: Vec<(usize, String, Range<usize>)>,
}

impl std::fmt::Debug for Package {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Package")
            .field("bytes", &self.zip.len())
            .field(
                "parts",
                &self.parts.iter().map(|p| &p.1).collect::<Vec<_>>(),
            )
            .finish()
    }
}

fn is_text_part(name: &str) -> bool {
    let Some(file) = name.strip_prefix("word/") else {
        return false;
    };
    if file.contains('/') || !file.ends_with(".xml") {
        return false;
    }
    file == "document.xml"
        || file == "footnotes.xml"
        || file == "endnotes.xml"
        || file.starts_with("header")
        || file.starts_with("footer")
}

fn zip_err(what: &str, e: impl std::fmt::Display) -> FormatError {
    FormatError::Unsupported(format!("{what}: {e}"))
}

pub(crate) type Imported = (Package, String, Vec<Segment>, Vec<Vec<Edit>>);

pub(crate) fn import(bytes: &[u8]) -> Result<Imported, FormatError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        zip_err(
            "not a DOCX file (a .docx is a zip archive; this one cannot be read, perhaps truncated)",
            e,
        )
    })?;
    if zip.len() > MAX_ENTRIES {
        return Err(FormatError::Unsupported(format!(
            "the DOCX holds {} zip entries; more than {MAX_ENTRIES} is not a document",
            zip.len()
        )));
    }
    let mut skeleton = String::new();
    let mut parts = Vec::new();
    let mut segments = Vec::new();
    let mut edits = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip
            .by_index(i)
            .map_err(|e| zip_err(&format!("zip entry {}", i + 1), e))?;
        let name = f
            .name()
            .map_err(|e| zip_err(&format!("zip entry {}", i + 1), e))?
            .into_owned();
        if !is_text_part(&name) || f.is_dir() {
            continue;
        }
        let too_big = |size: usize| FormatError::TooBig {
            what: format!("{name} (inflated)"),
            size,
            limit: MAX_INPUT_BYTES,
        };
        if f.size() > MAX_INPUT_BYTES as u64 {
            return Err(too_big(f.size().try_into().unwrap_or(usize::MAX)));
        }
        let mut buf = Vec::new();
        f.by_ref()
            .take(MAX_INPUT_BYTES as u64 + 1)
            .read_to_end(&mut buf)
            .map_err(|e| zip_err(&format!("{name} cannot be inflated (damaged file?)"), e))?;
        if buf.len() > MAX_INPUT_BYTES {
            return Err(too_big(buf.len()));
        }
        if skeleton.len() + buf.len() > MAX_PARTS_TOTAL {
            return Err(FormatError::TooBig {
                what: "the DOCX's text parts together (inflated)".into(),
                size: skeleton.len() + buf.len(),
                limit: MAX_PARTS_TOTAL,
            });
        }
        let text = String::from_utf8(buf).map_err(|e| {
            FormatError::Unsupported(format!(
                "{name} is not UTF-8 (byte {}); save the document again from Word or LibreOffice",
                e.utf8_error().valid_up_to()
            ))
        })?;
        let base = skeleton.len();
        let (s, e) = import_part(&text, &name, base)?;
        segments.extend(s);
        edits.extend(e);
        skeleton.push_str(&text);
        parts.push((i, name, base..skeleton.len()));
    }
    if !parts.iter().any(|p| p.1 == "word/document.xml") {
        return Err(FormatError::Unsupported(
            "not a Word document: the zip has no word/document.xml (save it as .docx from Word or LibreOffice)"
                .into(),
        ));
    }
    let package = Package {
        zip: bytes.to_vec(),
        parts,
    };
    Ok((package, skeleton, segments, edits))
}

pub(crate) fn export(
    package: &Package,
    skeleton: &str,
    all: &[(&Edit, String)],
) -> Result<Vec<u8>, FormatError> {
    if all.is_empty() {
        return Ok(package.zip.clone());
    }
    let mut zip = zip::ZipArchive::new(Cursor::new(&package.zip[..]))
        .map_err(|e| zip_err("re-reading the DOCX", e))?;
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let write_err = |e: &dyn std::fmt::Display| zip_err("writing the DOCX", e);
    for i in 0..zip.len() {
        let part = package
            .parts
            .binary_search_by_key(&i, |p| p.0)
            .ok()
            .map(|k| &package.parts[k]);
        // `all` is sorted by position and a part's edits lie inside it: two binary searches find them.
        let mine: Vec<(&Edit, String)> = match part {
            Some((_, _, r)) => {
                let lo = all.partition_point(|(e, _)| e.range.start < r.start);
                let hi = all.partition_point(|(e, _)| e.range.start < r.end);
                all[lo..hi].iter().map(|(e, s)| (*e, s.clone())).collect()
            }
            None => Vec::new(),
        };
        let f = zip.by_index_raw(i).map_err(|e| write_err(&e))?;
        match part {
            Some((_, name, r)) if !mine.is_empty() => {
                let text = splice(&skeleton[r.clone()], r.start, &mine)?;
                let mut opts = zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated);
                if let Some(t) = f.last_modified() {
                    opts = opts.last_modified_time(t);
                }
                drop(f);
                w.start_file(name.as_str(), opts)
                    .map_err(|e| write_err(&e))?;
                w.write_all(text.as_bytes()).map_err(|e| write_err(&e))?;
            }
            _ => w.raw_copy_file(f).map_err(|e| write_err(&e))?,
        }
    }
    Ok(w.finish().map_err(|e| write_err(&e))?.into_inner())
}

/// An element of a paragraph, with its byte spans in the part.
struct Node {
    /// Local name (the WordprocessingML prefix stripped; other namespaces keep theirs, so they match nothing).
    name: String,
    start: usize,
    open_end: usize,
    close_start: usize,
    end: usize,
    children: Vec<Node>,
    /// `w:t` only: its text, unescaped.
    text: String,
}

fn err(text: &str, name: &str, pos: usize, msg: impl std::fmt::Display) -> FormatError {
    FormatError::Syntax {
        line: line_of(text, pos),
        msg: format!("in {name}: {msg}"),
    }
}

fn import_part(
    text: &str,
    part: &str,
    base: usize,
) -> Result<(Vec<Segment>, Vec<Vec<Edit>>), FormatError> {
    // quick-xml skips a leading byte-order mark and counts positions after it: read past it ourselves.
    if let Some(body) = text.strip_prefix('\u{feff}') {
        return import_part(body, part, base + '\u{feff}'.len_utf8());
    }
    let mut reader = Reader::from_str(text);
    let mut prefix: Option<String> = None;
    let mut depth = 0usize;
    let mut stack: Vec<Node> = Vec::new();
    let mut segments = Vec::new();
    let mut edits = Vec::new();
    let mut paragraphs = 0usize;
    let local = |prefix: &str, q: &str| -> String {
        match q.strip_prefix(prefix) {
            Some(l) if !prefix.is_empty() || !q.contains(':') => l.to_string(),
            _ => format!("{{other}}{q}"),
        }
    };
    loop {
        let XmlEvent { event: ev, start: p0, end: p1, raw } =
            next_xml_event(&mut reader, text).map_err(|(pos, msg)| err(text, part, pos, msg))?;
        match ev {
            Event::Eof => break,
            Event::DocType(_) => {
                return Err(err(
                    text,
                    part,
                    p0,
                    "a DOCTYPE is not allowed (entity declarations are refused)",
                ))
            }
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                if prefix.is_none() {
                    // The root declares the WordprocessingML namespace; its prefix is almost always `w`.
                    let mut p = "w:".to_string();
                    for a in e.attributes().with_checks(false).flatten() {
                        if &*a.value == WORDML {
                            let k = a.key.0.to_string();
                            p = match k.strip_prefix("xmlns:") {
                                Some(x) => format!("{x}:"),
                                None => String::new(),
                            };
                        }
                    }
                    prefix = Some(p);
                }
                let pre = prefix.as_deref().unwrap_or("w:");
                if !empty {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(err(
                            text,
                            part,
                            p0,
                            format!("elements nested deeper than {MAX_DEPTH}"),
                        ));
                    }
                }
                let name = local(pre, e.name().0);
                if stack.is_empty() && name != "p" {
                    continue;
                }
                let node = Node {
                    name,
                    start: p0,
                    open_end: p1,
                    close_start: p1,
                    end: p1,
                    children: Vec::new(),
                    text: String::new(),
                };
                if !empty {
                    stack.push(node);
                } else if let Some(top) = stack.last_mut() {
                    top.children.push(node);
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if let Some(mut node) = stack.pop() {
                    node.close_start = p0;
                    node.end = p1;
                    match stack.last_mut() {
                        Some(top) => top.children.push(node),
                        None => {
                            paragraphs += 1;
                            let pre = prefix.as_deref().unwrap_or("w:");
                            if let Some((seg, edit)) = paragraph(text, pre, &node) {
                                segments.push(Segment {
                                    id: format!("{part}#{paragraphs}"),
                                    ..seg
                                });
                                edits.push(vec![Edit {
                                    range: base + edit.range.start..base + edit.range.end,
                                    ..edit
                                }]);
                            }
                        }
                    }
                }
            }
            Event::Text(_) | Event::GeneralRef(_) | Event::CData(_) => {
                if let Some(top) = stack.last_mut().filter(|t| t.name == "t") {
                    if let Some(inner) = raw
                        .strip_prefix("<![CDATA[")
                        .and_then(|r| r.strip_suffix("]]>"))
                    {
                        top.text.push_str(inner);
                    } else {
                        let s = quick_xml::escape::unescape(raw).map_err(|e| {
                            err(
                                text,
                                part,
                                p0,
                                format!("bad character or entity reference: {e}"),
                            )
                        })?;
                        top.text.push_str(&s);
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(open) = stack.first() {
        return Err(err(
            text,
            part,
            open.start,
            "a paragraph is not closed before the end of the part (truncated file?)",
        ));
    }
    if depth != 0 {
        return Err(err(
            text,
            part,
            text.len(),
            "the part ends before its elements are closed (truncated file?)",
        ));
    }
    if prefix.is_none() {
        return Err(err(text, part, 0, "the part holds no XML element"));
    }
    Ok((segments, edits))
}

fn has_text(n: &Node) -> bool {
    match n.name.as_str() {
        "r" => n
            .children
            .iter()
            .any(|c| c.name == "t" && !c.text.is_empty()),
        w if WRAPPERS.contains(&w) => n.children.iter().any(has_text),
        _ => false,
    }
}

/// The properties (`w:rPr`, verbatim) of the first run with text under `n`.
fn first_rpr<'a>(text: &'a str, n: &Node) -> Option<&'a str> {
    if n.name == "r" {
        return has_text(n).then(|| rpr(text, n));
    }
    if !WRAPPERS.contains(&n.name.as_str()) {
        return None;
    }
    n.children.iter().find_map(|c| first_rpr(text, c))
}

fn rpr<'a>(text: &'a str, run: &Node) -> &'a str {
    run.children
        .iter()
        .find(|c| c.name == "rPr")
        .map(|c| &text[c.start..c.end])
        .unwrap_or("")
}

/// Builds one paragraph's source text and tags; see the module comment for what each tag's markup does.
struct Builder<'a> {
    text: &'a str,
    w: &'a str,
    source: String,
    tags: Vec<InlineTag>,
    /// The properties of the text run open at this point of the rebuilt paragraph.
    cur: String,
    /// Non-text markup met since the last text, written as one `<n/>`.
    pending: String,
    span: Option<usize>,
}

impl Builder<'_> {
    fn open(&self, rpr: &str) -> String {
        let w = self.w;
        format!("<{w}r>{rpr}<{w}t xml:space=\"preserve\">")
    }

    fn close(&self) -> String {
        let w = self.w;
        format!("</{w}t></{w}r>")
    }

    fn tag(&mut self, token: String, raw: String) {
        self.source.push_str(&token);
        self.tags.push(InlineTag { token, raw });
    }

    fn next(&self) -> usize {
        crate::markdown::next_number(&self.tags)
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let raw = format!("{}{}{}", self.close(), self.pending, self.open(&self.cur));
        self.pending.clear();
        self.tag(format!("<{}/>", self.next()), raw);
    }

    fn close_span(&mut self, base: &str) {
        if let Some(k) = self.span.take() {
            let raw = format!("{}{}", self.close(), self.open(base));
            self.tag(format!("</{k}>"), raw);
            self.cur = base.to_string();
        }
    }

    fn text_in(&mut self, rpr: &str, s: &str, base: &str) {
        self.flush();
        if rpr != self.cur {
            self.close_span(base);
            if rpr != self.cur {
                let k = self.next();
                self.span = Some(k);
                let raw = format!("{}{}", self.close(), self.open(rpr));
                self.tag(format!("<{k}>"), raw);
                self.cur = rpr.to_string();
            }
        }
        self.source.push_str(s);
    }

    fn walk(&mut self, children: &[Node], base: &str) {
        let text = self.text;
        let w = self.w;
        for c in children {
            match c.name.as_str() {
                "r" => {
                    let props = rpr(text, c);
                    for k in &c.children {
                        match k.name.as_str() {
                            "rPr" => {}
                            "t" => {
                                if !k.text.is_empty() {
                                    self.text_in(props, &k.text, base);
                                }
                            }
                            n if CACHES.contains(&n) => {}
                            _ => {
                                let item = &text[k.start..k.end];
                                self.pending
                                    .push_str(&format!("<{w}r>{props}{item}</{w}r>"));
                            }
                        }
                    }
                }
                n if CACHES.contains(&n) => {}
                n if WRAPPERS.contains(&n) && has_text(c) => {
                    self.flush();
                    self.close_span(base);
                    let inner = first_rpr(text, c).unwrap_or(base).to_string();
                    let k = self.next();
                    let raw = format!(
                        "{}{}{}",
                        self.close(),
                        &text[c.start..c.open_end],
                        self.open(&inner)
                    );
                    self.tag(format!("<{k}>"), raw);
                    self.cur = inner.clone();
                    self.walk(&c.children, &inner);
                    self.flush();
                    self.close_span(&inner);
                    let raw = format!(
                        "{}{}{}",
                        self.close(),
                        &text[c.close_start..c.end],
                        self.open(base)
                    );
                    self.tag(format!("</{k}>"), raw);
                    self.cur = base.to_string();
                }
                _ => self.pending.push_str(&text[c.start..c.end]),
            }
        }
    }
}

fn paragraph(text: &str, w: &str, p: &Node) -> Option<(Segment, Edit)> {
    let first = p.children.iter().position(has_text)?;
    let last = p.children.iter().rposition(has_text)?;
    let base = first_rpr(text, &p.children[first]).unwrap_or("");
    let mut b = Builder {
        text,
        w,
        source: String::new(),
        tags: Vec::new(),
        cur: base.to_string(),
        pending: String::new(),
        span: None,
    };
    b.walk(&p.children[first..=last], base);
    b.flush();
    b.close_span(base);
    let edit = Edit {
        range: p.children[first].start..p.children[last].end,
        prefix: b.open(base),
        suffix: b.close(),
        escape: Escape::Docx,
        fixed: false,
    };
    let seg = Segment::text(b.source, b.tags);
    Some((seg, edit))
}
