//! XLIFF 1.2 (`<trans-unit><source>…<target>`) and 2.x (`<unit><segment><source>…<target>`), read with quick-xml
//! for well-formedness and byte positions. The file itself is the skeleton; a translated segment replaces its
//! `<target>` (or gets one after `</source>`) with `state="translated"` (1.2 on the target, 2.x on the segment).
//! A DOCTYPE is refused: XLIFF needs none, and entity declarations are how billion-laughs files blow up parsers.

use crate::{line_of, next_xml_event, Edit, Escape, FormatError, InlineTag, Segment, XmlEvent};
use quick_xml::events::Event;
use quick_xml::Reader;

/// Inline elements whose content is native code, not text: kept whole as one placeholder.
const OPAQUE: &[&str] = &["ph", "bpt", "ept", "it"];
const MAX_DEPTH: usize = 256;

#[derive(Default)]
struct Unit {
    id: String,
    v2: bool,
    seg_start_tag: Option<(std::ops::Range<usize>, String)>,
    source: Option<(String, Vec<InlineTag>)>,
    source_end: usize,
    target_elem: Option<(std::ops::Range<usize>, String)>,
    target_text: Option<String>,
    notes: Vec<String>,
    fuzzy: bool,
}

fn err(text: &str, pos: usize, msg: impl Into<String>) -> FormatError {
    FormatError::Syntax {
        line: line_of(text, pos),
        msg: msg.into(),
    }
}

fn attr(raw_tag: &str, name: &str) -> Option<String> {
    let pat = format!(" {name}=");
    let i = raw_tag.find(&pat)? + pat.len();
    // XML quotes attribute values with ' or "; anything else (even a multi-byte letter) is not an attribute value.
    let q = raw_tag[i..].chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &raw_tag[i + 1..];
    let j = rest.find(q)?;
    Some(rest[..j].to_string())
}

fn unescape(text: &str, raw: &str, pos: usize) -> Result<String, FormatError> {
    quick_xml::escape::unescape(raw)
        .map(|c| c.into_owned())
        .map_err(|e| err(text, pos, format!("bad character or entity reference: {e}")))
}

