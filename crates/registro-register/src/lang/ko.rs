//! Korean: the speech level lives in the sentence-final ending — 해요체/하십시오체 (`-요`, `-니다`, `-니까`, `-죠`)
//! is formal, 해체/해라체 (`-어`, `-야`, `-지`, `-다`…) informal — plus the pronouns 너/네가 (informal) and the humble
//! 저/제가 (formal), and the honorific infix -시- (formal, weak: it honours a third person as often). 당신 and 님
//! address the listener politely in the IWSLT 2023 references, but 당신 is also a spouse's word and a quarrel's, so
//! they are weak; so are 내 (my) and 제 (humble my), which follow the speaker's level. A clause closed by a comma
//! carries a level too ("알 거야, …"), when its word ends like a sentence, never like a connective (-서, -고, -면,
//! -니까): such a marker is weak, since the same word can be an interjection.
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
    "제",
    "전",
    "절",
];
const POLITE_YOU: &[&str] = &[
    "당신",
    "당신은",
    "당신이",
    "당신을",
    "당신의",
    "당신과",
    "당신도",
    "당신한테",
    "당신에게",
    "당신께",
    "당신이랑",
    "님",
    "님은",
    "님이",
    "님을",
    "님의",
    "님도",
];
/// Sentence-final endings that also close a comma clause; a connective never ends this way. -지 is left out: it
/// ends nouns (할아버지) and embedded questions (싶은지) as often.
const COMMA_FORMAL_ENDINGS: &[&str] = &["요", "죠", "니다"];
const COMMA_INFORMAL_ENDINGS: &[&str] = &["야", "어", "아", "해", "래", "봐", "줘", "돼", "다"];
/// Interjections that end like a clause: "그래, …" ("yes, …") stands in polite speech too.
const INTERJECTIONS: &[&str] = &["그래", "아니", "글쎄", "그러니까", "근데"];
const PLAIN_I: &[&str] = &[
    "내",
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
    jamo(c).is_some()
}

/// A precomposed Hangul syllable's (initial, medial, final) jamo indices; `final` 0 means no final consonant
/// (17 is ㅂ, 4 ㄴ, 20 ㅆ).
pub(crate) fn jamo(c: char) -> Option<(u32, u32, u32)> {
    let code = (c as u32).checked_sub(0xAC00).filter(|&code| code < 11172)?;
    Some((code / 588, (code % 588) / 28, code % 28))
}

pub(crate) fn final_of(c: char) -> Option<u32> {
    jamo(c).map(|(_, _, f)| f)
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
        } else if any(POLITE_YOU, w) {
            push(&mut out, text, t, Formal, Pronoun, false);
        } else if quoted(toks, i) {
            // Quoted speech keeps its speaker's level: "우린 안 돼, 라고 했어요", "감당할 수 있겠어? 하는 것 같군요".
        } else if ends_clause(text, toks, i) && t.text.chars().last().is_some_and(hangul) && !cut_off(text, t, w) && !any(LAUGHTER, w) {
            let formal = FORMAL_ENDINGS.iter().any(|e| w.ends_with(e)) && !causal_nikka(w);
            // A fragment closed by a noun ("…쓰는 방법.", "랩 배틀.") stands in polite speech too; only an ending
            // that a predicate has makes the clause plain speech.
            push(&mut out, text, t, if formal { Formal } else { Informal }, Ending, formal || ends_like_predicate(w));
        } else if before_comma(text, toks, i) && w.chars().count() >= 2 && !any(INTERJECTIONS, w) {
            if COMMA_FORMAL_ENDINGS.iter().any(|e| w.ends_with(e)) {
                push(&mut out, text, t, Formal, Ending, false);
            } else if COMMA_INFORMAL_ENDINGS.iter().any(|e| w.ends_with(e)) {
                push(&mut out, text, t, Informal, Ending, false);
            }
        }
    }
    out
}

/// Connective endings and case particles: a segment that stops on one without a full stop was cut mid-sentence
/// ("…당신은 배송 물품을 가지고"), so its last word carries no speech level.
const CONNECTIVES: &[&str] = &["고", "면", "는데", "은데", "서", "지만", "니까", "처럼", "이", "가", "을", "를", "의", "에", "도", "랑"];

fn cut_off(text: &str, t: &Tok<'_>, w: &str) -> bool {
    text[t.end..].trim().is_empty() && CONNECTIVES.iter().any(|c| w.ends_with(c))
}

/// `-니까` is the formal question (합니까, 있습니까) only after -ㅂ/-습; after anything else it is "because".
fn causal_nikka(w: &str) -> bool {
    let Some(stem) = w.strip_suffix("니까") else { return false };
    let Some(last) = stem.chars().last() else { return false };
    !(final_of(last) == Some(17) || last == '습')
}

fn before_comma(text: &str, toks: &[Tok<'_>], i: usize) -> bool {
    let until = neighbour(toks, i, 1).map(|n| n.start).unwrap_or(text.len());
    text[toks[i].end..until].trim_start().starts_with(',')
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

/// Laughter and exclamations that close a clause without a speech level ("하하.", "하!").
const LAUGHTER: &[&str] = &["하하", "하하하", "하", "헤헤", "히히", "호호", "아하", "와우", "ㅋㅋ", "ㅋㅋㅋ", "ㅎㅎ"];

/// Last syllables of the plain-speech (해체/해라체) endings: -지, -다, -네, -군, -냐, -니, -래, -자, -게, -걸, -까,
/// -나, -대, -데, -든, -고, -라, -야 and the contracted -어/-아 forms.
const PLAIN_FINAL_SYLLABLES: &[char] = &[
    '지', '다', '네', '군', '냐', '니', '래', '자', '게', '걸', '까', '나', '대', '데', '든', '고', '라', '야', '어', '아',
    '여', '해', '돼', '줘', '봐', '와', '워', '겨', '져', '쳐', '켜', '혀', '가', '거', '려', '구', '렴', '마',
];

/// Whether a clause-final word ends like a predicate in plain speech: one of the plain endings' syllables, or a
/// syllable contracted from -아/-어 (open syllable with ㅏ ㅐ ㅑ ㅓ ㅕ ㅘ ㅙ ㅝ: 가, 봐, 써, 했어 → 해). A noun
/// ending (방법, 배틀, 곳) is not one.
fn ends_like_predicate(w: &str) -> bool {
    let Some(last) = w.chars().last() else { return false };
    PLAIN_FINAL_SYLLABLES.contains(&last)
        || jamo(last).is_some_and(|(_, medial, fin)| fin == 0 && matches!(medial, 0 | 1 | 2 | 4 | 6 | 9 | 10 | 14))
}

/// The word closes a quotation: the next word is the quotative 라고/하고/하는/하며 that reports it.
fn quoted(toks: &[Tok<'_>], i: usize) -> bool {
    neighbour(toks, i, 1).is_some_and(|n| {
        ["라고", "이라고", "하고", "하는", "하며", "하면서", "하더라", "하길래"].iter().any(|q| n.norm.starts_with(q))
    })
}
