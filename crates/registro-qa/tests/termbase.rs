//! Termbase import (TSV, CSV, TBX-Basic v2 and TBX v3), the checks after translation, the terms handed to
//! constrained decoding, and bad files: each gives an error naming the file and line.

use registro_qa::termbase::{self, TermbaseFormat};
use registro_qa::{CheckKind, Severity};
use registro_register::Register;

const TSV: &str = "source\ttarget\ttarget_formal\ttarget_informal\tforbidden\tnote\n\
contract\tVertrag\t\t\tKontrakt\tlegal\n\
your account\t\tIhr Konto\tdein Konto\t\t\n\
\n\
terms of use\tNutzungsbedingungen|AGB\t\t\t\tusage \"quoted\"\n";

/// A TBX-Basic (TBX v2, `martif`) file the way the TBX-Basic specification lays one out.
const TBX_BASIC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX-Basic" xml:lang="en-US">
  <martifHeader>
    <fileDesc><sourceDesc><p>Registro test glossary</p></sourceDesc></fileDesc>
    <encodingDesc><p type="XCSURI">TBXBasicXCSV02.xcs</p></encodingDesc>
  </martifHeader>
  <text>
    <body>
      <termEntry id="c1">
        <descrip type="definition">A legally binding agreement &amp; its text.</descrip>
        <langSet xml:lang="en-US">
          <tig>
            <term>contract</term>
            <termNote type="partOfSpeech">noun</termNote>
          </tig>
        </langSet>
        <langSet xml:lang="de-DE">
          <tig>
            <term>Vertrag</term>
            <termNote type="administrativeStatus">preferredTerm-admn-sts</termNote>
          </tig>
          <tig>
            <term>Kontrakt</term>
            <termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>
          </tig>
        </langSet>
        <langSet xml:lang="fr">
          <tig><term>contrat</term></tig>
        </langSet>
      </termEntry>
      <termEntry id="c2">
        <langSet xml:lang="en"><tig><term>your account</term></tig></langSet>
        <langSet xml:lang="de">
          <tig><term>Ihr Konto</term><termNote type="register">formal</termNote></tig>
          <tig><term>dein Konto</term><termNote type="register">colloquialRegister</termNote></tig>
        </langSet>
      </termEntry>
      <termEntry id="c3">
        <langSet xml:lang="en"><tig><term>checkout</term></tig></langSet>
        <langSet xml:lang="fr"><tig><term>paiement</term></tig></langSet>
      </termEntry>
    </body>
  </text>
</martif>
"#;

/// TBX v3 (ISO 30042:2019), DCA style: conceptEntry → langSec → termSec.
const TBX_V3: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<?xml-model href="https://raw.githubusercontent.com/LTAC-Global/TBX-Basic_dialect/master/DCA/TBXcoreStructV03_TBX-Basic_integrated.rng"?>
<tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">
  <tbxHeader><fileDesc><sourceDesc><p>v3</p></sourceDesc></fileDesc></tbxHeader>
  <text><body>
    <conceptEntry id="k1">
      <langSec xml:lang="en"><termSec><term>invoice</term></termSec></langSec>
      <langSec xml:lang="de">
        <termSec><term>Rechnung</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></termSec>
        <termSec><term>Faktura</term><termNote type="administrativeStatus">supersededTerm-admn-sts</termNote></termSec>
      </langSec>
    </conceptEntry>
  </body></text>
</tbx>
"#;

fn parse(
    text: &str,
    f: TermbaseFormat,
) -> Result<registro_qa::Termbase, registro_qa::TermbaseError> {
    termbase::parse(text.as_bytes(), f, "glossary", "en", "de")
}

