//! HTML round trips on a help page (head with title, style and script, a comment, headings, paragraphs with inline
//! markup and a link, lists, a figure, a table, pre and code): no translation gives the same bytes; a translation
//! changes the text only (script, style, pre, code, attributes and entities kept) and reads back the same.

mod common;

use registro_formats::{import, Format, FormatError};

fn page() -> (std::path::PathBuf, Vec<u8>) {
    common::data("page.html")
}

/// Every tag of the page in order (names and attributes), text left out: the structure a translation must keep.
fn tags(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').map(|j| i + j + 1).unwrap_or(rest.len());
        out.push(rest[i..j].to_string());
        rest = &rest[j..];
    }
    out
}

#[test]
fn page_segments_and_byte_identical_no_op() {
    let (p, bytes) = page();
    assert_eq!(Format::from_path(&p), Some(Format::Html));
    assert_eq!(Format::from_name("htm"), Some(Format::Html));
    let doc = import(&bytes, Format::Html).unwrap();
    assert_eq!(
        common::ids_and_sources(&doc),
        [
            ("title#1", "Registro &mdash; Help"),
            ("h1#2", "Translate in the right register"),
            (
                "p#3",
                "The <1>register</1> is how formal a text is. Read the <2>user guide</2> first."
            ),
            ("li#4", "Formal: <1>Sie</1>, <2>vous</2>, <3>usted</3>"),
            ("li#5", "Informal &amp; friendly<1/>for chats"),
            ("figcaption#6", "The main window"),
            ("th#7", "Option"),
            ("th#8", "Meaning"),
            ("td#9", "Target language"),
            ("p#10", "Run <1/> to see &lt;all&gt; commands."),
        ]
    );
    assert_eq!(
        doc.segments[2].tags[2].raw,
        "<a href=\"guide.html\" title=\"Guide\">"
    );
    common::assert_untranslated_export_is(&doc, bytes);
}

#[test]
fn translated_page_keeps_markup_scripts_and_entities() {
    let (_, bytes) = page();
    common::assert_upper_cased_export_keeps(
        &bytes,
        Format::Html,
        tags,
        &[
            "<script>if (a < b && c) { document.write(\"<p>Hi</p>\"); }</script>",
            "<style>p > b { color: red; } /* <p>not text</p> */</style>",
            "<pre>\n  registro translate --lang de\n  </pre>",
            "<code>registro --help</code>",
            "<td><code>--lang</code></td>",
            "<img src=\"shot.png\" alt=\"The window\">",
            "<!-- navigation -->",
        ],
        &[
            "<title>REGISTRO &MDASH; HELP</title>",
            "<li>INFORMAL &AMP; FRIENDLY<br>FOR CHATS</li>",
            "<p>RUN <code>registro --help</code> TO SEE &LT;ALL&GT; COMMANDS.</p>",
        ],
    );
}

#[test]
fn translations_are_escaped_and_tags_balanced() {
    let html = "<p>Tom <b>and</b> Jerry</p>";
    let doc = import(html.as_bytes(), Format::Html).unwrap();
    let t = vec![Some(
        "</1>Tom<1> & Jerry <script>x</script> &amp; &#233;".to_string(),
    )];
    let out = String::from_utf8(doc.export(&t).unwrap()).unwrap();
    assert_eq!(
        out,
        "<p>Tom &amp; Jerry &lt;script>x&lt;/script> &amp; &#233;<b></b></p>"
    );
}

#[test]
fn bad_and_odd_html() {
    assert!(matches!(
        import(b"<p>caf\xe9</p>", Format::Html),
        Err(FormatError::NotUtf8(6))
    ));
    for odd in [
        "<p>unclosed <b>bold",
        "<p a='>'>quoted > in attribute</p>",
        "<scr",
        "<!-- never closed <p>text</p>",
        "<script>never closed <p>text</p>",
        "</p></p>text<p",
        "<p>a < b and c <d</p>",
        "<SCRIPT>x</script><P>Upper</P>",
        "\u{feff}<p>bom</p>",
    ] {
        let doc = import(odd.as_bytes(), Format::Html).unwrap();
        assert_eq!(
            doc.export(&vec![None; doc.segments.len()]).unwrap(),
            odd.as_bytes(),
            "{odd}"
        );
        doc.export(&common::upper_cased(&doc)).unwrap();
    }
    let doc = import(b"<SCRIPT>x</script><P>Upper</P>", Format::Html).unwrap();
    assert_eq!(doc.segments.len(), 1);
    assert_eq!(doc.segments[0].source, "Upper");
}
