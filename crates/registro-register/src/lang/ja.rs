//! Japanese: polite です/ます forms vs. plain forms at the end of a clause; respectful (sonkeigo/kenjōgo)
//! expressions. Without a morphological dictionary (none can be fetched offline: lindera's IPADIC downloads at
//! build time) this works on predicate endings: a clause is split off at 。！？ and at けど/が、, its trailing
//! sentence particles (ね, よ, な, か…) are stripped, and the ending that remains is classified.
use crate::{marker, Marker, MarkerKind, Register};

/// Polite morphemes, longest first so that ましょう wins over ます.
pub const POLITE: &[&str] = &[
    "ませんでした", "ございます", "でしょう", "ましょう", "ください", "ました", "ません", "でした", "ます", "です",
];
/// Sonkeigo/kenjōgo stems.
pub const RESPECTFUL: &[&str] = &[
    "いらっしゃ", "召し上が", "おっしゃ", "ご覧", "なさい", "なさ", "拝見", "伺", "申し上げ", "申し", "参り", "おりま", "ご存知", "ご存じ",
    "いたし", "致し", "存じ", "くださ", "お越し", "差し上げ", "頂", "いただ",
    // Honorific nouns for the listener's home and thoughts.
    "お住まい", "お考え",
];
/// Plain-form endings that close a clause informally; checked after the polite ones failed.
const PLAIN: &[&str] = &[
    "でしょ", "ないと", "じゃない", "じゃん", "だった", "だろう", "なかった", "ない", "だ", "た", "る", "う", "く", "ぐ", "す", "つ", "ぬ",
    "ぶ", "む", "い", "よう", "ろ",
];
/// Sentence-final particles and decorations stripped before looking at the predicate.
const TRAILING: &[&str] = &[
    "けれども", "けれど", "けど", "が", "よね", "かな", "かね", "っけ", "ね", "よ", "な", "わ", "か", "さ", "ぞ", "ぜ", "の", "笑", "w", "ｗ", "～", "〜", "ー",
    "…", "...", "・", ")", "）", "(", "（", "」", "』", "!", "！", "?", "？", " ", "　", "、", ",",
    // A clause closed by から ("いいのだから") keeps the style of the predicate before it.
    "から",
];

fn is_boundary(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '!' | '?' | '\n' | '．')
}

/// Fixed expressions that stay polite in casual speech too.
const SET_PHRASES: &[&str] = &["すみません", "ありがとうございます", "ありがとうございました", "おはようございます", "おめでとうございます", "いただきます", "ごちそうさまでした", "お願いします", "どうぞ"];