#[test]
fn tsv_and_csv_give_the_same_entries() {
    let tsv = parse(TSV, TermbaseFormat::Tsv).unwrap();
    assert_eq!(tsv.entries.len(), 3);
    let c = &tsv.entries[0];
    assert_eq!(
        (
            c.source.as_slice(),
            c.target.as_slice(),
            c.forbidden.as_slice()
        ),
        (
            &["contract".to_string()][..],
            &["Vertrag".to_string()][..],
            &["Kontrakt".to_string()][..]
        )
    );
    assert_eq!(c.line, 2);
    assert_eq!(tsv.entries[1].target_formal, ["Ihr Konto"]);
    assert_eq!(tsv.entries[1].target_informal, ["dein Konto"]);
    assert_eq!(tsv.entries[2].target, ["Nutzungsbedingungen", "AGB"]);
    assert_eq!(tsv.entries[2].line, 5, "the blank line still counts");
    assert_eq!(
        tsv.entries[2].note.as_deref(),
        Some("usage \"quoted\""),
        "TSV cells are taken as written"
    );

    let csv = "Source,Target,Target Formal,target-informal,forbidden,note\n\
contract,Vertrag,,,Kontrakt,legal\n\
your account,,Ihr Konto,dein Konto,,\n\
terms of use,Nutzungsbedingungen|AGB,,,,\"usage, \"\"quoted\"\"\"\n";
    let csv = parse(csv, TermbaseFormat::Csv).unwrap();
    assert_eq!(csv.entries.len(), 3);
    for (a, b) in tsv.entries.iter().zip(&csv.entries) {
        assert_eq!(
            (
                &a.source,
                &a.target,
                &a.target_formal,
                &a.target_informal,
                &a.forbidden
            ),
            (
                &b.source,
                &b.target,
                &b.target_formal,
                &b.target_informal,
                &b.forbidden
            )
        );
    }
    assert_eq!(csv.entries[2].note.as_deref(), Some("usage, \"quoted\""));
}

#[test]
fn tbx_basic_and_tbx_v3_are_read_for_the_language_pair() {
    let tb = parse(TBX_BASIC, TermbaseFormat::Tbx).unwrap();
    assert_eq!(
        tb.entries.len(),
        2,
        "the FR-only entry is not for EN→DE: {:?}",
        tb.entries
    );
    let c = &tb.entries[0];
    assert_eq!(c.source, ["contract"]);
    assert_eq!(c.target, ["Vertrag"]);
    assert_eq!(
        c.forbidden,
        ["Kontrakt"],
        "deprecatedTerm-admn-sts is forbidden"
    );
    assert_eq!(
        c.note.as_deref(),
        Some("A legally binding agreement & its text.")
    );
    assert_eq!(c.line, 9);
    assert_eq!(tb.entries[1].target_formal, ["Ihr Konto"]);
    assert_eq!(tb.entries[1].target_informal, ["dein Konto"]);

    let fr = termbase::parse(
        TBX_BASIC.as_bytes(),
        TermbaseFormat::Tbx,
        "g.tbx",
        "en",
        "fr",
    )
    .unwrap();
    assert_eq!(
        fr.entries
            .iter()
            .map(|e| e.target[0].as_str())
            .collect::<Vec<_>>(),
        ["contrat", "paiement"]
    );

    let v3 = parse(TBX_V3, TermbaseFormat::Tbx).unwrap();
    assert_eq!(v3.entries.len(), 1);
    assert_eq!(v3.entries[0].target, ["Rechnung"]);
    assert_eq!(v3.entries[0].forbidden, ["Faktura"]);
}

#[test]
fn terms_are_checked_per_register_and_every_occurrence_counts() {
    let tb = parse(TSV, TermbaseFormat::Tsv).unwrap();
    let formal = Some(Register::Formal);
    // Two contracts in the source, one Vertrag in the target: one missing; Kontrakt is forbidden.
    let r = tb.check_segment(
        0,
        "Sign the contract, then file the contracts.",
        "Unterschreiben Sie den Vertrag und legen Sie die Kontrakte ab.",
        formal,
    );
    assert_eq!(r.source_occurrences, 2);
    let kinds: Vec<(CheckKind, Severity, usize)> = r
        .issues
        .iter()
        .map(|i| (i.kind, i.severity, i.count))
        .collect();
    assert_eq!(
        kinds,
        [
            (CheckKind::TermMissing, Severity::Warning, 1),
            (CheckKind::TermForbidden, Severity::Error, 1)
        ]
    );
    assert_eq!(r.issues[1].spans[0].text, "Kontrakte");
    // The messages quote each term, synonyms joined by "or".
    assert_eq!(
        r.issues.iter().map(|i| i.message.as_str()).collect::<Vec<_>>(),
        [
            "term \"contract\" ×2 in the source needs \"Vertrag\"; found ×1 (termbase line 2)",
            "forbidden term \"Kontrakte\" for \"contract\": use \"Vertrag\" (termbase line 2)",
        ]
    );
    let neither = tb.check_segment(0, "Read the terms of use.", "Lesen Sie die Regeln.", formal);
    assert_eq!(
        neither.issues[0].message,
        "term \"terms of use\" ×1 in the source needs \"Nutzungsbedingungen\" or \"AGB\"; found ×0 (termbase line 5)"
    );

    // The register decides which variant is required, and the other one is wrong.
    let ok = tb.check_segment(0, "Open your account.", "Öffnen Sie Ihr Konto.", formal);
    assert!(ok.issues.is_empty(), "{:?}", ok.issues);
    let wrong = tb.check_segment(0, "Open your account.", "Öffne dein Konto.", formal);
    assert_eq!(
        wrong.issues.iter().map(|i| i.kind).collect::<Vec<_>>(),
        [CheckKind::TermMissing, CheckKind::TermForbidden]
    );
    assert!(tb
        .check_segment(
            0,
            "Open your account.",
            "Öffne dein Konto.",
            Some(Register::Informal)
        )
        .issues
        .is_empty());

    // Either synonym satisfies the entry; a source without the term is not checked.
    assert!(tb
        .check_segment(0, "Read the terms of use.", "Lesen Sie die AGB.", formal)
        .issues
        .is_empty());
    assert!(tb
        .check_segment(0, "Good morning.", "Guten Morgen, Kontrakt.", formal)
        .issues
        .is_empty());
}

