//! The languages the formalizer and the scorer know. ISO 639-1 codes as everywhere in Registro.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "RewriteLang")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    En,
    Pt,
    Fr,
    It,
    De,
    Es,
    Hi,
    Ja,
}

impl Lang {
    pub const ALL: [Lang; 8] = [Lang::En, Lang::Pt, Lang::Fr, Lang::It, Lang::De, Lang::Es, Lang::Hi, Lang::Ja];

    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Pt => "pt",
            Lang::Fr => "fr",
            Lang::It => "it",
            Lang::De => "de",
            Lang::Es => "es",
            Lang::Hi => "hi",
            Lang::Ja => "ja",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Pt => "Portuguese",
            Lang::Fr => "French",
            Lang::It => "Italian",
            Lang::De => "German",
            Lang::Es => "Spanish",
            Lang::Hi => "Hindi",
            Lang::Ja => "Japanese",
        }
    }

    /// Sentence-final mark the formalizer adds when a sentence has none.
    pub fn full_stop(self) -> &'static str {
        match self {
            Lang::Ja => "。",
            Lang::Hi => "।",
            _ => ".",
        }
    }

    /// Scripts without letter case get no casing rules.
    pub fn has_case(self) -> bool {
        !matches!(self, Lang::Hi | Lang::Ja)
    }

    /// Whether spacing around punctuation is the writer's, never a rule's to tidy: French sets a space before
    /// ! ? ; : by typographic rule, Japanese writes no spaces.
    pub fn keeps_punctuation_spacing(self) -> bool {
        matches!(self, Lang::Fr | Lang::Ja)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown language {0:?}: expected one of en, pt, fr, it, de, es, hi, ja")]
pub struct UnknownLang(pub String);

impl std::str::FromStr for Lang {
    type Err = UnknownLang;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_lowercase();
        // Accept regional tags users type (pt-BR, en_US) by their language part.
        let base = l.split(['-', '_']).next().unwrap_or("");
        Lang::ALL.iter().copied().find(|x| x.code() == base).ok_or_else(|| UnknownLang(s.to_string()))
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}
