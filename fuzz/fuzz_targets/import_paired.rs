//! Paired folders (CoCoA-MT/IWSLT and XFORMAL/GYAFC layouts): arbitrary file names and contents, parsed as a folder. The properties checked live in `registro_store::import::fuzz`, shared with the corpus replay test.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = registro_store::import::fuzz::paired(data);
});