pub fn markers(text: &str) -> Vec<Marker> {
    let mut out = Vec::new();
    // Quoted speech (「…」) keeps its speaker's style; only the narrator's own clauses count.
    let quoted = quoted_ranges(text);
    let set: Vec<(usize, usize)> = SET_PHRASES.iter().flat_map(|p| text.match_indices(p).map(move |(s, _)| (s, s + p.len()))).collect();
    let skip = |s: usize, e: usize| quoted.iter().chain(set.iter()).any(|&(a, b)| s < b && a < e);
    // Polite and respectful morphemes anywhere count.
    for (list, reg, kind) in [(POLITE, Register::Formal, MarkerKind::Ending), (RESPECTFUL, Register::Respectful, MarkerKind::Honorific)] {
        let mut taken: Vec<(usize, usize)> = Vec::new();
        for pat in list {
            for (s, _) in text.match_indices(pat) {
                let e = s + pat.len();
                if skip(s, e) || taken.iter().any(|&(a, b)| s < b && a < e) {
                    continue;
                }
                if *pat == "ます" && text[e..].starts_with("ます") || text[..s].ends_with("ます") && *pat == "ます" {
                    continue; // ますます "more and more"
                }
                taken.push((s, e));
                out.push(marker(text, s, e, reg, kind, true));
            }
        }
    }
    // お/ご + a verb stem + になる in any form (お使いになります, お休みになれましたか, ご利用になる): sonkeigo
    // whatever the verb, so no list can hold them all.
    for (s, _) in text.match_indices("にな") {
        let e = s + "にな".len();
        let stem: Vec<(usize, char)> = text[..s].char_indices().rev().take(5).take_while(|&(_, c)| is_word_char(c)).collect();
        let Some(&(o, _)) = stem.iter().skip(1).find(|&&(_, c)| c == 'お' || c == 'ご') else { continue };
        if skip(o, e) || out.iter().any(|m: &Marker| m.register == Register::Respectful && m.start < e && o < m.end) {
            continue;
        }
        out.push(marker(text, o, e, Register::Respectful, MarkerKind::Honorific, true));
    }
    for (s, e) in clauses(text) {
        let end = strip_trailing(text, s, e);
        // The predicate's last character decides: a clause ending inside 「…」 is someone else's words, one
        // followed by an aside （笑） is not.
        let last = text[s..end].char_indices().next_back().map(|(i, _)| s + i).unwrap_or(end);
        if skip(last, end.max(last + 1)) {
            continue;
        }
        let clause = &text[s..end];
        if clause.is_empty() || POLITE.iter().any(|p| clause.ends_with(p)) || ends_polite_stem(clause) {
            continue;
        }
        let question = text[end..e].contains('？') || text[end..e].contains('?') || text[e..].starts_with('？') || text[e..].starts_with('?');
        if let Some(p) = PLAIN.iter().find(|p| clause.ends_with(*p)).filter(|p| !(**p == "でしょ" && text[end..].starts_with("でしょう"))) {
            let ms = end - p.len();
            // A lone kana ending after a katakana/latin word is a loanword, not a predicate.
            let prev = text[..ms].chars().next_back();
            // だ after a katakana noun is still the copula ("ジョニー・デップだ").
            if p.chars().count() == 1 && *p != "だ" && prev.is_some_and(|c| is_katakana(c) || c.is_ascii_alphanumeric()) {
                continue;
            }
            // ような/のよう/たよう compare ("like …"); the volitional よう follows a verb stem.
            let before_you = clause.strip_suffix("よう").and_then(|b| b.chars().next_back());
            if before_you.is_some_and(|c| matches!(c, 'の' | 'た' | 'だ' | 'る' | 'な' | 'ん' | 'い')) {
                continue;
            }
            // A one-word exclamation ("良かった！", "すごい！") is an interjection that polite speakers use too.
            let exclaimed = text[end..e].contains(['！', '!']) || text[e..].starts_with(['！', '!']);
            // Chat text runs sentences together behind emoticons and spaces ("降ります:)良かった！").
            let word = clause.rsplit([' ', '　', ')', '）', '、', '笑']).next().unwrap_or(clause);
            if exclaimed && word.chars().count() <= 5 {
                let ms = if p.chars().count() == 1 { text[..ms].char_indices().next_back().map(|(i, _)| s.max(i)).unwrap_or(ms) } else { ms };
                out.push(marker(text, ms, end, Register::Informal, MarkerKind::Ending, false));
                continue;
            }
            let ms = if p.chars().count() == 1 { text[..ms].char_indices().next_back().map(|(i, _)| s.max(i)).unwrap_or(ms) } else { ms };
            out.push(marker(text, ms, end, Register::Informal, MarkerKind::Ending, true));
        } else if let Some(last) = clause.char_indices().next_back().map(|(i, _)| s + i) {
            // A bare noun question ("ドライブは？") or a sentence-final て-request ("守って。") is casual, though
            // weakly: polite speakers clip questions too.
            if question || clause.ends_with('て') || clause.ends_with('で') && !clause.ends_with("ので") {
                out.push(marker(text, last, end, Register::Informal, MarkerKind::Ending, false));
            } else if let Some(w) = casual_particle(text, clause, end, e) {
                out.push(marker(text, end, end + w, Register::Informal, MarkerKind::Ending, false));
            }
        }
    }
    mid_sentence_plain(text, &skip, &mut out);
    for (s, e, _) in contractions(text) {
        if !skip(s, e) {
            out.push(marker(text, s, e, Register::Informal, MarkerKind::Verb, true));
        }
    }
    out
}

