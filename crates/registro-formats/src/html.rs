//! HTML: the text between block boundaries (`p`, `h1`–`h6`, `li`, `td`, `th`, `title`, `figcaption`, `div`, …) is a
//! segment; inline elements inside it (`b`, `i`, `a`, `span`, …) are `<n>…</n>` with their tags verbatim (so every
//! attribute stays), void ones (`br`, `img`) and comments `<n/>`; `code`, `kbd`, `samp` inside a sentence are one
//! `<n/>` with their content. `script`, `style`, `pre`, `textarea`, `svg`, `math` and `template` are never segments.
//!
//! The tokenizer is our own and deliberately small: an export needs the exact byte span of every tag, comment and
//! text run, and tolerance of whatever real pages contain, but no tree. html5gum and tl build tokens or a DOM whose
//! spans are partial or lost across malformed markup; here every byte belongs to exactly one token, so the file
//! comes back identical when nothing is translated, whatever it contains. Text stays as written (entities
//! included), so a translation that keeps `&nbsp;` or `&amp;` writes them back as they were.

use crate::{Edit, Escape, FormatError, InlineTag, Segment};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Text,
    /// A start tag: lower-case name, self-closing (`/>`).
    Start(String, bool),
    End(String),
    /// Comments, doctype, processing instructions, CDATA.
    Other,
}

/// Elements whose content is never translated (kept byte for byte).
const SKIP: &[&str] = &[
    "script", "style", "pre", "textarea", "svg", "math", "template", "noscript",
];
/// Elements whose content is raw text up to their end tag (no markup inside).
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
];
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "data", "del", "dfn", "em", "font", "i", "ins",
    "label", "mark", "q", "s", "small", "span", "strong", "sub", "sup", "time", "u", "var", "big",
    "tt",
];
const VOID_INLINE: &[&str] = &["br", "img", "wbr", "input"];
/// Inline elements whose content is code or computer output: one placeholder with their content.
const OPAQUE_INLINE: &[&str] = &["code", "kbd", "samp"];

fn tokenize(text: &str) -> Vec<(Tok, Range<usize>)> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let mut text_start = 0;
    let find =
        |from: usize, pat: &str| text.get(from..).and_then(|t| t.find(pat)).map(|j| from + j);
    let push_text = |toks: &mut Vec<(Tok, Range<usize>)>, a: usize, z: usize| {
        if a < z {
            toks.push((Tok::Text, a..z));
        }
    };
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &text[i..];
        let (tok, end) = if rest.starts_with("<!--") {
            let e = find(i + 4, "-->").map(|e| e + 3).unwrap_or(b.len());
            (Tok::Other, e)
        } else if rest.starts_with("<![CDATA[") {
            let e = find(i + 9, "]]>").map(|e| e + 3).unwrap_or(b.len());
            (Tok::Other, e)
        } else if rest.starts_with("<!") || rest.starts_with("<?") {
            let e = find(i + 2, ">").map(|e| e + 1).unwrap_or(b.len());
            (Tok::Other, e)
        } else if rest.starts_with("</") && b.get(i + 2).is_some_and(u8::is_ascii_alphabetic) {
            let name = tag_name(&text[i + 2..]);
            match find(i + 2, ">") {
                Some(e) => (Tok::End(name), e + 1),
                None => (Tok::Text, b.len()),
            }
        } else if b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            let name = tag_name(&text[i + 1..]);
            match start_tag_end(b, i + 1) {
                Some(e) => (Tok::Start(name, b[e - 2] == b'/'), e),
                None => (Tok::Text, b.len()),
            }
        } else {
            // A `<` that starts no tag is text.
            i += 1;
            continue;
        };
        push_text(&mut toks, text_start, i);
        let raw_name = match &tok {
            Tok::Start(n, false) if RAW_TEXT.contains(&n.as_str()) => Some(n.clone()),
            _ => None,
        };
        toks.push((tok, i..end));
        i = end;
        text_start = end;
        if let Some(n) = raw_name {
            // Raw text runs to `</name`, matched without regard to case.
            let close = format!("</{n}");
            let e = find_ci(b, i, close.as_bytes()).unwrap_or(b.len());
            push_text(&mut toks, i, e);
            i = e;
            text_start = e;
            if e < b.len() {
                let end = find(e, ">").map(|x| x + 1).unwrap_or(b.len());
                toks.push((Tok::End(n), e..end));
                i = end;
                text_start = end;
            }
        }
    }
    push_text(&mut toks, text_start, b.len());
    toks
}

