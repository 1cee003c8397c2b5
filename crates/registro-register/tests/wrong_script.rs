//! Another language's script in a translation (issue 43: "half English" has a sibling, half Chinese): Qwen models
//! slip into Chinese mid-sentence, most often in Japanese, where a simplified character (荷兰 for オランダ) looks
//! like a kanji to anyone who does not read Japanese. The check is `meaning::check`'s `WrongScript`; its unit test
//! holds the traps, this one the false-flag rate on every reference of the shipped example data.
mod common;

use registro_register::meaning::{check, MeaningIssue};
use registro_register::{data, Lang};

fn script_flag(lang: Lang, source: &str, output: &str) -> Option<String> {
    check(lang, source, output).into_iter().find(|f| f.issue == MeaningIssue::WrongScript).map(|f| f.detail)
}

/// Every reference of every shipped pool (both registers, pool and held-out part: the check learned nothing from
/// them) is a good translation, and none is written partly in another language's script.
#[test]
fn no_reference_translation_is_flagged() {
    let mut seen = 0;
    for lang in Lang::ALL {
        let Ok(dir) = data::examples_dir(lang) else { continue };
        let pairs = data::load_dir(&dir, lang).expect("the shipped pool loads");
        let mut flagged = Vec::new();
        for p in &pairs {
            for reference in [&p.formal, &p.informal] {
                seen += 1;
                if let Some(d) = script_flag(lang, &p.source, reference) {
                    flagged.push(format!("{reference:?} ({d})"));
                }
            }
        }
        println!("{}: {} of {} references flagged", lang.code(), flagged.len(), pairs.len() * 2);
        assert!(flagged.is_empty(), "{}: {}", lang.code(), flagged.join("\n"));
    }
    assert!(seen > 1000, "only {seen} references: the shipped pools did not load");
}

/// Outputs like the development runs showed, each flagged with the run of characters named. What it cannot see:
/// Chinese written only with characters Japanese shares (自己的, 那个: 个 is in JIS X 0208 too).
#[test]
fn chinese_in_a_japanese_translation_is_named() {
    let cases = [
        ("My favorite way to travel is the Dutch commuter bus that goes 160mph.", "お気に入りの旅行方法は何ですか？現在、荷兰は時速160マイルで走る通勤バスを作成中です。", "荷兰"),
        ("They tell you what to do and say go to school.", "他们は何をすべきかを教えてくれて、学校に行けと言います。", "他们"),
        ("Do you want to talk about it?", "这个について話したいですか？", "这个"),
    ];
    for (source, output, run) in cases {
        let d = script_flag(Lang::Ja, source, output).unwrap_or_else(|| panic!("{output}: not flagged"));
        assert!(d.starts_with("Chinese characters in the Japanese translation") && d.contains(run), "{d}");
    }
}
