//! The IPADIC analyser against sacrebleu's `ja-mecab` (MeCab 0.996 + IPADIC). Needs the dictionary
//! (`REGISTRO_IPADIC`); prints agreement on the CoCoA-MT en-ja training references when available.

use registro_metrics::ja::{dictionary_dir, Ipadic};

mod common;

fn dic() -> Option<Ipadic> {
    let dir = dictionary_dir()?;
    if !dir.is_dir() {
        println!(
            "skipped: no IPADIC dictionary at {} (set REGISTRO_IPADIC)",
            dir.display()
        );
        return None;
    }
    Some(Ipadic::load(&dir).expect("dictionary loads"))
}

#[test]
fn segments_like_mecab() {
    let Some(d) = dic() else { return };
    // Outputs of MeCab 0.996 + IPADIC (`MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")`).
    let cases = [
        ("今日は良い天気ですね。", "今日 は 良い 天気 です ね 。"),
        (
            "お名前を教えていただけますか？",
            "お 名前 を 教え て いただけ ます か ？",
        ),
        (
            "ＡＢＣ株式会社のサービスについて",
            "ＡＢＣ 株式会社 の サービス について",
        ),
        ("Wii Sportsで遊ぶ", "Wii Sports で 遊ぶ"),
        ("ｶﾀｶﾅとｶﾞｷﾞｸﾞの半角テスト", "ｶﾀｶﾅ と ｶﾞｷﾞｸﾞ の 半角 テスト"),
        (
            "ﾃｽﾄ123abcＡＢＣ　全角スペース　あり",
            "ﾃｽﾄ 123 abcＡＢＣ 　 全角 スペース 　 あり",
        ),
        (
            "明日は雨が降るでしょうか？　いいえ、晴れです。",
            "明日 は 雨 が 降る でしょ う か ？ 　 いいえ 、 晴れ です 。",
        ),
        (
            "iPhone 14 Proを買いました！😊",
            "iPhone 14 Pro を 買い まし た ！ 😊",
        ),
        ("すもももももももものうち", "すもも も もも も もも の うち"),
    ];
    for (input, want) in cases {
        assert_eq!(d.segment_words(input).join(" "), want, "{input}");
    }
}

#[test]
fn japanese_bleu_equals_sacrebleu_ja_mecab() {
    use registro_metrics::text::read_lines_like_sacrebleu;
    use registro_metrics::*;
    let Some(_) = dic() else { return };
    let Some(base) = common::shared_data("cocoa-mt/train/en-ja", "") else { return };
    let read = |f: &str| read_lines_like_sacrebleu(&std::fs::read_to_string(base.join(f)).unwrap());
    let hyps = read("formality-control.train.telephony.en-ja.informal");
    let refs = vec![read("formality-control.train.telephony.en-ja.formal")];
    let b = Bleu {
        tokenizer: "ja-mecab".parse().unwrap(),
        ..Bleu::default()
    };
    let prep = prepare_refs(&b, &refs).unwrap();
    let s = b.compute(&corpus_stats(&b, &hyps, &prep).unwrap().sum());
    // sacrebleu 2.6.0, BLEU(tokenize='ja-mecab') with MeCab 0.996 + ipadic 1.0.0
    assert_eq!(s.counts, vec![14008, 12516, 11387, 10369]);
    assert_eq!(s.totals, vec![15043, 14543, 14043, 13543]);
    assert!((s.score - 79.41406925026529).abs() < 1e-9, "{}", s.score);
}
