//! DOCX round trips on a contract built here the way Word writes one (a heading, a bold word inside a sentence, a
//! numbered list, a table, a hyperlink, a tab, a bookmark, an image, a header and a footer with a page field), and
//! the damaged files a user may hand over. The translated file is read back by this crate and, when the cached
//! python-docx venv exists (`~/.cache/registro/venv-docx`), by python-docx.

mod common;

use registro_formats::{import, Format, FormatError};
use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture""#;

fn document_xml() -> String {
    let img = r#"<w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="95250" cy="95250"/><wp:docPr id="1" name="Logo"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="logo.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rId4"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="95250" cy="95250"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>"#;
    let cell = |t: &str| {
        format!(
            r#"<w:tc><w:tcPr><w:tcW w:w="4000" w:type="dxa"/></w:tcPr><w:p><w:r><w:t>{t}</w:t></w:r></w:p></w:tc>"#
        )
    };
    let item = |t: &str| {
        format!(
            r#"<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>{t}</w:t></w:r></w:p>"#
        )
    };
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document {W}><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Service Agreement</w:t></w:r></w:p><w:p w:rsidR="00A1"><w:pPr><w:jc w:val="both"/></w:pPr><w:bookmarkStart w:id="0" w:name="terms"/><w:r w:rsidR="00A1"><w:rPr><w:rFonts w:ascii="Calibri"/></w:rPr><w:t xml:space="preserve">The </w:t></w:r><w:r w:rsidR="00B2"><w:rPr><w:rFonts w:ascii="Calibri"/><w:b/></w:rPr><w:t>total</w:t></w:r><w:proofErr w:type="spellStart"/><w:r w:rsidR="00C3"><w:rPr><w:rFonts w:ascii="Calibri"/></w:rPr><w:t xml:space="preserve"> is due by Friday &amp; you</w:t></w:r><w:r><w:rPr><w:rFonts w:ascii="Calibri"/></w:rPr><w:t xml:space="preserve"> must sign.</w:t></w:r><w:bookmarkEnd w:id="0"/></w:p>{}{}<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="8000" w:type="dxa"/></w:tblPr><w:tblGrid><w:gridCol w:w="4000"/><w:gridCol w:w="4000"/></w:tblGrid><w:tr>{}{}</w:tr><w:tr>{}{}</w:tr></w:tbl><w:p><w:r><w:t xml:space="preserve">Questions? Write to </w:t></w:r><w:hyperlink r:id="rId5" w:history="1"><w:r><w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr><w:t>our office</w:t></w:r></w:hyperlink><w:r><w:tab/><w:t>today.</w:t></w:r></w:p><w:p><w:r>{img}</w:r><w:r><w:t xml:space="preserve"> Signed by the client.</w:t></w:r></w:p><w:p/><w:sectPr><w:headerReference w:type="default" r:id="rId6"/><w:footerReference w:type="default" r:id="rId7"/><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>"#,
        item("Read the terms."),
        item("Sign the last page."),
        cell("Item"),
        cell("Price"),
        cell("Monthly support"),
        cell("120 EUR"),
    )
}

const CONTENT_TYPES: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/><Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/><Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/></Types>"#;

const RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#;

const DOC_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/><Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/><Relationship Id="rId5" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/contact" TargetMode="External"/><Relationship Id="rId6" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/><Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/></Relationships>"#;

const STYLES: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/></w:style><w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr></w:style><w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style></w:styles>"#;

const NUMBERING: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>"#;

fn header_xml() -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:hdr {W}><w:p><w:pPr><w:jc w:val="right"/></w:pPr><w:r><w:rPr><w:i/></w:rPr><w:t>Confidential</w:t></w:r></w:p></w:hdr>"#
    )
}

fn footer_xml() -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:ftr {W}><w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple><w:r><w:t xml:space="preserve"> of the contract</w:t></w:r></w:p></w:ftr>"#
    )
}

