//! SHA-256 (FIPS 180-4), for the session log's hash chain, the payload digest in every record,
//! the repo-scope directory name and the fallback policy digest.
//!
//! The buffering and padding are here; each 64-byte block is compressed either by the portable
//! code below or by the `sha2` crate (RustCrypto), which uses the CPU's SHA extensions where
//! it has them. `sha2` learns whether it has them by asking the CPU (`cpufeatures`: a `cpuid`
//! for each of two leaves, once a process). Inside a virtual machine each `cpuid` traps to the
//! hypervisor: measured here (a nested VM, where the hook runs as agents run it) 7.7–8.2 µs
//! each, so ~16 µs of every emit, where the emit hashes about 2 KiB (32 blocks: the payload,
//! the record line, the previous line) that the portable code hashes in ~6.6 µs (320 MB/s,
//! against 1.6 GB/s for the extensions). So a process hashes portably until it meets a run of
//! [`BULK`] bytes of whole blocks (a sidecar's fallback digest, a log being verified), where
//! `sha2` is asked and, the detection paid, used for every later block of the process. On
//! other architectures `sha2` is used throughout (their detection asks the kernel, no trap).
//! Nothing here allocates: the chain hashes from a signal handler too. Tested against the NIST
//! example vectors and against `sha2` alone for every length and split.

use sha2::digest::generic_array::GenericArray;
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs of whole blocks from this many bytes on go to `sha2` (its detection costs ~16 µs in a
/// VM; the portable code hashes 16 KiB ~40 µs slower than the extensions).
pub const BULK: usize = 16 * 1024;

/// Has this process handed blocks to `sha2` (so its feature detection is paid)?
static SHA2_IN_USE: AtomicBool = AtomicBool::new(false);

/// Should `len` bytes of whole blocks go to `sha2`?
fn to_sha2(len: usize) -> bool {
    if !cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        return true;
    }
    if len >= BULK {
        SHA2_IN_USE.store(true, Ordering::Relaxed);
        return true;
    }
    SHA2_IN_USE.load(Ordering::Relaxed)
}

/// The SHA-256 digest of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(data);
    hasher.finish()
}

/// SHA-256 over data given in pieces, without allocating: the session log's chain hashes a
/// record line read back in chunks, also from a signal handler (where `malloc` is not safe).
#[derive(Clone)]
pub struct Sha256 {
    state: [u32; 8],
    /// The bytes of a block not yet whole.
    pending: [u8; 64],
    pending_len: usize,
    /// Bytes hashed in all.
    length: u64,
}

impl Default for Sha256 {
    fn default() -> Sha256 {
        Sha256::new()
    }
}

impl Sha256 {
    /// A hasher over no data yet.
    pub fn new() -> Sha256 {
        Sha256 {
            state: INITIAL,
            pending: [0; 64],
            pending_len: 0,
            length: 0,
        }
    }