/// The first `pat` (lower-case ASCII) at or after `from`, ignoring ASCII case; linear in the bytes searched.
fn find_ci(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    (from..b.len())
        .find(|&j| b.len() - j >= pat.len() && b[j..j + pat.len()].eq_ignore_ascii_case(pat))
}

fn tag_name(s: &str) -> String {
    s.bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b':')
        .map(|c| c.to_ascii_lowercase() as char)
        .collect()
}

/// The byte after a start tag's `>`, skipping quoted attribute values (which may hold `>`).
fn start_tag_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' => {
                // Only a quote right after `=` (and spaces) opens a value.
                let before = b[..i].iter().rev().find(|x| !x.is_ascii_whitespace());
                if before == Some(&b'=') {
                    quote = Some(c);
                }
            }
            None if c == b'>' => return Some(i + 1),
            None => {}
        }
        i += 1;
    }
    None
}

pub(crate) fn import(text: &str) -> Result<(Vec<Segment>, Vec<Vec<Edit>>), FormatError> {
    let toks = tokenize(text);
    let mut segments = Vec::new();
    let mut edits = Vec::new();
    let mut cur: Vec<(Tok, Range<usize>)> = Vec::new();
    let mut skip: Option<(String, usize)> = None; // (element, nesting)
    let mut opaque: Option<(String, usize, usize)> = None; // (element, nesting, start)
    let mut block_name = String::from("text");
    let flush = |cur: &mut Vec<(Tok, Range<usize>)>,
                 block_name: &str,
                 segments: &mut Vec<Segment>,
                 edits: &mut Vec<Vec<Edit>>| {
        if let Some((seg, edit)) = flow(text, cur) {
            segments.push(Segment {
                id: format!("{block_name}#{}", segments.len() + 1),
                ..seg
            });
            edits.push(vec![edit]);
        }
        cur.clear();
    };
    for (tok, r) in toks {
        if let Some((name, depth)) = skip.as_mut() {
            match &tok {
                Tok::Start(n, false) if n == name => *depth += 1,
                Tok::End(n) if n == name => {
                    *depth -= 1;
                    if *depth == 0 {
                        skip = None;
                    }
                }
                _ => {}
            }
            continue;
        }
        if let Some((name, depth, start)) = opaque.as_mut() {
            match &tok {
                Tok::Start(n, false) if n == name => *depth += 1,
                Tok::End(n) if n == name => {
                    *depth -= 1;
                    if *depth == 0 {
                        cur.push((Tok::Other, *start..r.end));
                        opaque = None;
                    }
                }
                _ => {}
            }
            continue;
        }
        match &tok {
            Tok::Start(n, false) if SKIP.contains(&n.as_str()) => {
                flush(&mut cur, &block_name, &mut segments, &mut edits);
                skip = Some((n.clone(), 1));
            }
            Tok::Start(n, false) if OPAQUE_INLINE.contains(&n.as_str()) => {
                opaque = Some((n.clone(), 1, r.start));
            }
            Tok::Start(n, _) | Tok::End(n)
                if INLINE.contains(&n.as_str()) || VOID_INLINE.contains(&n.as_str()) =>
            {
                cur.push((tok.clone(), r));
            }
            Tok::Start(n, _) => {
                flush(&mut cur, &block_name, &mut segments, &mut edits);
                block_name = n.clone();
            }
            Tok::End(_) => flush(&mut cur, &block_name, &mut segments, &mut edits),
            Tok::Text | Tok::Other => cur.push((tok.clone(), r)),
        }
    }
    if let Some((_, _, start)) = opaque {
        cur.push((Tok::Other, start..text.len()));
    }
    flush(&mut cur, &block_name, &mut segments, &mut edits);
    Ok((segments, edits))
}

