//! registro-rewrite: informal → formal rewriting without ML. [`rules`] is the XFORMAL/RT18 rule-based formalizer
//! (every change recorded with its type and span); [`scorer`] is a formality regressor trained on PT16 with
//! language-independent surface features plus per-language lexicons, so it applies zero-shot beyond English.
#![forbid(unsafe_code)]

/// `name()` and `FromStr` of a fieldless enum from one list of its variants' names; a name not in the list is
/// refused as an unknown `$what`, with the names listed ("expected a, b or c").
macro_rules! named_variants {
    ($ty:ident, $what:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(format!("unknown {} {s:?}: expected {}", $what, crate::one_of(&[$($name),+]))),
                }
            }
        }
    };
}

/// `["a", "b", "c"]` as "a, b or c".
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

pub mod bench;
pub mod content;
pub mod features;
mod lang;
pub mod lexicon;
pub mod pipeline;
pub mod prompt;
pub mod rerank;
pub mod rules;
pub mod scorer;
mod tokens;
pub mod verdict;
pub mod xformal;

pub use lang::{Lang, UnknownLang};
pub use rules::{formalize, Edit, EditKind, Formalized, Formalizer};

#[cfg(test)]
mod named_variants_tests {
    use crate::pipeline::Method;
    use crate::scorer::Variant;

    #[test]
    fn names_parse_back_and_unknown_ones_list_the_choices() {
        for m in [Method::Rules, Method::Roundtrip, Method::Llm] {
            assert_eq!(m.name().parse::<Method>(), Ok(m), "{m:?}");
        }
        for v in [Variant::Surface, Variant::Lexical, Variant::Embedding] {
            assert_eq!(v.name().parse::<Variant>(), Ok(v), "{v:?}");
        }
        assert_eq!("x".parse::<Method>().unwrap_err(), "unknown method \"x\": expected rules, roundtrip or llm");
        assert_eq!(
            "x".parse::<Variant>().unwrap_err(),
            "unknown scorer variant \"x\": expected surface, lexical or embedding"
        );
    }
}
