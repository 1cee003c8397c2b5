//! Markdown (CommonMark + GFM tables, strikethrough, task lists, footnotes; YAML/TOML front matter) read with
//! pulldown-cmark's byte offsets. Segments are the inline text of paragraphs, headings, list items, table cells
//! (block quotes and footnotes hold paragraphs); code blocks, HTML blocks and front matter are never segments.
//!
//! The source text is the file's own bytes (backslash escapes and entities as written), so nothing is lost on the
//! way back. Emphasis, strong, strikethrough and inline links are `<n>…</n>` around their text (the markup `**`,
//! `[`, `](url "title")` is the tag); inline code, images, autolinks, reference-label links, inline HTML, footnote
//! references and hard breaks are `<n/>`. A soft line break is a space for the translator: the translation is
//! written on one line, which renders as the same paragraph (the continuation lines' `> ` or indentation go with
//! the break).

use crate::{Edit, Escape, FormatError, InlineTag, Segment};
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Item {
    Text,
    /// Kept whole as one placeholder.
    Opaque,
    Soft,
    Hard,
    /// An inline element with translatable content: emphasis, strong, strikethrough, an inline link.
    Open,
    /// Its content is not translatable: an image (alt text), an autolink, a link whose text is its label.
    OpenOpaque,
    Close,
}

pub(crate) fn import(text: &str) -> Result<(Vec<Segment>, Vec<Vec<Edit>>), FormatError> {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS;
    let mut segments = Vec::new();
    let mut edits = Vec::new();
    let mut cur: Vec<(Item, Range<usize>)> = Vec::new();
    let mut table = false;
    // Inside a code block, an HTML block or front matter: its text is never a segment.
    let mut skip = 0usize;
    let mut flush = |cur: &mut Vec<(Item, Range<usize>)>, table: bool| {
        if let Some((seg, edit)) = block(text, cur, table) {
            segments.push(Segment {
                id: format!("{}", segments.len() + 1),
                ..seg
            });
            edits.push(vec![edit]);
        }
        cur.clear();
    };
    for (ev, r) in Parser::new_ext(text, opts).into_offset_iter() {
        let item = match ev {
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::MetadataBlock(_)) => {
                flush(&mut cur, table);
                skip += 1;
                continue;
            }
            Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock | TagEnd::MetadataBlock(_)) => {
                skip = skip.saturating_sub(1);
                continue;
            }
            _ if skip > 0 => continue,
            Event::Start(
                Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript,
            ) => Item::Open,
            Event::Start(Tag::Link { link_type, .. }) => match link_type {
                LinkType::Inline | LinkType::Reference | LinkType::ReferenceUnknown => Item::Open,
                _ => Item::OpenOpaque,
            },
            Event::Start(Tag::Image { .. }) => Item::OpenOpaque,
            Event::End(
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript
                | TagEnd::Link
                | TagEnd::Image,
            ) => Item::Close,
            Event::Start(t) => {
                flush(&mut cur, table);
                table = matches!(t, Tag::TableCell);
                continue;
            }
            Event::End(_) => {
                flush(&mut cur, table);
                table = false;
                continue;
            }
            Event::Text(_) => Item::Text,
            Event::SoftBreak => Item::Soft,
            Event::HardBreak => Item::Hard,
            Event::Code(_)
            | Event::InlineHtml(_)
            | Event::InlineMath(_)
            | Event::FootnoteReference(_)
            | Event::TaskListMarker(_) => Item::Opaque,
            Event::Html(_) | Event::DisplayMath(_) | Event::Rule => {
                flush(&mut cur, table);
                continue;
            }
        };
        cur.push((item, r));
    }
    flush(&mut cur, table);
    Ok((segments, edits))
}

