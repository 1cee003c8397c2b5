//! A word turned into its opposite: the source says "close" and the translation "open", "buy" and "sell" (a day
//! turned into another, "tomorrow" into "today", is the date check's: `meaning::relative_day_changed`). A small model does this (the 1.5B model translated "Is your window open? Can you shut it?" as
//! 「…開けますか」, "can you open it"), and the embedding check cannot see it: a sentence and its antonym sit close
//! together in an embedding, as a sentence and its negation do.
//!
//! Each pair has English words for its two sides and, per target language, stems of the words a translation uses
//! for each side. A translation is flagged when the source has one side's word and not the other's, and the
//! translation has the other side's and not the first's. Where a stem of one side is part of a longer stem of the
//! other (German kauf / verkauf, Hindi स्वीकार / अस्वीकार), the longer one decides. The rule only speaks where a
//! translation *says the opposite*: a word rendered some other way is never flagged. Measured on the held-out
//! references of every shipped pool (`tests/opposites.rs`), which are good translations.
use crate::Lang;

/// How a language's stems are found in a translation.
#[derive(Clone, Copy, PartialEq)]
enum Find {
    /// At the start of a word (Romance, Russian, Hindi: inflection is at the end).
    Prefix,
    /// Anywhere in a word (German and Dutch compounds and ge- participles: "geöffnet", "zumachen").
    Inside,
    /// Anywhere in the text (Japanese, Korean: no spaces between words).
    Anywhere,
    /// A whole word or phrase (Vietnamese: words are syllables, "mở" is inside "mở rộng" too).
    Whole,
}

fn find(lang: Lang) -> Find {
    match lang {
        Lang::De | Lang::Nl => Find::Inside,
        Lang::Ja | Lang::Ko => Find::Anywhere,
        Lang::Vi => Find::Whole,
        Lang::Es | Lang::Fr | Lang::It | Lang::Pt | Lang::Ru | Lang::Hi => Find::Prefix,
    }
}

/// One pair: its name in the flag, the English words of each side (lower case, whole words), and each language's
/// stems for each side (lower case). A language without an entry is not checked for the pair.
struct Pair {
    en: [&'static [&'static str]; 2],
    stems: &'static [(Lang, [&'static [&'static str]; 2])],
}

