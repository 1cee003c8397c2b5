//! Sentence segmentation per language, in the spirit of SRX rules: a break after `.`, `!`, `?` (and `…`) followed
//! by space and a sentence start, except after the language's abbreviations, initials and German/Dutch ordinal
//! numbers; Japanese/Chinese break after `。！？` with no space; Hindi after `।` and `॥`. The pieces concatenate to
//! the input exactly (spaces stay with the sentence before them), so joining translations keeps the paragraph,
//! and inline placeholders (`<1>`, `</1>`) travel inside the sentence that holds them.

fn abbreviations(lang: &str) -> &'static [&'static str] {
    match lang {
        "en" => &[
            "mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "no", "jr", "sr",
            "inc", "ltd", "co", "fig", "approx", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
            "sep", "sept", "oct", "nov", "dec",
        ],
        "de" => &[
            "z.b", "bzw", "usw", "nr", "dr", "hr", "fr", "ca", "vgl", "u.a", "d.h", "s", "abs",
            "str", "prof", "evtl", "ggf", "inkl", "zzgl", "etc",
        ],
        "fr" => &[
            "m", "mme", "mlle", "dr", "p.ex", "etc", "cf", "env", "av", "bd", "no", "st", "ste",
        ],
        "es" => &[
            "sr", "sra", "srta", "dr", "dra", "ud", "uds", "etc", "p.ej", "núm", "pág", "av",
            "ee.uu",
        ],
        "it" => &[
            "sig", "sig.ra", "dott", "prof", "ecc", "es", "pag", "n", "avv", "ing",
        ],
        "nl" => &[
            "dhr", "mevr", "dr", "bijv", "enz", "nr", "o.a", "d.w.z", "ca",
        ],
        "pt" => &["sr", "sra", "dr", "dra", "etc", "p.ex", "av", "nº"],
        _ => &["mr", "mrs", "dr", "etc", "e.g", "i.e"],
    }
}

fn is_cjk_end(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '｡')
}

fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | '»' | ')' | ']' | '」' | '』' | '）' | '】'
    )
}

/// The sentences of `text` for language `lang` (ISO 639-1, e.g. `de`, `ja`, `hi`); they concatenate to `text`.
pub fn split_sentences<'a>(text: &'a str, lang: &str) -> Vec<&'a str> {
    let lang = lang
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let abbr = abbreviations(&lang);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let (_, c) = chars[i];
        let cjk = is_cjk_end(c);
        let latin = matches!(c, '.' | '!' | '?' | '…' | '।' | '॥');
        if !(cjk || latin) {
            i += 1;
            continue;
        }
        // Take the run of end marks and closing quotes/brackets/placeholders after the mark.
        let mut j = i + 1;
        while j < chars.len()
            && (matches!(chars[j].1, '.' | '!' | '?' | '！' | '？' | '。') || is_closer(chars[j].1))
        {
            j += 1;
        }
        j = skip_closing_placeholders(&chars, j);
        let mut k = j;
        while k < chars.len() && chars[k].1.is_whitespace() {
            k += 1;
        }
        let spaced = k > j;
        let at_end = k >= chars.len();
        if at_end {
            break;
        }
        let breaks = if cjk {
            true
        } else if !spaced {
            false
        } else if c == '.' {
            let next = chars[k].1;
            let starts = next.is_uppercase()
                || next.is_numeric()
                || next == '<'
                || next == '"'
                || next == '“'
                || next == '„'
                || next == '«'
                || next == '¿'
                || next == '¡'
                || !next.is_alphabetic();
            starts && !before_is_exception(text, &chars, start, i, abbr, &lang)
        } else {
            true
        };
        if breaks {
            let end = chars[k].0;
            out.push(&text[start..end]);
            start = end;
        }
        i = k.max(i + 1);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn skip_closing_placeholders(chars: &[(usize, char)], mut j: usize) -> usize {
    // `</3>` right after a full stop closes a tag that belongs to the ending sentence.
    loop {
        if j + 2 < chars.len() && chars[j].1 == '<' && chars[j + 1].1 == '/' {
            let mut m = j + 2;
            while m < chars.len() && chars[m].1.is_ascii_digit() {
                m += 1;
            }
            if m > j + 2 && m < chars.len() && chars[m].1 == '>' {
                j = m + 1;
                continue;
            }
        }
        return j;
    }
}

fn before_is_exception(
    text: &str,
    chars: &[(usize, char)],
    start: usize,
    dot: usize,
    abbr: &[&str],
    lang: &str,
) -> bool {
    let dot_byte = chars[dot].0;
    let word_start = text[start..dot_byte]
        .rfind(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .map(|p| start + p + 1)
        .unwrap_or(start);
    let word = &text[word_start..dot_byte];
    let lower = word.to_lowercase();
    if abbr.contains(&lower.as_str()) {
        return true;
    }
    // An initial: "J. Smith".
    if word.chars().count() == 1 && word.chars().all(|c| c.is_uppercase()) {
        return true;
    }
    // German/Dutch/Scandinavian ordinals: "am 3. Mai".
    if matches!(
        lang,
        "de" | "nl" | "da" | "no" | "nb" | "sv" | "fi" | "cs" | "pl" | "hu"
    ) && !word.is_empty()
        && word.chars().all(|c| c.is_ascii_digit())
        && word.len() <= 2
    {
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::split_sentences;

    #[test]
    fn english_abbreviations_and_numbers() {
        let t = "Dr. Smith paid $3.50 at 5 p.m. on Monday. He left, e.g. at noon! Did he? Yes.";
        assert_eq!(
            split_sentences(t, "en"),
            [
                "Dr. Smith paid $3.50 at 5 p.m. on Monday. ",
                "He left, e.g. at noon! ",
                "Did he? ",
                "Yes."
            ]
        );
    }

    #[test]
    fn german_ordinals_and_abbreviations() {
        let t = "Am 3. Mai kommt z.B. Herr Nr. 5 mit. Dann gehen wir.";
        assert_eq!(
            split_sentences(t, "de"),
            ["Am 3. Mai kommt z.B. Herr Nr. 5 mit. ", "Dann gehen wir."]
        );
    }

    #[test]
    fn japanese_and_hindi() {
        assert_eq!(
            split_sentences("今日は晴れです。明日は雨ですか？はい！", "ja"),
            ["今日は晴れです。", "明日は雨ですか？", "はい！"]
        );
        assert_eq!(
            split_sentences("आप कैसे हैं। मैं ठीक हूँ।", "hi"),
            ["आप कैसे हैं। ", "मैं ठीक हूँ।"]
        );
    }

    #[test]
    fn placeholders_stay_in_their_sentence() {
        let t = "Click <1>here.</1> Then <2/>wait.";
        assert_eq!(
            split_sentences(t, "en"),
            ["Click <1>here.</1> ", "Then <2/>wait."]
        );
    }

    #[test]
    fn pieces_concatenate_to_input() {
        for t in ["", "   ", "A. B. C.", "...", "Hi!!! Ho?? 。。", "x.\n\ny"] {
            assert_eq!(split_sentences(t, "en").concat(), t);
        }
    }
}