/// One block's inline content as a segment. Every byte from its first to its last inline event is either source
/// text or some tag's markup; a block whose offsets do not tile that way (a parser surprise) stays untouched.
fn block(text: &str, items: &[(Item, Range<usize>)], table: bool) -> Option<(Segment, Edit)> {
    let start = items.first()?.1.start;
    let mut pos = start;
    let mut source = String::new();
    let mut tags: Vec<InlineTag> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut after_soft = false;
    let mut any_text = false;
    let mut i = 0;
    let slice = |a: usize, b: usize| text.get(a..b).filter(|_| a <= b);
    let push_tag = |tags: &mut Vec<InlineTag>, source: &mut String, token: String, raw: &str| {
        source.push_str(&token);
        tags.push(InlineTag {
            token,
            raw: raw.to_string(),
        });
    };
    // A standalone `<n/>` holding `raw`, numbered after the tags so far.
    let push_standalone = |tags: &mut Vec<InlineTag>, source: &mut String, raw: &str| {
        let n = next_number(tags);
        push_tag(tags, source, format!("<{n}/>"), raw);
    };
    while i < items.len() {
        let (item, r) = (items[i].0, items[i].1.clone());
        // Bytes between events: a backslash escape is text, the indentation or `> ` after a soft break goes.
        if item != Item::Close {
            let gap = slice(pos, r.start)?;
            if !after_soft {
                if gap.contains('\n') {
                    return None;
                }
                source.push_str(gap);
            }
            pos = r.start;
        }
        after_soft = false;
        match item {
            Item::Text => {
                let t = slice(r.start, r.end)?;
                any_text |= t.chars().any(|c| !c.is_whitespace());
                source.push_str(t);
                pos = r.end;
            }
            Item::Opaque => {
                push_standalone(&mut tags, &mut source, slice(r.start, r.end)?);
                pos = r.end;
            }
            Item::Soft => {
                source.push(' ');
                pos = r.end;
                after_soft = true;
            }
            Item::Hard => {
                // The break and the next line's container markup travel together.
                let next = items
                    .get(i + 1)
                    .map(|x| x.1.start)
                    .unwrap_or(r.end)
                    .max(r.end);
                push_standalone(&mut tags, &mut source, slice(r.start, next)?);
                pos = next;
            }
            Item::OpenOpaque => {
                let mut depth = 0usize;
                let mut j = i;
                loop {
                    match items.get(j)?.0 {
                        Item::Open | Item::OpenOpaque => depth += 1,
                        Item::Close => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    j += 1;
                }
                push_standalone(&mut tags, &mut source, slice(r.start, r.end)?);
                pos = r.end;
                i = j;
            }
            Item::Open => {
                let (next, nr) = items.get(i + 1)?;
                let n = next_number(&tags);
                if *next == Item::Close {
                    push_tag(
                        &mut tags,
                        &mut source,
                        format!("<{n}/>"),
                        slice(r.start, r.end)?,
                    );
                    pos = r.end;
                    i += 2;
                    continue;
                }
                push_tag(
                    &mut tags,
                    &mut source,
                    format!("<{n}>"),
                    slice(r.start, nr.start)?,
                );
                open.push(n);
                pos = nr.start;
            }
            Item::Close => {
                let n = open.pop()?;
                push_tag(
                    &mut tags,
                    &mut source,
                    format!("</{n}>"),
                    slice(pos, r.end)?,
                );
                pos = r.end;
            }
        }
        i += 1;
    }
    if !any_text || !open.is_empty() {
        return None;
    }
    let edit = Edit::bare(start..pos, Escape::Markdown { table });
    let seg = Segment::text(source, tags);
    Some((seg, edit))
}

/// Opening and standalone tags are numbered 1, 2, 3…; a closing tag repeats its opening's number. The next number
/// is the last opening or standalone tag's plus one (a closing run before it is as long as the nesting is deep), so
/// numbering a block stays linear in its tags.
pub(crate) fn next_number(tags: &[InlineTag]) -> usize {
    tags.iter()
        .rev()
        .find(|t| !t.token.starts_with("</"))
        .and_then(|t| t.token.trim_matches(['<', '>', '/']).parse::<usize>().ok())
        .map_or(1, |n| n + 1)
}