/// Spoken contractions of a て-form and its auxiliary, with what they contract (longest first): いる loses its い
/// (知ってる, 開いてます), しまう becomes ちゃう/じゃう (忘れちゃった), ければ becomes きゃ. Polite speech may end in
/// です/ます and still be casual with them ("開いてるんですか"), so they count on their own. CoCoA-MT's formal
/// references have 2 of 1,000 against 18 of 1,000 informal ones (training split, the い-dropping forms).
const CONTRACTED: &[(&str, &str)] = &[
    ("てなかった", "ていなかった"), ("でなかった", "でいなかった"), ("てました", "ていました"), ("でました", "でいました"),
    ("てません", "ていません"), ("でません", "でいません"), ("てます", "ています"), ("でます", "でいます"), ("てない", "ていない"),
    ("でない", "でいない"), ("てる", "ている"), ("でる", "でいる"), ("てた", "ていた"), ("でた", "でいた"), ("てて", "ていて"),
    ("でて", "でいて"),
];
const SHIMAU: &[(&str, &str)] = &[
    ("ちゃいました", "てしまいました"), ("じゃいました", "でしまいました"), ("ちゃいます", "てしまいます"), ("じゃいます", "でしまいます"),
    ("ちゃった", "てしまった"), ("じゃった", "でしまった"), ("ちゃって", "てしまって"), ("じゃって", "でしまって"), ("ちゃう", "てしまう"),
    ("じゃう", "でしまう"), ("なくちゃ", "なくては"), ("なきゃ", "なければ"),
];

/// Whether a contracted て/で form can follow `c`: the last kana of a て-form (持っ, 書い, し, 食べ, 起き, 見せ) or
/// a one-kanji ichidan stem (見てる, 来てる); a で-form follows ん or い only (読んで, 泳いで). Any other kanji
/// before て is a verb's own stem (捨てる, 育てる, 当てた), and a particle before で is no verb (だけでない,
/// 外へでます).
fn takes_te(c: char, de: bool) -> bool {
    if de {
        return matches!(c, 'ん' | 'い');
    }
    "っいしえけせてねめれべげきちりじびぎみに見居寝着似煮出来".contains(c)
}

