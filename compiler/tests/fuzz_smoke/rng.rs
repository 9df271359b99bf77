//! The seeded PRNG, the iteration runner that names a failing seed and iteration, and the
//! byte-level mutator.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// SplitMix64: deterministic, seedable, no dependency.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    pub(crate) fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// How many inputs each test tries: 2,000 (a second or two in a debug build), or
/// `ANIMUS_FUZZ_SMOKE_ITERATIONS` for a longer local run; `ANIMUS_FUZZ_SMOKE_SEED` varies the
/// seeds.
pub(crate) fn iterations() -> usize {
    std::env::var("ANIMUS_FUZZ_SMOKE_ITERATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

/// Run `f` for iterations `0..count` of the test seeded `seed`; a panic is reported with the
/// iteration that caused it (rerun with that seed and iteration to reproduce).
pub(crate) fn for_each_iteration(
    name: &str,
    seed: u64,
    count: usize,
    mut f: impl FnMut(&mut Rng, usize),
) {
    let seed = seed
        ^ std::env::var("ANIMUS_FUZZ_SMOKE_SEED")
            .ok()
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
    for iteration in 0..count {
        let mut rng = Rng(seed ^ (iteration as u64).wrapping_mul(0xA076_1D64_78BD_642F));
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| f(&mut rng, iteration))) {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(non-string panic)");
            panic!("{name}: seed {seed:#x}, iteration {iteration} panicked: {message}");
        }
    }
}

/// One to four byte-level edits, as a mutating fuzzer makes them: bit flips, interesting
/// bytes, deletions, insertions (random or from `dictionary`), duplicated runs, truncation.
pub(crate) fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>, dictionary: &[&[u8]]) {
    const INTERESTING: &[u8] = &[
        0, 0xff, 0x7f, 0x80, 0xc3, b'"', b'\\', b'{', b'[', b'\n', b' ',
    ];
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = if len == 0 { 0 } else { rng.below(len) };
        match rng.below(8) {
            0 if len > 0 => bytes[at] ^= 1 << rng.below(8),
            1 if len > 0 => bytes[at] = rng.next() as u8,
            2 if len > 0 => bytes[at] = *rng.pick(INTERESTING),
            3 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                bytes.drain(at..end);
            }
            4 => {
                let run: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
                bytes.splice(at..at, run);
            }
            5 if len > 0 => {
                let end = (at + 1 + rng.below(64)).min(len);
                let run = bytes[at..end].to_vec();
                let to = rng.below(len + 1);
                bytes.splice(to..to, run);
            }
            6 if !dictionary.is_empty() => {
                let token = rng.pick(dictionary).to_vec();
                bytes.splice(at..at, token);
            }
            7 => bytes.truncate(at),
            _ => {}
        }
    }
}