    /// Hash `data` after what came before.
    pub fn update(&mut self, mut data: &[u8]) {
        self.length = self.length.wrapping_add(data.len() as u64);
        if self.pending_len > 0 {
            let take = (64 - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < 64 {
                return;
            }
            let block = self.pending;
            compress_blocks(&mut self.state, &block);
            self.pending_len = 0;
        }
        let whole = data.len() - data.len() % 64;
        compress_blocks(&mut self.state, &data[..whole]);
        let rest = &data[whole..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The digest of everything given.
    pub fn finish(mut self) -> [u8; 32] {
        let bits = self.length.wrapping_mul(8);
        // The padding: a 1 bit, zeros, and the length in bits, to a whole block.
        let mut padding = [0u8; 72];
        padding[0] = 0x80;
        let zeros = (119 - self.pending_len) % 64;
        padding[1 + zeros..9 + zeros].copy_from_slice(&bits.to_be_bytes());
        self.update(&padding[..9 + zeros]);
        debug_assert_eq!(self.pending_len, 0);
        let mut digest = [0u8; 32];
        for (out, word) in digest.chunks_exact_mut(4).zip(self.state) {
            out.copy_from_slice(&word.to_be_bytes());
        }
        digest
    }
}

/// Compress whole 64-byte `blocks` into `state`, by `sha2` or by [`compress_portably`].
fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    if blocks.is_empty() {
        return;
    }
    if to_sha2(blocks.len()) {
        for block in blocks.chunks_exact(64) {
            sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
        }
    } else {
        for block in blocks.chunks_exact(64) {
            compress_portably(state, block);
        }
    }
}

/// The initial hash value (FIPS 180-4, 5.3.3).
const INITIAL: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The round constants (FIPS 180-4, 4.2.2).
const ROUND: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// One block's compression (FIPS 180-4, 6.2.2), rounds unrolled eight at a time with the
/// working variables renamed instead of shifted, and the message schedule kept as the 16
/// words the next rounds need: 132k of an emit's 783k instructions were its three digests
/// (the previous record line, the payload, the new line) through the rolled-up form.
fn compress_portably(state: &mut [u32; 8], block: &[u8]) {
    let mut w = [0u32; 16];
    for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    // One round: `$h` becomes the new `a` and `$d` the new `e`; the caller renames the rest.
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $t:expr, $word:expr) => {
            let t1 = $h
                .wrapping_add($e.rotate_right(6) ^ $e.rotate_right(11) ^ $e.rotate_right(25))
                .wrapping_add($g ^ ($e & ($f ^ $g)))
                .wrapping_add(ROUND[$t])
                .wrapping_add($word);
            let t2 = ($a.rotate_right(2) ^ $a.rotate_right(13) ^ $a.rotate_right(22))
                .wrapping_add(($a & $b) | ($c & ($a | $b)));
            $d = $d.wrapping_add(t1);
            $h = t1.wrapping_add(t2);
        };
    }
    // Eight rounds from `$t`, each taking its word from `$word(t)`.
    macro_rules! eight {
        ($t:expr, $word:expr) => {
            round!(a, b, c, d, e, f, g, h, $t, $word($t));
            round!(h, a, b, c, d, e, f, g, $t + 1, $word($t + 1));
            round!(g, h, a, b, c, d, e, f, $t + 2, $word($t + 2));
            round!(f, g, h, a, b, c, d, e, $t + 3, $word($t + 3));
            round!(e, f, g, h, a, b, c, d, $t + 4, $word($t + 4));
            round!(d, e, f, g, h, a, b, c, $t + 5, $word($t + 5));
            round!(c, d, e, f, g, h, a, b, $t + 6, $word($t + 6));
            round!(b, c, d, e, f, g, h, a, $t + 7, $word($t + 7));
        };
    }
    let given = |t: usize| w[t];
    eight!(0, given);
    eight!(8, given);
    // Word `t` from 16 on, written over word `t - 16` (the ring's slot `t % 16`).
    let mut scheduled = |t: usize| {
        let (w15, w2) = (w[(t + 1) & 15], w[(t + 14) & 15]);
        let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
        let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
        let word = w[t & 15]
            .wrapping_add(s0)
            .wrapping_add(w[(t + 9) & 15])
            .wrapping_add(s1);
        w[t & 15] = word;
        word
    };
    for t in (16..64).step_by(8) {
        eight!(t, scheduled);
    }
    for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *word = word.wrapping_add(add);
    }
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 * bytes.len());
    for &byte in bytes {
        let [high, low] = hex_byte(byte);
        out.push(char::from(high));
        out.push(char::from(low));
    }
    out
}

/// A digest in lowercase hex, without allocating (the session log's chain writes it from a
/// signal handler too).
pub fn hex_digest(digest: &[u8; 32]) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (pair, &byte) in out.chunks_exact_mut(2).zip(digest) {
        pair.copy_from_slice(&hex_byte(byte));
    }
    out
}

