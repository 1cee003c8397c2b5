//! SRT and WebVTT: a cue is a block of lines separated by blank lines; its timing line holds `-->`, and the
//! lines after it are the text. Numbers, identifiers, timings, settings, NOTE and STYLE blocks stay untouched.

use crate::{line_of, Edit, Escape, FormatError, Segment};

pub(crate) fn import(text: &str, vtt: bool) -> Result<(Vec<Segment>, Vec<Vec<Edit>>), FormatError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if vtt && !body.starts_with("WEBVTT") {
        return Err(FormatError::Syntax {
            line: 1,
            msg: "a WebVTT file starts with 'WEBVTT'".into(),
        });
    }
    let crlf = text.contains("\r\n");
    // (start, end) byte spans of each line without its line ending.
    let mut lines = Vec::new();
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let content = raw.trim_end_matches('\n').trim_end_matches('\r');
        lines.push((at, at + content.len()));
        at += raw.len();
    }
    let mut segments = Vec::new();
    let mut edits = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        // A block: consecutive non-blank lines.
        let start = i;
        while i < lines.len() && !text[lines[i].0..lines[i].1].trim().is_empty() {
            i += 1;
        }
        let block = &lines[start..i];
        i += 1;
        let Some(t) = block.iter().position(|&(s, e)| text[s..e].contains("-->")) else {
            if !vtt && !block.is_empty() {
                let (s, _) = block[0];
                return Err(FormatError::Syntax {
                    line: line_of(text, s),
                    msg: "an SRT cue needs a timing line such as '00:00:01,000 --> 00:00:02,500'"
                        .into(),
                });
            }
            continue;
        };
        if t > 1 {
            let (s, _) = block[t];
            return Err(FormatError::Syntax {
                line: line_of(text, s),
                msg: "a cue's timing line must come first or after its number/identifier".into(),
            });
        }
        let id = if t == 1 {
            text[block[0].0..block[0].1].trim().to_string()
        } else {
            format!("{}", segments.len() + 1)
        };
        let text_lines = &block[t + 1..];
        if text_lines.is_empty() {
            continue;
        }
        let span = text_lines[0].0..text_lines[text_lines.len() - 1].1;
        let source: Vec<&str> = text_lines.iter().map(|&(s, e)| &text[s..e]).collect();
        segments.push(Segment { id, ..Segment::text(source.join("\n"), Vec::new()) });
        edits.push(vec![Edit::bare(span, Escape::Plain { crlf })]);
    }
    Ok((segments, edits))
}

/// Lines of a subtitle longer than `max` characters (42 is the common broadcast limit): (line number in the cue,
/// its length).
pub fn long_lines(text: &str, max: usize) -> Vec<(usize, usize)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.chars().count()))
        .filter(|&(_, n)| n > max)
        .collect()
}
