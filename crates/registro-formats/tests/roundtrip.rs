//! Import → export round trips on translator-like files, and the files a translation produces read back by the
//! format's own tools (xmllint for XLIFF/TMX, msgfmt for PO) when the machine has them.

mod common;

use common::{assert_contains, export_upper_cased, sources};
use registro_formats::{import, split_sentences, tmx, Document, Format, FormatError, TmxUnit};
use std::path::PathBuf;

fn fixture(name: &str) -> (PathBuf, Vec<u8>) {
    common::test_file("fixtures", name)
}

/// `tests/fixtures/<name>` imported as `format`.
fn imported(name: &str, format: Format) -> Document {
    import(&fixture(name).1, format).unwrap()
}

/// The message of the error `import` gives for `bytes` read as `format`.
fn import_error(bytes: &[u8], format: Format) -> String {
    import(bytes, format).unwrap_err().to_string()
}

fn own_reader(tool: &str, args: &[&str], bytes: &[u8], ext: &str) {
    if std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!(
            "{tool} not installed: the export's well-formedness is checked by this crate only"
        );
        return;
    }
    let out = common::run_on_temp_file(tool, args, bytes, ext);
    assert!(
        out.status.success(),
        "{tool} rejects the export: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn every_fixture_round_trips_byte_identical_without_translation() {
    for (name, fmt) in [
        ("okapi.xlf", Format::Xliff),
        ("sample20.xlf", Format::Xliff),
        ("cues.srt", Format::Srt),
        ("talk.vtt", Format::Vtt),
        ("app.po", Format::Po),
    ] {
        let (p, bytes) = fixture(name);
        assert_eq!(Format::from_path(&p), Some(fmt));
        let doc = import(&bytes, fmt).unwrap();
        assert!(!doc.segments.is_empty(), "{name}");
        let out = doc.export(&vec![None; doc.segments.len()]).unwrap();
        assert_eq!(out, bytes, "{name}");
    }
}

#[test]
fn xliff12_tags_notes_and_state() {
    let doc = imported("okapi.xlf", Format::Xliff);
    assert_eq!(
        sources(&doc),
        [
            "Service <1>Agreement</1>",
            "Please sign <1/>here & return it to <2>our office</2> by Friday.",
            "Total: <1/> EUR."
        ]
    );
    assert_eq!(
        doc.segments[0].notes,
        ["Title of the contract: keep it short."]
    );
    assert_eq!(doc.segments[1].notes, ["\"you\" is the customer."]);
    assert!(doc.segments[1].fuzzy && !doc.segments[0].fuzzy);
    assert_eq!(
        doc.segments[2].tags[0].raw,
        "<ph id=\"4\">&lt;b&gt;{amount}&lt;/b&gt;</ph>"
    );

    let out = export_upper_cased(&doc);
    assert_contains(
        &out,
        &[
            "<source xml:lang=\"en\">Service <g id=\"1\" ctype=\"bold\">Agreement</g></source><target state=\"translated\">SERVICE <g id=\"1\" ctype=\"bold\">AGREEMENT</g></target>",
            "<target xml:lang=\"de\" state=\"translated\">PLEASE SIGN <x id=\"2\" ctype=\"image\"/>HERE &amp; RETURN IT TO <g id=\"3\" ctype=\"link\">OUR OFFICE</g> BY FRIDAY.</target>",
            "TOTAL: <ph id=\"4\">&lt;b&gt;{amount}&lt;/b&gt;</ph> EUR.</target>",
            "<note from=\"pm\">Title of the contract: keep it short.</note>",
        ],
    );
    own_reader("xmllint", &["--noout"], out.as_bytes(), "xlf");
    // The translated file imports again, with the translation as its existing target.
    let again = import(out.as_bytes(), Format::Xliff).unwrap();
    assert_eq!(
        again.segments[1].existing_target.as_deref(),
        Some("PLEASE SIGN <1/>HERE & RETURN IT TO <2>OUR OFFICE</2> BY FRIDAY.")
    );
    assert!(!again.segments[1].fuzzy);
}

#[test]
fn a_target_that_drops_a_tag_keeps_it_at_the_end() {
    let doc = imported("okapi.xlf", Format::Xliff);
    let out = String::from_utf8(
        doc.export(&[Some("Dienstvertrag".into()), None, None])
            .unwrap(),
    )
    .unwrap();
    assert!(
        out.contains(
            "<target state=\"translated\">Dienstvertrag<g id=\"1\" ctype=\"bold\"></g></target>"
        ),
        "{out}"
    );
}

