//! Test and benchmark data: the input distributions of the GPU sorting literature, generated
//! deterministically and in parallel.
//!
//! Every generator works on the key's *radix image* (see [`crate::key`]): it draws random bits of
//! the image's full width and maps them back with [`RadixKey::from_radix`]. So `uniform` covers
//! every bit pattern of the type (for floats that includes NaNs, infinities and subnormals, on
//! purpose), and the reduced-entropy presets reduce the entropy of exactly the bits a radix sort
//! looks at.
//!
//! Reduced entropy follows Thearling and Smith (1992), used since by the CUB and onesweep
//! benchmarks: the AND of `k` independent uniform words sets each bit with probability `2^-k`,
//! leaving `H(2^-k)` bits of entropy per key bit: 1.0 (k = 1), 0.811 (2), 0.544 (3), 0.337 (4),
//! 0.201 (5) and 0 (k = ∞: every image is zero).
//!
//! Output is a pure function of (distribution, length, seed, key type): the data are produced in
//! fixed chunks of [`CHUNK`] elements, each with its own xoshiro256** stream seeded from the seed
//! and the chunk index, so the thread count does not matter, and a shorter output is a prefix of
//! a longer one for the distributions that are not sorted.
//!
//! ```
//! use histosort::gen::{generate, Distribution};
//! let d: Distribution = "entropy-0.544".parse().unwrap();
//! let a: Vec<u32> = generate(&d, 1000, 42);
//! assert_eq!(a, generate::<u32>(&d, 1000, 42));
//! assert_eq!(d.to_string(), "entropy-0.544");
//! ```

use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

use crate::key::{DType, RadixBits, RadixKey};

/// Elements per independently seeded chunk (and per rayon task).
pub const CHUNK: usize = 1 << 16;

/// Entropy per key bit of the reduced-entropy inputs (AND of `k` random words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntropyPreset {
    /// 1.0 bits (k = 1): the same as uniform.
    Full,
    /// 0.811 bits (k = 2).
    E0811,
    /// 0.544 bits (k = 3).
    E0544,
    /// 0.337 bits (k = 4).
    E0337,
    /// 0.201 bits (k = 5).
    E0201,
    /// 0 bits (k = ∞): every radix image is zero. Never use it as the only test input.
    Zero,
}

impl EntropyPreset {
    /// Every preset, from most to least entropy.
    pub const ALL: &'static [EntropyPreset] = &[
        EntropyPreset::Full,
        EntropyPreset::E0811,
        EntropyPreset::E0544,
        EntropyPreset::E0337,
        EntropyPreset::E0201,
        EntropyPreset::Zero,
    ];

    /// Number of random words ANDed together; `None` for the all-zero preset.
    pub const fn words(self) -> Option<u32> {
        match self {
            EntropyPreset::Full => Some(1),
            EntropyPreset::E0811 => Some(2),
            EntropyPreset::E0544 => Some(3),
            EntropyPreset::E0337 => Some(4),
            EntropyPreset::E0201 => Some(5),
            EntropyPreset::Zero => None,
        }
    }

    /// Bits of entropy per key bit, as the literature rounds them.
    pub const fn bits(self) -> f64 {
        match self {
            EntropyPreset::Full => 1.0,
            EntropyPreset::E0811 => 0.811,
            EntropyPreset::E0544 => 0.544,
            EntropyPreset::E0337 => 0.337,
            EntropyPreset::E0201 => 0.201,
            EntropyPreset::Zero => 0.0,
        }
    }

    /// The number as spelled in distribution names: `1.0`, `0.811`, ..., `0`.
    pub const fn name(self) -> &'static str {
        match self {
            EntropyPreset::Full => "1.0",
            EntropyPreset::E0811 => "0.811",
            EntropyPreset::E0544 => "0.544",
            EntropyPreset::E0337 => "0.337",
            EntropyPreset::E0201 => "0.201",
            EntropyPreset::Zero => "0",
        }
    }
}

