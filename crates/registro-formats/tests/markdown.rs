//! Markdown round trips on a user guide (front matter, headings, emphasis, links, an image, inline code, nested
//! lists with a fenced code block, a block quote with a hard break, a table, raw HTML, task items, a footnote): no
//! translation gives the same bytes; a translation changes the text only, and the result parses to the same
//! structure with code, URLs and front matter untouched.

use pulldown_cmark::{Event, Options, Parser};
mod common;

use registro_formats::{import, Format, FormatError};

fn guide() -> (std::path::PathBuf, Vec<u8>) {
    common::data("guide.md")
}

/// The block and inline structure (tags and code/HTML contents), text left out.
fn structure(md: &str) -> Vec<String> {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut in_text_block = 0;
    Parser::new_ext(md, opts)
        .filter_map(|e| match e {
            Event::Text(t) if in_text_block > 0 => Some(format!("code:{t}")),
            Event::Text(_) | Event::SoftBreak => None,
            Event::Start(t) => {
                if matches!(
                    t,
                    pulldown_cmark::Tag::CodeBlock(_) | pulldown_cmark::Tag::MetadataBlock(_)
                ) {
                    in_text_block += 1;
                }
                Some(format!("{t:?}"))
            }
            Event::End(t) => {
                if matches!(
                    t,
                    pulldown_cmark::TagEnd::CodeBlock | pulldown_cmark::TagEnd::MetadataBlock(_)
                ) {
                    in_text_block -= 1;
                }
                Some(format!("{t:?}"))
            }
            other => Some(format!("{other:?}")),
        })
        .collect()
}

#[test]
fn guide_segments_and_byte_identical_no_op() {
    let (p, bytes) = guide();
    assert_eq!(Format::from_path(&p), Some(Format::Markdown));
    let doc = import(&bytes, Format::Markdown).unwrap();
    assert_eq!(
        common::sources(&doc),
        [
            "Getting started",
            "Registro checks the <1>register</1> of a translation. Read the <2>user guide</2> or run <3/> to see every command.",
            "Steps",
            "Download the <1>latest</1> release.",
            "Open a terminal and run:",
            "Translate a file:",
            "pick the language;",
            "choose the register.",
            "Tip: the formal register is the default for contracts.<1/>It can be changed per document.",
            "Option",
            "What it does",
            "The target language",
            "Formal or informal \\| polite",
            "Example output:",
            "<1/> Check the output<2/>.",
            "<1/> Done with <2/>.",
            "Every segment is checked by the analyzer.",
        ]
    );
    assert_eq!(
        doc.segments[1].tags[3].raw,
        "](https://example.com/guide \"Guide\")"
    );
    assert_eq!(doc.segments[8].tags[0].raw, "\\\n> ");
    common::assert_untranslated_export_is(&doc, bytes);
}

#[test]
fn translated_guide_keeps_code_links_front_matter_and_structure() {
    let (_, bytes) = guide();
    common::assert_upper_cased_export_keeps(
        &bytes,
        Format::Markdown,
        structure,
        &[
            "---\ntitle: Installing Registro\nlang: en\n---\n",
            "](https://example.com/guide \"Guide\")",
            "`registro --help`",
            "![Registro's window](img/window.png)",
            "   ```sh\n   registro models fetch qwen2.5-coder-0.5b-instruct\n   ```\n",
            "<div class=\"note\">\nRaw HTML stays as it is.\n</div>",
            "<https://example.com>",
            "\n    segment 1: formal\n",
            "| `--lang` |",
        ],
        &[
            "# GETTING STARTED\n",
            "THE **REGISTER** OF",
            "| FORMAL OR INFORMAL \\| POLITE |",
            // The soft break became a space; the hard break and its `> ` stay.
            "> TIP: THE FORMAL REGISTER IS THE DEFAULT FOR CONTRACTS.\\\n> IT CAN",
        ],
    );
}

#[test]
fn a_translation_cannot_break_the_table_or_the_paragraph() {
    let md = "| A | B |\n|---|---|\n| one | two |\n\nFirst **bold** text.\n";
    let doc = import(md.as_bytes(), Format::Markdown).unwrap();
    assert_eq!(common::sources(&doc), ["A", "B", "one", "two", "First <1>bold</1> text."]);
    let t = vec![
        None,
        None,
        Some("eins | zwei".to_string()),
        Some("drei\n\nvier".to_string()),
        Some("</1>Erster<1> fetter\n\nText.".to_string()),
    ];
    let out = String::from_utf8(doc.export(&t).unwrap()).unwrap();
    assert_eq!(
        out,
        "| A | B |\n|---|---|\n| eins \\| zwei | drei  vier |\n\nErster fetter  Text.****\n"
    );
}

#[test]
fn bad_markdown_input() {
    match import(b"# Title\n\nCaf\xe9 au lait\n", Format::Markdown) {
        Err(FormatError::NotUtf8(at)) => assert_eq!(at, 12),
        other => panic!("{other:?}"),
    }
    // Nothing but code: no segments, no error.
    let doc = import(b"```\ncode\n```\n", Format::Markdown).unwrap();
    assert!(doc.segments.is_empty());
    // Deep nesting and unclosed constructs parse without a panic and round-trip.
    let deep = format!("{}text\n", "> ".repeat(5000));
    let doc = import(deep.as_bytes(), Format::Markdown).unwrap();
    common::assert_untranslated_export_is(&doc, &deep);
    let odd = "**unclosed [link](\n<div>\n`tick\n";
    let doc = import(odd.as_bytes(), Format::Markdown).unwrap();
    common::assert_untranslated_export_is(&doc, odd);
}

/// The fuzz corpus (fuzz/corpus/markdown, shared by the HTML reader) replays here through the fuzz target's checks.
#[test]
fn fuzz_corpus_replays_without_panics() {
    common::replay_fuzz_corpus("markdown", 2, registro_formats::fuzz::markup);
}
