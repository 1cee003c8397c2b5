//! numpy's `default_rng(seed)` (SeedSequence → PCG64 → Generator), ported so that resampling draws exactly the
//! indices sacrebleu 2.6.0 draws: its paired bootstrap uses `rng.choice(n, (samples, n))` and its approximate
//! randomization `rng.integers(2, size=(trials, n), dtype=bool)` with seed 12345. Same draws, same confidence
//! intervals and p-values as `sacrebleu --paired-bs/--paired-ar`.

const MASK32: u32 = 0xFFFF_FFFF;
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;
const POOL_SIZE: usize = 4;

fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut v = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    v = v.wrapping_mul(*hash_const);
    v ^ (v >> XSHIFT)
}

fn mix(x: u32, y: u32) -> u32 {
    let r = MIX_MULT_L
        .wrapping_mul(x)
        .wrapping_sub(MIX_MULT_R.wrapping_mul(y))
        & MASK32;
    r ^ (r >> XSHIFT)
}

/// `numpy.random.SeedSequence(seed).generate_state(n_words, np.uint64)` for a non-negative integer seed.
pub fn seed_sequence_u64(seed: u64, n_words: usize) -> Vec<u64> {
    let mut entropy: Vec<u32> = Vec::new();
    let mut s = seed;
    loop {
        entropy.push((s & 0xFFFF_FFFF) as u32);
        s >>= 32;
        if s == 0 {
            break;
        }
    }
    let mut pool = [0u32; POOL_SIZE];
    let mut hc = INIT_A;
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).copied().unwrap_or(0), &mut hc);
    }
    for i_src in 0..POOL_SIZE {
        for i_dst in 0..POOL_SIZE {
            if i_src != i_dst {
                let h = hashmix(pool[i_src], &mut hc);
                pool[i_dst] = mix(pool[i_dst], h);
            }
        }
    }
    for &e in entropy.iter().skip(POOL_SIZE) {
        for p in pool.iter_mut() {
            let h = hashmix(e, &mut hc);
            *p = mix(*p, h);
        }
    }
    let mut hc = INIT_B;
    let words: Vec<u32> = (0..n_words * 2)
        .map(|i| {
            let mut v = pool[i % POOL_SIZE] ^ hc;
            hc = hc.wrapping_mul(MULT_B);
            v = v.wrapping_mul(hc);
            v ^ (v >> XSHIFT)
        })
        .collect();
    words
        .chunks(2)
        .map(|c| (c[0] as u64) | ((c[1] as u64) << 32))
        .collect()
}

const PCG_MULT: u128 = (0x2360_ed05_1fc6_5da4u128 << 64) | 0x4385_df64_9fcc_f645u128;

/// numpy's PCG64 (XSL-RR 128/64) with its 32-bit output buffer.
pub struct Pcg64 {
    state: u128,
    inc: u128,
    buffered: Option<u32>,
}

impl Pcg64 {
    /// `np.random.default_rng(seed).bit_generator`.
    pub fn from_seed(seed: u64) -> Self {
        let v = seed_sequence_u64(seed, 4);
        let initstate = ((v[0] as u128) << 64) | v[1] as u128;
        let initseq = ((v[2] as u128) << 64) | v[3] as u128;
        let mut g = Self {
            state: 0,
            inc: (initseq << 1) | 1,
            buffered: None,
        };
        g.step();
        g.state = g.state.wrapping_add(initstate);
        g.step();
        g
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }

    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let hi = (self.state >> 64) as u64;
        let lo = self.state as u64;
        (hi ^ lo).rotate_right((self.state >> 122) as u32)
    }

    pub fn next_u32(&mut self) -> u32 {
        if let Some(v) = self.buffered.take() {
            return v;
        }
        let n = self.next_u64();
        self.buffered = Some((n >> 32) as u32);
        n as u32
    }

    /// Lemire's bounded integer in `0..=rng` (numpy's `buffered_bounded_lemire_uint32`).
    fn bounded_u32(&mut self, rng: u32) -> u32 {
        let excl = rng.wrapping_add(1);
        let mut m = (self.next_u32() as u64) * excl as u64;
        let mut leftover = m as u32;
        if leftover < excl {
            let threshold = (u32::MAX - rng) % excl;
            while leftover < threshold {
                m = (self.next_u32() as u64) * excl as u64;
                leftover = m as u32;
            }
        }
        (m >> 32) as u32
    }

    /// `Generator.choice(n, size=count, replace=True)` (equivalently `integers(0, n, count)`), for n < 2^32.
    pub fn choice(&mut self, n: usize, count: usize) -> Vec<u32> {
        assert!(
            n > 0 && n as u64 <= u32::MAX as u64,
            "choice needs 0 < n < 2^32"
        );
        let rng = (n - 1) as u32;
        if rng == 0 {
            return vec![0; count];
        }
        (0..count).map(|_| self.bounded_u32(rng)).collect()
    }

    /// `Generator.integers(2, size=count, dtype=bool)`: 32 booleans per 32-bit draw, lowest bit first.
    pub fn bools(&mut self, count: usize) -> Vec<bool> {
        let mut out = Vec::with_capacity(count);
        let (mut buf, mut bcnt) = (0u32, 0u32);
        for _ in 0..count {
            if bcnt == 0 {
                buf = self.next_u32();
                bcnt = 31;
            } else {
                buf >>= 1;
                bcnt -= 1;
            }
            out.push(buf & 1 != 0);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values printed by numpy 2.4 (`SeedSequence(12345)`, `default_rng(12345)`).
    #[test]
    fn seed_sequence_matches_numpy() {
        assert_eq!(
            seed_sequence_u64(12345, 4),
            vec![
                0xb5ae6482a03d837c,
                0xbbe2996ffa1f7a2f,
                0x64e39a9f37158f94,
                0x3ebb0f96a013fd73
            ]
        );
    }

    #[test]
    fn pcg64_matches_numpy() {
        let mut g = Pcg64::from_seed(12345);
        assert_eq!(
            [g.next_u64(), g.next_u64(), g.next_u64()],
            [
                4193609425186963869,
                5843160025838961886,
                14708796524633321433
            ]
        );
    }

    #[test]
    fn choice_and_bools_match_numpy() {
        let mut g = Pcg64::from_seed(12345);
        let c = g.choice(600, 1200);
        assert_eq!(&c[..8], &[419, 136, 473, 190, 122, 478, 385, 405]);
        assert_eq!(&c[600..608], &[276, 98, 551, 481, 475, 127, 98, 517]);
        let mut g = Pcg64::from_seed(12345);
        let b: Vec<u8> = g.bools(40).into_iter().map(u8::from).collect();
        let want = [
            1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1,
            1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1,
        ];
        assert_eq!(b, want);
    }
}