const PAIRS: &[Pair] = &[
    Pair {
        en: [&["open", "opens", "opened", "opening"], &["close", "closes", "closed", "closing", "shut", "shuts"]],
        stems: &[
            (Lang::De, [&["öffn", "^offen", "aufmach", "aufgemacht", "aufzumach"], &["schließe", "schließt", "schließen", "geschlossen", "zumach", "zugemacht", "zuzumach"]]),
            (Lang::Es, [&["abr", "abiert"], &["cerr", "cierr"]]),
            (Lang::Fr, [&["ouvr", "ouvert"], &["ferm"]]),
            (Lang::It, [&["apr", "apert"], &["chiud", "chius"]]),
            (Lang::Pt, [&["abr", "abert"], &["fech"]]),
            (Lang::Nl, [&["^open", "geopend"], &["^sluit", "gesloten", "dicht$"]]),
            (Lang::Ru, [&["откр"], &["закр"]]),
            (Lang::Hi, [&["खोल", "खुल"], &["बंद"]]),
            (Lang::Ja, [&["開け", "開い", "開く", "開か", "開き", "開放", "開店"], &["閉め", "閉ま", "閉じ", "閉店", "閉鎖"]]),
            (Lang::Ko, [&["열어", "열었", "열려", "열린", "열고", "열면", "여세요", "여십시오"], &["닫"]]),
            (Lang::Vi, [&["mở"], &["đóng"]]),
        ],
    },
    Pair {
        en: [&["buy", "buys", "bought", "buying"], &["sell", "sells", "sold", "selling"]],
        stems: &[
            (Lang::De, [&["kauf", "gekauft"], &["verkauf"]]),
            (Lang::Es, [&["compr"], &["vend"]]),
            (Lang::Fr, [&["achet", "achat", "achèt"], &["vend", "vente"]]),
            (Lang::It, [&["compr"], &["vend"]]),
            (Lang::Pt, [&["compr"], &["vend"]]),
            (Lang::Nl, [&["koop", "kopen", "kocht"], &["verkoop", "verkopen", "verkocht"]]),
            (Lang::Ru, [&["куп", "покуп"], &["прода"]]),
            (Lang::Hi, [&["खरीद", "ख़रीद"], &["बेच", "बिक"]]),
            (Lang::Ja, [&["買", "購入"], &["売", "販売"]]),
            (Lang::Ko, [&["구매", "구입", "샀", "사다", "사요", "사고 싶"], &["판매", "팔았", "팔아", "팔고", "팔다", "팔려", "팔면"]]),
            (Lang::Vi, [&["mua"], &["bán"]]),
        ],
    },
    Pair {
        en: [&["win", "wins", "won", "winning"], &["lose", "loses", "lost", "losing"]],
        stems: &[
            (Lang::De, [&["gewinn", "gewonn", "siegt", "gesiegt"], &["verlier", "verlor"]]),
            (Lang::Es, [&["gan"], &["perd", "pierd"]]),
            (Lang::Fr, [&["gagn", "remport"], &["perd"]]),
            (Lang::It, [&["vinc", "vint", "vins"], &["perd", "perso$", "persa$", "persi$", "perse$"]]),
            (Lang::Pt, [&["ganh", "venc"], &["perd"]]),
            (Lang::Nl, [&["winnen", "wint$", "won$", "wonnen", "win$"], &["verlies", "verloor", "verloren"]]),
            (Lang::Ru, [&["выигр", "побед"], &["проигр", "потер", "теря"]]),
            (Lang::Ja, [&["勝っ", "勝ち", "勝つ", "勝て", "勝利", "優勝"], &["負け", "失っ", "失い", "失う", "失く", "なくし", "無くし", "紛失"]]),
            (Lang::Ko, [&["이겼", "이긴", "이기다", "이길", "이기고", "우승", "승리"], &["패배", "잃"]]),
            (Lang::Vi, [&["thắng"], &["thua"]]),
        ],
    },
    Pair {
        en: [&["remember", "remembers", "remembered", "remembering"], &["forget", "forgets", "forgot", "forgotten", "forgetting"]],
        stems: &[
            (Lang::De, [&["erinner"], &["vergess", "vergiss", "vergaß"]]),
            (Lang::Es, [&["record", "recuerd", "memori"], &["olvid"]]),
            (Lang::Fr, [&["souv", "rappel", "mémoire"], &["oubli"]]),
            (Lang::It, [&["ricord", "memori"], &["dimentic", "scord"]]),
            (Lang::Pt, [&["lembr", "record", "memór"], &["esquec"]]),
            (Lang::Nl, [&["herinner", "onthoud", "onthield", "onthouden"], &["vergeet", "vergat", "vergeten"]]),
            (Lang::Ru, [&["помн", "вспомн", "запомн", "напомн"], &["забы", "забуд"]]),
            (Lang::Hi, [&["याद"], &["भूल"]]),
            (Lang::Ja, [&["覚え", "思い出", "記憶", "憶え"], &["忘れ"]]),
            (Lang::Ko, [&["기억"], &["잊", "까먹"]]),
            (Lang::Vi, [&["nhớ"], &["quên"]]),
        ],
    },
    Pair {
        en: [&["hot"], &["cold", "colder", "coldest"]],
        stems: &[
            (Lang::De, [&["heiß$", "heißer", "heißes", "heißem", "hitze", "warm", "wärm"], &["kalt", "kält"]]),
            (Lang::Es, [&["calor", "calient"], &["frío", "fría", "fríos", "frías", "frio$"]]),
            (Lang::Fr, [&["chaud", "chaleur"], &["froid"]]),
            (Lang::It, [&["cald"], &["fredd"]]),
            (Lang::Pt, [&["quent", "calor"], &["frio$", "fria$", "frios$", "frias$"]]),
            (Lang::Nl, [&["heet", "warm", "hitte"], &["koud", "kou$"]]),
            (Lang::Ru, [&["жар", "горяч", "тепл"], &["холод"]]),
            (Lang::Hi, [&["गर्म", "गरम"], &["ठंड", "ठण्ड"]]),
            (Lang::Ja, [&["暑", "熱い", "熱く", "熱か", "温か", "暖か"], &["寒", "冷た", "冷え", "冷や", "さむ", "つめた"]]),
            (Lang::Ko, [&["덥", "더운", "더워", "뜨거", "뜨겁"], &["춥", "추운", "추워", "차갑", "차가운", "차가워"]]),
            (Lang::Vi, [&["nóng"], &["lạnh"]]),
        ],
    },
    Pair {
        en: [&["love", "loves", "loved", "loving"], &["hate", "hates", "hated", "hating"]],
        stems: &[
            (Lang::De, [&["lieb", "mag$", "magst$", "mögen", "gern"], &["hass", "hasst", "hasse"]]),
            (Lang::Es, [&["amo$", "amas$", "ama$", "aman$", "amamos$", "amé$", "amó$", "amaba", "amar", "amor", "encant", "gust", "ador"], &["odi"]]),
            (Lang::Fr, [&["aim", "ador"], &["déteste", "détesté", "détestent", "hais", "hait", "haïr", "haine"]]),
            (Lang::It, [&["amo$", "ami$", "ama$", "amano$", "amiamo$", "amato", "amava", "amare", "amore", "ador", "piac"], &["odi"]]),
            (Lang::Pt, [&["amo$", "amas$", "ama$", "amam$", "amamos$", "amei$", "amou$", "amar", "amor", "ador", "gost"], &["odei", "odi"]]),
            (Lang::Nl, [&["hou van", "houd van", "houdt van", "liefde", "dol op"], &["haat", "haten", "gehaat", "hekel"]]),
            (Lang::Ru, [&["люб", "обожа", "нрав"], &["ненави"]]),
            (Lang::Hi, [&["प्यार", "पसंद", "प्रेम"], &["नफ़रत", "नफरत"]]),
            (Lang::Ja, [&["好き", "愛して", "愛する", "愛し", "大好"], &["嫌い", "嫌だ", "嫌です", "憎"]]),
            (Lang::Ko, [&["좋아하", "좋아해", "사랑"], &["싫어", "싫", "미워", "증오"]]),
            (Lang::Vi, [&["yêu", "thích"], &["ghét"]]),
        ],
    },
    Pair {
        en: [&["easy", "easier", "easiest", "easily"], &["difficult", "hard", "harder", "hardest"]],
        stems: &[
            (Lang::De, [&["^leicht", "einfach"], &["^schwer", "schwierig"]]),
            (Lang::Es, [&["fácil", "facil", "sencill"], &["difícil", "dificil", "complicad"]]),
            (Lang::Fr, [&["facile", "simple"], &["difficile"]]),
            (Lang::It, [&["facil", "semplic"], &["difficil"]]),
            (Lang::Pt, [&["fácil", "facil", "simples"], &["difícil", "dificil"]]),
            (Lang::Nl, [&["makkelijk", "eenvoudig"], &["moeilijk", "lastig"]]),
            (Lang::Ru, [&["легк", "легч"], &["трудн", "сложн", "тяжел"]]),
            (Lang::Hi, [&["आसान", "सरल"], &["मुश्किल", "कठिन"]]),
            (Lang::Ja, [&["簡単", "易し", "容易", "楽に"], &["難し", "むずかし", "困難"]]),
            (Lang::Ko, [&["쉽", "쉬운", "쉬워"], &["어렵", "어려", "힘들"]]),
            (Lang::Vi, [&["dễ"], &["khó"]]),
        ],
    },
    Pair {
        en: [&["better", "best"], &["worse", "worst"]],
        stems: &[
            (Lang::De, [&["besser", "beste", "bester", "bestes", "besten"], &["schlechter", "schlechtest", "schlimmer", "schlimmst"]]),
            (Lang::Es, [&["mejor"], &["peor"]]),
            (Lang::Fr, [&["meilleur", "mieux"], &["pire", "pis$"]]),
            (Lang::It, [&["miglior", "meglio"], &["peggi"]]),
            (Lang::Pt, [&["melhor"], &["pior"]]),
            (Lang::Nl, [&["beter", "best$", "beste$"], &["slechter", "slechtst", "^erger$", "ergst"]]),
            (Lang::Ru, [&["лучш"], &["хуж"]]),
            (Lang::Hi, [&["बेहतर", "सबसे अच्छ"], &["बदतर", "सबसे बुर"]]),
            (Lang::Ja, [&["最高", "一番いい", "一番良", "より良", "よりいい", "ベスト"], &["最悪", "悪化", "一番悪", "より悪", "もっと悪"]]),
            (Lang::Ko, [&["최고", "더 좋", "더 나은", "나아"], &["최악", "더 나쁘", "더 나쁜", "더 안 좋"]]),
            (Lang::Vi, [&["tốt hơn", "tốt nhất"], &["tệ hơn", "tệ nhất", "tồi tệ hơn", "tồi tệ nhất", "xấu hơn"]]),
        ],
    },
    Pair {
        en: [&["happy", "happier", "glad"], &["sad", "sadder", "unhappy"]],
        stems: &[
            (Lang::De, [&["glücklich", "froh", "^freu"], &["traurig", "unglücklich"]]),
            (Lang::Es, [&["feliz", "felic", "content", "alegr"], &["trist", "infeliz"]]),
            (Lang::Fr, [&["heureu", "content", "ravi"], &["trist", "malheureu"]]),
            (Lang::It, [&["felic", "content", "lieto", "lieta"], &["trist", "infelic"]]),
            (Lang::Pt, [&["feliz", "felic", "content", "alegr"], &["trist", "infeliz"]]),
            (Lang::Nl, [&["blij$", "blije$", "blijer", "gelukkig"], &["verdrietig", "droevig", "ongelukkig"]]),
            (Lang::Ru, [&["счастлив", "рад"], &["грустн", "печальн", "несчастн"]]),
            (Lang::Hi, [&["खुश", "ख़ुश", "प्रसन्न"], &["दुखी", "दुःखी", "उदास"]]),
            (Lang::Ja, [&["嬉し", "うれし", "幸せ", "喜"], &["悲し", "かなし", "不幸"]]),
            (Lang::Ko, [&["행복", "기쁘", "기뻐", "기쁜"], &["슬프", "슬퍼", "슬픈", "불행"]]),
            (Lang::Vi, [&["vui", "hạnh phúc"], &["buồn", "bất hạnh"]]),
        ],
    },
    Pair {
        en: [&["accept", "accepts", "accepted", "accepting"], &["refuse", "refuses", "refused", "reject", "rejects", "rejected", "decline", "declined"]],
        stems: &[
            (Lang::De, [&["akzeptier", "annehm", "angenomm"], &["ablehn", "abgelehnt", "verweiger"]]),
            (Lang::Es, [&["acept"], &["rechaz", "niega", "negó", "negar"]]),
            (Lang::Fr, [&["accept"], &["refus", "rejet", "rejett", "décliné"]]),
            (Lang::It, [&["accett"], &["rifiut", "respin"]]),
            (Lang::Pt, [&["aceit"], &["recus", "rejeit"]]),
            (Lang::Nl, [&["accepteer", "geaccepteerd", "aanvaard", "aangenomen"], &["weiger", "afwijs", "afgewezen"]]),
            (Lang::Ru, [&["приня", "приним", "согла"], &["отказ", "отклон", "отверг"]]),
            (Lang::Hi, [&["स्वीकार"], &["अस्वीकार", "इनकार", "इंकार", "मना$", "मना कर"]]),
            (Lang::Ja, [&["受け入れ", "受け取", "承諾", "引き受け", "受諾", "承認"], &["断っ", "断り", "断る", "断ら", "断れ", "拒否", "拒絶", "拒ん", "拒む"]]),
            (Lang::Ko, [&["받아들", "수락", "승인"], &["거절", "거부"]]),
            (Lang::Vi, [&["chấp nhận", "nhận lời", "đồng ý"], &["từ chối", "bác bỏ"]]),
        ],
    },
];