/// A 1×1 PNG: stored (not deflated), so a copy that is not byte for byte shows.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0d, 0x49, 0x44, 0x41, 0x54,
    0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0, 0x05, 0, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d,
    0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn zip_of(entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data, deflate) in entries {
        let method = if *deflate {
            zip::CompressionMethod::Deflated
        } else {
            zip::CompressionMethod::Stored
        };
        w.start_file(
            *name,
            SimpleFileOptions::default().compression_method(method),
        )
        .unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A .docx in the order Word writes one: content types, package relationships, `document`, its relationships
/// `doc_rels`, the styles, then `parts` (name, bytes, deflated) as given.
fn word_package(document: &str, doc_rels: &str, parts: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let mut entries: Vec<(&str, &[u8], bool)> = vec![
        ("[Content_Types].xml", CONTENT_TYPES.as_bytes(), true),
        ("_rels/.rels", RELS.as_bytes(), true),
        ("word/document.xml", document.as_bytes(), true),
        ("word/_rels/document.xml.rels", doc_rels.as_bytes(), true),
        ("word/styles.xml", STYLES.as_bytes(), true),
    ];
    entries.extend_from_slice(parts);
    zip_of(&entries)
}

/// The contract, as Word lays out a .docx (content types first, relationships, parts, media).
fn contract() -> Vec<u8> {
    let (doc, hdr, ftr) = (document_xml(), header_xml(), footer_xml());
    word_package(
        &doc,
        DOC_RELS,
        &[
            ("word/numbering.xml", NUMBERING.as_bytes(), true),
            ("word/header1.xml", hdr.as_bytes(), true),
            ("word/footer1.xml", ftr.as_bytes(), true),
            ("word/media/image1.png", PNG, false),
        ],
    )
}

/// A short letter for the CLI test with the real model (three short segments): a heading, a sentence with a bold
/// word inside a table cell, a footer.
fn letter() -> Vec<u8> {
    let doc = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document {W}><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Payment reminder</w:t></w:r></w:p><w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr><w:tblGrid><w:gridCol w:w="8000"/></w:tblGrid><w:tr><w:tc><w:p><w:r><w:t xml:space="preserve">Please pay the </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>invoice</w:t></w:r><w:r><w:t xml:space="preserve"> by Friday.</w:t></w:r></w:p></w:tc></w:tr></w:tbl><w:p/><w:sectPr><w:footerReference w:type="default" r:id="rId7"/></w:sectPr></w:body></w:document>"#
    );
    let ftr = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:ftr {W}><w:p><w:r><w:t>Thank you for your order.</w:t></w:r></w:p></w:ftr>"#
    );
    let rels = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/></Relationships>"#;
    word_package(&doc, rels, &[("word/footer1.xml", ftr.as_bytes(), true)])
}

fn data_dir() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("tests/data")
}

/// Each entry's name and contents, uncompressed.
fn entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    zip_entries(bytes, false)
}

/// Each entry's name and contents as stored (still compressed).
fn raw_entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    zip_entries(bytes, true)
}

fn zip_entries(bytes: &[u8], raw: bool) -> Vec<(String, Vec<u8>)> {
    let mut z = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    (0..z.len())
        .map(|i| {
            let mut f = if raw { z.by_index_raw(i) } else { z.by_index(i) }.unwrap();
            let mut b = Vec::new();
            f.read_to_end(&mut b).unwrap();
            (f.name().unwrap().into_owned(), b)
        })
        .collect()
}

fn sources(bytes: &[u8]) -> Vec<String> {
    import(bytes, Format::Docx)
        .unwrap()
        .segments
        .into_iter()
        .map(|s| s.source)
        .collect()
}

