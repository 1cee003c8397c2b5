//! Japanese plain ↔ です/ます, and the respectful level. Conjugation rules work on kana endings: godan stems
//! change row (書く ↔ 書きます), ichidan stems (e/i-row kana or a bare kanji before る) just add ます. Without a
//! dictionary a few classes are guessed (った could come from う/つ/る: a small table of stems decides, else る).
use super::Edit;
use crate::lang::ja::{clauses, contraction_at_end, contractions, strip_trailing, POLITE};
use crate::{analyze, Lang, MarkerKind, Register};

const ROWS: [[char; 5]; 14] = [
    ['わ', 'い', 'う', 'え', 'お'], ['か', 'き', 'く', 'け', 'こ'], ['が', 'ぎ', 'ぐ', 'げ', 'ご'],
    ['さ', 'し', 'す', 'せ', 'そ'], ['た', 'ち', 'つ', 'て', 'と'], ['な', 'に', 'ぬ', 'ね', 'の'],
    ['ば', 'び', 'ぶ', 'べ', 'ぼ'], ['ま', 'み', 'む', 'め', 'も'], ['ら', 'り', 'る', 'れ', 'ろ'],
    ['あ', 'い', 'う', 'え', 'お'], ['ざ', 'じ', 'ず', 'ぜ', 'ぞ'], ['だ', 'ぢ', 'づ', 'で', 'ど'],
    ['ぱ', 'ぴ', 'ぷ', 'ぺ', 'ぽ'], ['や', 'い', 'ゆ', 'え', 'よ'],
];

/// Moves a kana to another vowel column (0=a, 1=i, 2=u, 3=e, 4=o) of its row.
fn shift(c: char, to: usize) -> Option<char> {
    ROWS.iter().find(|r| r.contains(&c)).map(|r| r[to])
}
fn column(c: char) -> Option<usize> {
    ROWS.iter().find_map(|r| r.iter().position(|&k| k == c))
}
fn is_kanji(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c) || c == '々'
}
/// Stems of frequent godan verbs whose past ends in った but that do not end in る.
const U_STEMS: &[char] = &['言', '思', '使', '買', '会', '笑', '歌', '払', '習', '違', '吸', '拾', '誘', '願', '迷', '追', '救', '失', '伴'];
const TSU_STEMS: &[char] = &['待', '持', '勝', '立', '打', '育', '経', '保'];
/// i-row + る verbs that are ichidan (the others with a kanji stem are godan: 知る, 入る, 帰る).
const ICHIDAN_I: &[&str] = &["起き", "生き", "過ぎ", "信じ", "感じ", "落ち", "借り", "降り", "浴び", "足り", "でき", "見", "居", "着", "似", "煮"];

fn last(s: &str) -> Option<char> {
    s.chars().next_back()
}
fn drop_last(s: &str) -> &str {
    s.char_indices().next_back().map(|(i, _)| &s[..i]).unwrap_or("")
}

