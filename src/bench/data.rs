//! Inputs of the benchmarks and their references.

use rayon::prelude::*;

use crate::gen::{self, Distribution};
use crate::key::{RadixBits, RadixKey};
use crate::options::SortOptions;
use crate::reference::sort_image;

/// Byte inputs of the histogram suites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistInput {
    /// The histogram study's workload: uniform over bins 0-7 only (seeds/002).
    Active8,
    /// Uniform over all 256 values.
    Uniform,
    /// Uniform over `d` distinct random byte values (CUDA Handbook Table 16-3).
    Distinct(u32),
    /// The reduced-entropy presets of the sorting literature: the AND of k uniform bytes.
    Entropy(gen::EntropyPreset),
}

impl HistInput {
    pub fn name(self) -> String {
        match self {
            HistInput::Active8 => "bins-0-7".into(),
            HistInput::Uniform => "uniform".into(),
            HistInput::Distinct(d) => format!("distinct-{d}"),
            HistInput::Entropy(p) => format!("entropy-{}", p.name()),
        }
    }
}

/// `n` bytes of `kind`, a pure function of `(kind, n, seed)`.
pub fn hist_bytes(kind: HistInput, n: usize, seed: u64) -> Vec<u8> {
    if let HistInput::Entropy(p) = kind {
        return gen::generate(&Distribution::Entropy(p), n, seed);
    }
    let mut v: Vec<u8> = gen::generate(&Distribution::Uniform, n, seed);
    let table: Vec<u8> = match kind {
        HistInput::Entropy(_) => unreachable!("returned above"),
        HistInput::Uniform => return v,
        HistInput::Active8 => (0..=255u8).map(|b| b & 7).collect(),
        HistInput::Distinct(d) => {
            // d distinct values: the first d of a seeded shuffle of 0..=255. d divides 256 in
            // the sweep, so byte % d is exactly uniform over them.
            let d = d.clamp(1, 256) as usize;
            let mut vals: Vec<u8> = (0..=255u8).collect();
            let mut rng = gen::Rng::new(seed ^ 0xd15c_0de5);
            for i in (1..vals.len()).rev() {
                vals.swap(i, rng.below(i as u64 + 1) as usize);
            }
            (0..256usize).map(|b| vals[b % d]).collect()
        }
    };
    v.par_iter_mut().for_each(|b| *b = table[*b as usize]);
    v
}

/// The stable sort of `keys` under `opts`: the reference's specification (a stable sort on
/// `reference::sort_image`), run in parallel so 2^28 keys take seconds, not minutes.
pub fn sorted_keys<K: RadixKey>(keys: &[K], opts: &SortOptions) -> Vec<K> {
    let mut v = keys.to_vec();
    if opts.bits.is_none() {
        // On every bit, equal images are equal keys (the image is a bijection), so an
        // unstable sort gives the same array, faster.
        v.par_sort_unstable_by_key(|k| sort_image(*k, opts));
    } else {
        v.par_sort_by_key(|k| sort_image(*k, opts));
    }
    v
}

/// Checks a stable pair sort whose values were the input indices, in O(n) and in parallel:
/// the keys equal `want_keys` (the sorted keys), every value points at an input key equal to
/// its key, and within a run of equal sort images the values increase. Together these say the
/// values are exactly the stable sorting permutation.
pub fn check_pairs<K: RadixKey>(
    what: &str,
    keys_in: &[K],
    keys_out: &[K],
    vals_out: &[u32],
    want_keys: &[K],
    opts: &SortOptions,
) -> crate::Result<()> {
    check_keys(&format!("{what} keys"), keys_out, want_keys)?;
    let bad = (0..vals_out.len()).into_par_iter().find_first(|&i| {
        let v = vals_out[i] as usize;
        let points_home = keys_in.get(v).is_some_and(|k| same(*k, keys_out[i]));
        let stable = i == 0
            || sort_image(keys_out[i - 1], opts) != sort_image(keys_out[i], opts)
            || vals_out[i - 1] < vals_out[i];
        !(points_home && stable)
    });
    match bad {
        None if vals_out.len() == keys_in.len() => Ok(()),
        None => Err(crate::Error::Validation(format!(
            "{what}: {} values for {} keys",
            vals_out.len(),
            keys_in.len()
        ))),
        Some(i) => Err(crate::Error::Validation(format!(
            "{what} values: wrong at element {i} of {} (value {}, previous {:?}): {}",
            vals_out.len(),
            vals_out[i],
            i.checked_sub(1).map(|j| vals_out[j]),
            "right keys with wrong payloads: the permutation or its stability is broken"
        ))),
    }
}

