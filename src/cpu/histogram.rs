//! CPU histograms: each rayon task counts its chunk into a private histogram (the CPU form of
//! the seeds' privatisation), and the private histograms are summed at the end.

use rayon::prelude::*;

#[cfg(target_arch = "x86_64")]
use super::hist_simd::{Avx512, SimdByteCounter};
use super::radix::prefetch_ahead_of;
use crate::sample::{check_boundaries, check_channels, range_bin, EvenBin, Sample};
use crate::tuning::cpu::{HIST_CHUNK, HIST_PAIR_MIN, HIST_SIMD_MIN};
use crate::Result;

fn private_histograms<T: Sync>(
    data: &[T],
    bins: usize,
    count: impl Fn(&[T], &mut [u64]) + Sync,
) -> Vec<u64> {
    data.par_chunks(HIST_CHUNK)
        .fold(
            || vec![0u64; bins],
            |mut h, chunk| {
                count(chunk, &mut h);
                h
            },
        )
        .reduce(|| vec![0u64; bins], add_bins)
}

/// `a + b`, bin by bin.
fn add_bins(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
    a
}

/// A byte histogram from a counter per rayon fold state: each counts its chunks, then
/// `finish` turns it into 256 bins, summed over the states.
fn fold_byte_counters<C: Send>(
    data: &[u8],
    new: impl Fn() -> C + Sync + Send,
    count: impl Fn(&mut C, &[u8]) + Sync + Send,
    finish: impl Fn(C) -> Vec<u64> + Sync + Send,
) -> Vec<u64> {
    data.par_chunks(HIST_CHUNK)
        .fold(new, |mut c, chunk| {
            count(&mut c, chunk);
            c
        })
        .map(finish)
        .reduce(|| vec![0u64; 256], add_bins)
}

/// 256-bin histogram of bytes: from [`HIST_SIMD_MIN`] bytes on, on CPUs with AVX-512 VBMI2,
/// BITALG and GFNI, the vector counter ([`histogram_u8_simd`]); otherwise
/// [`histogram_u8_scalar`].
pub fn histogram_u8(data: &[u8]) -> Vec<u64> {
    if data.len() >= HIST_SIMD_MIN {
        if let Some(h) = histogram_u8_simd(data) {
            return h;
        }
    }
    histogram_u8_scalar(data)
}

/// Which counter [`histogram_u8`] takes from [`HIST_SIMD_MIN`] bytes on, on this CPU (for
/// `histosort info`).
pub fn byte_counter() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if Avx512::detect().is_some() {
        return "AVX-512 vector counter (VBMI2, BITALG, GFNI found)";
    }
    "scalar counters (the vector counter needs x86-64 with AVX-512 VBMI2, BITALG and GFNI)"
}

/// The byte histogram with scalar increments: inputs from [`HIST_PAIR_MIN`] bytes on take the
/// pair counter (`histogram_u8_pairs`), smaller ones the lane sub-histograms
/// (`count_bytes`).
pub fn histogram_u8_scalar(data: &[u8]) -> Vec<u64> {
    if data.len() >= HIST_PAIR_MIN {
        histogram_u8_pairs(data)
    } else {
        histogram_u8_lanes(data)
    }
}

/// The byte histogram without scalar increments (`cpu::hist_simd`: bytes split by their top
/// two bits, one-hot words summed by carry-save adders), each rayon fold state with its own
/// counter; `None` on a CPU without AVX-512 VBMI2, BITALG and GFNI.
pub fn histogram_u8_simd(data: &[u8]) -> Option<Vec<u64>> {
    #[cfg(target_arch = "x86_64")]
    if let Some(cpu) = Avx512::detect() {
        return Some(fold_byte_counters(
            data,
            || SimdByteCounter::new(cpu),
            SimdByteCounter::count,
            SimdByteCounter::finish,
        ));
    }
    let _ = data;
    None
}

/// The byte histogram with a pair table: of every 8 bytes, bytes 0-1 and 4-5 are counted as
/// one 16-bit pair each in a 2^16-entry table (256 KiB, in L2) and the other four in four
/// lane sub-histograms (in L1). One core retires about one counter increment per cycle
/// whatever the loop looks like (bench/NOTES.md, session 5), so counting two bytes with one
/// increment pays although that increment misses L1; all pairs (4 per 8 bytes) were slower
/// than this mix, which keeps L2 and L1 increments in flight together. Each rayon fold state
/// owns one table, folded into 256 bins once at the end.
pub(crate) fn histogram_u8_pairs(data: &[u8]) -> Vec<u64> {
    fold_byte_counters(
        data,
        PairCounter::new,
        PairCounter::count,
        PairCounter::finish,
    )
}

pub(crate) struct PairCounter {
    pairs: Vec<u32>,
    lanes: Box<[[u32; 256]; 4]>,
    h: Vec<u64>,
    /// Bytes counted since the last flush of the u32 counters into `h`.
    since_flush: usize,
}

impl PairCounter {
    pub(crate) fn new() -> Self {
        PairCounter {
            pairs: vec![0; 1 << 16],
            lanes: Box::new([[0; 256]; 4]),
            h: vec![0; 256],
            since_flush: 0,
        }
    }

