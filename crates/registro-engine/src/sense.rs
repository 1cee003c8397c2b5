//! Text that has stopped making sense, seen while it is generated: a loop (the same few words again and again, with
//! the small variations the n-gram guard lets through) or a switch of writing system (a Hindi answer that goes on in
//! English or Chinese). A small model that falls into either rarely comes out before `max_tokens`, so decoding on
//! is the slowest way to a wrong answer: [`GenerateOptions::stop_senseless`](crate::GenerateOptions) ends the row
//! with [`FinishReason::Senseless`](crate::FinishReason) instead, and [`senseless`] says what went wrong in words
//! for the caller's flag.
//!
//! Both checks look only at the end of the text, need a minimum of it before they judge, and are tuned to leave real
//! sentences alone: a repeated word or a name in another script is not enough.

/// Characters of the end of the text the loop check looks at.
const LOOP_WINDOW: usize = 64;
/// Text shorter than this is never called a loop ("No, no, no!" is a sentence).
const LOOP_MIN_CHARS: usize = 48;
/// Distinct 4-character pieces in the window, as a share of all of them, below which it is a loop. A sentence has
/// nearly all distinct (0.9 and more); a phrase of 20 characters said three times has about a third.
const LOOP_MAX_DISTINCT: f64 = 0.45;
/// Letters of the end of the text the script check looks at.
const DRIFT_WINDOW: usize = 40;
/// Letters the text must hold before a script can be called its own.
const DRIFT_MIN_LETTERS: usize = 60;
/// The text's own script must hold at least this share of its letters…
const DRIFT_OWN_SHARE: f64 = 0.6;
/// …and the window less than this share for the end to have left it.
const DRIFT_TAIL_SHARE: f64 = 0.15;

/// Writing systems told apart. Japanese kana and Chinese characters count as one: Japanese mixes them in every
/// sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Script {
    Latin,
    Cyrillic,
    Greek,
    Arabic,
    Devanagari,
    Hangul,
    KanaHan,
    Thai,
    Other,
}

pub fn script_of(c: char) -> Script {
    match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => Script::Latin,
        0x370..=0x3FF => Script::Greek,
        0x400..=0x52F => Script::Cyrillic,
        0x600..=0x6FF | 0x750..=0x77F => Script::Arabic,
        0x900..=0x97F => Script::Devanagari,
        0xE00..=0xE7F => Script::Thai,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => Script::Hangul,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => Script::KanaHan,
        _ => Script::Other,
    }
}

/// Why a text has stopped making sense, if it has, in words for a flag.
pub fn senseless(text: &str) -> Option<String> {
    looping(text).or_else(|| drifted(text))
}

/// "repeats itself: "…"" when the end of `text` is a loop.
pub fn looping(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < LOOP_MIN_CHARS {
        return None;
    }
    let window = &chars[chars.len().saturating_sub(LOOP_WINDOW)..];
    let grams: Vec<&[char]> = window.windows(4).collect();
    let distinct: std::collections::HashSet<&[char]> = grams.iter().copied().collect();
    if (distinct.len() as f64) >= LOOP_MAX_DISTINCT * grams.len() as f64 {
        return None;
    }
    // Show the piece that comes back most, as the user would see it.
    let mut counts = std::collections::HashMap::<&[char], usize>::new();
    for g in &grams {
        *counts.entry(g).or_default() += 1;
    }
    let (top, _) = counts.into_iter().max_by_key(|&(g, n)| (n, std::cmp::Reverse(g.to_vec())))?;
    let mut at = window.windows(4).position(|g| g == top).unwrap_or(0);
    // From the start of its word, so the quote reads as words; a window that begins mid-word starts at its second.
    while at > 0 && !window[at - 1].is_whitespace() {
        at -= 1;
    }
    let cut_word = chars.len() > LOOP_WINDOW && !chars[chars.len() - LOOP_WINDOW - 1].is_whitespace();
    if at == 0 && cut_word {
        at = window.iter().position(|c| c.is_whitespace()).map_or(0, |w| w + 1);
    }
    let unit: String = window[at..].iter().take(24).collect();
    Some(format!("the output repeats itself (\"{}…\") instead of ending", unit.trim()))
}

