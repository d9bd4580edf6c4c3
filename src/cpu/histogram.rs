//! CPU histograms: each rayon task counts its chunk into a private histogram (the CPU form of
//! the seeds' privatisation), and the private histograms are summed at the end.

use rayon::prelude::*;

use crate::sample::{check_boundaries, check_channels, range_bin, EvenBin, Sample};
use crate::tuning::cpu::HIST_CHUNK;
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
        .reduce(
            || vec![0u64; bins],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// 256-bin histogram of bytes.
///
/// Eight sub-histograms of u32 counters (8 KiB, in L1), one per byte lane of an 8-byte word:
/// consecutive increments never hit the same counter through the same lane, so repeated bytes
/// (the contention case of CUDA Handbook Table 16-3, on a CPU) do not serialise on
/// store-to-load forwarding, and one 8-byte load feeds eight increments.
pub fn histogram_u8(data: &[u8]) -> Vec<u64> {
    private_histograms(data, 256, count_bytes)
}

fn count_bytes(chunk: &[u8], h: &mut [u64]) {
    const LANES: usize = 8;
    let mut sub = [[0u32; 256]; LANES];
    // u32 counters: a piece adds at most its length to any one of them.
    for piece in chunk.chunks(1 << 30) {
        let mut words = piece.chunks_exact(2 * LANES);
        for w in &mut words {
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
        .reduce(
            || vec![0u64; channels * 256],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
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