#[test]
fn generation_gets_the_required_and_banned_terms_of_a_segment() {
    let tb = parse(TSV, TermbaseFormat::Tsv).unwrap();
    let g = tb.generation_terms(
        "Please sign the contract in your account.",
        Some(Register::Formal),
    );
    assert_eq!(g.require, ["Vertrag", "Ihr Konto"]);
    assert_eq!(g.ban, ["Kontrakt", "dein Konto"]);
    let g = tb.generation_terms(
        "Please sign the contract in your account.",
        Some(Register::Informal),
    );
    assert_eq!(g.require, ["Vertrag", "dein Konto"]);
    assert_eq!(g.ban, ["Kontrakt", "Ihr Konto"]);
    assert_eq!(
        tb.generation_terms("Nothing here.", None),
        Default::default()
    );
}

fn bad(bytes: &[u8], f: TermbaseFormat) -> String {
    match termbase::parse(bytes, f, "glossary.x", "en", "de") {
        Ok(tb) => panic!("accepted: {:?}", tb.entries),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_termbases_are_refused_with_file_line_and_what_to_do() {
    let tsv = TermbaseFormat::Tsv;
    for (file, error) in [
        (&b"term\tdefinition\ncontract\tVertrag\n"[..], "glossary.x:1: unknown column \"term\" in the header (expected source, target and optionally target_formal, target_informal, forbidden, note)"),
        (b"source\tnote\nx\ty\n", "glossary.x:1: the header must name a source column and a target column (source, target[, target_formal, target_informal, forbidden, note])"),
        (b"source\ttarget\ncontract\tVertrag\nbill\tRechnung\textra\n", "glossary.x:3: 3 fields where the header has 2"),
        (b"source\ttarget\n\tVertrag\n", "glossary.x:2: the source term is empty"),
        (b"source\ttarget\ncontract\t\n", "glossary.x:2: no target (or forbidden) term for \"contract\""),
        (b"source\ttarget\nok\tgut\nbad\t\xfe\xff\n", "glossary.x:3: not UTF-8 (byte 0xfe); save the termbase as UTF-8"),
        (b"source\ttarget\n", "glossary.x: no entries below the header"),
    ] {
        assert_eq!(bad(file, tsv), error, "{}", String::from_utf8_lossy(file));
    }
    assert!(
        bad(b"source,target\ncontract,Vertrag\n", tsv).contains("looks like CSV"),
        "a CSV named .tsv says so"
    );
    assert!(
        bad(b"source,target\n\"contract,Vertrag\n", TermbaseFormat::Csv).starts_with("glossary.x:")
    );

    let tbx = TermbaseFormat::Tbx;
    let unclosed = "<martif>\n<text><body>\n<termEntry>\n<langSet xml:lang=\"en\"><tig><term>a</term></tig></langSet>\n</body></text></martif>";
    assert!(
        bad(unclosed.as_bytes(), tbx).starts_with("glossary.x:5: not well-formed XML"),
        "{}",
        bad(unclosed.as_bytes(), tbx)
    );
    let italian = TBX_BASIC.replace("de-DE", "it").replace("\"de\"", "\"it\"");
    for (file, error) in [
        (&b"<martif><text>\n<body>"[..], "glossary.x:2: the file ends before its elements are closed (truncated?)"),
        (b"<!DOCTYPE martif [<!ENTITY a \"b\">]>\n<martif/>", "glossary.x:1: a DOCTYPE is not allowed in a termbase (entity declarations are refused)"),
        (b"<?xml version=\"1.0\"?>\n<xliff/>", "glossary.x:2: not a TBX file: the root element is <xliff> (expected <martif> or <tbx>)"),
        (b"<martif><text><body><termEntry>\n<langSet><tig><term>a</term></tig></langSet></termEntry></body></text></martif>", "glossary.x:2: <langSet> without xml:lang"),
        (italian.as_bytes(), "glossary.x: no entry has both a en and a de term"),
    ] {
        assert_eq!(bad(file, tbx), error, "{}", String::from_utf8_lossy(file));
    }
    assert!(bad(b"<martif><text><body><termEntry><langSet xml:lang=\"en\"><tig><term>&bogus;</term></tig></langSet></termEntry></body></text></martif>", tbx).contains("entity"));
    let deep = format!("<martif>{}", "<a>".repeat(100));
    assert!(bad(deep.as_bytes(), tbx).contains("nested deeper than 64"));
}

#[test]
fn files_are_bounded_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("huge.tsv");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(termbase::MAX_BYTES + 1).unwrap();
    let e = termbase::load(&big, None, "en", "de")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!(
            "{}: 64 MiB; termbases are limited to 64 MiB",
            big.display()
        )),
        "{e}"
    );
    let e = termbase::load(dir.path(), Some(TermbaseFormat::Tsv), "en", "de")
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("not a regular file"), "{e}");
    let e = termbase::load(&dir.path().join("g.docx"), None, "en", "de")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("unknown termbase format: name it .tsv, .csv or .tbx"),
        "{e}"
    );
    let ok = dir.path().join("g.tbx");
    std::fs::write(&ok, TBX_V3).unwrap();
    assert_eq!(
        termbase::load(&ok, None, "en", "de-AT").unwrap().entries[0].target,
        ["Rechnung"]
    );
}