/// One byte's two lowercase hex digits.
fn hex_byte(byte: u8) -> [u8; 2] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    [
        DIGITS[usize::from(byte >> 4)],
        DIGITS[usize::from(byte & 15)],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both hex forms spell every byte as `format!("{:02x}")` does.
    #[test]
    fn hex_spells_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let expected: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&all), expected);
        for chunk in all.chunks_exact(32) {
            let digest: [u8; 32] = chunk.try_into().unwrap();
            assert_eq!(hex_digest(&digest).as_slice(), hex(chunk).as_bytes());
        }
    }

    #[test]
    fn nist_vectors() {
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            hex(&sha256(&vec![b'a'; 1_000_000])),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
        // Lengths around the padding boundary.
        for n in 54..=66 {
            assert_eq!(sha256(&vec![7u8; n]).len(), 32);
        }
        assert_eq!(
            hex(&sha256(&[0u8; 55])),
            "02779466cdec163811d078815c633f21901413081449002f24aa3e80f0b88ef7"
        );
        assert_eq!(
            hex(&sha256(&[0u8; 64])),
            "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b"
        );
    }

    /// A few pseudo-random bytes (xorshift), the same each run.
    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// The portable compression is `sha2`'s, block for block, from any state.
    #[test]
    fn portable_compression_agrees_with_sha2() {
        for round in 0..500u64 {
            let bytes = noise(96, round + 1);
            let mut state = [0u32; 8];
            for (word, b) in state.iter_mut().zip(bytes[64..].chunks_exact(4)) {
                *word = u32::from_le_bytes(b.try_into().unwrap());
            }
            let mut portable = state;
            compress_portably(&mut portable, &bytes[..64]);
            let mut by_sha2 = state;
            sha2::compress256(
                &mut by_sha2,
                std::slice::from_ref(GenericArray::from_slice(&bytes[..64])),
            );
            assert_eq!(portable, by_sha2, "round {round}");
        }
    }

    /// The padding and buffering are `sha2`'s: every length around the block and padding
    /// boundaries, in one piece and in two, digests as `sha2::Sha256` digests it.
    #[test]
    fn digests_agree_with_sha2_for_every_length() {
        use sha2::Digest;
        let data = noise(200, 7);
        for len in 0..=200 {
            let expected: [u8; 32] = sha2::Sha256::digest(&data[..len]).into();
            assert_eq!(sha256(&data[..len]), expected, "len {len}");
            for split in [1, 55, 56, 64, 65] {
                let split = split.min(len);
                let mut h = Sha256::new();
                h.update(&data[..split]);
                h.update(&data[split..len]);
                assert_eq!(h.finish(), expected, "len {len} split {split}");
            }
        }
        // A run of bulk blocks (given to `sha2`) between portable ones.
        let big = noise(3 * BULK + 100, 9);
        let expected: [u8; 32] = sha2::Sha256::digest(&big).into();
        let mut h = Sha256::new();
        h.update(&big[..10]);
        h.update(&big[10..2 * BULK + 10]);
        h.update(&big[2 * BULK + 10..]);
        assert_eq!(h.finish(), expected);
    }

    #[test]
    fn streaming_agrees_with_one_shot_for_every_split() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300] {
            let whole = sha256(&data[..len]);
            for split in [0, 1, 17, 63, 64, 65, len / 2, len] {
                let split = split.min(len);
                let mut h = Sha256::new();
                h.update(&data[..split]);
                h.update(&data[split..len]);
                assert_eq!(h.finish(), whole, "len {len} split {split}");
            }
            let mut h = Sha256::new();
            for b in &data[..len] {
                h.update(std::slice::from_ref(b));
            }
            assert_eq!(h.finish(), whole, "len {len} byte by byte");
        }
        let mut h = Sha256::new();
        h.update(b"ab");
        h.update(b"c");
        assert_eq!(
            hex(&h.finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
