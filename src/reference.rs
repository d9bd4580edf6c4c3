//! Serial reference implementations, written to be obviously right rather than fast. Every test
//! and `histosort validate` compares the backends with these.
//!
//! The sort is specified as a *stable* comparison sort on the key's radix image restricted to the
//! requested bits (complemented for descending order), so it does not share any code path with
//! the radix sorts it checks, only the bijection of [`crate::key`], which has its own tests
//! against `total_cmp` and `Ord`.

use crate::algorithm::{Order, ScanKind};
use crate::key::{RadixBits, RadixKey, SortIndex};
use crate::options::SortOptions;
use crate::sample::{range_bin, EvenBin, Sample, ScanElem};
use crate::Result;

/// The value the sort orders `key` by, under `opts`.
pub fn sort_image<K: RadixKey>(key: K, opts: &SortOptions) -> u128 {
    let (begin, end) = opts.bit_range(K::Bits::BITS);
    let width = end - begin;
    if width == 0 {
        return 0;
    }
    let mask = if width == 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    let v = (key.to_radix().to_u128() >> begin) & mask;
    match opts.order {
        Order::Ascending => v,
        Order::Descending => !v & mask,
    }
}

/// Stable sort of `keys` under `opts`.
pub fn sort_keys<K: RadixKey>(keys: &[K], opts: &SortOptions) -> Vec<K> {
    let mut v = keys.to_vec();
    v.sort_by_key(|k| sort_image(*k, opts));
    v
}

/// The stable sorting permutation: `out[i]` is the input index of the i-th smallest key.
pub fn argsort<K: RadixKey, I: SortIndex>(keys: &[K], opts: &SortOptions) -> Vec<I> {
    // (image, index) pairs in the order of the pair: the index breaks ties, so this is the
    // stable order. Faster than sorting indices through the keys (no scattered loads; 3.2x at
    // 2^24 with a stable sort of the pairs, session 41), which the GPU tests at 2^26 feel, for
    // 32 bytes a key.
    let mut v: Vec<(u128, usize)> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (sort_image(k, opts), i))
        .collect();
    v.sort_unstable();
    v.into_iter().map(|p| I::from_usize(p.1)).collect()
}

/// Stable pair sort: keys sorted, values carried along.
pub fn sort_pairs<K: RadixKey, V: Copy>(
    keys: &[K],
    values: &[V],
    opts: &SortOptions,
) -> (Vec<K>, Vec<V>) {
    let perm: Vec<u64> = argsort(keys, opts);
    let k = perm.iter().map(|&i| keys[i as usize]).collect();
    let v = perm.iter().map(|&i| values[i as usize]).collect();
    (k, v)
}

/// 256-bin histogram of bytes.
pub fn histogram_u8(data: &[u8]) -> Vec<u64> {
    let mut h = vec![0u64; 256];
    for &x in data {
        h[x as usize] += 1;
    }
    h
}

/// 65536-bin histogram of 16-bit samples.
pub fn histogram_u16(data: &[u16]) -> Vec<u64> {
    let mut h = vec![0u64; 1 << 16];
    for &x in data {
        h[x as usize] += 1;
    }
    h
}

/// `channels` 256-bin histograms of interleaved bytes: byte i counts in histogram
/// `i % channels` (RGBA pixels: `channels = 4`).
pub fn histogram_channels_u8(data: &[u8], channels: usize) -> Result<Vec<Vec<u64>>> {
    crate::sample::check_channels(data.len(), channels)?;
    let mut h = vec![vec![0u64; 256]; channels];
    for (i, &x) in data.iter().enumerate() {
        h[i % channels][x as usize] += 1;
    }
    Ok(h)
}

/// Even-bin histogram (see [`Sample`] for the bin definition).
pub fn histogram_even<T: Sample>(data: &[T], bins: usize, lower: T, upper: T) -> Result<Vec<u64>> {
    let even = T::even(lower, upper, bins)?;
    let mut h = vec![0u64; bins];
    for &x in data {
        if let Some(b) = even.bin(x) {
            h[b] += 1;
        }
    }
    Ok(h)
}

/// Range-bin histogram (see [`Sample`]).
pub fn histogram_range<T: Sample>(data: &[T], boundaries: &[T]) -> Result<Vec<u64>> {
    crate::sample::check_boundaries(boundaries)?;
    let mut h = vec![0u64; boundaries.len() - 1];
    for &x in data {
        if let Some(b) = range_bin(boundaries, x) {
            h[b] += 1;
        }
    }
    Ok(h)
}

/// Serial prefix sum, left to right.
pub fn scan<T: ScanElem>(data: &[T], kind: ScanKind) -> Vec<T> {
    let mut acc = T::ZERO;
    data.iter()
        .map(|&x| match kind {
            ScanKind::Inclusive => {
                acc = acc.add(x);
                acc
            }
            ScanKind::Exclusive => {
                let before = acc;
                acc = acc.add(x);
                before
            }
        })
        .collect()
}

/// The seeds' serial radix pass (CUDA Handbook Listing 16-8) on radix images: histogram the
/// digit, exclusive-scan the counts, scatter in input order. Kept as executable documentation
/// of the three steps every backend implements; tested against [`sort_keys`].
pub fn radix_pass<B: RadixBits>(input: &[B], out: &mut [B], shift: u32, digit_bits: u32) {
    let mask = (1u32 << digit_bits) - 1;
    let mut counts = vec![0usize; 1 << digit_bits];
    for &k in input {
        counts[k.digit(shift, mask)] += 1;
    }
    let mut sum = 0;
    for c in counts.iter_mut() {
        let t = *c;
        *c = sum;
        sum += t;
    }
    for &k in input {
        let d = k.digit(shift, mask);
        out[counts[d]] = k;
        counts[d] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_passes_sort_like_the_reference() {
        let keys: Vec<i32> = (0..1000).map(|i| ((i * 7919) % 1013) - 500).collect();
        let mut a: Vec<u32> = keys.iter().map(|k| k.to_radix()).collect();
        let mut b = vec![0u32; a.len()];
        for pass in 0..8 {
            radix_pass(&a, &mut b, pass * 4, 4);
            std::mem::swap(&mut a, &mut b);
        }
        let sorted: Vec<i32> = a.into_iter().map(i32::from_radix).collect();
        assert_eq!(sorted, sort_keys(&keys, &SortOptions::new()));
        let mut s = keys.clone();
        s.sort();
        assert_eq!(sorted, s);
    }

    #[test]
    fn descending_is_stable() {
        let keys = [3u8, 1, 3, 2, 1];
        let p: Vec<u32> = argsort(&keys, &SortOptions::new().descending());
        assert_eq!(p, vec![0, 2, 3, 1, 4]);
    }

    #[test]
    fn bit_range_sorts_only_those_bits() {
        let keys = [0x12u8, 0x21, 0x11, 0x22];
        let p: Vec<u32> = argsort(&keys, &SortOptions::new().bits(0, 4));
        assert_eq!(p, vec![1, 2, 0, 3]);
    }
}
