//! The byte histogram without scalar increments (x86-64 with AVX-512 VBMI2, BITALG and GFNI).
//!
//! A scalar histogram retires about one counter increment a cycle whatever its loop looks like
//! (bench/NOTES.md, sessions 5, 12 and 15): ~1.2 bytes a cycle a core. This counter does no
//! per-byte increment. Each 64-byte vector is split by its bytes' top two bits into four
//! groups with `vpcompressb`, storing the low six bits into one small buffer per group (in
//! L1). A group's bytes then become one-hot 64-bit words (`1 << b`), eight to a vector, and
//! those words are summed bit by bit with carry-save adders (Harley-Seal): four bit planes
//! (ones, twos, fours, eights) hold each bit position's count modulo 16, and every 16 vectors
//! one "sixteens" vector comes out. Its eight lanes' bits are summed per position by one
//! byte permute, one 8x8 bit transpose per qword (`gf2p8affineqb`) and a byte popcount into 64
//! byte counters, widened into the u64 bins before they can overflow.
//!
//! Per 64 input bytes: ~10 operations and four compresses to split; then, from two 64-byte
//! loads per 128 bytes, 8 one-hot vectors (a shift that brings byte k of each lane down and a
//! rotate of 1 by it: the rotate takes its count modulo 64, so nothing masks the other bytes
//! out), 8 carry-save adds (two ternary-logic operations each) and half a popcount step. Every
//! distribution takes the same path at the same speed.
//!
//! Measured (bench/NOTES.md, sessions 38, 39 and 43), 256 MiB of random bytes on an AMD EPYC
//! (Zen 4, 3.65 GHz): one core 39.4 ms (~34 cycles per 64 bytes) against the scalar pair
//! counter's 68.1, two threads 20.8-21.4 ms (12.5-12.9 GB/s); the cores read the same bytes
//! at 22 GB/s (one) and 35 GB/s (two), so the counter is bound by its operations, not by
//! memory. On Zen 5 (EPYC, family 26): one core 23.7 ms against the pair counter's 49, two
//! threads 12.0-13.0 ms (21-22 GB/s) against a read rate of 41-62 GB/s. `vpcompressb` to
//! memory is ~20x slower than to a register, so the compressed vector is stored whole.
//! Splitting the next block inside the drain's loop (two buffer sets taking turns) was
//! slower, 44 against 40 ms.

use std::arch::x86_64::*;

/// Input bytes split into the group buffers before they are drained.
const BLOCK: usize = 2048;
/// Bytes a drain takes at once: 16 vectors of 8 one-hot words.
const BATCH: usize = 128;
/// A group buffer: what a drain leaves (< BATCH), one block, and the 64 bytes a compressed
/// store may write past the end.
const BUF: usize = BATCH + BLOCK + 64;
/// Sixteens popcounts added into the byte counters before they are widened: each adds at most
/// 8 to a byte, so 31 of them stay below 256.
const C8_ADDS: u32 = 31;

/// Proof that this CPU has every instruction [`SimdByteCounter`] uses (AVX-512 F, BW, VBMI,
/// VBMI2, BITALG, GFNI and POPCNT): only [`Avx512::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

impl Avx512 {
    pub(crate) fn detect() -> Option<Avx512> {
        let has = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("avx512bitalg")
            && std::arch::is_x86_feature_detected!("gfni")
            && std::arch::is_x86_feature_detected!("popcnt");
        has.then_some(Avx512(()))
    }
}

/// One group's carry-save state: four bit planes and 64 byte counters of sixteens.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Planes {
    ones: __m512i,
    twos: __m512i,
    fours: __m512i,
    eights: __m512i,
    c8: __m512i,
}

impl Planes {
    fn zero() -> Self {
        // SAFETY: an all-zero __m512i is a valid value.
        let zero: __m512i = unsafe { std::mem::zeroed() };
        Planes {
            ones: zero,
            twos: zero,
            fours: zero,
            eights: zero,
            c8: zero,
        }
    }
}

/// A byte counter for one thread: [`count`](Self::count) any number of chunks, then
/// [`finish`](Self::finish). Made only with an [`Avx512`].
pub(crate) struct SimdByteCounter {
    bufs: Box<[[u8; BUF]; 4]>,
    lens: [usize; 4],
    planes: Box<[Planes; 4]>,
    c8_adds: [u32; 4],
    h: [u64; 256],
}