/// "switched from Devanagari to Latin letters" when the end of `text` left the script the rest is written in.
pub fn drifted(text: &str) -> Option<String> {
    let letters: Vec<Script> = text.chars().filter(|c| c.is_alphabetic()).map(script_of).filter(|s| *s != Script::Other).collect();
    if letters.len() < DRIFT_MIN_LETTERS {
        return None;
    }
    let mut counts = std::collections::HashMap::<Script, usize>::new();
    for s in &letters {
        *counts.entry(*s).or_default() += 1;
    }
    let (own, n) = counts.iter().max_by_key(|&(s, n)| (*n, format!("{s:?}"))).map(|(s, n)| (*s, *n))?;
    if (n as f64) < DRIFT_OWN_SHARE * letters.len() as f64 {
        return None;
    }
    let tail = &letters[letters.len() - DRIFT_WINDOW..];
    let kept = tail.iter().filter(|s| **s == own).count();
    if kept as f64 >= DRIFT_TAIL_SHARE * DRIFT_WINDOW as f64 {
        return None;
    }
    let mut tail_counts = std::collections::HashMap::<Script, usize>::new();
    for s in tail {
        *tail_counts.entry(*s).or_default() += 1;
    }
    let (into, _) = tail_counts.into_iter().max_by_key(|&(s, n)| (n, format!("{s:?}")))?;
    Some(format!("the output switched from {} to {} part-way", name(own), name(into)))
}

fn name(s: Script) -> &'static str {
    match s {
        Script::Latin => "Latin letters",
        Script::Cyrillic => "Cyrillic",
        Script::Greek => "Greek",
        Script::Arabic => "Arabic script",
        Script::Devanagari => "Devanagari",
        Script::Hangul => "Hangul",
        Script::KanaHan => "Japanese/Chinese characters",
        Script::Thai => "Thai",
        Script::Other => "other characters",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_sentences_are_left_alone() {
        for s in [
            "Sehr geehrte Damen und Herren, könnten Sie mir die Datei bis Freitag schicken? Vielen Dank im Voraus für Ihre Hilfe.",
            "お忙しいところ恐れ入りますが、金曜日までにファイルをお送りいただけますでしょうか。どうぞよろしくお願いいたします。",
            "क्या आप कृपया शुक्रवार तक मुझे फ़ाइल भेज सकते हैं? आपकी सहायता के लिए बहुत-बहुत धन्यवाद, हम जल्द ही जवाब देंगे।",
            "Microsoft Teams पर मीटिंग के लिए धन्यवाद; क्या आप कृपया शुक्रवार तक मुझे फ़ाइल भेज सकते हैं? हम जल्द ही जवाब देंगे।",
            "No, no, no! I said no.",
            "Bạn có thể gửi cho tôi tệp trước thứ Sáu không? Cảm ơn bạn rất nhiều vì sự giúp đỡ của bạn trong tuần này.",
        ] {
            assert_eq!(senseless(s), None, "{s}");
        }
    }

    #[test]
    fn a_loop_and_a_switch_of_script_are_named() {
        let l = senseless("Vielen Dank für Ihre Hilfe, vielen Dank, vielen Dank, vielen Dank, vielen Dank, vielen Dank, vielen Dank").unwrap();
        assert!(l.starts_with("the output repeats itself (\"") && l.contains("Dank"), "{l}");
        let d = senseless(
            "क्या आप कृपया शुक्रवार तक मुझे फ़ाइल भेज सकते हैं? आपकी सहायता के लिए धन्यवाद, हम जल्द ही जवाब देंगे और आपको पूरी जानकारी भेजेंगे। \
             and then I will send you the whole file by Friday afternoon",
        )
        .unwrap();
        assert_eq!(d, "the output switched from Devanagari to Latin letters part-way");
    }
}
