//! Register mixing across a document in every language with a T-V or politeness distinction: the forms are named
//! as a translator names them, the minority segment deviates, and where the language has repair rules the fix
//! brings it to the document's register.
use registro_qa::{check, consistency, Segment};
use registro_register::{analyze, Lang, Register, Verdict};

/// (language, formal sentence, formal sentence, informal sentence, formal form, informal form, repairable)
const CASES: &[(Lang, &str, &str, &str, &str, &str, bool)] = &[
    (
        Lang::De,
        "Können Sie mir helfen?",
        "Haben Sie Zeit?",
        "Kannst du mir helfen?",
        "Sie",
        "du",
        true,
    ),
    (
        Lang::Fr,
        "Pouvez-vous m'aider ?",
        "Avez-vous le temps ?",
        "Peux-tu m'aider ?",
        "vous",
        "tu",
        true,
    ),
    (
        Lang::Es,
        "¿Puede usted ayudarme?",
        "¿Tiene usted tiempo?",
        "¿Puedes tú ayudarme?",
        "usted",
        "tú",
        true,
    ),
    (
        Lang::It,
        "Lei può aiutarmi?",
        "Lei ha tempo?",
        "Tu puoi aiutarmi?",
        "Lei",
        "tu",
        true,
    ),
    (
        Lang::Nl,
        "Kunt u mij helpen?",
        "Heeft u tijd?",
        "Kun jij mij helpen?",
        "u",
        "jij",
        true,
    ),
    (
        Lang::Ru,
        "Вы можете мне помочь?",
        "У вас есть время?",
        "Ты можешь мне помочь?",
        "вы",
        "ты",
        true,
    ),
    (
        Lang::Hi,
        "क्या आप मेरी मदद कर सकते हैं?",
        "क्या आपके पास समय है?",
        "क्या तुम मेरी मदद कर सकते हो?",
        "aap",
        "tum",
        true,
    ),
    (
        Lang::Ja,
        "手伝っていただけますか。",
        "時間はありますか。",
        "手伝ってくれる？",
        "polite",
        "plain",
        true,
    ),
];

/// A document of translations alone: register consistency needs no source.
fn targets<'a>(texts: &[&'a str]) -> Vec<Segment<'a>> {
    texts.iter().map(|&t| Segment { source: None, target: Some(t), register: None }).collect()
}

#[test]
fn every_language_names_its_forms_and_finds_the_deviating_segment() {
    for &(lang, f1, f2, inf, formal, informal, repairable) in CASES {
        let segs = targets(&[f1, f2, inf]);
        let r = check(lang, Some(Register::Formal), &segs, None);
        let c = &r.consistency;
        let forms: Vec<&str> = c.forms.iter().map(|f| f.form.as_str()).collect();
        assert_eq!(forms.last().copied(), Some(informal), "{lang:?}: {:#?}", c);
        assert!(
            forms
                .iter()
                .any(|f| f.starts_with(formal.split(' ').next().unwrap()) || *f == "respectful"),
            "{lang:?}: {forms:?}"
        );
        assert!(c.mixed, "{lang:?}");
        assert_eq!(c.deviating, [2], "{lang:?}: {:#?}", c.segments);
        assert!(
            r.issues
                .iter()
                .any(|i| i.segment == 2 && !i.spans.is_empty()),
            "{lang:?}: {:#?}",
            r.issues
        );
        let fixes = consistency::fixes(lang, c, &segs);
        assert_eq!(fixes.len(), 1);
        if repairable {
            let after = fixes[0]
                .after
                .as_deref()
                .unwrap_or_else(|| panic!("{lang:?}: {:?}", fixes[0]));
            assert_ne!(
                analyze(lang, after).verdict(Register::Formal),
                Verdict::Wrong,
                "{lang:?}: {after}"
            );
        }
    }
}

#[test]
fn a_document_in_one_form_is_consistent_and_neutral_segments_do_not_count() {
    let segs = targets(&["Kannst du kommen?", "Das Wetter ist schön.", "Hast du Zeit?"]);
    let r = check(Lang::De, None, &segs, None);
    assert!(!r.consistency.mixed);
    assert_eq!(r.consistency.dominant.as_deref(), Some("du"));
    assert_eq!(r.consistency.target, Some(Register::Informal));
    assert!(r.issues.is_empty(), "{:#?}", r.issues);
    assert!(!registro_qa::blocking(&r));
}