/// A run of text and inline markup between two block boundaries as a segment, its edges' whitespace left out.
fn flow(text: &str, toks: &[(Tok, Range<usize>)]) -> Option<(Segment, Edit)> {
    let has_words = toks
        .iter()
        .any(|(t, r)| *t == Tok::Text && text[r.clone()].chars().any(char::is_alphanumeric));
    if !has_words {
        return None;
    }
    let first = toks
        .iter()
        .position(|(t, r)| *t != Tok::Text || !text[r.clone()].trim().is_empty())?;
    let last = toks
        .iter()
        .rposition(|(t, r)| *t != Tok::Text || !text[r.clone()].trim().is_empty())?;
    let mut start = toks[first].1.start;
    let mut end = toks[last].1.end;
    if toks[first].0 == Tok::Text {
        let t = &text[toks[first].1.clone()];
        start += t.len() - t.trim_start().len();
    }
    if toks[last].0 == Tok::Text {
        let t = &text[toks[last].1.clone()];
        end -= t.len() - t.trim_end().len();
    }
    let mut source = String::new();
    let mut tags: Vec<InlineTag> = Vec::new();
    // Open inline elements: (name, placeholder number).
    let mut open: Vec<(String, usize)> = Vec::new();
    for (tok, r) in &toks[first..=last] {
        let r = r.start.max(start)..r.end.min(end);
        let raw = &text[r.clone()];
        let n = crate::markdown::next_number(&tags);
        let token = match tok {
            Tok::Text => {
                collapse_newlines(raw, &mut source);
                continue;
            }
            Tok::Start(name, false) if !VOID_INLINE.contains(&name.as_str()) => {
                open.push((name.clone(), n));
                format!("<{n}>")
            }
            // Only the innermost open elements are searched: an end tag matching none of them is standalone, and
            // a page of thousands of unclosed tags cannot make each end tag scan them all.
            Tok::End(name) => match open
                .iter()
                .enumerate()
                .rev()
                .take(64)
                .find(|(_, (o, _))| o == name)
                .map(|(k, _)| k)
            {
                Some(k) => {
                    let (_, m) = open.remove(k);
                    format!("</{m}>")
                }
                None => format!("<{n}/>"),
            },
            _ => format!("<{n}/>"),
        };
        source.push_str(&token);
        tags.push(InlineTag {
            token,
            raw: raw.to_string(),
        });
    }
    let edit = Edit::bare(start..end, Escape::Html);
    let seg = Segment::text(source, tags);
    Some((seg, edit))
}

/// Line breaks inside a paragraph are layout: a whitespace run holding one is a space for the translator.
fn collapse_newlines(s: &str, out: &mut String) {
    let mut ws = String::new();
    for c in s.chars() {
        if c.is_whitespace() {
            ws.push(c);
            continue;
        }
        if !ws.is_empty() {
            out.push_str(if ws.contains('\n') { " " } else { &ws });
            ws.clear();
        }
        out.push(c);
    }
    if !ws.is_empty() {
        out.push_str(if ws.contains('\n') { " " } else { &ws });
    }
}

/// HTML text: `<` and a bare `&` escaped; `&name;`, `&#…;` kept as the character references they are.
pub(crate) fn escape_text(text: &str, out: &mut String) {
    for (i, c) in text.char_indices() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' if !is_reference(&text[i + 1..]) => out.push_str("&amp;"),
            _ => out.push(c),
        }
    }
}

fn is_reference(s: &str) -> bool {
    let body = s.split(';').next().unwrap_or("");
    if body.len() == s.len() || body.is_empty() || body.len() > 32 {
        return false;
    }
    match body.strip_prefix('#') {
        Some(num) => match num.strip_prefix(['x', 'X']) {
            Some(hex) => !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()),
            None => !num.is_empty() && num.chars().all(|c| c.is_ascii_digit()),
        },
        None => {
            body.starts_with(|c: char| c.is_ascii_alphabetic())
                && body.chars().all(|c| c.is_ascii_alphanumeric())
        }
    }
}
