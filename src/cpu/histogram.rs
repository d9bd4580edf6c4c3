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
pub fn histogram_u8(data: &[u8]) -> Vec<u64> {
    private_histograms(data, 256, |chunk, h| {
        // Four sub-histograms break the store-to-load dependency when neighbours repeat
        // (the contention case of CUDA Handbook Table 16-3, on a CPU).
        let mut sub = [[0u32; 256]; 4];
        for piece in chunk.chunks(1 << 20) {
            let mut quads = piece.chunks_exact(4);
            for q in &mut quads {
                sub[0][q[0] as usize] += 1;
                sub[1][q[1] as usize] += 1;
                sub[2][q[2] as usize] += 1;
                sub[3][q[3] as usize] += 1;
            }
            for &x in quads.remainder() {
                sub[0][x as usize] += 1;
            }
            for s in sub.iter_mut() {
                for (hb, sb) in h.iter_mut().zip(s.iter_mut()) {
                    *hb += *sb as u64;
                    *sb = 0;
                }
            }
        }
    })
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
