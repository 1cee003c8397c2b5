//! Korean: the speech level lives in the sentence-final ending — 해요체/하십시오체 (`-요`, `-니다`, `-니까`, `-죠`)
//! is formal, 해체/해라체 (`-어`, `-야`, `-지`, `-다`…) informal — plus the pronouns 너/네가 (informal) and the humble
//! 저/제가 (formal), and the honorific infix -시- (formal, weak: it honours a third person as often).
use super::{any, push};
use crate::tokens::{neighbour, Tok};
use crate::{Marker, MarkerKind::*, Register::*};

pub const FORMAL_ENDINGS: &[&str] = &["요", "니다", "니까", "죠", "시오", "소서"];
const NE_PRONOUNS: &[&str] = &[
    "너",
    "너는",
    "너를",
    "너의",
    "너도",
    "네가",
    "니가",
    "너한테",
    "너랑",
    "너에게",
    "너와",
    "넌",
    "널",
    "니",
];
const HUMBLE: &[&str] = &[
    "저",
    "저는",
    "제가",
    "저를",
    "저도",
    "저의",
    "저한테",
    "저희",
    "저희는",
    "저희가",
    "전",
    "절",
];
const PLAIN_I: &[&str] = &[
    "나",
    "나는",
    "내가",
    "나를",
    "나도",
    "나의",
    "나한테",
    "우리는",
    "난",
    "날",
];

fn hangul(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        if any(NE_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if w == "네" {
            // "네" is "yes" before a pause and "your" before a noun.
            let before_pause = text[t.end..].trim_start().starts_with([',', '.', '!', '?']) || t.end == text.len();
            push(
                &mut out,
                text,
                t,
                if before_pause { Formal } else { Informal },
                Pronoun,
                false,
            );
        } else if any(HUMBLE, w) {
            push(&mut out, text, t, Formal, Pronoun, false);
        } else if any(PLAIN_I, w) {
            push(&mut out, text, t, Informal, Pronoun, false);
        } else if ends_clause(text, toks, i) && t.text.chars().last().is_some_and(hangul) {
            let formal = FORMAL_ENDINGS.iter().any(|e| w.ends_with(e));
            push(&mut out, text, t, if formal { Formal } else { Informal }, Ending, true);
        }
    }
    out
}

/// The token closes a sentence: sentence punctuation (or the end of the text) follows before the next word.
fn ends_clause(text: &str, toks: &[Tok<'_>], i: usize) -> bool {
    let end = toks[i].end;
    let until = neighbour(toks, i, 1).map(|n| n.start).unwrap_or(text.len());
    let gap = &text[end..until];
    gap.contains(['.', '?', '!', '…', '\n', '。', '？', '！'])
        || until == text.len() && gap.trim().is_empty()
        || until == text.len()
}