/// A user trying the feature reads `tests/data/contract.docx`, the CLI test `tests/data/letter.docx`; they are these
/// builders' output (`REGISTRO_WRITE_FIXTURES=1` rewrites them).
#[test]
fn committed_fixtures_are_the_built_documents() {
    for (name, built) in [("contract.docx", contract()), ("letter.docx", letter())] {
        let p = data_dir().join(name);
        if std::env::var_os("REGISTRO_WRITE_FIXTURES").is_some() {
            std::fs::create_dir_all(data_dir()).unwrap();
            std::fs::write(&p, &built).unwrap();
        }
        assert_eq!(
            entries(&std::fs::read(&p).unwrap()),
            entries(&built),
            "{} is stale: REGISTRO_WRITE_FIXTURES=1 cargo test --workspace --test docx",
            p.display()
        );
        assert_eq!(Format::from_path(&p), Some(Format::Docx));
    }
    assert_eq!(
        sources(&letter()),
        [
            "Payment reminder",
            "Please pay the <1>invoice</1> by Friday.",
            "Thank you for your order."
        ]
    );
}

#[test]
fn paragraphs_of_body_table_header_and_footer_are_segments_with_inline_tags() {
    let bytes = contract();
    let doc = import(&bytes, Format::Docx).unwrap();
    assert_eq!(
        common::ids_and_sources(&doc),
        [
            ("word/document.xml#1", "Service Agreement"),
            (
                "word/document.xml#2",
                "The <1>total</1> is due by Friday & you must sign."
            ),
            ("word/document.xml#3", "Read the terms."),
            ("word/document.xml#4", "Sign the last page."),
            ("word/document.xml#5", "Item"),
            ("word/document.xml#6", "Price"),
            ("word/document.xml#7", "Monthly support"),
            ("word/document.xml#8", "120 EUR"),
            (
                "word/document.xml#9",
                "Questions? Write to <1>our office</1><2/>today."
            ),
            ("word/document.xml#10", " Signed by the client."),
            ("word/header1.xml#1", "Confidential"),
            ("word/footer1.xml#1", "Page <1>1</1> of the contract"),
        ]
    );
    // The bold run's properties are what `<1>` switches to.
    assert!(
        doc.segments[1].tags[0].raw.contains("<w:b/>"),
        "{:?}",
        doc.segments[1].tags
    );
    // No translation: the very same bytes.
    assert_eq!(doc.export(&vec![None; doc.segments.len()]).unwrap(), bytes);
}

/// Element counts that make the document's structure: none may change when only text is translated.
fn structure(xml: &str) -> Vec<(&'static str, usize)> {
    [
        "<w:p>",
        "<w:p ",
        "<w:p/>",
        "<w:pPr>",
        "<w:pStyle ",
        "<w:numPr>",
        "<w:tbl>",
        "<w:tr>",
        "<w:tc>",
        "<w:tcPr>",
        "<w:hyperlink ",
        "<w:drawing>",
        "<w:bookmarkStart ",
        "<w:bookmarkEnd ",
        "<w:sectPr>",
        "<w:tab/>",
        "<w:fldSimple ",
        "<w:b/>",
        "<w:i/>",
        "<w:rStyle ",
    ]
    .into_iter()
    .map(|t| (t, xml.matches(t).count()))
    .collect()
}

