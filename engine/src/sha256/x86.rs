//! SHA-256 compression with the x86 SHA extensions (`sha256rnds2`, `sha256msg1`,
//! `sha256msg2`): about ten times the portable code's speed where the CPU has them. The session
//! log hashes every record line once (the chain), so this is on the hook's path. The round
//! structure is Intel's ("Intel SHA Extensions", 2013), four rounds per step on the state kept
//! as ABEF/CDGH; the portable [`super::compress`] stays the definition, and the tests compare
//! the two.

use std::arch::x86_64::*;

/// Whether this CPU has what [`compress_blocks`] needs (cached by the standard library after
/// the first call; no allocation, so a signal handler may ask).
pub fn available() -> bool {
    is_x86_feature_detected!("sha")
        && is_x86_feature_detected!("sse2")
        && is_x86_feature_detected!("ssse3")
        && is_x86_feature_detected!("sse4.1")
}

/// The round constants, four per step, as loaded into a register.
const K: [[u32; 4]; 16] = {
    let mut out = [[0u32; 4]; 16];
    let mut i = 0;
    while i < 64 {
        out[i / 4][i % 4] = super::K[i];
        i += 1;
    }
    out
};

/// Compress every 64-byte block of `blocks` into `h`.
///
/// # Safety
///
/// The CPU must have the SHA extensions, SSE2, SSSE3 and SSE4.1 ([`available`]).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub unsafe fn compress_blocks(h: &mut [u32; 8], blocks: &[u8]) {
    let mask = _mm_set_epi64x(0x0C0D_0E0F_0809_0A0B, 0x0405_0607_0001_0203);
    // SAFETY: `h` is 32 readable bytes; unaligned loads.
    let (dcba, efgh) = unsafe {
        (
            _mm_loadu_si128(h.as_ptr().cast::<__m128i>()),
            _mm_loadu_si128(h.as_ptr().add(4).cast::<__m128i>()),
        )
    };
    let cdab = _mm_shuffle_epi32(dcba, 0xB1);
    let efgh = _mm_shuffle_epi32(efgh, 0x1B);
    let mut abef = _mm_alignr_epi8(cdab, efgh, 8);
    let mut cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for block in blocks.chunks_exact(64) {
        let (abef_save, cdgh_save) = (abef, cdgh);
        let mut w = [_mm_setzero_si128(); 4];
        for (i, word) in w.iter_mut().enumerate() {
            // SAFETY: the block is 64 readable bytes, so bytes 16 i .. 16 i + 16 are; an
            // unaligned load.
            let raw = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * i).cast::<__m128i>()) };
            *word = _mm_shuffle_epi8(raw, mask);
        }
        for (step, k_step) in K.iter().enumerate() {
            if step >= 4 {
                // W[i..i+4] from W[i-16..], W[i-15..], W[i-7..] and W[i-2..] (i = 4 step).
                let (w0, w1) = (w[step % 4], w[(step + 1) % 4]);
                let (w2, w3) = (w[(step + 2) % 4], w[(step + 3) % 4]);
                let t = _mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), _mm_alignr_epi8(w3, w2, 4));
                w[step % 4] = _mm_sha256msg2_epu32(t, w3);
            }
            // SAFETY: `k_step` is 16 readable bytes; an unaligned load.
            let k = unsafe { _mm_loadu_si128(k_step.as_ptr().cast::<__m128i>()) };
            let t = _mm_add_epi32(w[step % 4], k);
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, t);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(t, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_save);
        cdgh = _mm_add_epi32(cdgh, cdgh_save);
    }
    let feba = _mm_shuffle_epi32(abef, 0x1B);
    let dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    let dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    let hgef = _mm_alignr_epi8(dchg, feba, 8);
    // SAFETY: `h` is 32 writable bytes; unaligned stores.
    unsafe {
        _mm_storeu_si128(h.as_mut_ptr().cast::<__m128i>(), dcba);
        _mm_storeu_si128(h.as_mut_ptr().add(4).cast::<__m128i>(), hgef);
    }
}