pub(crate) fn import(text: &str) -> Result<(Vec<Segment>, Vec<Vec<Edit>>), FormatError> {
    let mut reader = Reader::from_str(text);
    let mut segments = Vec::new();
    let mut edits = Vec::new();
    let mut depth = 0usize;
    let mut unit: Option<Unit> = None;
    let mut v2_unit_id = String::new();
    let mut unit_notes: Vec<String> = Vec::new();
    // Inside <source>/<target>: the text with placeholders, the tags, the stack of open inline tags' numbers.
    let mut collecting: Option<(bool, String, Vec<InlineTag>, Vec<usize>, usize)> = None; // (is_target, ..., start)
    let mut opaque: Option<(usize, usize, String)> = None; // (start, depth at start, name)
    let mut in_note = false;
    let mut note = String::new();
    let mut seen_root = false;
    loop {
        let XmlEvent { event: ev, start: p0, end: p1, raw } =
            next_xml_event(&mut reader, text).map_err(|(pos, msg)| err(text, pos, msg))?;
        match &ev {
            Event::DocType(_) => {
                return Err(err(
                    text,
                    p0,
                    "a DOCTYPE is not allowed in XLIFF (entity declarations are refused)",
                ))
            }
            Event::Start(_) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(err(
                        text,
                        p0,
                        format!("elements nested deeper than {MAX_DEPTH}"),
                    ));
                }
            }
            _ => {}
        }
        if let Some((s, _, name)) = &opaque {
            // The file ends inside an opaque inline element: without this the loop would read Eof forever.
            if matches!(ev, Event::Eof) {
                return Err(err(text, *s, format!("<{name}> is not closed before the end of the file")));
            }
        }
        if let Some((_, d, name)) = &opaque {
            let closes = matches!(&ev, Event::End(e) if depth == *d && e.local_name().as_ref() == name.as_str());
            {
                if closes {
                    let (s, _, _) = opaque.take().unwrap();
                    let c = collecting.as_mut().unwrap();
                    let n = c.2.len() + 1;
                    let token = format!("<{n}/>");
                    c.1.push_str(&token);
                    c.2.push(InlineTag {
                        token,
                        raw: text[s..p1].to_string(),
                    });
                }
            }
            if let Event::End(_) = ev {
                depth = depth.saturating_sub(1);
            }
            continue;
        }
        let is_end = matches!(ev, Event::End(_));
        match ev {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) if collecting.is_some() => {
                let is_empty = raw.ends_with("/>");
                let name = e.local_name().as_ref().to_string();
                let c = collecting.as_mut().unwrap();
                if !is_empty && OPAQUE.contains(&name.as_str()) {
                    opaque = Some((p0, depth, name));
                    continue;
                }
                let n = c.2.len() + 1;
                let token = if is_empty {
                    format!("<{n}/>")
                } else {
                    format!("<{n}>")
                };
                c.1.push_str(&token);
                c.2.push(InlineTag {
                    token,
                    raw: raw.to_string(),
                });
                if !is_empty {
                    c.3.push(n);
                }
            }
            Event::End(e) if collecting.is_some() && depth > collecting.as_ref().unwrap().4 => {
                let _ = e;
                let c = collecting.as_mut().unwrap();
                let n = c.3.pop().unwrap_or(0);
                let token = format!("</{n}>");
                c.1.push_str(&token);
                c.2.push(InlineTag {
                    token,
                    raw: raw.to_string(),
                });
            }
            Event::End(e) if collecting.is_some() => {
                let (is_target, s, tags, _, _) = collecting.take().unwrap();
                let _ = e;
                let u = unit.as_mut().unwrap();
                if is_target {
                    u.target_text = Some(s);
                    if let Some((r, _)) = &mut u.target_elem {
                        r.end = p1;
                    }
                } else {
                    u.source = Some((s, tags));
                    u.source_end = p1;
                }
            }
            Event::Text(_) | Event::GeneralRef(_) if collecting.is_some() => {
                collecting
                    .as_mut()
                    .unwrap()
                    .1
                    .push_str(&unescape(text, raw, p0)?);
            }
            Event::CData(_) if collecting.is_some() => {
                let inner = raw
                    .strip_prefix("<![CDATA[")
                    .and_then(|r| r.strip_suffix("]]>"))
                    .unwrap_or(raw);
                collecting.as_mut().unwrap().1.push_str(inner);
            }
            Event::Text(_) | Event::GeneralRef(_) if in_note => {
                note.push_str(&unescape(text, raw, p0)?)
            }
            Event::Start(e) => {
                let name = e.local_name().as_ref().to_string();
                match name.as_str() {
                    "xliff" => {
                        seen_root = true;
                        if let Some(v) = attr(raw, "version") {
                            if !(v.starts_with("1.") || v.starts_with("2.")) {
                                return Err(err(
                                    text,
                                    p0,
                                    format!("XLIFF version {v} is not supported (1.2 and 2.x are)"),
                                ));
                            }
                        }
                    }
                    "trans-unit" => {
                        unit = Some(Unit {
                            id: attr(raw, "id").unwrap_or_default(),
                            ..Unit::default()
                        });
                    }
                    "unit" => {
                        v2_unit_id = attr(raw, "id").unwrap_or_default();
                        unit_notes.clear();
                    }
                    "segment" => {
                        let sid = attr(raw, "id");
                        let id = match sid {
                            Some(s) => format!("{v2_unit_id}/{s}"),
                            None => v2_unit_id.clone(),
                        };
                        let fuzzy = attr(raw, "state").is_some_and(|s| s == "initial");
                        unit = Some(Unit {
                            id,
                            v2: true,
                            seg_start_tag: Some((p0..p1, raw.to_string())),
                            fuzzy,
                            notes: unit_notes.clone(),
                            ..Unit::default()
                        });
                    }
                    "source" if unit.is_some() => {
                        collecting = Some((false, String::new(), Vec::new(), Vec::new(), depth))
                    }
                    "target" if unit.as_ref().is_some_and(|u| u.source.is_some()) => {
                        let u = unit.as_mut().unwrap();
                        u.fuzzy |= attr(raw, "state").is_some_and(|s| s.starts_with("needs-"));
                        u.target_elem = Some((p0..p1, raw.to_string()));
                        collecting = Some((true, String::new(), Vec::new(), Vec::new(), depth));
                    }
                    "note" => {
                        in_note = true;
                        note.clear();
                    }
                    _ => {}
                }
            }
            Event::Empty(e) if e.local_name().as_ref() == "target" => {
                if let Some(u) = unit.as_mut() {
                    u.target_elem = Some((p0..p1, raw.trim_end_matches("/>").to_string() + ">"));
                }
            }
            Event::End(e) => {
                let name = e.local_name().as_ref().to_string();
                match name.as_str() {
                    "note" => {
                        in_note = false;
                        let n = note.trim().to_string();
                        if !n.is_empty() {
                            if let Some(u) = unit.as_mut() {
                                u.notes.push(n);
                            } else {
                                // XLIFF 2 puts <notes> before the unit's segments: each segment gets them.
                                unit_notes.push(n);
                            }
                        }
                    }
                    "trans-unit" | "segment" => {
                        if let Some(u) = unit.take() {
                            finish(u, &mut segments, &mut edits);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        if is_end {
            depth = depth.saturating_sub(1);
        }
    }
    if !seen_root {
        return Err(err(text, 0, "no <xliff> element: is this an XLIFF file?"));
    }
    Ok((segments, edits))
}

fn finish(u: Unit, segments: &mut Vec<Segment>, edits: &mut Vec<Vec<Edit>>) {
    let Some((source, tags)) = u.source else {
        return;
    };
    let mut e = Vec::new();
    match u.target_elem {
        Some((range, start_tag)) => {
            let start = if u.v2 {
                start_tag
            } else {
                with_state(&start_tag)
            };
            e.push(Edit {
                range,
                prefix: start,
                suffix: "</target>".into(),
                escape: Escape::Xml,
                fixed: false,
            });
        }
        None => {
            let prefix = if u.v2 {
                "<target>".to_string()
            } else {
                "<target state=\"translated\">".to_string()
            };
            e.push(Edit {
                range: u.source_end..u.source_end,
                prefix,
                suffix: "</target>".into(),
                escape: Escape::Xml,
                fixed: false,
            });
        }
    }
    if let Some((tag, raw)) = u.seg_start_tag {
        e.push(Edit {
            range: tag,
            prefix: with_state(&raw),
            suffix: String::new(),
            escape: Escape::Xml,
            fixed: true,
        });
    }
    segments.push(Segment {
        id: u.id,
        source,
        tags,
        notes: u.notes,
        fuzzy: u.fuzzy,
        existing_target: u.target_text.filter(|t| !t.is_empty()),
    });
    edits.push(e);
}

/// A start tag with `state="translated"` in place of any state it had.
fn with_state(start_tag: &str) -> String {
    let mut t = start_tag.to_string();
    if let Some(s) = attr(&t, "state") {
        for q in ['"', '\''] {
            t = t.replace(&format!(" state={q}{s}{q}"), "");
        }
    }
    t.trim_end_matches('>').to_string() + " state=\"translated\">"
}
