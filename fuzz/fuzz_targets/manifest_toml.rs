//! Model manifests (`models/*.toml`, or one a user imports): arbitrary TOML either fails with a clear error or gives
//! a manifest whose every accessor works and which survives a write/read round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use registro_models::Manifest;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(m) = Manifest::parse(text, "fuzz.toml") else { return };
    let _ = m.main_file();
    let _ = m.total_bytes();
    let _ = m.is_verified();
    for f in &m.files {
        for s in &f.sources {
            let _ = s.describe();
        }
    }
    let written = m.to_toml().expect("a parsed manifest writes back");
    let again = Manifest::parse(&written, "round trip").expect("a written manifest parses");
    assert_eq!(again.id, m.id);
    assert_eq!(again.files.len(), m.files.len());
});
