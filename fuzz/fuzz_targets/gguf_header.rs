//! GGUF header, metadata and tensor table from arbitrary bytes (seeded with tiny valid decoders): the validator
//! returns an error or a header whose every tensor lies inside the input, and the decoder check returns an error
//! or dimensions that agree with those tensors — without panicking, overflowing or allocating past the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use registro_gguf::{check_decoder, parse, parse_reader};

/// Hands out at most 7 bytes per read, so the streaming path (files) is exercised, not just whole slices.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(7);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let whole = parse(data);
    let streamed = parse_reader(Trickle(data), data.len() as u64);
    assert_eq!(whole.as_ref().err(), streamed.as_ref().err(), "slice and stream readers disagree");
    let Ok(g) = whole else { return };
    assert!(g.alignment.is_power_of_two() && g.data_offset % g.alignment == 0);
    assert!(g.data_offset <= data.len() as u64 + g.alignment);
    for t in &g.tensors {
        assert!((1..=4).contains(&t.ne.len()) && t.ne.iter().all(|&d| d > 0));
        assert!(g.data_offset + t.offset + t.bytes <= data.len() as u64, "tensor {} outside the input", t.name);
    }
    if let Ok(d) = check_decoder(&g) {
        assert!(d.n_layer >= 1 && d.n_head >= d.n_kv_head && d.head_dim % 2 == 0);
        let embd = g.tensor("token_embd.weight").expect("a checked decoder has an embedding");
        assert_eq!(embd.ne, [d.hidden as u64, d.vocab as u64]);
        assert!(g.tensor(&format!("blk.{}.attn_q.weight", d.n_layer - 1)).is_some());
    }
});