/// Words that start like a stem and are something else: "abril" is April, not "abrir" (open); "perdón" an apology,
/// not "perder" (lose); "schließlich" "after all", "vielleicht" "maybe", "Freund" a friend; "souvent" "often";
/// "malheureusement" "unfortunately"; "любой" "any"; "завтрак" breakfast; "vui lòng" "please". Lower case,
/// compared with the start of the word that holds the stem.
const NOT_STEMS: &[&str] = &[
    "abril", "abraz", "abraç", "abrig", "abrupt", "aprile", "ganas", "ganga", "gancho", "perdon", "perdón", "schließlich",
    "fermier", "fermement", "ouvrier", "ouvrage", "dichtbij", "openbaar", "offensicht", "offenbar", "winkel", "wind",
    "winter", "wonen", "woning", "après", "odierno", "vendredi", "morgens", "bestell", "bestimm", "bestand", "bestät",
    "bestens", "bestuur", "besteed", "besteden", "bestaa", "radio", "ради", "радио", "радикал", "schwerpunkt", "freund",
    "comprend", "comprob", "compromet", "compromis", "comprens", "compreend", "comprov", "compromi", "souvent",
    "aimabl", "simplement", "heureusement", "malheureusement", "person", "persin", "persegu", "persever", "откровен",
    "купа", "жарен", "любой", "любая", "любое", "любые", "любого", "любом", "любую", "любым", "завтрак", "mở rộng",
    "đóng góp", "đóng vai", "dễ thương", "dễ chịu", "vui lòng", "buồn ngủ", "buồn cười", "hierarch", "hiérarch",
    "ventil", "magazin", "magie", "pisc", "pist",
];