impl SimdByteCounter {
    pub(crate) fn new(_: Avx512) -> Self {
        SimdByteCounter {
            bufs: Box::new([[0; BUF]; 4]),
            lens: [0; 4],
            planes: Box::new([Planes::zero(); 4]),
            c8_adds: [0; 4],
            h: [0; 256],
        }
    }

    pub(crate) fn count(&mut self, chunk: &[u8]) {
        for block in chunk.chunks(BLOCK) {
            // SAFETY: `new` took an `Avx512`: every instruction is present.
            unsafe {
                self.split(block);
                self.drain();
            }
        }
    }

    pub(crate) fn finish(mut self) -> Vec<u64> {
        for g in 0..4 {
            for &b in &self.bufs[g][..self.lens[g]] {
                self.h[64 * g + b as usize] += 1;
            }
            // SAFETY: as in `count`.
            unsafe { self.flush_planes(g) };
        }
        self.h.to_vec()
    }

    /// Splits up to BLOCK bytes into the four group buffers (low six bits).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    unsafe fn split(&mut self, block: &[u8]) {
        debug_assert!(block.len() <= BLOCK);
        let low6 = _mm512_set1_epi8(63);
        let top2 = _mm512_set1_epi8(0xC0u8 as i8);
        let [mut l0, mut l1, mut l2, mut l3] = self.lens;
        let bufs = &mut *self.bufs;
        let (b0, b1, b2, b3) = (
            bufs[0].as_mut_ptr(),
            bufs[1].as_mut_ptr(),
            bufs[2].as_mut_ptr(),
            bufs[3].as_mut_ptr(),
        );
        let mut at = 0;
        while at < block.len() {
            let rest = block.len() - at;
            let valid: u64 = if rest >= 64 { !0 } else { (1u64 << rest) - 1 };
            // SAFETY: a whole vector is in the block; the masked load of the tail reads only
            // its `rest` bytes. Whole vectors take a plain load: on Zen 5 the masked load
            // stalled the split (one core 53.8 ms against 23.7 for the whole count of 256 MiB,
            // bench/NOTES.md, session 43).
            let v = unsafe {
                if rest >= 64 {
                    _mm512_loadu_si512(block.as_ptr().add(at).cast())
                } else {
                    _mm512_maskz_loadu_epi8(valid, block.as_ptr().add(at).cast())
                }
            };
            let idx = _mm512_and_si512(v, low6);
            // Masks straight from compares, counted by `mask_ones`: masks combined with
            // scalar logic (`m7 & !m6`, ...) or counted with `count_ones` were gathered by
            // LLVM's SLP vectoriser into ymm registers and moved back one by one, which cost
            // a third of the counter's time on Zen 4 (bench/NOTES.md, session 39).
            let top = _mm512_and_si512(v, top2);
            // Bytes past the block load as zero (group 0): only k0 needs the valid mask.
            let k0 = _mm512_mask_cmpeq_epi8_mask(valid, top, _mm512_setzero_si512());
            let k1 = _mm512_cmpeq_epi8_mask(top, _mm512_set1_epi8(0x40));
            let k2 = _mm512_cmpeq_epi8_mask(top, _mm512_set1_epi8(0x80u8 as i8));
            let k3 = _mm512_cmpeq_epi8_mask(top, top2);
            // SAFETY: each length is below BATCH + BLOCK before this block (a drain leaves
            // less than BATCH), so every 64-byte store ends inside its buffer.
            unsafe {
                _mm512_storeu_si512(b0.add(l0).cast(), _mm512_maskz_compress_epi8(k0, idx));
                _mm512_storeu_si512(b1.add(l1).cast(), _mm512_maskz_compress_epi8(k1, idx));
                _mm512_storeu_si512(b2.add(l2).cast(), _mm512_maskz_compress_epi8(k2, idx));
                _mm512_storeu_si512(b3.add(l3).cast(), _mm512_maskz_compress_epi8(k3, idx));
            }
            l0 += mask_ones(k0);
            l1 += mask_ones(k1);
            l2 += mask_ones(k2);
            l3 += mask_ones(k3);
            at += 64;
        }
        self.lens = [l0, l1, l2, l3];
    }

    /// Counts every whole batch of each group buffer and moves the rest to its front.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni")]
    unsafe fn drain(&mut self) {
        let one = _mm512_set1_epi64(1);
        for g in 0..4 {
            let n = self.lens[g];
            let whole = n / BATCH * BATCH;
            let buf = &mut self.bufs[g];
            let mut p = self.planes[g];
            let mut at = 0;
            while at < whole {
                // SAFETY: at + BATCH <= whole <= n: both vectors are in the buffer.
                let (qa, qb) = unsafe {
                    let q = buf.as_ptr().add(at).cast::<__m512i>();
                    (_mm512_loadu_si512(q), _mm512_loadu_si512(q.add(1)))
                };
                let hot = |i: usize| {
                    let q = if i < 8 { qa } else { qb };
                    one_hot(q, i % 8, one)
                };
                let (twos_a, ones) = csa(p.ones, hot(0), hot(1));
                let (twos_b, ones) = csa(ones, hot(2), hot(3));
                let (fours_a, twos) = csa(p.twos, twos_a, twos_b);
                let (twos_a, ones) = csa(ones, hot(4), hot(5));
                let (twos_b, ones) = csa(ones, hot(6), hot(7));
                let (fours_b, twos) = csa(twos, twos_a, twos_b);
                let (eights_a, fours) = csa(p.fours, fours_a, fours_b);
                let (twos_a, ones) = csa(ones, hot(8), hot(9));
                let (twos_b, ones) = csa(ones, hot(10), hot(11));
                let (fours_a, twos) = csa(twos, twos_a, twos_b);
                let (twos_a, ones) = csa(ones, hot(12), hot(13));
                let (twos_b, ones) = csa(ones, hot(14), hot(15));
                let (fours_b, twos) = csa(twos, twos_a, twos_b);
                let (eights_b, fours) = csa(fours, fours_a, fours_b);
                let (sixteens, eights) = csa(p.eights, eights_a, eights_b);
                p.ones = ones;
                p.twos = twos;
                p.fours = fours;
                p.eights = eights;
                p.c8 = _mm512_add_epi8(p.c8, lane_counts(sixteens));
                self.c8_adds[g] += 1;
                if self.c8_adds[g] == C8_ADDS {
                    widen(&mut self.h[64 * g..64 * g + 64], &mut p.c8, 16);
                    self.c8_adds[g] = 0;
                }
                at += BATCH;
            }
            self.planes[g] = p;
            buf.copy_within(whole..n, 0);
            self.lens[g] = n - whole;
        }
    }

    /// Adds the group's planes and byte counters into its bins and clears them.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni")]
    unsafe fn flush_planes(&mut self, g: usize) {
        let h = &mut self.h[64 * g..64 * g + 64];
        let mut p = self.planes[g];
        widen(h, &mut p.c8, 16);
        for (plane, w) in [(p.ones, 1), (p.twos, 2), (p.fours, 4), (p.eights, 8)] {
            let mut c = lane_counts(plane);
            widen(h, &mut c, w);
        }
        self.planes[g] = Planes::zero();
        self.c8_adds[g] = 0;
    }
}

