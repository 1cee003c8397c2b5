//! A termbase per register: source terms with the target each register requires and the targets that are
//! forbidden, imported from TSV/CSV (header `source, target[, target_formal, target_informal, forbidden, note]`,
//! several terms in one cell separated by `|`) or TBX (TBX-Basic / TBX v2 `martif` and v3 `tbx`:
//! termEntry|conceptEntry → langSet|langSec → tig|ntig|termSec → term; `administrativeStatus`
//! deprecatedTerm/supersededTerm = forbidden; a `register` or `usage` note saying formal/informal picks the
//! register).
//!
//! The file is untrusted: at most [`MAX_BYTES`], UTF-8, no DOCTYPE, bounded nesting; every error names the file
//! and line. Matching is case-insensitive on word boundaries and tolerant of short inflectional endings
//! (English `-s`/`-es` in the source, up to two letters in the target: "Vertrag" matches "Vertrags"), which is
//! what a glossary check without a morphological dictionary can do.
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use registro_register::Register;
use serde::{Deserialize, Serialize};

use crate::{CheckKind, Issue, Severity, Span};

/// The largest termbase file read (64 MiB).
pub const MAX_BYTES: u64 = 64 << 20;
const MAX_DEPTH: usize = 64;

#[derive(Debug, thiserror::Error)]
pub struct TermbaseError {
    pub file: String,
    /// 1-based; 0 when the error is about the whole file.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TermbaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TermbaseFormat {
    Tsv,
    Csv,
    Tbx,
}

impl TermbaseFormat {
    /// By extension: `.tsv`/`.tab`/`.txt`, `.csv`, `.tbx`/`.xml`.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "tsv" | "tab" | "txt" => Some(TermbaseFormat::Tsv),
            "csv" => Some(TermbaseFormat::Csv),
            "tbx" | "xml" => Some(TermbaseFormat::Tbx),
            _ => None,
        }
    }
}

/// One concept: its source terms and what a translation must (or must not) use for it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Entry {
    pub source: Vec<String>,
    /// Allowed in any register.
    pub target: Vec<String>,
    pub target_formal: Vec<String>,
    pub target_informal: Vec<String>,
    pub forbidden: Vec<String>,
    pub note: Option<String>,
    /// Where the entry starts in its file.
    pub line: usize,
}

impl Entry {
    /// The targets a translation in `register` must use (any one of them); empty when the entry only forbids.
    pub fn required(&self, register: Option<Register>) -> &[String] {
        match register {
            Some(r) if r.is_formal_side() && !self.target_formal.is_empty() => &self.target_formal,
            Some(Register::Informal) if !self.target_informal.is_empty() => &self.target_informal,
            _ if !self.target.is_empty() => &self.target,
            // Without a register (or a general target) either register's term will do.
            _ => {
                if self.target_formal.is_empty() {
                    &self.target_informal
                } else {
                    &self.target_formal
                }
            }
        }
    }

    /// Targets that must not appear: the forbidden ones and, for a known register, the other register's variant.
    pub fn banned(&self, register: Option<Register>) -> Vec<&String> {
        let other: &[String] = match register {
            Some(r) if r.is_formal_side() => &self.target_informal,
            Some(_) => &self.target_formal,
            None => &[],
        };
        let allowed = self.required(register);
        self.forbidden
            .iter()
            .chain(
                other
                    .iter()
                    .filter(|t| !allowed.contains(t) && !self.target.contains(t)),
            )
            .collect()
    }
}

/// The parsed termbase with a lookup of entries by the first word of their source terms.
#[derive(Clone, Debug, Default)]
pub struct Termbase {
    pub entries: Vec<Entry>,
    /// The file it was read from, for the run's parameters.
    pub origin: Option<String>,
    index: HashMap<String, Vec<usize>>,
    /// Entries whose source term starts with no word character: tried on every segment.
    unindexed: Vec<usize>,
}

