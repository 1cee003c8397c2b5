//! Japanese honorifics for the wrong person (issue 43): sonkeigo raises whoever acts, so it is wrong on the
//! speaker's own action; kenjōgo lowers whoever acts, so it is wrong on the listener's. Sentences written for this
//! test (a trap set: the typical bad outputs beside the good ones), never taken from a test set.
mod common;

use registro_register::meaning::{check, MeaningIssue};
use registro_register::Lang;

fn honorific(output: &str) -> Option<String> {
    check(Lang::Ja, "", output).into_iter().find(|f| f.issue == MeaningIssue::Honorific).map(|f| f.detail)
}

#[test]
fn honorifics_for_the_wrong_person_are_flagged_in_words() {
    for bad in [
        "私が明日そちらにいらっしゃいます。",
        "私はもう昼ご飯を召し上がりました。",
        "弊社の担当者がおっしゃったとおり、納期は金曜日です。",
        "私たちは資料をご覧になりました。",
        "お客様が受付に参ります。",
        "先生が申しましたように、試験は月曜日です。",
        "あなたはいつ拝見しましたか。",
        "皆様がお目にかかる予定です。",
    ] {
        let d = honorific(bad).unwrap_or_else(|| panic!("not flagged: {bad}"));
        assert!(d.contains("sonkeigo") || d.contains("kenjōgo"), "{bad}: {d}");
        assert!(d.contains("subject"), "the flag says whose action it is: {d}");
    }
    let d = honorific("私が明日そちらにいらっしゃいます。").unwrap();
    assert!(d.contains("\"私\"") && d.contains("kenjōgo"), "names the subject and what to use instead: {d}");
}

#[test]
fn honorifics_for_the_right_person_pass() {
    for good in [
        "先生が明日いらっしゃいます。",
        "お客様はもう昼ご飯を召し上がりましたか。",
        "私が明日そちらに参ります。",
        "私は山田と申します。",
        "資料を拝見しました。",
        "私は先生がいらっしゃると聞きました。",
        "お客様がこのサービスに申し込むと、割引があります。",
        "申し訳ありませんが、私は参加できません。",
        "皆様のご来店を心よりお待ちしております。",
        "ご存じのとおり、私は来月引っ越します。",
    ] {
        assert_eq!(honorific(good), None, "{good}");
    }
}

/// Professional translations are good outputs: on every CoCoA-MT Japanese training reference (formal, whose
/// honorifics this check reads, and informal) it flagged none of 2,000 when written; the bound is 0.5%.
#[test]
fn references_are_rarely_flagged() {
    let Some(pairs) = common::training_pairs(Lang::Ja) else { return };
    let refs: Vec<&str> = pairs.iter().flat_map(|p| [p.formal.as_str(), p.informal.as_str()]).collect();
    let flagged: Vec<(&str, String)> = refs.iter().filter_map(|r| honorific(r).map(|d| (*r, d))).collect();
    println!("honorific: {} of {} Japanese references flagged", flagged.len(), refs.len());
    for (r, d) in &flagged {
        println!("  {r}  ⚑ {d}");
    }
    assert!(flagged.len() * 200 <= refs.len(), "{} of {} references flagged", flagged.len(), refs.len());
}
