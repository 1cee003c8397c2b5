//! Dutch: je/jij/jou/jouw (and plural jullie) vs. u/uw. `je` is also the generic "one" ("dat weet je nooit"), but
//! CoCoA-MT's formal references replace it too, so it counts as strong.
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

pub const JE_PRONOUNS: &[&str] = &["jij", "je", "jou", "jullie", "jezelf", "jouzelf"];
pub const JE_POSSESSIVES: &[&str] = &["jouw", "jouwe"];
pub const U_PRONOUNS: &[&str] = &["u", "uzelf"];
pub const U_POSSESSIVES: &[&str] = &["uw", "uwe"];
/// "Please" holds the pronoun: alsjeblieft (als het je belieft) and alstublieft (… u belieft), with their
/// spoken and written short forms. CoCoA-MT marks both as the register's words.
pub const JE_PLEASE: &[&str] = &["alsjeblieft", "asjeblieft", "asjeblief", "ajb"];
pub const U_PLEASE: &[&str] = &["alstublieft", "astublieft", "aub"];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for t in toks {
        let w = t.norm.as_str();
        if any(JE_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(JE_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if any(U_PRONOUNS, w) {
            // "U-bocht": a hyphenated U is a letter, not the pronoun.
            push(&mut out, text, t, Formal, Pronoun, !t.hyphen_before);
        } else if any(U_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, true);
        } else if any(JE_PLEASE, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(U_PLEASE, w) {
            push(&mut out, text, t, Formal, Pronoun, true);
        }
    }
    out
}
