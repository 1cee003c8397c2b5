//! Replays the kept fuzz corpus of the manifest parser (fuzz/corpus/manifest_toml): every file either fails to
//! parse with an error or gives a manifest whose accessors work and which survives a write/read round trip.

use registro_models::Manifest;

#[test]
fn manifest_fuzz_corpus_parses_or_fails_cleanly() {
    let mut parsed = 0;
    for (p, bytes) in registro_testkit::fuzz_corpus("manifest_toml") {
        let Ok(text) = String::from_utf8(bytes) else { continue };
        let Ok(m) = Manifest::parse(&text, &p.display().to_string()) else { continue };
        parsed += 1;
        let _ = (m.main_file(), m.is_verified());
        for f in &m.files {
            for s in &f.sources {
                let _ = s.describe();
            }
        }
        let again = Manifest::parse(&m.to_toml().unwrap(), "round trip").unwrap();
        assert_eq!((again.id, again.files.len()), (m.id.clone(), m.files.len()), "{}", p.display());
    }
    assert!(parsed > 0, "fuzz/corpus/manifest_toml holds no valid manifest");
}

/// An imported manifest is a user's file: sizes that add up past 2^64 must not panic the model list (they did in
/// debug builds, and wrapped to a small size in release ones).
#[test]
fn file_sizes_that_add_up_past_two_to_the_64_saturate() {
    let file = |n: usize| format!("[[files]]\nname = \"part{n}.bin\"\nbytes = 9000000000000000000\nsha256 = \"\"\n\n[[files.sources]]\nkind = \"local\"\npath = \"x/part{n}.bin\"\n\n");
    let text = format!("id = \"huge\"\nname = \"huge\"\nfamily = \"qwen\"\narchitecture = \"qwen2\"\nrole = \"llm\"\n\n{}{}{}", file(1), file(2), file(3));
    let m = Manifest::parse(&text, "huge.toml").unwrap();
    assert_eq!(m.total_bytes(), u64::MAX);
}