impl fmt::Display for EntropyPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EntropyPreset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let found = EntropyPreset::ALL.iter().copied().find(|p| p.name() == t);
        let alias = match t {
            "1" => Some(EntropyPreset::Full),
            "0.0" => Some(EntropyPreset::Zero),
            _ => None,
        };
        found.or(alias).ok_or_else(|| {
            let names: Vec<&str> = EntropyPreset::ALL.iter().map(|p| p.name()).collect();
            format!(
                "unknown entropy preset '{s}' (expected one of: {})",
                names.join(", ")
            )
        })
    }
}

/// An input distribution. `Display` and `FromStr` use the same spelling: `uniform`,
/// `entropy-0.811`, `sorted`, `reversed`, `equal`, `distinct-N`, `specials`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// Every bit of the radix image uniformly random.
    Uniform,
    /// The AND of `k` uniform radix images (see [`EntropyPreset`]).
    Entropy(EntropyPreset),
    /// Uniform keys, sorted ascending by radix image (the order of the sort).
    Sorted,
    /// Uniform keys, sorted descending by radix image.
    Reversed,
    /// One random key, repeated.
    AllEqual,
    /// At most `N` distinct random keys (fewer when the type has fewer values, or by chance).
    /// `distinct-0` is read as `distinct-1`.
    FewDistinct(u32),
    /// Floats: NaN of both signs (quiet, signalling, with payloads), ±inf, ±0.0, subnormals, the
    /// extremes and ordinary values, mixed with uniform bit patterns. Integers: MIN, MAX, 0, ±1
    /// mixed with uniform values.
    FloatSpecials,
}

impl Distribution {
    /// A representative list: every named distribution once, with two few-distinct counts.
    /// Tests, `histosort gen --help` and the benchmarks iterate over it.
    pub const ALL: &'static [Distribution] = &[
        Distribution::Uniform,
        Distribution::Entropy(EntropyPreset::E0811),
        Distribution::Entropy(EntropyPreset::E0544),
        Distribution::Entropy(EntropyPreset::E0337),
        Distribution::Entropy(EntropyPreset::E0201),
        Distribution::Entropy(EntropyPreset::Zero),
        Distribution::Sorted,
        Distribution::Reversed,
        Distribution::AllEqual,
        Distribution::FewDistinct(2),
        Distribution::FewDistinct(64),
        Distribution::FloatSpecials,
    ];

    /// The name, as `Display` and `FromStr` spell it.
    pub fn name(&self) -> String {
        match self {
            Distribution::Uniform => "uniform".into(),
            Distribution::Entropy(p) => format!("entropy-{}", p.name()),
            Distribution::Sorted => "sorted".into(),
            Distribution::Reversed => "reversed".into(),
            Distribution::AllEqual => "equal".into(),
            Distribution::FewDistinct(n) => format!("distinct-{n}"),
            Distribution::FloatSpecials => "specials".into(),
        }
    }

    /// A small number that separates the random streams of different distributions.
    fn stream(&self) -> u64 {
        match self {
            Distribution::Uniform | Distribution::Sorted | Distribution::Reversed => 1,
            Distribution::Entropy(p) => 2 + p.words().unwrap_or(0) as u64,
            Distribution::AllEqual => 10,
            Distribution::FewDistinct(n) => 11 ^ ((*n as u64) << 8),
            Distribution::FloatSpecials => 12,
        }
    }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Distribution {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        let bad = || {
            format!(
                "unknown distribution '{s}' (expected uniform, entropy-{{1.0,0.811,0.544,0.337,\
                 0.201,0}}, sorted, reversed, equal, distinct-N or specials)"
            )
        };
        match t.as_str() {
            "uniform" => Ok(Distribution::Uniform),
            "sorted" => Ok(Distribution::Sorted),
            "reversed" => Ok(Distribution::Reversed),
            "equal" | "all-equal" => Ok(Distribution::AllEqual),
            "specials" => Ok(Distribution::FloatSpecials),
            _ => {
                if let Some(p) = t.strip_prefix("entropy-") {
                    p.parse()
                        .map(Distribution::Entropy)
                        .map_err(|e| format!("unknown distribution '{s}': {e}"))
                } else if let Some(n) = t.strip_prefix("distinct-") {
                    n.parse().map(Distribution::FewDistinct).map_err(|_| {
                        format!("bad distinct count in '{s}' (expected distinct-N, N a u32)")
                    })
                } else {
                    Err(bad())
                }
            }
        }
    }
}