#[test]
fn xliff20_segments_notes_and_state() {
    let doc = imported("sample20.xlf", Format::Xliff);
    assert_eq!(doc.segments.len(), 2);
    assert_eq!(doc.segments[0].id, "u1/s1");
    assert_eq!(doc.segments[0].source, "Save your <1>changes</1> now.");
    assert_eq!(doc.segments[0].notes, ["Button label"]);
    assert!(doc.segments[1].fuzzy);
    assert_eq!(
        doc.segments[1].existing_target.as_deref(),
        Some("Vous avez <1/> nouveaux messages.")
    );
    let out = export_upper_cased(&doc);
    assert_contains(
        &out,
        &[
            "<segment id=\"s1\" state=\"translated\">",
            "<segment id=\"s2\" state=\"translated\">",
            "<source>Save your <pc id=\"1\">changes</pc> now.</source><target>SAVE YOUR <pc id=\"1\">CHANGES</pc> NOW.</target>",
            "<target>YOU HAVE <ph id=\"2\"/> NEW MESSAGES.</target>",
        ],
    );
    assert_eq!(out.matches("<target>").count(), 2);
    own_reader("xmllint", &["--noout"], out.as_bytes(), "xlf");
}

#[test]
fn srt_multiline_cues_keep_numbers_timings_and_crlf() {
    let doc = imported("cues.srt", Format::Srt);
    assert_eq!(
        sources(&doc),
        [
            "Would you like\nsome coffee?",
            "Yes, please. Thank you!",
            "<i>Where are you going?</i>\n- Home."
        ]
    );
    let out = export_upper_cased(&doc);
    assert_eq!(out, "1\r\n00:00:01,000 --> 00:00:03,500\r\nWOULD YOU LIKE\r\nSOME COFFEE?\r\n\r\n2\r\n00:00:04,000 --> 00:00:06,000\r\nYES, PLEASE. THANK YOU!\r\n\r\n3\r\n00:00:06,500 --> 00:00:09,000\r\n<I>WHERE ARE YOU GOING?</I>\r\n- HOME.\r\n");
    assert_eq!(
        registro_formats::long_lines(
            "short\na line that is certainly longer than forty-two characters",
            42
        ),
        [(2, 57)]
    );
}

#[test]
fn vtt_keeps_header_notes_identifiers_and_settings() {
    let doc = imported("talk.vtt", Format::Vtt);
    assert_eq!(doc.segments.len(), 2);
    assert_eq!(doc.segments[0].id, "intro");
    assert_eq!(doc.segments[0].source, "Can you help me\nwith this form?");
    let out = export_upper_cased(&doc);
    assert_eq!(out, "WEBVTT Kind: captions\n\nNOTE written by hand\n\nintro\n00:00:01.000 --> 00:00:04.000 line:85%\nCAN YOU HELP ME\nWITH THIS FORM?\n\n00:00:05.000 --> 00:00:07.000\nOF COURSE.\n");
}

#[test]
fn po_context_plurals_fuzzy_and_msgfmt_reads_the_export() {
    let doc = imported("app.po", Format::Po);
    assert_eq!(
        sources(&doc),
        [
            "Enter your password",
            "You have %d new message",
            "You have %d new messages",
            "Please \"confirm\" your e-mail."
        ]
    );
    assert_eq!(doc.segments[0].id, "login\u{4}Enter your password");
    assert_eq!(doc.segments[0].notes, ["Shown on the login page"]);
    assert!(doc.segments[3].fuzzy && !doc.segments[0].fuzzy);
    assert_eq!(
        doc.segments[3].existing_target.as_deref(),
        Some("Bitte bestätige deine E-Mail.")
    );
    let t = |s: &str| Some(format!("«{s}»\t"));
    let targets: Vec<_> = doc.segments.iter().map(|s| t(&s.source)).collect();
    let out = String::from_utf8(doc.export(&targets).unwrap()).unwrap();
    assert_contains(
        &out,
        &[
            "msgctxt \"login\"\nmsgid \"Enter your password\"\nmsgstr \"«Enter your password»\\t\"\n",
            "msgstr[0] \"«You have %d new message»\\t\"\nmsgstr[1] \"«You have %d new messages»\\t\"\n",
            "msgstr \"«Please \\\"confirm\\\" your e-mail.»\\t\"",
        ],
    );
    assert!(
        out.contains("#, fuzzy\n"),
        "flags are the translator's to clear"
    );
    own_reader(
        "msgfmt",
        &["--check-format", "-o", "/dev/null"],
        out.as_bytes(),
        "po",
    );
    let again = import(out.as_bytes(), Format::Po).unwrap();
    assert_eq!(
        again.segments[2].existing_target.as_deref(),
        Some("«You have %d new messages»\t")
    );
}

