//! A translation that stopped making sense — the engine ended it for looping or for leaving the target's script —
//! is flagged in words by the output check every segment gets (after translation, repair and edit), never passed as
//! a translation; a real one of the same length is not.

use registro_core::translate::{check_output, Lang, Register};

#[test]
fn a_looping_or_drifting_output_is_flagged_with_why_and_a_real_one_is_not() {
    let source = "Could you please send me the file by Friday? Thank you for your help.";
    // The shape the 0.5B model's Hindi takes when it loops: one phrase again and again until the budget.
    let looping = "क्या आप कृपया शुक्रवार तक मुझे फ़ाइल भेज सकते हैं? धन्यवाद, धन्यवाद, धन्यवाद, धन्यवाद, धन्यवाद, धन्यवाद, धन्यवाद";
    let c = check_output(Lang::Hi, Register::Formal, Some(source), looping);
    let why = c.flag_reason.clone().unwrap_or_default();
    assert!(c.flagged && why.contains("the output repeats itself (\"धन्यवाद,"), "{why}");

    let drifting = "क्या आप कृपया शुक्रवार तक मुझे फ़ाइल भेज सकते हैं? आपकी सहायता के लिए बहुत धन्यवाद, हम जल्द ही जवाब देंगे \
                    and then I will also send you the whole file by Friday afternoon";
    let c = check_output(Lang::Hi, Register::Formal, Some(source), drifting);
    assert!(c.flagged && c.flag_reason.as_deref().unwrap_or_default().contains("switched from Devanagari to Latin letters"), "{:?}", c.flag_reason);

    let fine = "क्या आप कृपया शुक्रवार तक मुझे फ़ाइल भेज सकते हैं? आपकी सहायता के लिए बहुत-बहुत धन्यवाद।";
    let c = check_output(Lang::Hi, Register::Formal, Some(source), fine);
    assert!(!c.flag_reason.as_deref().unwrap_or_default().contains("the output"), "{:?}", c.flag_reason);
}