    pub(crate) fn count(&mut self, chunk: &[u8]) {
        // A u32 counter gets at most 2 increments per 8 bytes: flush long before 2^34 bytes.
        if self.since_flush + chunk.len() > 1 << 32 {
            self.flush();
        }
        self.since_flush += chunk.len();
        let (pairs, lanes) = (&mut self.pairs[..], &mut *self.lanes);
        let pairs: &mut [u32; 1 << 16] = match pairs.try_into() {
            Ok(p) => p,
            Err(_) => return,
        };
        let base = chunk.as_ptr();
        let mut words = chunk.chunks_exact(8);
        for (j, w) in (&mut words).enumerate() {
            // One prefetch per cache line.
            if j % 8 == 0 {
                prefetch_ahead_of(base.wrapping_add(j * 8));
            }
            let x = u64::from_le_bytes(w.try_into().unwrap_or_default());
            pairs[(x & 0xffff) as usize] += 1;
            lanes[0][((x >> 16) & 0xff) as usize] += 1;
            lanes[1][((x >> 24) & 0xff) as usize] += 1;
            pairs[((x >> 32) & 0xffff) as usize] += 1;
            lanes[2][((x >> 48) & 0xff) as usize] += 1;
            lanes[3][(x >> 56) as usize] += 1;
        }
        for &x in words.remainder() {
            self.h[x as usize] += 1;
        }
    }

    pub(crate) fn flush(&mut self) {
        for (i, c) in self.pairs.iter_mut().enumerate() {
            self.h[i & 0xff] += *c as u64;
            self.h[i >> 8] += *c as u64;
            *c = 0;
        }
        for l in self.lanes.iter_mut() {
            for (hb, c) in self.h.iter_mut().zip(l.iter_mut()) {
                *hb += *c as u64;
                *c = 0;
            }
        }
        self.since_flush = 0;
    }

    pub(crate) fn finish(mut self) -> Vec<u64> {
        self.flush();
        self.h
    }
}

/// 256-bin histogram of bytes, lane sub-histograms.
///
/// Eight sub-histograms of u32 counters (8 KiB, in L1), one per byte lane of an 8-byte word:
/// consecutive increments never hit the same counter through the same lane, so repeated bytes
/// (the contention case of CUDA Handbook Table 16-3, on a CPU) do not serialise on
/// store-to-load forwarding, and one 8-byte load feeds eight increments.
pub(crate) fn histogram_u8_lanes(data: &[u8]) -> Vec<u64> {
    private_histograms(data, 256, count_bytes)
}

fn count_bytes(chunk: &[u8], h: &mut [u64]) {
    const LANES: usize = 8;
    let mut sub = [[0u32; 256]; LANES];
    // u32 counters: a piece adds at most its length to any one of them.
    for piece in chunk.chunks(1 << 30) {
        let base = piece.as_ptr();
        let mut words = piece.chunks_exact(2 * LANES);
        for (j, w) in (&mut words).enumerate() {
            // One prefetch per cache line.
            if j % 4 == 0 {
                prefetch_ahead_of(base.wrapping_add(j * 2 * LANES));
            }
            let (a, b) = w.split_at(LANES);
            let mut x = u64::from_le_bytes(a.try_into().unwrap_or_default());
            let mut y = u64::from_le_bytes(b.try_into().unwrap_or_default());
            for s in sub.iter_mut() {
                s[(x & 0xff) as usize] += 1;
                x >>= 8;
            }
            for s in sub.iter_mut() {
                s[(y & 0xff) as usize] += 1;
                y >>= 8;
            }
        }
        for &x in words.remainder() {
            sub[0][x as usize] += 1;
        }
        for s in sub.iter_mut() {
            for (hb, sb) in h.iter_mut().zip(s.iter_mut()) {
                *hb += *sb as u64;
                *sb = 0;
            }
        }
    }
}

/// 65536-bin histogram of 16-bit samples.
pub fn histogram_u16(data: &[u16]) -> Vec<u64> {
    private_histograms(data, 1 << 16, |chunk, h| {
        for &x in chunk {
            h[x as usize] += 1;
        }
    })
}

/// `channels` 256-bin histograms of interleaved bytes (byte i in channel i % channels).
pub fn histogram_channels_u8(data: &[u8], channels: usize) -> Result<Vec<Vec<u64>>> {
    check_channels(data.len(), channels)?;
    // Chunks of whole pixels, so a chunk's byte j is in channel j % channels.
    let chunk = HIST_CHUNK - HIST_CHUNK % channels;
    let flat = data
        .par_chunks(chunk)
        .fold(
            || vec![0u64; channels * 256],
            |mut h, c| {
                for px in c.chunks_exact(channels) {
                    for (ch, &x) in px.iter().enumerate() {
                        h[ch * 256 + x as usize] += 1;
                    }
                }
                h
            },
        )
        .reduce(|| vec![0u64; channels * 256], add_bins);
    Ok(flat.chunks(256).map(<[u64]>::to_vec).collect())
}

/// Even-bin histogram.
pub fn histogram_even<T: Sample>(data: &[T], bins: usize, lower: T, upper: T) -> Result<Vec<u64>> {
    let even = T::even(lower, upper, bins)?;
    Ok(private_histograms(data, bins, |chunk, h| {
        for &x in chunk {
            if let Some(b) = even.bin(x) {
                h[b] += 1;
            }
        }
    }))
}

/// Range-bin histogram.
pub fn histogram_range<T: Sample>(data: &[T], boundaries: &[T]) -> Result<Vec<u64>> {
    check_boundaries(boundaries)?;
    Ok(private_histograms(
        data,
        boundaries.len() - 1,
        |chunk, h| {
            for &x in chunk {
                if let Some(b) = range_bin(boundaries, x) {
                    h[b] += 1;
                }
            }
        },
    ))
}