#[test]
fn tmx_of_approved_segments_is_well_formed() {
    let out = tmx(
        &[TmxUnit {
            source: "Fish & <chips>".into(),
            target: "Fisch & \"Pommes\"".into(),
        }],
        "en",
        "de",
    );
    assert_contains(&out, &["<seg>Fish &amp; &lt;chips&gt;</seg>", "<tuv xml:lang=\"de\"><seg>Fisch &amp; &quot;Pommes&quot;</seg></tuv>"]);
    own_reader("xmllint", &["--noout"], out.as_bytes(), "tmx");
}

#[test]
fn segmentation_keeps_tags_of_an_imported_segment() {
    let doc = imported("okapi.xlf", Format::Xliff);
    let joined = format!("{} Second sentence.", doc.segments[1].source);
    assert_eq!(
        split_sentences(&joined, "en"),
        [
            "Please sign <1/>here & return it to <2>our office</2> by Friday. ",
            "Second sentence."
        ]
    );
}

#[test]
fn hostile_files_get_clear_errors() {
    let laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]><xliff version=\"1.2\"><file><body><trans-unit id=\"1\"><source>&lol2;</source></trans-unit></body></file></xliff>";
    let deep = format!("<xliff version=\"1.2\">{}", "<a>".repeat(10_000));
    // (input, format, what the message starts with, what else it says)
    let cases: [(&[u8], Format, &str, &[&str]); 10] = [
        (laughs.as_bytes(), Format::Xliff, "", &["DOCTYPE"]),
        (b"<xliff version=\"1.2\"><file><body><trans-unit id=\"1\"><source>&bogus;</source></trans-unit></body></file></xliff>", Format::Xliff, "", &["line 1", "entity"]),
        (b"<xliff version=\"1.2\">\n<file>\n<body></file>", Format::Xliff, "line 3", &["well-formed"]),
        (deep.as_bytes(), Format::Xliff, "", &["nested deeper"]),
        (b"<html/>", Format::Xliff, "", &["no <xliff>"]),
        (b"1\n00:00:01,000 --> 00:00:02,000\nHi\n\njust text\n", Format::Srt, "line 5", &["timing line"]),
        (b"00:00:01.000 --> 00:00:02.000\nHi\n", Format::Vtt, "", &["WEBVTT"]),
        (b"msgid \"a\"\nmsgstr \"b\"\n\nmsgid \"c\nmsgstr \"\"\n", Format::Po, "line 4", &["quoted"]),
        (b"msgid \"a\"\nmsgfoo \"b\"\n", Format::Po, "line 2", &["msgfoo"]),
        (b"msgid \"a\"\nmsgstr[x] \"b\"\n", Format::Po, "", &["plural form index"]),
    ];
    for (input, format, starts, says) in cases {
        let e = import_error(input, format);
        assert!(e.starts_with(starts) && says.iter().all(|w| e.contains(w)), "{format:?} {:?}: {e}", String::from_utf8_lossy(&input[..input.len().min(60)]));
    }
    assert!(import(b"<xliff version=\"3.0\"/>", Format::Xliff).is_err());
    assert_eq!(
        import(b"1\n\xff\xfe", Format::Srt).unwrap_err(),
        FormatError::NotUtf8(2)
    );
    let big = vec![b'a'; registro_formats::MAX_INPUT_BYTES + 1];
    assert!(matches!(
        import(&big, Format::Srt),
        Err(FormatError::TooBig { .. })
    ));
}

/// The fuzz corpus (fuzz/corpus/formats) replays here through the fuzz target's own checks.
#[test]
fn fuzz_corpus_replays_without_panics() {
    common::replay_fuzz_corpus("formats", 5, registro_formats::fuzz::structured);
}