/// Plain clause ending → polite. `clause` is the clause without its trailing particles; returns the new clause.
fn to_polite(clause: &str) -> Option<String> {
    // A spoken contraction at the end is written out first (開いてる → 開いている → 開いています), or the polite
    // form would keep it (開いてます).
    let full;
    let clause = match contraction_at_end(clause) {
        Some((s, long)) => {
            full = format!("{}{long}", &clause[..s]);
            full.as_str()
        }
        None => clause,
    };
    if POLITE.iter().any(|p| clause.ends_with(p)) {
        return Some(clause.to_string());
    }
    let rep = |suffix: &str, with: &str| clause.strip_suffix(suffix).map(|s| format!("{s}{with}"));
    for (a, b) in [("じゃない", "ではありません"), ("ではない", "ではありません"), ("じゃん", "ですよね"), ("だった", "でした"), ("だろう", "でしょう"), ("しまった", "しまいました"), ("かった", "かったです")] {
        if let Some(r) = rep(a, b) {
            if a == "かった" && (clause.ends_with("分かった") || clause.ends_with("わかった")) {
                return rep("かった", "かりました");
            }
            return Some(r);
        }
    }
    if clause.ends_with("でしょ") {
        return Some(format!("{clause}う"));
    }
    for (neg, polite_neg, past) in [("なかった", "ませんでした", true), ("ない", "ません", false)] {
        if let Some(stem) = clause.strip_suffix(neg) {
            let c = last(stem)?;
            // ではない/くない/でない negate a copula or an adjective ("だけでない" → "だけでありません"); で sits on the
            // e-row, so it is told apart before the verb stems are.
            if c == 'く' || c == 'で' || c == 'は' {
                return Some(format!("{stem}{}", if past { "ありませんでした" } else { "ありません" }));
            }
            return Some(match column(c) {
                Some(0) if c != 'な' => format!("{}{}{polite_neg}", drop_last(stem), shift(c, 1)?),
                Some(1) | Some(3) => format!("{stem}{polite_neg}"),
                // A one-kanji ichidan verb (見ない, 出なかった), not a noun that "has none" (問題ない).
                None if "見出寝着居似煮得経".contains(c) => format!("{stem}{polite_neg}"),
                _ if is_kanji(c) && !past => format!("{stem}がありません"),
                _ => format!("{clause}です"),
            });
        }
    }
    if let Some(stem) = clause.strip_suffix('だ') {
        let c = last(stem)?;
        // 読んだ/泳いだ are verb pasts; するんだ/なのだ are the explanatory の/ん + だ.
        if c == 'ん' && last(drop_last(stem)).is_some_and(is_kanji) {
            return Some(format!("{}みました", drop_last(stem)));
        }
        if c == 'い' && last(drop_last(stem)).is_some_and(is_kanji) {
            return Some(format!("{}ぎました", drop_last(stem)));
        }
        return Some(format!("{stem}です"));
    }
    if let Some(stem) = clause.strip_suffix('た') {
        let c = last(stem)?;
        let before = last(drop_last(stem));
        return Some(match c {
            'っ' => {
                let b = before?;
                let i = if b == '行' { 'き' } else if U_STEMS.contains(&b) { 'い' } else if TSU_STEMS.contains(&b) { 'ち' } else { 'り' };
                format!("{}{i}ました", drop_last(stem))
            }
            'い' if before.is_some_and(is_kanji) => format!("{}きました", drop_last(stem)),
            _ if column(c).is_some_and(|k| k == 1 || k == 3) || is_kanji(c) => format!("{stem}ました"),
            _ => return None,
        });
    }
    if let Some(stem) = clause.strip_suffix("よう").filter(|s| !s.is_empty()) {
        let c = last(stem)?;
        return Some(if column(c) == Some(4) { format!("{}{}ましょう", drop_last(stem), shift(c, 1)?) } else { format!("{stem}ましょう") });
    }
    if clause.ends_with('い') {
        return Some(format!("{clause}です"));
    }
    if clause.ends_with("する") {
        return rep("する", "します");
    }
    if clause.ends_with("来る") || clause.ends_with("くる") {
        return Some(format!("{}ます", drop_last(clause).trim_end_matches('く').to_string() + if clause.ends_with("くる") { "き" } else { "" }));
    }
    let c = last(clause)?;
    if column(c) == Some(2) {
        let stem = drop_last(clause);
        if c == 'る' {
            let p = last(stem)?;
            let iru = p == 'い' && last(drop_last(stem)).is_none_or(|q| q == 'て' || q == 'で' || !(is_kanji(q) || column(q).is_some()) || "にはもがでと".contains(q));
            if column(p) == Some(3) || iru || ICHIDAN_I.iter().any(|s| stem.ends_with(s)) {
                return Some(format!("{stem}ます"));
            }
        }
        return Some(format!("{stem}{}ます", shift(c, 1)?));
    }
    if c == 'て' || c == 'で' {
        return Some(format!("{clause}ください"));
    }
    None
}