/// What a segment must contain and avoid, for constrained decoding (boost the first, ban the second).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationTerms {
    /// The preferred target of every entry whose source term the segment contains.
    pub require: Vec<String>,
    pub ban: Vec<String>,
}

/// The term findings of one segment.
#[derive(Clone, Debug, Default)]
pub struct SegmentTerms {
    pub source_occurrences: usize,
    pub issues: Vec<Issue>,
}

fn err(file: &str, line: usize, message: impl Into<String>) -> TermbaseError {
    TermbaseError {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

/// Reads a termbase file (format by extension unless given) for the pair `source_lang` → `target_lang` (TBX
/// holds many languages; a table's columns are the pair).
pub fn load(
    path: &Path,
    format: Option<TermbaseFormat>,
    source_lang: &str,
    target_lang: &str,
) -> Result<Termbase, TermbaseError> {
    let file = path.display().to_string();
    let format = match format.or_else(|| TermbaseFormat::from_path(path)) {
        Some(f) => f,
        None => {
            return Err(err(
                &file,
                0,
                "unknown termbase format: name it .tsv, .csv or .tbx",
            ))
        }
    };
    let meta = std::fs::metadata(path).map_err(|e| err(&file, 0, format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(err(&file, 0, "not a regular file"));
    }
    if meta.len() > MAX_BYTES {
        return Err(err(
            &file,
            0,
            format!(
                "{} MiB; termbases are limited to {} MiB (split the file)",
                meta.len() >> 20,
                MAX_BYTES >> 20
            ),
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| err(&file, 0, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(err(
            &file,
            0,
            format!("grew past {} MiB while being read", MAX_BYTES >> 20),
        ));
    }
    let mut tb = parse(&bytes, format, &file, source_lang, target_lang)?;
    tb.origin = Some(file);
    Ok(tb)
}

/// Parses termbase bytes; `file` names them in errors.
pub fn parse(
    bytes: &[u8],
    format: TermbaseFormat,
    file: &str,
    source_lang: &str,
    target_lang: &str,
) -> Result<Termbase, TermbaseError> {
    if bytes.len() as u64 > MAX_BYTES {
        return Err(err(file, 0, format!("larger than {} MiB", MAX_BYTES >> 20)));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
            return Err(err(
                file,
                line,
                format!(
                    "not UTF-8 (byte 0x{:02x}); save the termbase as UTF-8",
                    bytes[at]
                ),
            ));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let entries = match format {
        TermbaseFormat::Tsv => table(text, b'\t', file)?,
        TermbaseFormat::Csv => table(text, b',', file)?,
        TermbaseFormat::Tbx => tbx(text, file, source_lang, target_lang)?,
    };
    if entries.is_empty() {
        return Err(err(
            file,
            0,
            match format {
                TermbaseFormat::Tbx => {
                    format!("no entry has both a {source_lang} and a {target_lang} term")
                }
                _ => "no entries below the header".to_string(),
            },
        ));
    }
    Ok(Termbase::new(entries))
}

/// The header names a table may use.
const COLUMNS: [&str; 6] = [
    "source",
    "target",
    "target_formal",
    "target_informal",
    "forbidden",
    "note",
];

/// The 1-based line of byte offsets into `text`, asked for in increasing order: each call counts only the newlines
/// since the one before.
struct Lines<'a> {
    text: &'a str,
    counted: usize,
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text, counted: 0, line: 1 }
    }

    fn at(&mut self, pos: usize) -> usize {
        let pos = pos.min(self.text.len());
        if pos > self.counted {
            self.line += self.text.as_bytes()[self.counted..pos].iter().filter(|b| **b == b'\n').count();
            self.counted = pos;
        }
        self.line
    }
}

fn table(text: &str, delimiter: u8, file: &str) -> Result<Vec<Entry>, TermbaseError> {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        // A TSV cell is taken as written (terms contain quotes: „Vertrag“, 'n); CSV follows RFC 4180.
        .quoting(delimiter == b',')
        .from_reader(text.as_bytes());
    let mut cols: Vec<Option<usize>> = Vec::new();
    let mut width = 0;
    let mut entries = Vec::new();
    // csv's own line numbers skip blank lines; the byte offset does not.
    let mut lines = Lines::new(text);
    let mut line_of = |byte: u64| {
        // A record's position is where the reader resumed, before the blank lines it skipped.
        let mut byte = (byte as usize).min(text.len());
        while matches!(text.as_bytes().get(byte), Some(b'\n' | b'\r')) {
            byte += 1;
        }
        lines.at(byte)
    };
    for (k, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| line_of(p.byte()));
            err(file, line, format!("unreadable row: {e}"))
        })?;
        let line = rec.position().map_or(k + 1, |p| line_of(p.byte()));
        if k == 0 {
            width = rec.len();
            for h in rec.iter() {
                let name = h.trim().to_lowercase().replace([' ', '-'], "_");
                let Some(c) = COLUMNS.iter().position(|c| *c == name) else {
                    return Err(err(file, line, format!(
                        "unknown column {h:?} in the header (expected source, target and optionally target_formal, target_informal, forbidden, note{})",
                        if delimiter == b'\t' && rec.len() == 1 && h.contains(',') { "; this looks like CSV: name the file .csv" } else { "" }
                    )));
                };
                if cols.contains(&Some(c)) {
                    return Err(err(
                        file,
                        line,
                        format!("column {:?} appears twice in the header", COLUMNS[c]),
                    ));
                }
                cols.push(Some(c));
            }
            if !cols.contains(&Some(0)) || !(1..=3).any(|c| cols.contains(&Some(c))) {
                return Err(err(file, line, "the header must name a source column and a target column (source, target[, target_formal, target_informal, forbidden, note])"));
            }
            continue;
        }
        if rec.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if rec.len() != width {
            return Err(err(
                file,
                line,
                format!(
                    "{} fields where the header has {width}{}",
                    rec.len(),
                    if delimiter == b',' {
                        " (quote a term that contains a comma)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let mut e = Entry {
            line,
            ..Default::default()
        };
        for (cell, col) in rec.iter().zip(&cols) {
            let terms = || {
                cell.split('|')
                    .map(normalize)
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
            };
            match col {
                Some(0) => e.source = terms(),
                Some(1) => e.target = terms(),
                Some(2) => e.target_formal = terms(),
                Some(3) => e.target_informal = terms(),
                Some(4) => e.forbidden = terms(),
                Some(5) => e.note = Some(cell.trim().to_string()).filter(|n| !n.is_empty()),
                _ => {}
            }
        }
        if e.source.is_empty() {
            return Err(err(file, line, "the source term is empty"));
        }
        if e.target.is_empty()
            && e.target_formal.is_empty()
            && e.target_informal.is_empty()
            && e.forbidden.is_empty()
        {
            return Err(err(
                file,
                line,
                format!("no target (or forbidden) term for {:?}", e.source[0]),
            ));
        }
        entries.push(e);
    }
    Ok(entries)
}

/// Collapses whitespace runs so "terms  of use" and "terms of use" are one term.
fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn lang_matches(tag: &str, want: &str) -> bool {
    let primary = |s: &str| {
        s.split(['-', '_'])
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    };
    !want.is_empty() && primary(tag) == primary(want)
}

/// A register from a `register`/`usage` note's wording (TBX's own values, e.g. `colloquialRegister`, or free text).
fn register_of(note: &str) -> Option<Register> {
    let n = note.to_lowercase();
    if ["informal", "colloquial", "familiar", "slang"]
        .iter()
        .any(|w| n.contains(w))
    {
        Some(Register::Informal)
    } else if ["formal", "respectful", "honorific", "polite"]
        .iter()
        .any(|w| n.contains(w))
    {
        Some(Register::Formal)
    } else {
        None
    }
}

#[derive(Default)]
struct TermInfo {
    term: String,
    forbidden: bool,
    register: Option<Register>,
}

/// What text is being gathered, and until which depth.
enum Collect {
    Term,
    Status,
    Register,
    Note,
}

fn tbx(
    text: &str,
    file: &str,
    source_lang: &str,
    target_lang: &str,
) -> Result<Vec<Entry>, TermbaseError> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut lines = Lines::new(text);
    let mut line_at = |pos: usize| lines.at(pos);
    let mut depth = 0usize;
    let mut seen_root = false;
    let mut entries = Vec::new();
    // (line of the entry, terms by language, note)
    let mut entry: Option<(usize, Vec<(String, TermInfo)>, Option<String>)> = None;
    let mut lang: Option<String> = None;
    let mut group: Option<TermInfo> = None;
    let mut collect: Option<(Collect, usize, String)> = None;
    loop {
        let p0 = reader.buffer_position() as usize;
        let ev = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => {
                let at = reader.error_position() as usize;
                return Err(err(file, line_at(at), format!("not well-formed XML: {e}")));
            }
        };
        let p1 = reader.buffer_position() as usize;
        let here = line_at(p0);
        let raw = text.get(p0..p1).ok_or_else(|| {
            err(
                file,
                here,
                "the XML reader stopped inside a character (a misplaced byte-order mark?)",
            )
        })?;
        match ev {
            Event::DocType(_) => {
                return Err(err(
                    file,
                    here,
                    "a DOCTYPE is not allowed in a termbase (entity declarations are refused)",
                ))
            }
            Event::Eof if depth > 0 => {
                return Err(err(
                    file,
                    here,
                    "the file ends before its elements are closed (truncated?)",
                ))
            }
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let empty = raw.ends_with("/>");
                if !empty {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(err(
                            file,
                            here,
                            format!("elements nested deeper than {MAX_DEPTH}"),
                        ));
                    }
                }
                let name = e.local_name().as_ref().to_string();
                let attr = |key: &str| -> Result<Option<String>, TermbaseError> {
                    match e.try_get_attribute(key) {
                        Ok(Some(a)) => a
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map(|v| Some(v.into_owned()))
                            .map_err(|x| err(file, here, format!("bad attribute {key}: {x}"))),
                        Ok(None) => Ok(None),
                        Err(x) => Err(err(file, here, format!("bad attribute in <{name}>: {x}"))),
                    }
                };
                if !seen_root {
                    seen_root = true;
                    if name != "martif" && name != "tbx" {
                        return Err(err(file, here, format!("not a TBX file: the root element is <{name}> (expected <martif> or <tbx>)")));
                    }
                    continue;
                }
                if collect.is_some() || empty {
                    continue;
                }
                match name.as_str() {
                    "termEntry" | "conceptEntry" => entry = Some((here, Vec::new(), None)),
                    "langSet" | "langSec" => {
                        let l = attr("xml:lang")?
                            .ok_or_else(|| err(file, here, format!("<{name}> without xml:lang")))?;
                        lang = Some(l);
                    }
                    "tig" | "ntig" | "termSec" => group = Some(TermInfo::default()),
                    "term" => collect = Some((Collect::Term, depth, String::new())),
                    "termNote"
                    | "descrip"
                    | "note"
                    | "administrativeStatus"
                    | "register"
                    | "usage" => {
                        let kind = match name.as_str() {
                            "note" => Some(Collect::Note),
                            "administrativeStatus" => Some(Collect::Status),
                            "register" | "usage" => Some(Collect::Register),
                            _ => match attr("type")?.as_deref() {
                                Some("administrativeStatus") => Some(Collect::Status),
                                Some("register") | Some("usage") | Some("usageNote") => {
                                    Some(Collect::Register)
                                }
                                Some("definition") => Some(Collect::Note),
                                _ => None,
                            },
                        };
                        if let Some(k) = kind {
                            collect = Some((k, depth, String::new()));
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(_) | Event::GeneralRef(_) => {
                if let Some((_, _, buf)) = collect.as_mut() {
                    let t = quick_xml::escape::unescape(raw).map_err(|e| {
                        err(
                            file,
                            here,
                            format!("bad character or entity reference: {e}"),
                        )
                    })?;
                    buf.push_str(&t);
                }
            }
            Event::CData(_) => {
                if let Some((_, _, buf)) = collect.as_mut() {
                    // The raw event is `<![CDATA[...]]>`; its inside is taken verbatim.
                    buf.push_str(
                        raw.strip_prefix("<![CDATA[")
                            .and_then(|r| r.strip_suffix("]]>"))
                            .unwrap_or(""),
                    );
                }
            }
            Event::End(e) => {
                let name = e.local_name().as_ref().to_string();
                if collect.as_ref().is_some_and(|(_, d, _)| *d == depth) {
                    let (kind, _, buf) =
                        collect.take().unwrap_or((Collect::Note, 0, String::new()));
                    let value = normalize(&buf);
                    match kind {
                        Collect::Term => {
                            // A <term> straight inside a langSet is a group of its own.
                            group.get_or_insert_with(TermInfo::default).term = value;
                        }
                        Collect::Status => {
                            let v = value.to_lowercase();
                            if ["deprecated", "superseded", "forbidden"]
                                .iter()
                                .any(|w| v.contains(w))
                            {
                                group.get_or_insert_with(TermInfo::default).forbidden = true;
                            }
                        }
                        Collect::Register => {
                            if let Some(r) = register_of(&value) {
                                group.get_or_insert_with(TermInfo::default).register = Some(r);
                            }
                        }
                        Collect::Note => {
                            if let Some((_, _, note)) = entry.as_mut() {
                                if note.is_none() && !value.is_empty() {
                                    *note = Some(value);
                                }
                            }
                        }
                    }
                }
                depth = depth.saturating_sub(1);
                if collect.is_some() {
                    continue;
                }
                match name.as_str() {
                    "tig" | "ntig" | "termSec" => push_group(&mut entry, &lang, group.take()),
                    "langSet" | "langSec" => {
                        push_group(&mut entry, &lang, group.take());
                        lang = None;
                    }
                    "termEntry" | "conceptEntry" => {
                        push_group(&mut entry, &lang, group.take());
                        if let Some((l, terms, note)) = entry.take() {
                            if let Some(e) = concept(l, terms, note, source_lang, target_lang) {
                                entries.push(e);
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if !seen_root {
        return Err(err(file, 1, "not a TBX file: no root element"));
    }
    Ok(entries)
}

fn push_group(
    entry: &mut Option<(usize, Vec<(String, TermInfo)>, Option<String>)>,
    lang: &Option<String>,
    group: Option<TermInfo>,
) {
    if let (Some((_, terms, _)), Some(l), Some(g)) = (entry.as_mut(), lang, group) {
        if !g.term.is_empty() {
            terms.push((l.clone(), g));
        }
    }
}

fn concept(
    line: usize,
    terms: Vec<(String, TermInfo)>,
    note: Option<String>,
    source_lang: &str,
    target_lang: &str,
) -> Option<Entry> {
    let mut e = Entry {
        line,
        note,
        ..Default::default()
    };
    for (l, t) in terms {
        if lang_matches(&l, source_lang) {
            if !e.source.contains(&t.term) {
                e.source.push(t.term);
            }
        } else if lang_matches(&l, target_lang) {
            let list = match (t.forbidden, t.register) {
                (true, _) => &mut e.forbidden,
                (false, Some(Register::Informal)) => &mut e.target_informal,
                (false, Some(_)) => &mut e.target_formal,
                (false, None) => &mut e.target,
            };
            if !list.contains(&t.term) {
                list.push(t.term);
            }
        }
    }
    let has_target = !(e.target.is_empty()
        && e.target_formal.is_empty()
        && e.target_informal.is_empty()
        && e.forbidden.is_empty());
    (!e.source.is_empty() && has_target).then_some(e)
}

/// Characters of scripts written without spaces: a term there has no word boundary.
fn unspaced(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x0E00..=0x0E7F | 0xFF66..=0xFF9F)
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7A3 | 0x1100..=0x11FF | 0x3130..=0x318F)
}

fn fold(c: char) -> char {
    if c.is_whitespace() {
        return ' ';
    }
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// Which endings may follow a term inside the same word.
#[derive(Clone, Copy)]
enum Endings {
    /// English source: plural `-s`/`-es` (the possessive's apostrophe is a boundary anyway).
    English,
    /// Target languages: any ending up to two letters.
    Short,
}

/// Non-overlapping occurrences of any of `terms` in `text`, as byte spans, in order.
fn occurrences(text: &str, terms: &[&str], endings: Endings) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().map(|(i, c)| (i, fold(c))).collect();
    let mut found: Vec<(usize, usize)> = Vec::new();
    for term in terms {
        let t: Vec<char> = term.chars().map(fold).collect();
        if t.is_empty() || t.len() > chars.len() {
            continue;
        }
        let (first, last) = (t[0], t[t.len() - 1]);
        let left_boundary = !unspaced(first);
        let right_boundary = !unspaced(last) && !is_hangul(last);
        for i in 0..=chars.len() - t.len() {
            if chars[i].1 != first || !chars[i..i + t.len()].iter().zip(&t).all(|(a, b)| a.1 == *b)
            {
                continue;
            }
            if left_boundary && i > 0 && chars[i - 1].1.is_alphanumeric() {
                continue;
            }
            let mut j = i + t.len();
            if right_boundary {
                let tail = chars[j..]
                    .iter()
                    .take_while(|c| c.1.is_alphanumeric())
                    .count();
                let ok = match endings {
                    Endings::English => {
                        let s: String = chars[j..j + tail].iter().map(|c| c.1).collect();
                        tail == 0 || s == "s" || s == "es"
                    }
                    Endings::Short => tail <= 2,
                };
                if !ok {
                    continue;
                }
                j += tail;
            }
            let end = chars.get(j).map_or(text.len(), |c| c.0);
            found.push((chars[i].0, end));
        }
    }
    found.sort();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for f in found {
        if out.last().is_some_and(|l| f.0 < l.1) {
            continue;
        }
        out.push(f);
    }
    out
}

/// The lookup key of a term: its first word, folded.
fn key(term: &str) -> Option<String> {
    let w: String = term
        .chars()
        .map(fold)
        .take_while(|c| c.is_alphanumeric() && !unspaced(*c))
        .collect();
    (!w.is_empty()).then_some(w)
}

impl Termbase {
    pub fn new(entries: Vec<Entry>) -> Termbase {
        let mut index: HashMap<String, Vec<usize>> = HashMap::new();
        let mut unindexed = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let mut keys: Vec<String> = e.source.iter().filter_map(|s| key(s)).collect();
            keys.sort();
            keys.dedup();
            if keys.len() < e.source.len() {
                unindexed.push(i);
            }
            for k in keys {
                index.entry(k).or_default().push(i);
            }
        }
        Termbase {
            entries,
            origin: None,
            index,
            unindexed,
        }
    }

    /// Entries with a source term in `source`, each with its occurrence count.
    pub fn entries_in(&self, source: &str) -> Vec<(usize, usize)> {
        let mut cands: Vec<usize> = self.unindexed.clone();
        let words = source
            .split(|c: char| !c.is_alphanumeric() || unspaced(c))
            .filter(|w| !w.is_empty());
        for w in words {
            let w: String = w.chars().map(fold).collect();
            let stems = [Some(w.as_str()), w.strip_suffix('s'), w.strip_suffix("es")];
            for s in stems.into_iter().flatten() {
                if let Some(v) = self.index.get(s) {
                    cands.extend(v);
                }
            }
        }
        cands.sort_unstable();
        cands.dedup();
        cands
            .into_iter()
            .filter_map(|i| {
                let terms: Vec<&str> = self.entries[i].source.iter().map(String::as_str).collect();
                let n = occurrences(source, &terms, Endings::English).len();
                (n > 0).then_some((i, n))
            })
            .collect()
    }

    /// The terms a translation of `source` in `register` must contain and avoid, for constrained decoding.
    pub fn generation_terms(&self, source: &str, register: Option<Register>) -> GenerationTerms {
        let mut g = GenerationTerms::default();
        for (i, _) in self.entries_in(source) {
            let e = &self.entries[i];
            if let Some(t) = e.required(register).first() {
                if !g.require.contains(t) {
                    g.require.push(t.clone());
                }
            }
            for b in e.banned(register) {
                if !g.ban.contains(b) {
                    g.ban.push(b.clone());
                }
            }
        }
        g
    }

    /// Missing and forbidden terms in one segment's translation; every occurrence is counted.
    pub fn check_segment(
        &self,
        segment: usize,
        source: &str,
        target: &str,
        register: Option<Register>,
    ) -> SegmentTerms {
        let mut out = SegmentTerms::default();
        for (i, n) in self.entries_in(source) {
            let e = &self.entries[i];
            out.source_occurrences += n;
            let required = e.required(register);
            if !required.is_empty() {
                let terms: Vec<&str> = required.iter().map(String::as_str).collect();
                let found = occurrences(target, &terms, Endings::Short).len();
                if found < n {
                    let want = crate::quoted(required, " or ");
                    out.issues.push(Issue {
                        segment,
                        kind: CheckKind::TermMissing,
                        severity: Severity::Warning,
                        message: format!(
                            "term {:?} ×{n} in the source needs {want}{}; found ×{found} (termbase line {})",
                            e.source[0],
                            // The register is named only where the entry has a variant per register.
                            register
                                .filter(|_| !e.target_formal.is_empty() || !e.target_informal.is_empty())
                                .map(|r| format!(" ({})", r.as_str()))
                                .unwrap_or_default(),
                            e.line
                        ),
                        spans: Vec::new(),
                        count: n - found,
                    });
                }
            }
            let banned = e.banned(register);
            if !banned.is_empty() {
                let terms: Vec<&str> = banned.iter().map(|s| s.as_str()).collect();
                let spans: Vec<Span> = occurrences(target, &terms, Endings::Short)
                    .into_iter()
                    .map(|(a, b)| Span::of(target, a, b))
                    .collect();
                if !spans.is_empty() {
                    let words = crate::quoted(spans.iter().map(|s| &s.text), ", ");
                    out.issues.push(Issue {
                        segment,
                        kind: CheckKind::TermForbidden,
                        severity: Severity::Error,
                        message: format!(
                            "forbidden term {words} for {:?}{} (termbase line {})",
                            e.source[0],
                            required
                                .first()
                                .map(|t| format!(": use {t:?}"))
                                .unwrap_or_default(),
                            e.line
                        ),
                        count: spans.len(),
                        spans,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occurrences_respect_word_boundaries_and_short_endings() {
        let o = |t: &str, terms: &[&str], e| occurrences(t, terms, e).len();
        assert_eq!(
            o(
                "The contracts and the contract's end",
                &["contract"],
                Endings::English
            ),
            2
        );
        assert_eq!(o("contractor", &["contract"], Endings::English), 0);
        assert_eq!(
            o(
                "Des Vertrags und die Verträge",
                &["Vertrag"],
                Endings::Short
            ),
            1
        );
        assert_eq!(o("契約書を送ります", &["契約書"], Endings::Short), 1);
        assert_eq!(o("계약서를 보내세요", &["계약서"], Endings::Short), 1);
        assert_eq!(o("İstanbul ıstanbul", &["istanbul"], Endings::Short), 0);
    }
}