/// SplitMix64's output function (Steele, Lea and Flood 2014): a strong 64-bit mixer.
#[inline(always)]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// xoshiro256** (Blackman and Vigna 2018), seeded through SplitMix64. Small, fast, and good
/// enough for test data; not for cryptography.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(GOLDEN);
            mix64(x)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    #[inline(always)]
    pub fn next_u128(&mut self) -> u128 {
        ((self.next_u64() as u128) << 64) | self.next_u64() as u128
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
    /// `n == 0` gives 0.
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    #[inline(always)]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Random bits of the radix image of `K`, of its full width.
#[inline(always)]
fn random_image<B: RadixBits>(rng: &mut Rng) -> B {
    if B::BITS > 64 {
        B::from_u128(rng.next_u128())
    } else {
        B::from_u128(rng.next_u64() as u128)
    }
}

/// The radix image of raw bits `raw` (the type's own bit pattern) of a key of type `dtype`.
fn image_of_raw(raw: u128, dtype: DType) -> u128 {
    let width = dtype.size() as u32 * 8;
    let mask = if width == 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    let sign = 1u128 << (width - 1);
    let raw = raw & mask;
    if dtype.is_float() {
        if raw & sign != 0 {
            !raw & mask
        } else {
            raw | sign
        }
    } else if dtype.is_signed_int() {
        raw ^ sign
    } else {
        raw
    }
}

/// Raw bits of `x` as a float of `width` bits (32 or 64).
fn float_raw(x: f64, width: u32) -> u128 {
    if width == 32 {
        (x as f32).to_bits() as u128
    } else {
        x.to_bits() as u128
    }
}

/// One special value (raw bits) for a float of `width` bits, or `None` for "uniform bits".
fn float_special(rng: &mut Rng, width: u32) -> Option<u128> {
    let (sign, exp_mask, mant_bits): (u128, u128, u32) = if width == 32 {
        (1 << 31, 0xff << 23, 23)
    } else {
        (1 << 63, 0x7ff << 52, 52)
    };
    let mant_mask = (1u128 << mant_bits) - 1;
    let quiet = 1u128 << (mant_bits - 1);
    let rsign = if rng.next_u64() & 1 == 0 { 0 } else { sign };
    let raw = match rng.below(20) {
        0 => exp_mask | quiet,        // +NaN (the canonical quiet NaN)
        1 => sign | exp_mask | quiet, // -NaN
        2 => {
            // NaN with a random payload, quiet or signalling, either sign.
            let m = (rng.next_u64() as u128 & mant_mask).max(1);
            rsign | exp_mask | m
        }
        3 => exp_mask,                                               // +inf
        4 => sign | exp_mask,                                        // -inf
        5 => 0,                                                      // +0.0
        6 => sign,                                                   // -0.0
        7 => rsign | (rng.next_u64() as u128 & mant_mask).max(1),    // subnormal
        8 => rsign | 1,                                              // smallest subnormal
        9 => rsign | (1u128 << mant_bits),                           // smallest normal
        10 => rsign | (exp_mask - (1u128 << mant_bits)) | mant_mask, // ±MAX
        11..=14 => {
            // Small integers: many ties, both signs.
            float_raw(rng.below(33) as f64 - 16.0, width)
        }
        15 | 16 => float_raw((rng.unit_f64() - 0.5) * 2000.0, width),
        _ => return None,
    };
    Some(raw)
}

/// One special value (raw bits) for an integer type, or `None` for "uniform bits".
fn int_special(rng: &mut Rng, dtype: DType) -> Option<u128> {
    let width = dtype.size() as u32 * 8;
    let ones = if width == 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    let sign = 1u128 << (width - 1);
    let signed = dtype.is_signed_int();
    let raw = match rng.below(12) {
        0 => {
            if signed {
                sign // MIN
            } else {
                0
            }
        }
        1 => {
            if signed {
                sign - 1 // MAX
            } else {
                ones
            }
        }
        2 => 0,
        3 => 1,
        4 => ones, // -1 (MAX for unsigned)
        5 => {
            if signed {
                sign + 1 // MIN + 1
            } else {
                ones - 1
            }
        }
        6 | 7 => rng.below(5) as u128, // 0..=4: ties
        _ => return None,
    };
    Some(raw)
}

/// The key of radix image `image` (as u128).
#[inline(always)]
fn key_of<K: RadixKey>(image: u128) -> K {
    K::from_radix(K::Bits::from_u128(image))
}

/// Fills `out` in independently seeded chunks with `f(rng)` (radix images).
fn fill<K: RadixKey>(out: &mut [K], seed: u64, stream: u64, f: impl Fn(&mut Rng) -> K + Sync) {
    let base = mix64(seed ^ mix64(stream.wrapping_mul(GOLDEN)));
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(ci, chunk)| {
            let mut rng = Rng::new(base ^ mix64(ci as u64 ^ 0x5851_f42d_4c95_7f2d));
            for x in chunk {
                *x = f(&mut rng);
            }
        });
}