/// An occurrence of a stem: byte span, the span of its word (the match itself for [`Find::Anywhere`]), and side.
#[derive(Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
    word: (usize, usize),
    side: usize,
}

fn is_word(c: char) -> bool {
    // Devanagari's vowel signs are marks, not alphanumeric; its danda (।) ends a sentence.
    c.is_alphanumeric() || matches!(c, '\u{0900}'..='\u{097F}') && !matches!(c, '\u{0964}' | '\u{0965}')
}

/// The start of the word around byte `i` of `text`.
fn word_start(text: &str, i: usize) -> usize {
    text[..i].char_indices().rev().take_while(|&(_, c)| is_word(c)).last().map(|(j, _)| j).unwrap_or(i)
}

fn word_end(text: &str, i: usize) -> usize {
    text[i..].char_indices().find(|&(_, c)| !is_word(c)).map(|(j, _)| i + j).unwrap_or(text.len())
}

/// Whether `text[start..end]` is a whole word or phrase: no letter joined to it on either side.
pub(crate) fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    word_start(text, start) == start && word_end(text, end) == end
}

/// The occurrences of both sides' stems in the lower-case `text`. A stem ending in `$` must end its word ("ama$":
/// "ama" but not "amable"); one starting with `^` must start it (German "^leicht": not inside "vielleicht"). Where
/// stems of both sides match in one word (in Japanese and Korean, where one match holds the other), the longest
/// decides: "verkaufen" is sell, not buy.
fn hits(how: Find, stems: [&[&str]; 2], text: &str) -> Vec<Hit> {
    let mut all = Vec::new();
    for (side, list) in stems.iter().enumerate() {
        for stem in *list {
            let (stem, starts) = match stem.strip_prefix('^') {
                Some(s) => (s, true),
                None => (*stem, false),
            };
            let (stem, whole) = match stem.strip_suffix('$') {
                Some(s) => (s, true),
                None => (stem, false),
            };
            for (s, _) in text.match_indices(stem) {
                let e = s + stem.len();
                if how == Find::Anywhere {
                    all.push(Hit { start: s, end: e, word: (s, e), side });
                    continue;
                }
                let (ws, we) = (word_start(text, s), word_end(text, e));
                let ok = match how {
                    Find::Prefix => ws == s,
                    Find::Whole => stands_alone(text, s, e),
                    _ => true,
                } && (!whole || we == e)
                    && (!starts || ws == s);
                // A word listed as something else is no occurrence of a stem at its start.
                let listed = NOT_STEMS.iter().any(|n| text[ws..].starts_with(n) && s < ws + n.len());
                if ok && !listed {
                    all.push(Hit { start: s, end: e, word: (ws, we), side });
                }
            }
        }
    }
    all.iter()
        .filter(|h| {
            !all.iter().any(|o| {
                o.side != h.side && o.end - o.start > h.end - h.start && o.word.0 <= h.word.0 && h.word.1 <= o.word.1
            })
        })
        .copied()
        .collect()
}

