//! A server's `/v1/completions` answer (untrusted bytes from the network): choices or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(choices) = registro_remote::parse_completion(data) {
        for c in choices {
            let _ = (c.text.len(), c.token_logprobs.map(|l| l.iter().sum::<f32>()), c.finish_reason);
        }
    }
});