/// `n` keys of type `K` drawn from `dist`, a pure function of `(dist, n, seed, K)`.
pub fn generate<K: RadixKey>(dist: &Distribution, n: usize, seed: u64) -> Vec<K> {
    let mut out = vec![key_of::<K>(0); n];
    let stream = dist.stream();
    match *dist {
        Distribution::Uniform => fill(&mut out, seed, stream, |r| K::from_radix(random_image(r))),
        Distribution::Entropy(p) => match p.words() {
            None => {} // every image zero: already filled
            Some(k) => fill(&mut out, seed, stream, |r| {
                let mut x = random_image::<K::Bits>(r).to_u128();
                for _ in 1..k {
                    x &= random_image::<K::Bits>(r).to_u128();
                }
                key_of(x)
            }),
        },
        Distribution::Sorted | Distribution::Reversed => {
            fill(&mut out, seed, stream, |r| K::from_radix(random_image(r)));
            if *dist == Distribution::Sorted {
                out.par_sort_unstable_by_key(|k| k.to_radix());
            } else {
                out.par_sort_unstable_by_key(|k| std::cmp::Reverse(k.to_radix()));
            }
        }
        Distribution::AllEqual => {
            let v: K = K::from_radix(random_image(&mut Rng::new(mix64(seed ^ stream))));
            out.par_iter_mut().for_each(|x| *x = v);
        }
        Distribution::FewDistinct(count) => {
            // Value j is a hash of (seed, j): no table, and the same N values at every length.
            let count = count.max(1) as u64;
            let vseed = mix64(seed.wrapping_add(GOLDEN) ^ stream);
            fill(&mut out, seed, stream, |r| {
                let j = r.below(count);
                K::from_radix(random_image(&mut Rng::new(vseed ^ mix64(j))))
            });
        }
        Distribution::FloatSpecials => {
            let dtype = K::DTYPE;
            let width = dtype.size() as u32 * 8;
            fill(&mut out, seed, stream, |r| {
                let special = if dtype.is_float() {
                    float_special(r, width)
                } else {
                    int_special(r, dtype)
                };
                match special {
                    Some(raw) => key_of(image_of_raw(raw, dtype)),
                    None => K::from_radix(random_image(r)),
                }
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn images<K: RadixKey>(v: &[K]) -> Vec<u128> {
        v.iter().map(|k| k.to_radix().to_u128()).collect()
    }

    #[test]
    fn names_round_trip() {
        for d in Distribution::ALL {
            assert_eq!(d.to_string().parse::<Distribution>().unwrap(), *d);
        }
        for p in EntropyPreset::ALL {
            let d = Distribution::Entropy(*p);
            assert_eq!(d.name().parse::<Distribution>().unwrap(), d);
        }
        assert_eq!(
            "distinct-1000".parse::<Distribution>().unwrap(),
            Distribution::FewDistinct(1000)
        );
        assert_eq!(
            "entropy-0".parse::<Distribution>().unwrap(),
            Distribution::Entropy(EntropyPreset::Zero)
        );
        assert!("entropy-0.5".parse::<Distribution>().is_err());
        assert!("distinct-x".parse::<Distribution>().is_err());
        let e = "bogus".parse::<Distribution>().unwrap_err();
        assert!(e.contains("uniform") && e.contains("bogus"), "{e}");
    }

    #[test]
    fn deterministic_and_seed_dependent() {
        for d in Distribution::ALL {
            let a: Vec<u64> = generate(d, 3 * CHUNK + 17, 7);
            let b: Vec<u64> = generate(d, 3 * CHUNK + 17, 7);
            assert_eq!(a, b, "{d}");
            let c: Vec<u64> = generate(d, 3 * CHUNK + 17, 8);
            if !matches!(d, Distribution::Entropy(EntropyPreset::Zero)) {
                assert_ne!(a, c, "{d}: seed ignored");
            }
            let f: Vec<f32> = generate(d, 1001, 7);
            let g: Vec<f32> = generate(d, 1001, 7);
            assert_eq!(
                bytemuck::cast_slice::<f32, u8>(&f),
                bytemuck::cast_slice::<f32, u8>(&g)
            );
        }
        // Unsorted distributions: a shorter output is a prefix of a longer one.
        let long: Vec<u32> = generate(&Distribution::Uniform, 2 * CHUNK + 5, 1);
        let short: Vec<u32> = generate(&Distribution::Uniform, CHUNK + 3, 1);
        assert_eq!(&long[..short.len()], &short[..]);
        // Different distributions do not share a stream.
        let e: Vec<u32> = generate(&Distribution::FewDistinct(1 << 30), 100, 1);
        assert_ne!(e, long[..100]);
    }

    #[test]
    fn uniform_spans_full_width() {
        let v: Vec<u128> = generate(&Distribution::Uniform, 4096, 3);
        assert!(v.iter().any(|x| x >> 127 == 1) && v.iter().any(|x| x >> 127 == 0));
        assert!(v.iter().any(|x| (x >> 64) as u64 & 1 == 1));
        let v: Vec<i8> = generate(&Distribution::Uniform, 4096, 3);
        assert_eq!(v.iter().collect::<HashSet<_>>().len(), 256);
        let v: Vec<f32> = generate(&Distribution::Uniform, 1 << 16, 3);
        assert!(v.iter().any(|x| x.is_nan()));
        assert!(v.iter().any(|x| *x < 0.0) && v.iter().any(|x| *x > 0.0));
    }

    #[test]
    fn few_distinct_has_at_most_n_values() {
        for n in [1u32, 2, 3, 8, 64, 1000] {
            let v: Vec<u64> = generate(&Distribution::FewDistinct(n), 50_000, 11);
            let set: HashSet<_> = v.iter().collect();
            assert!(
                set.len() <= n as usize,
                "distinct-{n}: {} values",
                set.len()
            );
            // With 50 000 draws every one of up to 1000 values shows up (whp, and this seed does).
            assert_eq!(set.len(), n as usize, "distinct-{n}");
            let v: Vec<f64> = generate(&Distribution::FewDistinct(n), 10_000, 11);
            let set: HashSet<_> = v.iter().map(|x| x.to_bits()).collect();
            assert!(set.len() <= n as usize);
        }
        let v: Vec<u8> = generate(&Distribution::FewDistinct(0), 100, 1);
        assert!(v.iter().all(|x| *x == v[0]));
    }

    #[test]
    fn entropy_presets_thin_the_bits() {
        let n = 1 << 16;
        for p in EntropyPreset::ALL {
            let v: Vec<u32> = generate(&Distribution::Entropy(*p), n, 5);
            let ones: u64 = v.iter().map(|x| x.count_ones() as u64).sum();
            let frac = ones as f64 / (n as f64 * 32.0);
            let expect = match p.words() {
                Some(k) => 0.5f64.powi(k as i32),
                None => 0.0,
            };
            assert!(
                (frac - expect).abs() < 0.01,
                "entropy-{p}: {frac} of bits set, expected {expect}"
            );
            // The entropy of a bit set with probability q matches the preset's name.
            let h = |q: f64| {
                if q <= 0.0 || q >= 1.0 {
                    0.0
                } else {
                    -(q * q.log2() + (1.0 - q) * (1.0 - q).log2())
                }
            };
            assert!((h(expect) - p.bits()).abs() < 0.001, "{p}");
        }
        // The zero preset zeroes the radix image, which is MIN for signed keys.
        let v: Vec<i32> = generate(&Distribution::Entropy(EntropyPreset::Zero), 10, 5);
        assert!(v.iter().all(|x| *x == i32::MIN));
        let v: Vec<u16> = generate(&Distribution::Entropy(EntropyPreset::E0201), 1000, 5);
        assert!(images(&v).iter().any(|x| *x != 0));
    }

    #[test]
    fn sorted_reversed_equal() {
        let s: Vec<f64> = generate(&Distribution::Sorted, 10_000, 9);
        assert!(images(&s).windows(2).all(|w| w[0] <= w[1]));
        let r: Vec<i16> = generate(&Distribution::Reversed, 10_000, 9);
        assert!(images(&r).windows(2).all(|w| w[0] >= w[1]));
        let e: Vec<u128> = generate(&Distribution::AllEqual, 1000, 9);
        assert!(e.iter().all(|x| *x == e[0]));
        assert!(generate::<u32>(&Distribution::Sorted, 0, 9).is_empty());
    }

    #[test]
    fn specials_cover_the_edge_values() {
        let v: Vec<f32> = generate(&Distribution::FloatSpecials, 4096, 2);
        let has = |p: &dyn Fn(f32) -> bool| v.iter().any(|x| p(*x));
        assert!(has(&|x| x.is_nan() && x.is_sign_positive()));
        assert!(has(&|x| x.is_nan() && x.is_sign_negative()));
        assert!(has(&|x| x == f32::INFINITY));
        assert!(has(&|x| x == f32::NEG_INFINITY));
        assert!(has(&|x| x.to_bits() == 0));
        assert!(has(&|x| x.to_bits() == 0x8000_0000));
        assert!(has(&|x| x.is_subnormal()));
        assert!(has(&|x| x.is_normal() && x.abs() < 100.0));
        let v: Vec<f64> = generate(&Distribution::FloatSpecials, 4096, 2);
        assert!(v.iter().any(|x| x.is_nan() && x.is_sign_negative()));
        assert!(v.iter().any(|x| x.to_bits() == 0x8000_0000_0000_0000));
        assert!(v.contains(&f64::NEG_INFINITY));
        assert!(v.iter().any(|x| x.is_subnormal()));
        let v: Vec<i64> = generate(&Distribution::FloatSpecials, 4096, 2);
        for want in [i64::MIN, i64::MAX, 0, 1, -1] {
            assert!(v.contains(&want), "{want}");
        }
        let v: Vec<u8> = generate(&Distribution::FloatSpecials, 4096, 2);
        for want in [0u8, 1, u8::MAX] {
            assert!(v.contains(&want), "{want}");
        }
        let v: Vec<i128> = generate(&Distribution::FloatSpecials, 4096, 2);
        assert!(v.contains(&i128::MIN) && v.contains(&i128::MAX) && v.contains(&-1));
    }
}
