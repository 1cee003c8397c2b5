//! Formality-scorer weights files: arbitrary JSON either fails to load with a clear error or gives a scorer whose
//! scores are finite and within the clamp for any text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use registro_rewrite::scorer::Scorer;
use registro_rewrite::Lang;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(mut s) = Scorer::from_json(text, "fuzz.json") else { return };
    let dim = s.model.w_embedding.len();
    let emb = vec![0.1f32; dim];
    for (t, lang) in [("hey u there?? lol", Lang::En), ("Sehr geehrte Damen und Herren,", Lang::De), ("", Lang::Ja)] {
        let y = s.score(t, lang, Some(&emb)).expect("a validated scorer scores any text");
        assert!(y.is_finite() && (-3.5..=3.5).contains(&y), "{y}");
    }
});
