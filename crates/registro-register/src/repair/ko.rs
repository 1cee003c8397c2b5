//! Korean: the speech level is the sentence-final ending, so repair re-conjugates the clause-final word the
//! analyzer marked — 반말 → 해요체 (`뭐야` → `뭐예요`, `사지` → `사죠`, `했다` → `했어요`, `가져왔어` → `가져왔어요`) and
//! 해요체/합쇼체 → 반말 (`알 거예요` → `알 거야`, `있으세요` → `있어`, `합니다` → `해`) — and swaps the pronouns
//! (너/네가 ↔ 당신/당신이, 나/내가 ↔ 저/제가).
//!
//! Going to 반말 needs the verb's 아/어 form from its stem (`놔두` + 어 → `놔둬`), so a small conjugator works on
//! Hangul jamo: vowel harmony, the contractions (ㅗ+아 → ㅘ, ㅜ+어 → ㅝ, ㅣ+어 → ㅕ, ㅚ+어 → ㅙ), 하 → 해, and the
//! ㅂ- and 르-irregular stems. Honorific -시- inside a clause is left alone: it honours a third person as often.
use super::{table, Ctx, Edit};
use crate::lang::ko::{final_of, jamo};
use crate::MarkerKind;

const TO_FORMAL_PRONOUNS: &[(&str, &str)] = &[
    ("너", "당신"),
    ("너는", "당신은"),
    ("너를", "당신을"),
    ("너의", "당신의"),
    ("너도", "당신도"),
    ("네가", "당신이"),
    ("니가", "당신이"),
    ("너한테", "당신한테"),
    ("너랑", "당신이랑"),
    ("너에게", "당신에게"),
    ("너와", "당신과"),
    ("넌", "당신은"),
    ("널", "당신을"),
    ("니", "당신"),
    ("네", "당신의"),
    ("나", "저"),
    ("나는", "저는"),
    ("내가", "제가"),
    ("나를", "저를"),
    ("나도", "저도"),
    ("나의", "저의"),
    ("나한테", "저한테"),
    ("우리는", "저희는"),
    ("난", "전"),
    ("날", "절"),
    ("내", "제"),
];

/// The humble forms back to the plain ones; "네" before a pause is "yes" in the polite register.
const TO_INFORMAL_PRONOUNS: &[(&str, &str)] = &[
    ("저", "나"),
    ("저는", "나는"),
    ("제가", "내가"),
    ("저를", "나를"),
    ("저도", "나도"),
    ("저의", "나의"),
    ("저한테", "나한테"),
    ("저희", "우리"),
    ("저희는", "우리는"),
    ("저희가", "우리가"),
    ("전", "난"),
    ("절", "날"),
    ("제", "내"),
    ("네", "응"),
    ("당신", "너"),
    ("당신은", "너는"),
    ("당신이", "네가"),
    ("당신을", "너를"),
    ("당신의", "너의"),
    ("당신과", "너와"),
    ("당신도", "너도"),
    ("당신한테", "너한테"),
    ("당신에게", "너에게"),
    ("당신께", "너에게"),
    ("당신이랑", "너랑"),
    ("님", "네"),
    ("님은", "너는"),
    ("님이", "네가"),
    ("님을", "너를"),
    ("님의", "너의"),
    ("님도", "너도"),
];

/// Honorific verbs whose plain form is another word.
const HONORIFIC_STEMS: &[(&str, &str)] = &[("드시", "먹"), ("주무시", "자"), ("계시", "있"), ("말씀하시", "말하")];

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    // Pronouns and endings can be the same word ("나", "네"): the analyzer's marker kind says which it is.
    let endings: Vec<(usize, usize)> = c
        .markers
        .iter()
        .filter(|m| m.kind == MarkerKind::Ending)
        .map(|m| (m.start, m.end))
        .collect();
    let pronouns = if c.to_formal { TO_FORMAL_PRONOUNS } else { TO_INFORMAL_PRONOUNS };
    let mut out = Vec::new();
    for (i, t, w) in c.wrong_tokens() {
        let to = if endings.contains(&(t.start, t.end)) {
            if c.to_formal {
                to_polite(w)
            } else {
                to_plain(w)
            }
        } else {
            table(pronouns, w, true).map(str::to_string)
        };
        if let Some(to) = to {
            out.push(c.edit(i, to));
        }
    }
    out
}

