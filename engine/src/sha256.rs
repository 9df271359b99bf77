//! SHA-256 (FIPS 180-4), for the session log's hash chain, the payload digest in every record,
//! the repo-scope directory name and the fallback policy digest.
//!
//! A thin face over the `sha2` crate (RustCrypto), which picks the CPU's SHA extensions at run
//! time where it has them (`cpufeatures`: one `cpuid`, cached in a static, no allocation) and
//! its portable code elsewhere. The face keeps the one-shot [`sha256`], the streaming
//! [`Sha256`] and [`hex`] the callers use. Tested against the NIST example vectors.

use sha2::Digest;

/// The SHA-256 digest of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(data).into()
}

/// SHA-256 over data given in pieces, without allocating: the session log's chain hashes a
/// record line read back in chunks, also from a signal handler (where `malloc` is not safe;
/// `sha2`'s state is a fixed-size value and its feature detection a cached `cpuid`).
#[derive(Clone, Default)]
pub struct Sha256(sha2::Sha256);

impl Sha256 {
    /// A hasher over no data yet.
    pub fn new() -> Sha256 {
        Sha256(sha2::Sha256::new())
    }

    /// Hash `data` after what came before.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest of everything given.
    pub fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
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