/// Every spoken contraction in `text`: (start, end, the full form).
pub(crate) fn contractions(text: &str) -> Vec<(usize, usize, &'static str)> {
    let mut out: Vec<(usize, usize, &'static str)> = Vec::new();
    for (table, needs_stem) in [(CONTRACTED, true), (SHIMAU, false)] {
        for (short, full) in table {
            for (s, _) in text.match_indices(short) {
                let e = s + short.len();
                if out.iter().any(|&(a, b, _)| s < b && a < e) {
                    continue;
                }
                let prev = text[..s].chars().next_back();
                let fits = if needs_stem { prev.is_some_and(|c| takes_te(c, short.starts_with('で'))) } else { prev.is_some_and(is_word_char) };
                if fits {
                    out.push((s, e, full));
                }
            }
        }
    }
    out.sort_by_key(|&(s, e, _)| (s, e));
    out
}

/// The contraction that ends `clause`, if one does: (its start, the full form).
pub(crate) fn contraction_at_end(clause: &str) -> Option<(usize, &'static str)> {
    contractions(clause).into_iter().find(|&(_, e, _)| e == clause.len()).map(|(s, _, full)| (s, full))
}

/// "ことさ", "のさ", "んだぞ": the particles さ/ぞ/ぜ after a nominaliser only close casual speech. Returns the
/// byte length of the particle.
fn casual_particle(text: &str, clause: &str, end: usize, e: usize) -> Option<usize> {
    let tail = &text[end..e];
    let p = ["さ", "ぞ", "ぜ"].into_iter().find(|p| tail.starts_with(p))?;
    (clause.ends_with("こと") || clause.ends_with('の') || clause.ends_with('ん')).then_some(p.len())
}

/// Plain predicates inside a sentence: before 、 ("しなければならない、", "痛くなってしまった、", "やめる、ママ")
/// and before the colloquial quotative って ("訪問しているって書いてあった"). Polite speech puts ます/です there or
/// uses と, but a plain form before 、 is also a subordinate clause in polite speech, so they are weak: they only
/// label a sentence that has no polite ending at all. They are verbs for repair, which rewrites clause endings only.
fn mid_sentence_plain(text: &str, skip: &dyn Fn(usize, usize) -> bool, out: &mut Vec<Marker>) {
    const BEFORE_COMMA: &[&str] = &["ったので", "ないので", "ならない", "いけない", "ない", "だった", "った", "いた", "んだ", "だ", "る"];
    for (i, _) in text.match_indices(['、', ',']) {
        let before = &text[..i];
        if let Some(p) = BEFORE_COMMA.iter().find(|p| before.ends_with(*p)) {
            let s = i - p.len();
            if !skip(s, i) && !POLITE.iter().any(|q| before.ends_with(q)) && !before.ends_with("たり") {
                out.push(marker(text, s, i, Register::Informal, MarkerKind::Verb, false));
            }
        }
    }
    for (i, _) in text.match_indices("って") {
        let prev = text[..i].chars().next_back();
        if prev.is_some_and(|c| matches!(c, 'る' | 'た' | 'だ' | 'の')) && !skip(i, i + "って".len()) {
            let s = text[..i].char_indices().next_back().map(|(j, _)| j).unwrap_or(i);
            out.push(marker(text, s, i + "って".len(), Register::Informal, MarkerKind::Verb, false));
        }
    }
}

/// Clause-level "が、", "けど" before a polite clause are fine; a plain predicate before them is informal.
pub(crate) fn clauses(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if is_boundary(c) {
            out.push((start, i));
            start = i + c.len_utf8();
        }
    }
    out.push((start, text.len()));
    let mut more = Vec::new();
    for &(s, e) in &out {
        let seg = &text[s..e];
        for pat in ["けど", "けれど"] {
            for (i, _) in seg.match_indices(pat) {
                more.push((s, s + i));
            }
        }
        // A sentence-final particle before 、 closes an utterance in chat ("そうだね、…", "分かるかな、…").
        for pat in ["ね、", "よ、", "かな、"] {
            for (i, _) in seg.match_indices(pat) {
                more.push((s, s + i + pat.len() - "、".len()));
            }
        }
    }
    out.extend(more);
    out
}

fn quoted_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match c {
            // A parenthetical aside ("（[完了]をクリックしてください）") is a note outside the conversation.
            '「' | '『' | '（' if open.is_none() => open = Some(i),
            '」' | '』' | '）' => {
                if let Some(s) = open.take() {
                    out.push((s, i + c.len_utf8()));
                }
            }
            _ => {}
        }
    }
    if let Some(s) = open {
        out.push((s, text.len()));
    }
    out
}

pub(crate) fn strip_trailing(text: &str, s: usize, mut e: usize) -> usize {
    loop {
        let seg = &text[s..e];
        match TRAILING.iter().find(|t| seg.ends_with(*t) && seg.len() > t.len()) {
            Some(t) => e -= t.len(),
            None => return e,
        }
    }
}

/// Polite continuative before a stripped particle ("ますよね" stripped to "ます" is handled by POLITE).
fn ends_polite_stem(clause: &str) -> bool {
    clause.ends_with("ませ") || clause.ends_with("まし")
}

fn is_katakana(c: char) -> bool {
    ('\u{30A0}'..='\u{30FF}').contains(&c)
}

/// Kanji or kana: what a verb stem between お/ご and になる is written with.
fn is_word_char(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}' | '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}')
}