#[test]
fn translated_contract_keeps_structure_and_the_bold_word_stays_bold() {
    let bytes = contract();
    let doc = import(&bytes, Format::Docx).unwrap();
    let out = doc.export(&common::upper_cased(&doc)).unwrap();
    // Opens again, same segments in upper case with the same tags.
    common::assert_reimports_upper_cased(&out, &doc, Format::Docx);
    // Same entries in the same order; everything but the text parts byte for byte (even compressed).
    let (before, after) = (raw_entries(&bytes), raw_entries(&out));
    assert_eq!(
        before.iter().map(|e| &e.0).collect::<Vec<_>>(),
        after.iter().map(|e| &e.0).collect::<Vec<_>>()
    );
    for ((name, a), (_, b)) in before.iter().zip(&after) {
        if !["word/document.xml", "word/header1.xml", "word/footer1.xml"].contains(&name.as_str()) {
            assert_eq!(a, b, "{name} changed");
        }
    }
    let (before, after) = (entries(&bytes), entries(&out));
    for ((name, a), (_, b)) in before.iter().zip(&after) {
        let (a, b) = (
            std::str::from_utf8(a).unwrap_or(""),
            std::str::from_utf8(b).unwrap_or(""),
        );
        // proofErr is a spell-check cache Word recomputes: dropped inside a translated paragraph.
        let a_structure: Vec<_> = structure(a).into_iter().collect();
        assert_eq!(a_structure, structure(b), "{name}\n{b}");
    }
    let xml = String::from_utf8(after[2].1.clone()).unwrap();
    assert!(
        xml.contains(r#"<w:r><w:rPr><w:rFonts w:ascii="Calibri"/><w:b/></w:rPr><w:t xml:space="preserve">TOTAL</w:t></w:r>"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<w:t xml:space="preserve"> IS DUE BY FRIDAY &amp; YOU MUST SIGN.</w:t>"#),
        "{xml}"
    );
    // What lies outside the translated span is untouched: paragraph properties, the bookmark before the text.
    assert!(xml.contains(r#"<w:p w:rsidR="00A1"><w:pPr><w:jc w:val="both"/></w:pPr><w:bookmarkStart w:id="0" w:name="terms"/><w:r>"#), "{xml}");
    assert!(!xml.contains("proofErr"));
    python_docx_reads(&out);
}

/// A translation identical to the source rebuilds every paragraph's runs; the file says the same thing: the same
/// paragraphs with the same text in the same run properties.
#[test]
fn identity_translation_gives_an_equivalent_file() {
    let bytes = contract();
    let doc = import(&bytes, Format::Docx).unwrap();
    let same: Vec<Option<String>> = doc
        .segments
        .iter()
        .map(|s| Some(s.source.clone()))
        .collect();
    let out = doc.export(&same).unwrap();
    assert_ne!(out, bytes);
    let again = import(&out, Format::Docx).unwrap();
    // The tags' markup is rebuilt (run attributes such as w:rsidR and spell-check marks go); ids, text and tokens
    // stay, and each tag still switches to the same run properties.
    assert_eq!(again.segments.len(), doc.segments.len());
    for (a, b) in doc.segments.iter().zip(&again.segments) {
        assert_eq!((&a.id, &a.source), (&b.id, &b.source));
        let props = |s: &registro_formats::Segment| {
            s.tags
                .iter()
                .map(|t| {
                    (
                        t.token.clone(),
                        t.raw
                            .split("<w:rPr>")
                            .nth(1)
                            .map(|p| p.split("</w:rPr>").next().unwrap().to_string()),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(props(a), props(b), "{}", a.id);
    }
    // And a second round trip is a fixed point: nothing drifts.
    let same2: Vec<Option<String>> = again
        .segments
        .iter()
        .map(|s| Some(s.source.clone()))
        .collect();
    assert_eq!(entries(&again.export(&same2).unwrap()), entries(&out));
}

#[test]
fn reordered_or_lost_tags_still_give_a_well_formed_document() {
    let bytes = contract();
    let doc = import(&bytes, Format::Docx).unwrap();
    let mut t: Vec<Option<String>> = vec![None; doc.segments.len()];
    t[1] = Some("</1>Der Betrag<1> ist am Freitag fällig < 5 & \u{1}".into()); // reversed pair, control char
    t[8] = Some("Fragen? Schreiben Sie an <1>unser Büro".into()); // closing tag lost
    t[11] = Some("Seite <1>1</1> des Vertrags<9/>".into()); // made-up tag stays text
    let out = doc.export(&t).unwrap();
    let s = sources(&out);
    // The reversed pair lost its tags (they went to the end, empty): no `</w:r>` before its `<w:r>`.
    assert_eq!(s[1], "Der Betrag ist am Freitag fällig < 5 & ");
    // The hyperlink and the tab are still there, after the text (empty), outside the paragraph's text span.
    assert_eq!(s[8], "Fragen? Schreiben Sie an unser Büro");
    assert_eq!(s[11], "Seite <1>1</1> des Vertrags<9/>");
    python_docx_reads_text(&out);
}

fn venv_python() -> Option<PathBuf> {
    let p = PathBuf::from(std::env::var_os("HOME")?).join(".cache/registro/venv-docx/bin/python");
    if p.exists() {
        return Some(p);
    }
    eprintln!(
        "SKIPPED python-docx check: no {} (python3 -m venv ~/.cache/registro/venv-docx && ~/.cache/registro/venv-docx/bin/pip install python-docx)",
        p.display()
    );
    None
}

fn python_docx(out: &[u8], script: &str) -> Option<String> {
    let o = common::run_on_temp_file(venv_python()?, &["-c", script], out, "docx");
    assert!(
        o.status.success(),
        "python-docx cannot read the export: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Some(String::from_utf8(o.stdout).unwrap())
}

/// python-docx, the reference reader: paragraph count, table cells, the bold run, header and footer text.
fn python_docx_reads(out: &[u8]) {
    let script = r#"
import sys, docx
d = docx.Document(sys.argv[1])
print(len(d.paragraphs))
print([p.style.name for p in d.paragraphs])
print([[c.text for c in r.cells] for r in d.tables[0].rows])
print([r.text for r in d.paragraphs[1].runs if r.bold])
print(d.paragraphs[1].text)
s = d.sections[0]
print(s.header.paragraphs[0].text, '|', s.footer.paragraphs[0].text)
"#;
    let Some(o) = python_docx(out, script) else {
        return;
    };
    let lines: Vec<&str> = o.lines().collect();
    assert_eq!(lines[0], "7", "{o}");
    assert_eq!(
        lines[1],
        "['Heading 1', 'Normal', 'List Paragraph', 'List Paragraph', 'Normal', 'Normal', 'Normal']",
        "{o}"
    );
    assert_eq!(
        lines[2], "[['ITEM', 'PRICE'], ['MONTHLY SUPPORT', '120 EUR']]",
        "{o}"
    );
    assert_eq!(lines[3], "['TOTAL']", "{o}");
    assert_eq!(
        lines[4], "THE TOTAL IS DUE BY FRIDAY & YOU MUST SIGN.",
        "{o}"
    );
    assert_eq!(lines[5], "CONFIDENTIAL | PAGE  OF THE CONTRACT", "{o}");
}

fn python_docx_reads_text(out: &[u8]) {
    let script = "import sys, docx\nd = docx.Document(sys.argv[1])\nprint(d.paragraphs[1].text)";
    if let Some(o) = python_docx(out, script) {
        assert_eq!(
            o.trim_end(),
            "Der Betrag ist am Freitag fällig < 5 &",
            "{o}"
        );
    }
}

fn err(bytes: &[u8]) -> String {
    import(bytes, Format::Docx).unwrap_err().to_string()
}

#[test]
fn damaged_and_hostile_files_get_clear_errors() {
    let bytes = contract();
    // Truncated: the zip's directory at the end is gone.
    let e = err(&bytes[..bytes.len() / 2]);
    assert!(e.contains("not a DOCX file"), "{e}");
    // Not a zip at all.
    assert!(err(b"Service Agreement\n").contains("not a DOCX file"));
    // A zip without word/document.xml (an .xlsx renamed, say).
    let e = err(&zip_of(&[("xl/workbook.xml", b"<workbook/>", true)]));
    assert!(e.contains("no word/document.xml"), "{e}");
    // A zip bomb: 100 MiB of zeros deflate to ~100 KiB.
    let zeros = vec![0u8; 100 << 20];
    let bomb = zip_of(&[("word/document.xml", &zeros, true)]);
    assert!(bomb.len() < 1 << 20);
    match import(&bomb, Format::Docx) {
        Err(FormatError::TooBig { what, .. }) => {
            assert!(what.contains("word/document.xml"), "{what}")
        }
        other => panic!("{other:?}"),
    }
    // Malformed XML: the part and line are named.
    let bad = "<?xml version=\"1.0\"?>\n<w:document xmlns:w=\"x\"><w:body>\n<w:p><w:r><w:t>Hi</w:r></w:p></w:body></w:document>";
    let e = err(&zip_of(&[("word/document.xml", bad.as_bytes(), true)]));
    assert!(
        e.contains("line 3") && e.contains("word/document.xml") && e.contains("not well-formed"),
        "{e}"
    );
    // Truncated XML part.
    let e = err(&zip_of(&[(
        "word/document.xml",
        b"<w:document xmlns:w=\"x\"><w:body><w:p><w:r><w:t>Hi",
        true,
    )]));
    assert!(
        e.contains("word/document.xml") && e.contains("truncated"),
        "{e}"
    );
    // Not UTF-8.
    let e = err(&zip_of(&[(
        "word/document.xml",
        b"<w:document>\xff\xfe</w:document>",
        true,
    )]));
    assert!(e.contains("word/document.xml is not UTF-8"), "{e}");
    // A DOCTYPE (entity expansion) is refused.
    let e = err(&zip_of(&[(
        "word/document.xml",
        b"<!DOCTYPE d [<!ENTITY a \"aaaa\">]><w:document/>",
        true,
    )]));
    assert!(e.contains("DOCTYPE"), "{e}");
    // Nesting deep enough to blow a recursive reader.
    let deep = format!("<w:document xmlns:w=\"x\">{}", "<w:p>".repeat(10_000));
    let e = err(&zip_of(&[("word/document.xml", deep.as_bytes(), true)]));
    assert!(e.contains("nested deeper"), "{e}");
    // An encrypted or otherwise unsupported compression method for a text part.
    let mut weird = zip_of(&[("word/document.xml", b"<w:document/>", false)]);
    // Compression method field of the local header (offset 8) and the central directory's (offset 10): 99 (AES).
    let cd = weird.windows(4).rposition(|w| w == b"PK\x01\x02").unwrap();
    weird[8] = 99;
    weird[cd + 10] = 99;
    let e = err(&weird);
    assert!(
        e.contains("word/document.xml") || e.contains("zip entry 1") || e.contains("not a DOCX"),
        "{e}"
    );
}

/// The fuzz corpus (fuzz/corpus/docx) replays here through the fuzz target's checks.
#[test]
fn fuzz_corpus_replays_without_panics() {
    common::replay_fuzz_corpus("docx", 2, registro_formats::fuzz::docx);
}

/// Parts written with a byte-order mark, or with WordprocessingML as the default namespace (no `w:` prefix), are
/// read and rebuilt in their own spelling.
#[test]
fn byte_order_mark_and_default_namespace() {
    let bom = "\u{feff}<?xml version=\"1.0\"?><w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body><w:p><w:r><w:t>Hello</w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t> world</w:t></w:r></w:p></w:body></w:document>";
    let plain = "<document xmlns=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><body><p><r><t>Hello</t></r><r><rPr><i/></rPr><t> world</t></r></p></body></document>";
    for xml in [bom, plain] {
        let bytes = zip_of(&[("word/document.xml", xml.as_bytes(), true)]);
        let doc = import(&bytes, Format::Docx).unwrap();
        assert_eq!(doc.segments[0].source, "Hello<1> world</1>");
        let out = doc.export(&common::upper_cased(&doc)).unwrap();
        assert_eq!(sources(&out), ["HELLO<1> WORLD</1>"]);
        let xml_out = String::from_utf8(entries(&out)[0].1.clone()).unwrap();
        assert_eq!(xml_out.starts_with('\u{feff}'), xml.starts_with('\u{feff}'));
        assert_eq!(
            xml_out.contains("<w:r>"),
            xml.contains("<w:r>"),
            "{xml_out}"
        );
    }
}