/// Whether the sentence of `text` around byte `at` has a negation.
fn negated(lang: Lang, text: &str, at: usize) -> bool {
    let end_of = |c: char| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '।' | '\n');
    let start = text[..at].char_indices().rev().find(|&(_, c)| end_of(c)).map(|(i, c)| i + c.len_utf8()).unwrap_or(0);
    let end = text[at..].char_indices().find(|&(_, c)| end_of(c)).map(|(i, _)| at + i).unwrap_or(text.len());
    crate::meaning::has_negation(lang, &text[start..end])
}

/// The first pair whose one side the source says and whose other side the translation says instead, in words for
/// a flag: `the source says "shut" and the translation only its opposite, "開け"`.
pub(crate) fn opposite(lang: Lang, source: &str, candidate: &str) -> Option<String> {
    // "I don't remember" is often "I forgot": a negated source is left to the negation check.
    if crate::meaning::english_negation(source).is_some() {
        return None;
    }
    let words = crate::meaning::english_words(source);
    let how = find(lang);
    let text = candidate.to_lowercase();
    for pair in PAIRS {
        let Some((_, stems)) = pair.stems.iter().find(|(l, _)| *l == lang) else { continue };
        let said: Vec<bool> = pair.en.iter().map(|side| words.iter().any(|w| side.contains(&w.as_str()))).collect();
        // "Not difficult" says "easy": an opposite in a sentence with a negation is a paraphrase, not a reversal. Only
        // its own sentence counts, or a negation anywhere would hide it (and the reranker would prefer a candidate
        // that adds one: 「…かもしれません」).
        let found: Vec<Hit> = hits(how, *stems, &text).into_iter().filter(|h| !negated(lang, &text, h.start)).collect();
        let count = |side: usize| found.iter().filter(|h| h.side == side).count();
        for side in [0, 1] {
            // A side the source says is missing and the other is there instead. Where the source says both ("Is
            // your window open? Can you shut it?"), one side dropped is not yet a reversal: the other must be there
            // twice (「開いているんですか？開けていただけますか」).
            let other = 1 - side;
            let enough = if said[other] { 2 } else { 1 };
            if !said[side] || count(side) > 0 || count(other) < enough {
                continue;
            }
            let en = words.iter().find(|w| pair.en[side].contains(&w.as_str())).cloned().unwrap_or_default();
            let mut shown: Vec<&str> = Vec::new();
            for h in found.iter().filter(|h| h.side == other) {
                let w = &text[h.word.0..h.word.1];
                if !shown.contains(&w) {
                    shown.push(w);
                }
            }
            // Quoted by hand: Debug would escape Devanagari's vowel signs ("ब\u{947}चा").
            let shown = shown.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ");
            return Some(format!("the source says \"{en}\" and the translation only its opposite, {shown}: check the meaning is not reversed"));
        }
    }
    None
}