/// The fuzz corpus (fuzz/corpus/termbase) replays here: no input may panic, in any format.
#[test]
fn fuzz_corpus_replays_without_panics() {
    let mut n = 0;
    for (_, data) in registro_testkit::fuzz_corpus("termbase") {
        for f in [
            TermbaseFormat::Tsv,
            TermbaseFormat::Csv,
            TermbaseFormat::Tbx,
        ] {
            if let Ok(tb) = termbase::parse(&data, f, "corpus", "en", "de") {
                let text = String::from_utf8_lossy(&data);
                let _ = tb.check_segment(0, &text, &text, Some(Register::Formal));
                let _ = tb.generation_terms(&text, None);
            }
        }
        n += 1;
    }
    assert!(n >= 4, "only {n} inputs in fuzz/corpus/termbase");
}

/// Exporters vary: a term straight inside `langSet`, TBX v2's `ntig`/`termGrp`, CDATA and character references,
/// a DCT-style `<basic:administrativeStatus>` element and a `usage` note.
#[test]
fn tbx_variants_from_other_exporters_are_read() {
    let tbx = r#"<?xml version="1.0"?>
<martif type="TBX" xml:lang="en"><text><body>
  <termEntry>
    <langSet xml:lang="en"><term><![CDATA[R&D budget]]></term></langSet>
    <langSet xml:lang="de">
      <ntig><termGrp><term>F&amp;E-Budget</term></termGrp></ntig>
      <tig><term>Forschungsetat</term><basic:administrativeStatus>supersededTerm-admn-sts</basic:administrativeStatus></tig>
    </langSet>
  </termEntry>
  <termEntry>
    <langSet xml:lang="EN-GB"><tig><term>you&#39;re welcome</term></tig></langSet>
    <langSet xml:lang="de_CH">
      <tig><term>gern geschehen</term><descrip type="usage">informal</descrip></tig>
      <tig><term>keine Ursache</term></tig>
    </langSet>
  </termEntry>
</body></text></martif>"#;
    let tb = parse(tbx, TermbaseFormat::Tbx).unwrap();
    assert_eq!(tb.entries.len(), 2, "{:?}", tb.entries);
    assert_eq!(tb.entries[0].source, ["R&D budget"]);
    assert_eq!(tb.entries[0].target, ["F&E-Budget"]);
    assert_eq!(tb.entries[0].forbidden, ["Forschungsetat"]);
    assert_eq!(tb.entries[1].source, ["you're welcome"]);
    assert_eq!(tb.entries[1].target_informal, ["gern geschehen"]);
    assert_eq!(tb.entries[1].target, ["keine Ursache"]);
    let r = tb.check_segment(
        0,
        "The R&D budget grows.",
        "Das Forschungsetat wächst.",
        Some(Register::Formal),
    );
    assert_eq!(
        r.issues.iter().map(|i| i.kind).collect::<Vec<_>>(),
        [CheckKind::TermMissing, CheckKind::TermForbidden]
    );
}