/// 반말 ending → 해요체.
fn to_polite(w: &str) -> Option<String> {
    let (body, last) = split_last(w)?;
    let replaced = |n: usize, with: &str| Some(format!("{}{with}", drop_chars(w, n)));
    if w.ends_with("이야") {
        return replaced(2, "이에요");
    }
    if w == "아니야" || w == "아냐" {
        return Some("아니에요".into());
    }
    match last {
        '야' => {
            // 뭐야 → 뭐예요, 사람이야 handled above; a consonant-final noun takes 이에요.
            let prev = body.chars().last()?;
            Some(format!("{body}{}", if final_of(prev) == Some(0) { "예요" } else { "이에요" }))
        }
        '지' => replaced(1, "죠"),
        '니' | '냐' => replaced(1, "나요"),
        '자' => replaced(1, "죠"),
        '마' => replaced(1, "마세요"),
        '라' if body.ends_with('어') || body.ends_with('아') || body.ends_with('해') => replaced(1, "요"),
        '다' => declarative_to_polite(body),
        // Honorific -시- + 어 contracts to 셔; its polite form is 세요 (아셔 → 아세요).
        '셔' => replaced(1, "세요"),
        // 요 after any other ending, a connective or a noun is the polite form spoken Korean uses (받으면요, 사람요).
        _ => Some(format!("{w}요")),
    }
}

/// 해라체 `-다` → 해요체: 했다 → 했어요, 간다 → 가요, 먹는다 → 먹어요, 좋다 → 좋아요, 학생이다 → 학생이에요.
fn declarative_to_polite(stem_and_suffix: &str) -> Option<String> {
    if stem_and_suffix.is_empty() {
        return None;
    }
    if let Some(noun) = stem_and_suffix.strip_suffix('이') {
        if !noun.is_empty() {
            return Some(format!("{noun}이에요"));
        }
    }
    if stem_and_suffix == "거" || stem_and_suffix.ends_with("거") {
        return Some(format!("{stem_and_suffix}예요"));
    }
    let stem = if let Some(s) = stem_and_suffix.strip_suffix('는') {
        s.to_string()
    } else {
        let (body, last) = split_last(stem_and_suffix)?;
        // -ㄴ다 on a vowel stem: 한다 → 하, 간다 → 가.
        if final_of(last) == Some(4) {
            format!("{body}{}", with_final(last, 0)?)
        } else {
            stem_and_suffix.to_string()
        }
    };
    Some(format!("{}요", a_eo_form(&stem)?))
}

/// 해요체/합쇼체 ending → 반말.
fn to_plain(w: &str) -> Option<String> {
    let replaced = |n: usize, with: &str| Some(format!("{}{with}", drop_chars(w, n)));
    if w.ends_with("이에요") {
        return replaced(3, "이야");
    }
    if w.ends_with("예요") || w.ends_with("에요") {
        return replaced(2, "야");
    }
    if w.ends_with("죠") {
        return replaced(1, "지");
    }
    if w.ends_with("나요") {
        return replaced(2, "니");
    }
    for honorific in ["으세요", "세요", "으십시오", "십시오", "셔요"] {
        if let Some(stem) = w.strip_suffix(honorific) {
            if stem.is_empty() {
                return None;
            }
            // The honorific's stem is the plain verb's stem once -시- is gone: 있으세요 → 있, 놔두세요 → 놔두.
            let honoured = format!("{stem}시");
            if let Some((h, plain)) = HONORIFIC_STEMS.iter().find(|(h, _)| honoured.ends_with(h)) {
                let keep = &honoured[..honoured.len() - h.len()];
                return a_eo_form(&format!("{keep}{plain}"));
            }
            return a_eo_form(stem);
        }
    }
    for suffix in ["니다", "니까"] {
        if let Some(before) = w.strip_suffix(suffix) {
            if let Some(stem) = before.strip_suffix('습') {
                return a_eo_form(stem);
            }
            let (body, last) = split_last(before)?;
            if final_of(last) != Some(17) {
                return None;
            }
            // -ㅂ니다 on a vowel stem: 합니다 → 하, 갑니다 → 가; the copula 입니다 → 이야, 겁니다 → 거야.
            let stem = format!("{body}{}", with_final(last, 0)?);
            if stem.ends_with('이') && body.chars().last().is_some_and(|p| final_of(p).is_some()) || stem == "이" {
                return Some(format!("{stem}야"));
            }
            if stem.ends_with('거') || stem.ends_with("아니") {
                return Some(format!("{stem}야"));
            }
            return a_eo_form(&stem);
        }
    }
    w.strip_suffix('요').filter(|s| !s.is_empty()).map(str::to_string)
}