/// The set bits of a mask register, counted in a general register. Written in assembly so that
/// LLVM cannot gather the four groups' counts into one vector (see `split`): which form it
/// picks for `count_ones` changed with unrelated edits to the loop.
#[inline]
#[target_feature(enable = "avx512bw,popcnt")]
fn mask_ones(k: __mmask64) -> usize {
    let n: usize;
    // SAFETY: `kmovq` (AVX-512 BW) and `popcnt` (both enabled on this function) use only the
    // two registers named and no memory or stack; `popcnt` writes the flags, which asm!
    // treats as clobbered since `preserves_flags` is not given.
    unsafe {
        std::arch::asm!(
            "kmovq {n}, {k}",
            "popcnt {n}, {n}",
            k = in(kreg) k,
            n = out(reg) n,
            options(pure, nomem, nostack),
        );
    }
    n
}

/// Carry-save add of three vectors, bit by bit: (carries, sums).
#[inline]
#[target_feature(enable = "avx512f")]
fn csa(a: __m512i, b: __m512i, c: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_ternarylogic_epi64::<0xE8>(a, b, c),
        _mm512_ternarylogic_epi64::<0x96>(a, b, c),
    )
}

/// The one-hot words 1 << b of byte k of each of q's eight lanes (each byte below 64): a
/// rotate takes its count modulo 64, so only the shift that brings byte k down is needed.
#[inline]
#[target_feature(enable = "avx512f")]
fn one_hot(q: __m512i, k: usize, one: __m512i) -> __m512i {
    let c = match k {
        0 => q,
        1 => _mm512_srli_epi64::<8>(q),
        2 => _mm512_srli_epi64::<16>(q),
        3 => _mm512_srli_epi64::<24>(q),
        4 => _mm512_srli_epi64::<32>(q),
        5 => _mm512_srli_epi64::<40>(q),
        6 => _mm512_srli_epi64::<48>(q),
        _ => _mm512_srli_epi64::<56>(q),
    };
    _mm512_rolv_epi64(one, c)
}

