//! CPU histograms: each rayon task counts its chunk into a private histogram (the CPU form of
//! the seeds' privatisation), and the private histograms are summed at the end.

use rayon::prelude::*;

use crate::sample::{check_boundaries, range_bin, EvenBin, Sample};
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