/// Polite morpheme at `[s, e)` of `text` (with its verb stem before it) → plain. Returns (start, replacement).
fn to_plain(text: &str, s: usize, e: usize) -> Option<(usize, String)> {
    let pol = &text[s..e];
    let before = &text[..s];
    let stem_c = last(before);
    let stem_start = stem_c.map(|c| s - c.len_utf8()).unwrap_or(s);
    let after = &text[e..];
    match pol {
        "です" => {
            // i-adjective + です drops です; nouns and na-adjectives take だ. Before a question か, plain speech
            // drops the copula too.
            if after.starts_with('か') || after.starts_with("よね") || stem_c == Some('い') || before.ends_with("かった") || before.ends_with("ない") {
                let end_q = if after.starts_with('か') && !after.starts_with("かも") && !after.starts_with("から") { e + 'か'.len_utf8() } else { e };
                let _ = end_q;
                return Some((s, String::new()));
            }
            Some((s, "だ".into()))
        }
        "でした" => Some((s, if stem_c == Some('い') { "かった".into() } else { "だった".into() })),
        "でしょう" => Some((s, "だろう".into())),
        "ください" => {
            if before.ends_with('て') || before.ends_with('で') {
                Some((s, String::new()))
            } else {
                Some((s, "くれ".into()))
            }
        }
        "ございます" => Some((s, "ある".into())),
        "ます" | "ました" | "ません" | "ませんでした" | "ましょう" => {
            let c = stem_c?;
            let stem = &before[..stem_start];
            // The stem kana decides the class: i-row of a godan verb, e-row / bare kanji of an ichidan verb.
            // いる (also the ている auxiliary) is ichidan; 思い/言い are godan stems.
            let iru = c == 'い' && last(stem).is_none_or(|p| p == 'て' || p == 'で' || p == '居' || !(is_kanji(p) || column(p).is_some()));
            let godan = column(c) == Some(1) && !iru && !ICHIDAN_I.iter().any(|x| before.ends_with(x)) && !(c == 'し' && (stem.is_empty() || last(stem).is_some_and(|p| is_kanji(p) && last(drop_last(stem)).is_some_and(is_kanji)) || last(stem).is_some_and(|p| !is_kanji(p))));
            let suru = c == 'し' && !godan;
            let new = match pol {
                "ます" => {
                    if suru {
                        "する".to_string()
                    } else if godan {
                        shift(c, 2)?.to_string()
                    } else if before.ends_with("来") {
                        "来る".into()
                    } else {
                        format!("{c}る")
                    }
                }
                "ません" | "ませんでした" => {
                    let neg = if pol == "ません" { "ない" } else { "なかった" };
                    if before.ends_with("あり") {
                        return Some((stem_start - 'あ'.len_utf8(), neg.into()));
                    }
                    if godan {
                        format!("{}{neg}", if c == 'い' { 'わ' } else { shift(c, 0)? })
                    } else {
                        format!("{c}{neg}")
                    }
                }
                "ました" => {
                    if suru {
                        "した".into()
                    } else if godan {
                        match c {
                            'い' | 'ち' | 'り' => "った".into(),
                            'き' if before.ends_with("行き") => "った".into(),
                            'き' => "いた".into(),
                            'ぎ' => "いだ".into(),
                            'し' => "した".into(),
                            'に' | 'び' | 'み' => "んだ".into(),
                            _ => return None,
                        }
                    } else {
                        format!("{c}た")
                    }
                }
                _ => {
                    if suru {
                        "しよう".into()
                    } else if godan {
                        format!("{}う", shift(c, 4)?)
                    } else {
                        format!("{c}よう")
                    }
                }
            };
            Some((stem_start, new))
        }
        _ => None,
    }
}

