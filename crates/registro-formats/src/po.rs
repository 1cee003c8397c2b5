//! gettext PO: an entry is comments (`#.`, `#:`, `#,` flags, `#|`), optional `msgctxt`, `msgid`, optional
//! `msgid_plural`, and `msgstr` or `msgstr[n]`, each a run of quoted C strings. The header entry (empty msgid) and
//! obsolete entries (`#~`) are left alone. A plural entry gives two segments: the singular fills `msgstr[0]`, the
//! plural fills every other form.

use crate::{line_of, Edit, Escape, FormatError, Segment};

#[derive(Default)]
struct Entry {
    ctxt: Option<String>,
    id: Option<String>,
    plural: Option<String>,
    /// (form index, byte span of the quoted value lines, value)
    strs: Vec<(usize, std::ops::Range<usize>, String)>,
    fuzzy: bool,
    notes: Vec<String>,
}

fn unquote(line: &str, text: &str, at: usize) -> Result<String, FormatError> {
    let l = line.trim();
    let inner = l
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .filter(|_| l.len() >= 2)
        .ok_or_else(|| FormatError::Syntax {
            line: line_of(text, at),
            msg: format!("expected a quoted string, found '{l}'"),
        })?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => {
                return Err(FormatError::Syntax {
                    line: line_of(text, at),
                    msg: "a string ends with a lone backslash".into(),
                })
            }
        }
    }
    Ok(out)
}

pub(crate) fn import(text: &str) -> Result<(Vec<Segment>, Vec<Vec<Edit>>), FormatError> {
    let mut lines = Vec::new();
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let content = raw.trim_end_matches('\n').trim_end_matches('\r');
        lines.push((at, content));
        at += raw.len();
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut cur = Entry::default();
    let mut i = 0;
    let flush = |cur: &mut Entry, entries: &mut Vec<Entry>| {
        if cur.id.is_some() {
            entries.push(std::mem::take(cur));
        } else {
            *cur = Entry::default();
        }
    };
    while i < lines.len() {
        let (start, line) = lines[i];
        let t = line.trim_start();
        if t.is_empty() {
            flush(&mut cur, &mut entries);
            i += 1;
            continue;
        }
        if t.starts_with('#') {
            // A comment after a complete entry starts the next one even without a blank line.
            if !cur.strs.is_empty() {
                flush(&mut cur, &mut entries);
            }
            if let Some(flags) = t.strip_prefix("#,") {
                cur.fuzzy |= flags.split(',').any(|f| f.trim() == "fuzzy");
            } else if let Some(n) = t.strip_prefix("#.") {
                cur.notes.push(n.trim().to_string());
            }
            i += 1;
            continue;
        }
        let (kw, rest) = t.split_once(|c: char| c.is_whitespace()).unwrap_or((t, ""));
        // The value: this line's string and the continuation lines after it.
        let value_start =
            start + (line.len() - rest.len()) + (rest.len() - rest.trim_start().len());
        let mut value = unquote(rest, text, start)?;
        let mut end = start + line.len();
        i += 1;
        while i < lines.len() && lines[i].1.trim_start().starts_with('"') {
            value.push_str(&unquote(lines[i].1, text, lines[i].0)?);
            end = lines[i].0 + lines[i].1.len();
            i += 1;
        }
        match kw {
            "msgctxt" => {
                if !cur.strs.is_empty() {
                    flush(&mut cur, &mut entries);
                }
                cur.ctxt = Some(value)
            }
            "msgid" => {
                if !cur.strs.is_empty() {
                    flush(&mut cur, &mut entries);
                }
                cur.id = Some(value)
            }
            "msgid_plural" => cur.plural = Some(value),
            "msgstr" => cur.strs.push((0, value_start..end, value)),
            k if k.starts_with("msgstr[") && k.ends_with(']') => {
                let n = k[7..k.len() - 1]
                    .parse::<usize>()
                    .map_err(|_| FormatError::Syntax {
                        line: line_of(text, start),
                        msg: format!("'{k}' is not a plural form index"),
                    })?;
                cur.strs.push((n, value_start..end, value))
            }
            _ => {
                return Err(FormatError::Syntax {
                    line: line_of(text, start),
                    msg: format!(
                        "unknown keyword '{kw}' (expected msgctxt, msgid, msgid_plural or msgstr)"
                    ),
                })
            }
        }
    }
    flush(&mut cur, &mut entries);

    let mut segments = Vec::new();
    let mut edits = Vec::new();
    let edit = |r: &std::ops::Range<usize>| Edit {
        range: r.clone(),
        prefix: "\"".into(),
        suffix: "\"".into(),
        escape: Escape::Po,
        fixed: false,
    };
    for e in entries {
        let id = e.id.clone().unwrap_or_default();
        if id.is_empty() {
            continue;
        }
        let key = match &e.ctxt {
            Some(c) => format!("{c}\u{4}{id}"),
            None => id.clone(),
        };
        let existing = |forms: &[&(usize, std::ops::Range<usize>, String)]| {
            forms.first().map(|f| f.2.clone()).filter(|s| !s.is_empty())
        };
        let seg = |source: String,
                   id: String,
                   forms: &[&(usize, std::ops::Range<usize>, String)]| Segment {
            id,
            source,
            tags: Vec::new(),
            notes: e.notes.clone(),
            fuzzy: e.fuzzy,
            existing_target: existing(forms),
        };
        if let Some(plural) = &e.plural {
            let one: Vec<_> = e.strs.iter().filter(|s| s.0 == 0).collect();
            let many: Vec<_> = e.strs.iter().filter(|s| s.0 != 0).collect();
            segments.push(seg(id.clone(), key.clone(), &one));
            edits.push(one.iter().map(|s| edit(&s.1)).collect());
            segments.push(seg(plural.clone(), format!("{key}[plural]"), &many));
            edits.push(many.iter().map(|s| edit(&s.1)).collect());
        } else {
            let forms: Vec<_> = e.strs.iter().collect();
            segments.push(seg(id.clone(), key, &forms));
            edits.push(forms.iter().map(|s| edit(&s.1)).collect());
        }
    }
    Ok((segments, edits))
}
