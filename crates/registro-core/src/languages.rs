//! Every language Registro offers, from one list: the translation targets of [`registro_register::Lang`] and the
//! languages rewriting knows ([`registro_rewrite::Lang`], English among them), each with the registers a request
//! can ask for and what Registro can do with it. The window's language lists are this list, generated into
//! `ui/src/bindings/languages.ts` by `src-tauri/tests/ts_bindings.rs`; the CLI's are the same enums' `--help`.
//! A capability is a method on the language (`Lang::has_respectful`, `Lang::marks_addressee_gender`, …), never a
//! list of codes in a face.

use serde::{Deserialize, Serialize};

use registro_register::{data, Lang, Register};

/// One language as every face offers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Language {
    /// ISO 639-1, as everywhere in Registro.
    pub code: String,
    pub name: String,
    /// The registers a translation into it can ask for, formal first (respectful only where the language has one);
    /// empty for a language that is no translation target.
    pub registers: Vec<Register>,
    /// A translation target: a register analyzer, repair rules and the prompt's wording exist for it.
    pub translate: bool,
    /// Rewriting knows it (the rule formalizer and the formality scorer): the Rewrite view offers it, and the pivot
    /// system can formalize a translation into it.
    pub rewrite: bool,
    /// Where a translation into it takes its examples from: a data set shipped in Registro's data folder
    /// (`cocoa-mt`, `iwslt2023`) or `hand-written` pairs compiled in; none where it is no target.
    pub examples: Option<String>,
    /// Whether a feminine addressee changes the wording (the addressee's gender is offered).
    pub addressee_gender: bool,
}

/// The rewriting language with `code`, if rewriting knows it.
pub fn rewrite_lang(code: &str) -> Option<registro_rewrite::Lang> {
    registro_rewrite::Lang::ALL.into_iter().find(|l| l.code() == code)
}

/// Every language, English (the source of every translation) first, then the targets in [`Lang::ALL`]'s order.
pub fn languages() -> Vec<Language> {
    let source_only = registro_rewrite::Lang::ALL.into_iter().filter(|l| l.code().parse::<Lang>().is_err()).map(|l| Language {
        code: l.code().to_string(),
        name: l.name().to_string(),
        registers: Vec::new(),
        translate: false,
        rewrite: true,
        examples: None,
        addressee_gender: false,
    });
    let targets = Lang::ALL.into_iter().map(|l| Language {
        code: l.code().to_string(),
        name: l.name().to_string(),
        registers: l.registers(),
        translate: true,
        rewrite: rewrite_lang(l.code()).is_some(),
        examples: Some(data::example_set(l).unwrap_or("hand-written").to_string()),
        addressee_gender: l.marks_addressee_gender(),
    });
    source_only.chain(targets).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_and_every_rewriting_language_is_listed_once() {
        let all = languages();
        let codes: Vec<&str> = all.iter().map(|l| l.code.as_str()).collect();
        assert_eq!(codes[0], "en");
        for l in Lang::ALL {
            assert_eq!(codes.iter().filter(|c| **c == l.code()).count(), 1, "{}", l.code());
        }
        for l in registro_rewrite::Lang::ALL {
            assert!(all.iter().any(|x| x.code == l.code() && x.rewrite), "{}", l.code());
        }
        let ja = all.iter().find(|l| l.code == "ja").unwrap();
        assert_eq!(ja.registers, [Register::Formal, Register::Informal, Register::Respectful]);
        let ru = all.iter().find(|l| l.code == "ru").unwrap();
        assert_eq!((ru.rewrite, ru.examples.as_deref()), (false, Some("hand-written")));
        assert!(all.iter().filter(|l| l.code != "ja").all(|l| !l.registers.contains(&Register::Respectful)));
    }
}