/// Plain verbs of the addressee → sonkeigo, for the respectful level.
const HONORIFIC: &[(&str, &str)] = &[
    ("いますか", "いらっしゃいますか"), ("行きますか", "いらっしゃいますか"), ("来ますか", "いらっしゃいますか"),
    ("食べますか", "召し上がりますか"), ("飲みますか", "召し上がりますか"), ("言いました", "おっしゃいました"),
    ("見ましたか", "ご覧になりましたか"), ("見ますか", "ご覧になりますか"), ("しますか", "なさいますか"),
    ("知っていますか", "ご存知ですか"), ("知っています", "ご存知です"), ("していますか", "していらっしゃいますか"),
    ("てください", "てくださいませ"),
];

pub(super) fn edits(text: &str, target: Register) -> Vec<Edit> {
    let mut out = Vec::new();
    if target.is_formal_side() {
        for (s, e) in clauses(text) {
            let end = strip_trailing(text, s, e);
            let clause = &text[s..end];
            let a = analyze(Lang::Ja, clause);
            let plain_end = a.markers.iter().any(|m| m.kind == MarkerKind::Ending && !m.register.is_formal_side());
            let contracted_end = contraction_at_end(clause).is_some();
            if clause.is_empty() || !(plain_end || contracted_end) {
                continue;
            }
            if let Some(mut new) = to_polite(clause) {
                // A plain question ("どう思う？", "開いてるの？") becomes a polite one with か ("どう思いますか？",
                // "開いていますか？"): the casual question's の goes, or it would read "開いていますの？".
                let casual_no = text[end..].starts_with("の？") || text[end..].starts_with("の?");
                let question = text[end..].starts_with(['？', '?']) || casual_no;
                let polite = new.ends_with("ます") || new.ends_with("ました") || new.ends_with("ません") || new.ends_with("です") || new.ends_with("でした");
                let mut end = end;
                if question && polite {
                    new.push('か');
                    if casual_no {
                        end += "の".len();
                    }
                }
                let common = clause.chars().zip(new.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum::<usize>();
                out.push(Edit { start: s + common, end, from: text[s + common..end].into(), to: new[common..].into() });
            }
        }
        // Contractions inside a clause (開いてるんですか → 開いているんですか); one at a clause's end went with it.
        for (s, e, long) in contractions(text) {
            // A casual question on a contraction, "開いてるんですか", is asked "開いていますか" in formal speech: CoCoA-MT's
            // formal training references have ていますか 12 times, ているのですか once and ているんですか never.
            let (e, to) = match long.strip_suffix('る') {
                Some(stem) if text[e..].starts_with("んですか") => (e + "んです".len(), format!("{stem}ます")),
                _ => (e, long.to_string()),
            };
            if !out.iter().any(|ed| s < ed.end && ed.start < e) {
                out.push(Edit { start: s, end: e, from: text[s..e].into(), to });
            }
        }
        out.sort_by_key(|ed| ed.start);
        if target == Register::Respectful {
            let polite = super::apply(text, &mut out.clone()).text;
            let mut hon = Vec::new();
            for (plain, honor) in HONORIFIC {
                for (i, _) in polite.match_indices(plain) {
                    hon.push(Edit { start: i, end: i + plain.len(), from: plain.to_string(), to: honor.to_string() });
                }
            }
            if !hon.is_empty() {
                let r = super::apply(&polite, &mut hon);
                // Express the whole change as one edit over the original text.
                return vec![Edit { start: 0, end: text.len(), from: text.into(), to: r.text }];
            }
        }
    } else {
        let a = analyze(Lang::Ja, text);
        for m in a.markers.iter().filter(|m| m.kind == MarkerKind::Ending && m.register.is_formal_side()) {
            if let Some((start, to)) = to_plain(text, m.start, m.end) {
                let mut end = m.end;
                let mut to = to;
                // "ですか" / "ますか" at the end of a question: plain speech keeps the verb and drops か.
                if text[end..].starts_with('か') && matches!(text[end + 3..].chars().next(), Some('？' | '?')) {
                    end += 'か'.len_utf8();
                    if to == "だ" {
                        to = String::new();
                    }
                }
                out.push(Edit { start, end, from: text[start..end].into(), to });
            }
        }
    }
    out
}