/// A verb or adjective stem in its 아/어 form (the 해체 ending itself): 하 → 해, 가 → 가, 보 → 봐, 주 → 줘,
/// 마시 → 마셔, 되 → 돼, 쓰 → 써, 바쁘 → 바빠, 모르 → 몰라, 있 → 있어, 좋 → 좋아, 고맙 → 고마워.
fn a_eo_form(stem: &str) -> Option<String> {
    let (body, last) = split_last(stem)?;
    if last == '하' {
        return Some(format!("{body}해"));
    }
    let (initial, medial, fin) = jamo(last)?;
    if fin != 0 {
        if fin == 17 && !REGULAR_B_STEMS.iter().any(|s| stem.ends_with(s)) {
            // ㅂ-irregular: 고맙 → 고마워, 돕 → 도와.
            let open = compose(initial, medial, 0)?;
            let ending = if stem.ends_with('돕') || stem.ends_with('곱') { "와" } else { "워" };
            return Some(format!("{body}{open}{ending}"));
        }
        let bright = matches!(medial, 0 | 2 | 8);
        return Some(format!("{stem}{}", if bright { "아" } else { "어" }));
    }
    let contracted = match medial {
        0 | 1 | 4 | 5 | 6 | 3 | 7 => return Some(stem.to_string()),
        8 => 9,
        13 => 14,
        20 => 6,
        11 => 10,
        18 => {
            let prev = body.chars().last();
            if last == '르' {
                // 르-irregular: 모르 → 몰라, 부르 → 불러.
                let p = prev?;
                let (pi, pm, _) = jamo(p)?;
                let head: String = body.chars().take(body.chars().count() - 1).collect();
                let ra = if matches!(pm, 0 | 8) { "라" } else { "러" };
                return Some(format!("{head}{}{ra}", compose(pi, pm, 8)?));
            }
            let bright = prev.and_then(jamo).is_some_and(|(_, m, _)| matches!(m, 0 | 8));
            if bright {
                0
            } else {
                4
            }
        }
        _ => return Some(format!("{stem}어")),
    };
    Some(format!("{body}{}", compose(initial, contracted, 0)?))
}

/// ㅂ-final stems that conjugate regularly (잡아, 입어); the rest of the ㅂ stems, mostly adjectives, are irregular.
const REGULAR_B_STEMS: &[&str] = &["잡", "입", "씹", "접", "좁", "뽑", "업", "집", "굽", "넓", "짧"];

fn split_last(w: &str) -> Option<(&str, char)> {
    let last = w.chars().last()?;
    Some((&w[..w.len() - last.len_utf8()], last))
}

fn drop_chars(w: &str, n: usize) -> &str {
    let cut = w.char_indices().rev().nth(n - 1).map(|(i, _)| i).unwrap_or(0);
    &w[..cut]
}

fn compose(initial: u32, medial: u32, fin: u32) -> Option<char> {
    char::from_u32(0xAC00 + initial * 588 + medial * 28 + fin)
}

fn with_final(c: char, fin: u32) -> Option<char> {
    let (i, m, _) = jamo(c)?;
    compose(i, m, fin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_take_their_a_eo_form() {
        for (stem, want) in [
            ("하", "해"),
            ("가", "가"),
            ("보", "봐"),
            ("놔두", "놔둬"),
            ("마시", "마셔"),
            ("되", "돼"),
            ("쓰", "써"),
            ("바쁘", "바빠"),
            ("모르", "몰라"),
            ("부르", "불러"),
            ("있", "있어"),
            ("좋", "좋아"),
            ("먹", "먹어"),
            ("고맙", "고마워"),
            ("돕", "도와"),
            ("잡", "잡아"),
            ("보내", "보내"),
        ] {
            assert_eq!(a_eo_form(stem).as_deref(), Some(want), "{stem}");
        }
    }

    #[test]
    fn endings_change_level() {
        for (plain, polite) in [("뭐야", "뭐예요"), ("사지", "사죠"), ("가져왔어", "가져왔어요"), ("사람들이야", "사람들이에요")]
        {
            assert_eq!(to_polite(plain).as_deref(), Some(polite), "{plain}");
            assert_eq!(to_plain(polite).as_deref(), Some(plain), "{polite}");
        }
        for (polite, plain) in [("있으세요", "있어"), ("합니다", "해"), ("있습니다", "있어"), ("학생입니다", "학생이야"), ("놔두세요", "놔둬")] {
            assert_eq!(to_plain(polite).as_deref(), Some(plain), "{polite}");
        }
        for (plain, polite) in [("했다", "했어요"), ("간다", "가요"), ("먹는다", "먹어요"), ("좋다", "좋아요")] {
            assert_eq!(to_polite(plain).as_deref(), Some(polite), "{plain}");
        }
    }
}
