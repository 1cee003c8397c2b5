//! TSV / CSV import: the first byte picks the delimiter and the text column option, the rest is the file. The properties checked live in `registro_store::import::fuzz`, shared with the corpus replay test.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    registro_store::import::fuzz::table(data);
});
