//! Outputs that stop short (issue 43: the 0.5B model's Hindi "…तो क्या उन्होंने क", run to its token budget) are
//! flagged as cut off; whole translations, with or without their final full stop, are not. The held-out references of
//! the shipped example data give the false-flag rate.
use registro_register::meaning::{check, MeaningIssue};
use registro_register::{data, Lang};

fn cut_off(lang: Lang, source: &str, output: &str) -> Option<String> {
    check(lang, source, output).into_iter().find(|f| f.issue == MeaningIssue::Truncated).map(|f| f.detail)
}

#[test]
fn outputs_that_stop_short_are_flagged() {
    let cut = [
        (Lang::Hi, "If they liked the movie so much, did they see the sequel too?", "अगर उन्हें फिल्म इतनी पसंद आई, तो क्या उन्होंने क"),
        (Lang::It, "Could you please send me the signed contract before the meeting on Friday?", "Potrebbe inviarmi il contratto firmato prima della r"),
        (Lang::De, "I have been waiting for your answer about the new apartment for two weeks.", "Ich warte seit zwei"),
        (Lang::Ja, "Could you please send me the signed contract before the meeting on Friday?", "署名"),
    ];
    for (lang, source, output) in cut {
        let d = cut_off(lang, source, output).unwrap_or_else(|| panic!("{lang:?}: {output:?} stops short and was not flagged"));
        assert!(d.contains("punctuation"), "{d}");
    }
}

#[test]
fn whole_translations_are_not_cut_off() {
    let whole = [
        (Lang::It, "Could you please send me the signed contract before the meeting on Friday?", "Potrebbe inviarmi il contratto firmato prima della riunione di venerdì"),
        (Lang::De, "Thank you very much for your help.", "Vielen Dank für Ihre Hilfe."),
        (Lang::Ja, "Thank you very much for your help.", "ご協力ありがとうございました"),
        (Lang::Hi, "Thank you very much for your help.", "आपकी मदद के लिए बहुत-बहुत धन्यवाद।"),
        (Lang::Fr, "Is it true?", "C'est vrai"),
        (Lang::Es, "He said: \"I will come.\"", "Dijo: «Vendré.»"),
    ];
    for (lang, source, output) in whole {
        assert_eq!(cut_off(lang, source, output), None, "{lang:?}: {output:?}");
    }
}

/// Prints the rate per language (run with --nocapture).
#[test]
fn held_out_references_are_not_cut_off() {
    let (mut n, mut flagged) = (0usize, Vec::new());
    for lang in Lang::ALL {
        let Ok(dir) = data::examples_dir(lang) else { continue };
        let (_pool, held_out) = data::split(data::load_dir(&dir, lang).expect("the shipped pool loads"));
        for p in &held_out {
            for reference in [&p.formal, &p.informal] {
                n += 1;
                if let Some(d) = cut_off(lang, &p.source, reference) {
                    flagged.push(format!("{}: {reference:?} ({d})", lang.code()));
                }
            }
        }
    }
    println!("{} of {n} held-out references flagged as cut off: {:?}", flagged.len(), flagged);
    assert!(n > 0 || std::env::var("REGISTRO_DATA").is_err(), "no example data found");
    assert!(flagged.len() * 200 <= n, "{} of {n} good references flagged as cut off: {flagged:?}", flagged.len());
}