/// The stable sorting permutation as `u32` indices.
#[cfg(test)]
pub fn argsort_u32<K: RadixKey>(keys: &[K], opts: &SortOptions) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..keys.len() as u32).collect();
    idx.par_sort_by_key(|&i| sort_image(keys[i as usize], opts));
    idx
}

/// Bit-for-bit key equality (NaN keys equal themselves; -0.0 and +0.0 differ).
fn same<K: RadixKey>(a: K, b: K) -> bool {
    a.to_radix().to_u128() == b.to_radix().to_u128()
}

/// `Err` naming the first key of `got` that is not bit-for-bit the key of `want`.
pub fn check_keys<K: RadixKey>(what: &str, got: &[K], want: &[K]) -> crate::Result<()> {
    let bad = if got.len() != want.len() {
        Some(got.len().min(want.len()))
    } else {
        got.par_iter()
            .zip(want.par_iter())
            .position_first(|(x, y)| !same(*x, *y))
    };
    match bad {
        None => Ok(()),
        Some(i) => Err(crate::Error::Validation(format!(
            "{what}: differs from the CPU reference at element {i} of {} (got {:?}, want {:?})",
            want.len(),
            got.get(i),
            want.get(i)
        ))),
    }
}

/// The first index where `a` and `b` differ (or their lengths do).
pub fn first_mismatch<T: PartialEq + Sync>(a: &[T], b: &[T]) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    a.par_iter()
        .zip(b.par_iter())
        .position_first(|(x, y)| x != y)
}

/// `Err` naming the first mismatch of `got` against `want`.
pub fn check_equal<T: PartialEq + Sync + std::fmt::Debug>(
    what: &str,
    got: &[T],
    want: &[T],
) -> crate::Result<()> {
    match first_mismatch(got, want) {
        None => Ok(()),
        Some(i) => Err(crate::Error::Validation(format!(
            "{what}: differs from the CPU reference at element {i} of {} (got {:?}, want {:?})",
            want.len(),
            got.get(i),
            want.get(i)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hist_inputs_have_the_promised_values() {
        let a = hist_bytes(HistInput::Active8, 1 << 16, 1);
        let h = crate::reference::histogram_u8(&a);
        assert!(h[..8].iter().all(|&c| c > 0) && h[8..].iter().all(|&c| c == 0));
        for d in [1u32, 2, 8, 256] {
            let v = hist_bytes(HistInput::Distinct(d), 1 << 16, 7);
            let h = crate::reference::histogram_u8(&v);
            assert_eq!(h.iter().filter(|&&c| c > 0).count(), d as usize);
        }
        assert_eq!(
            hist_bytes(HistInput::Uniform, 1000, 3),
            hist_bytes(HistInput::Uniform, 1000, 3)
        );
        // Entropy presets: each bit is set with probability 2^-k (k ANDed bytes), none for 0.
        for &p in gen::EntropyPreset::ALL {
            let v = hist_bytes(HistInput::Entropy(p), 1 << 16, 5);
            let ones: u64 = v.iter().map(|b| b.count_ones() as u64).sum();
            let per_bit = ones as f64 / (8.0 * v.len() as f64);
            let want = p.words().map_or(0.0, |k| 0.5f64.powi(k as i32));
            assert!(
                (per_bit - want).abs() < 0.01,
                "{}: {per_bit} vs {want}",
                p.name()
            );
        }
    }

    #[test]
    fn parallel_references_match_the_serial_ones() {
        let keys: Vec<u32> = gen::generate(&Distribution::FewDistinct(50), 5000, 9);
        let opts = SortOptions::new().bits(0, 8);
        assert_eq!(
            sorted_keys(&keys, &opts),
            crate::reference::sort_keys(&keys, &opts)
        );
        let want: Vec<u32> = crate::reference::argsort(&keys, &opts);
        assert_eq!(argsort_u32(&keys, &opts), want);
        assert_eq!(first_mismatch(&[1, 2, 3], &[1, 2, 4]), Some(2));
        assert!(check_equal("x", &[1, 2], &[1, 3]).is_err());
        check_keys("f", &[f32::NAN, 1.0], &[f32::NAN, 1.0]).unwrap();
        assert!(check_keys("f", &[-0.0f32], &[0.0f32]).is_err());
        let perm = argsort_u32(&keys, &opts);
        let out: Vec<u32> = perm.iter().map(|&i| keys[i as usize]).collect();
        let want = sorted_keys(&keys, &opts);
        check_pairs("p", &keys, &out, &perm, &want, &opts).unwrap();
        // Swap two values inside a run of equal keys: stability is broken.
        let mut bad = perm.clone();
        let i = (1..out.len()).find(|&i| out[i] == out[i - 1]).unwrap();
        bad.swap(i - 1, i);
        assert!(check_pairs("p", &keys, &out, &bad, &want, &opts).is_err());
    }
}