/// Byte p of the result: how many of v's eight 64-bit lanes have bit p set.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni")]
fn lane_counts(v: __m512i) -> __m512i {
    // Qword c of `t` gathers byte c of every lane (lane k's at byte k): an 8x8 bit matrix whose
    // row k is lane k's byte c.
    const GATHER: [u8; 64] = {
        let mut idx = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            idx[i] = ((i % 8) * 8 + i / 8) as u8;
            i += 1;
        }
        idx
    };
    // SAFETY: GATHER is 64 readable bytes; the load has no alignment requirement.
    let gather = unsafe { _mm512_loadu_si512(GATHER.as_ptr().cast()) };
    let t = _mm512_permutexvar_epi8(gather, v);
    // With x = the unit byte 1 << m, gf2p8affineqb returns in bit j of byte m the bit m of the
    // matrix's byte 7 - j: byte m of qword c then holds bit 8c + m of every lane.
    let units = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    _mm512_popcnt_epi8(_mm512_gf2p8affine_epi64_epi8::<0>(units, t))
}

/// Adds `w` times each byte counter of `c` into the 64 bins and clears `c`.
#[inline]
#[target_feature(enable = "avx512f")]
fn widen(h: &mut [u64], c: &mut __m512i, w: u64) {
    let mut bytes = [0u8; 64];
    // SAFETY: 64 writable bytes; the store has no alignment requirement.
    unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().cast(), *c) };
    for (hb, &b) in h.iter_mut().zip(&bytes) {
        *hb += w * b as u64;
    }
    *c = _mm512_setzero_si512();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Rng;

    /// The bit-position counts of one vector against a loop over its lanes.
    #[test]
    fn lane_counts_sum_each_bit_over_the_lanes() {
        if Avx512::detect().is_none() {
            eprintln!("skipped: this CPU lacks AVX-512 VBMI2, BITALG or GFNI");
            return;
        }
        let mut rng = Rng::new(0x9E37);
        for round in 0..200 {
            let mut lanes = [0u64; 8];
            for l in lanes.iter_mut() {
                let x = rng.next_u64();
                // Sparse, dense and random lanes.
                *l = match round % 3 {
                    0 => x & (x >> 7) & (x >> 13),
                    1 => x | (x >> 5),
                    _ => x,
                };
            }
            let mut got = [0u8; 64];
            // SAFETY: `Avx512::detect` found the instructions; 64 readable and 64 writable
            // bytes.
            unsafe {
                let v = _mm512_loadu_si512(lanes.as_ptr().cast());
                _mm512_storeu_si512(got.as_mut_ptr().cast(), lane_counts(v));
            }
            for (p, &g) in got.iter().enumerate() {
                let want = lanes.iter().filter(|&&l| l >> p & 1 == 1).count() as u8;
                assert_eq!(g, want, "round {round}, bit {p}");
            }
        }
    }

    /// One counter fed in pieces of awkward lengths (around vectors, batches and blocks), so
    /// that group buffers carry bytes across drains; all-equal runs long enough to widen the
    /// byte counters many times; each group alone and all four mixed.
    #[test]
    fn counter_in_pieces_matches_the_reference() {
        let Some(cpu) = Avx512::detect() else {
            eprintln!("skipped: this CPU lacks AVX-512 VBMI2, BITALG or GFNI");
            return;
        };
        let mut c = SimdByteCounter::new(cpu);
        let mut rng = Rng::new(7);
        let mut all = Vec::new();
        let lens = [
            1usize, 63, 64, 65, 127, 128, 129, 2047, 2048, 2049, 5000, 40_000, 3,
        ];
        for (i, &n) in lens.iter().cycle().take(60).enumerate() {
            let piece: Vec<u8> = (0..n)
                .map(|_| {
                    let r = rng.next_u64() as u8;
                    match i % 6 {
                        0 => r,
                        1 => 0xFF,
                        2 => r & 63,
                        3 => 0x40 | (r & 1),
                        4 => 0x80 | (r & (r >> 3)),
                        _ => r & (r >> 2) & (r >> 4),
                    }
                })
                .collect();
            c.count(&piece);
            all.extend_from_slice(&piece);
        }
        assert_eq!(c.finish(), crate::reference::histogram_u8(&all));
    }
}
