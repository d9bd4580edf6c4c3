//! Histograms on every engine and variant, bin by bin against `histosort::reference`: bytes into
//! 256 bins, even bins and range bins over several sample types, edge samples (out of range,
//! NaN, infinities, the exact bin edges) and the error cases.

mod common;

use common::*;
use histosort::gen::{generate, Distribution, EntropyPreset, Rng};
use histosort::reference;
use histosort::{Engine, HistogramAlgorithm, RadixKey, Sample};

fn seed(n: usize, salt: u64) -> u64 {
    (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt
}

fn check_counts(f: &Failures, case: &Case, what: &str, expected: &[u64], actual: &[u64]) {
    if let Err(m) = compare_values(expected, actual) {
        f.fail(format!("{case}: {what}: bin-by-bin {m}"));
    }
}

#[test]
fn histogram_u8_every_distribution() {
    let f = Failures::new();
    let mut dists = vec![
        Distribution::Uniform,
        Distribution::FewDistinct(1),
        Distribution::FewDistinct(2),
        Distribution::FewDistinct(8),
        Distribution::AllEqual,
        Distribution::Sorted,
        Distribution::FloatSpecials,
    ];
    dists.extend(EntropyPreset::ALL.iter().map(|p| Distribution::Entropy(*p)));
    let sizes = [
        0,
        1,
        2,
        3,
        4,
        5,
        7,
        77,
        255,
        1023,
        1024,
        4097,
        65_537,
        (1 << 20) + 3,
    ];
    for e in &engines() {
        for (di, dist) in dists.iter().enumerate() {
            for n in sizes {
                let data: Vec<u8> = generate(dist, n, seed(n, di as u64));
                let expected = reference::histogram_u8(&data);
                for a in histogram_variants(e) {
                    let case = Case::new(e, a.to_string(), "u8", dist.name(), n);
                    f.checked();
                    // Unaligned starts: the 32-bit-load variants must handle a ragged head.
                    if let Some(h) = f.ok(&case, "histogram_u8", e.histogram_u8(&data, a)) {
                        check_counts(&f, &case, "histogram_u8", &expected, &h);
                    }
                    if n > 3 && n < 100_000 {
                        let off = &data[1..n - 2];
                        let exp = reference::histogram_u8(off);
                        let case = Case::new(e, format!("{a} offset=1"), "u8", dist.name(), n - 3);
                        if let Some(h) = f.ok(&case, "histogram_u8", e.histogram_u8(off, a)) {
                            check_counts(&f, &case, "histogram_u8", &exp, &h);
                        }
                    }
                }
            }
        }
    }
    f.finish("histogram_u8_every_distribution");
}

/// Sample types of the even/range tests: how to draw samples around a range, and edge values.
trait TestSample: Sample + RadixKey {
    /// `lo + (hi - lo) * t`, saturated to the type.
    fn lerp(lo: Self, hi: Self, t: f64) -> Self;
    /// Values at and around the edges of `[lo, hi)`, and the type's specials.
    fn edges(lo: Self, hi: Self) -> Vec<Self>;
}

macro_rules! int_test_sample {
    ($($t:ty),*) => {$(
        impl TestSample for $t {
            fn lerp(lo: Self, hi: Self, t: f64) -> Self {
                let x = lo as i128 + ((hi as i128 - lo as i128) as f64 * t) as i128;
                x.clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
            }
            fn edges(lo: Self, hi: Self) -> Vec<Self> {
                vec![
                    lo,
                    hi,
                    lo.saturating_add(1),
                    hi.saturating_sub(1),
                    lo.saturating_sub(1),
                    hi.saturating_add(1),
                    <$t>::MIN,
                    <$t>::MAX,
                    0,
                ]
            }
        }
    )*};
}
int_test_sample!(u8, u16, u32, i32);

macro_rules! float_test_sample {
    ($($t:ty),*) => {$(
        impl TestSample for $t {
            fn lerp(lo: Self, hi: Self, t: f64) -> Self {
                (lo as f64 + (hi as f64 - lo as f64) * t) as $t
            }
            fn edges(lo: Self, hi: Self) -> Vec<Self> {
                let below = |x: $t| if x > 0.0 {
                    <$t>::from_bits(x.to_bits() - 1)
                } else if x < 0.0 {
                    <$t>::from_bits(x.to_bits() + 1)
                } else {
                    -<$t>::from_bits(1)
                };
                vec![
                    lo,
                    hi,
                    below(hi),
                    below(lo),
                    -below(-hi),
                    <$t>::NAN,
                    -<$t>::NAN,
                    <$t>::INFINITY,
                    <$t>::NEG_INFINITY,
                    0.0,
                    -0.0,
                    <$t>::from_bits(1),
                    <$t>::MAX,
                    <$t>::MIN,
                ]
            }
        }
    )*};
}
float_test_sample!(f32, f64);

/// `n` samples: most within `[lo, hi)` stretched by a quarter on each side, a few uniform over
/// the whole type (NaNs and infinities included for floats), and the edges.
fn samples<T: TestSample>(lo: T, hi: T, n: usize, seed: u64) -> Vec<T> {
    let mut rng = Rng::new(seed);
    let full: Vec<T> = generate(&Distribution::Uniform, n / 8 + 1, seed);
    let edges = T::edges(lo, hi);
    (0..n)
        .map(|i| match i % 16 {
            0 => full[i / 8],
            1 => edges[rng.below(edges.len() as u64) as usize],
            _ => T::lerp(lo, hi, rng.unit_f64() * 1.5 - 0.25),
        })
        .collect()
}

const HIST_SIZES: &[usize] = &[0, 1, 3, 100, 1023, 4097, 65_537];

fn even_cases<T: TestSample>(ranges: &[(T, T, usize)]) {
    let f = Failures::new();
    for e in &engines() {
        for (ri, &(lo, hi, bins)) in ranges.iter().enumerate() {
            let mut sizes = HIST_SIZES.to_vec();
            if ri == 0 {
                sizes.push((1 << 20) + 3);
            }
            for n in sizes {
                let data = samples(lo, hi, n, seed(n, ri as u64));
                let expected = match reference::histogram_even(&data, bins, lo, hi) {
                    Ok(h) => h,
                    Err(err) => panic!("bad test case [{lo:?}, {hi:?}) x {bins}: {err}"),
                };
                for a in bins_histogram_variants(e) {
                    let case = Case::new(
                        e,
                        format!("{a} even bins={bins} range=[{lo:?}, {hi:?})"),
                        <T as Sample>::DTYPE.name(),
                        "around-range",
                        n,
                    );
                    f.checked();
                    let r = e.histogram_even(&data, bins, lo, hi, a);
                    if let Some(h) = f.ok(&case, "histogram_even", r) {
                        check_counts(&f, &case, "histogram_even", &expected, &h);
                    }
                }
            }
        }
    }
    f.finish(&format!("even_cases::<{}>", <T as Sample>::DTYPE));
}

/// Range bins: boundaries drawn from around `[lo, hi)`, sorted and deduplicated.
fn range_cases<T: TestSample>(lo: T, hi: T, extra: &[Vec<T>]) {
    let f = Failures::new();
    let mut sets: Vec<Vec<T>> = extra.to_vec();
    // 20,001 boundaries: counters and boundaries exceed shared memory (the global path).
    for (si, count) in [2usize, 3, 8, 257, 1001, 20_001].into_iter().enumerate() {
        let mut rng = Rng::new(si as u64 + 77);
        let mut b: Vec<T> = (0..count * 2)
            .map(|_| T::lerp(lo, hi, rng.unit_f64()))
            .collect();
        b.sort_by(|x, y| x.partial_cmp(y).unwrap());
        b.dedup();
        b.truncate(count);
        if b.len() >= 2 {
            sets.push(b);
        }
    }
    for e in &engines() {
        for (si, bounds) in sets.iter().enumerate() {
            for &n in HIST_SIZES {
                let data = samples(lo, hi, n, seed(n, 1000 + si as u64));
                let expected = reference::histogram_range(&data, bounds).unwrap();
                for a in bins_histogram_variants(e) {
                    let case = Case::new(
                        e,
                        format!(
                            "{a} range bins={} first={:?} last={:?}",
                            bounds.len() - 1,
                            bounds[0],
                            bounds[bounds.len() - 1]
                        ),
                        <T as Sample>::DTYPE.name(),
                        "around-range",
                        n,
                    );
                    f.checked();
                    if let Some(h) = f.ok(
                        &case,
                        "histogram_range",
                        e.histogram_range(&data, bounds, a),
                    ) {
                        check_counts(&f, &case, "histogram_range", &expected, &h);
                    }
                }
            }
        }
    }
    f.finish(&format!("range_cases::<{}>", <T as Sample>::DTYPE));
}

#[test]
fn even_u8() {
    even_cases::<u8>(&[
        (0, 255, 256),
        (0, 255, 1),
        (0, 255, 2),
        (0, 255, 7),
        (10, 200, 1000),
        (100, 101, 1),
        (0, 255, 255),
        (17, 18, 7),
    ]);
}

#[test]
fn even_u16() {
    even_cases::<u16>(&[
        (0, 65535, 65536),
        (0, 65535, 1000),
        (1000, 5000, 7),
        (0, 65535, 256),
        (300, 301, 2),
        (0, 65535, 1),
    ]);
}

#[test]
fn even_i32() {
    even_cases::<i32>(&[
        (-1000, 1000, 7),
        (-5, 5, 1000),
        (i32::MIN, i32::MAX, 256),
        (-100_000, -10, 2),
        (0, 1, 1),
        (-70_000, 70_000, 65536),
        (-70_000, 70_000, 100_000),
    ]);
}

#[test]
fn even_u32() {
    even_cases::<u32>(&[
        (0, u32::MAX, 256),
        (1 << 20, 1 << 30, 1000),
        (5, 6, 1),
        (0, 100, 7),
        // More counters than shared memory holds: the global-memory path.
        (0, 1_000_000, 100_000),
        (3, 100_003, 100_000),
    ]);
}

#[test]
fn even_f32() {
    even_cases::<f32>(&[
        (-1.0, 1.0, 7),
        (-100.0, -10.0, 1000),
        (0.0, 1.0, 256),
        (-1e30, 1e30, 65536),
        (0.0, 1.0, 1),
        (1e-3, 2e-3, 2),
        (-3.0, 0.5, 3),
        (-1.0, 1.0, 100_000),
    ]);
}

#[test]
fn even_f64() {
    even_cases::<f64>(&[
        (-1.0, 1.0, 7),
        (-100.0, -10.0, 1000),
        (0.0, 1.0, 256),
        (-1e300, 1e300, 65536),
        (0.0, 1.0, 1),
        (0.1, 0.7, 3),
    ]);
}

#[test]
fn range_u8() {
    range_cases::<u8>(
        0,
        255,
        &[
            vec![0, 255],
            vec![0, 1, 2, 3, 254, 255],
            (0..=255).collect(),
        ],
    );
}

#[test]
fn range_u16() {
    range_cases::<u16>(0, 65535, &[vec![0, 65535], vec![100, 200, 60_000]]);
}

#[test]
fn range_i32() {
    range_cases::<i32>(
        -50_000,
        50_000,
        &[vec![i32::MIN, -1, 0, 1, i32::MAX], vec![-10, -5, -1]],
    );
}

#[test]
fn range_u32() {
    range_cases::<u32>(0, 1 << 24, &[vec![0, u32::MAX], vec![7, 8, 9, 10]]);
}

#[test]
fn range_f32() {
    range_cases::<f32>(
        -10.0,
        10.0,
        &[
            vec![f32::NEG_INFINITY, 0.0, f32::INFINITY],
            vec![-1.0, -0.5, -0.0],
            vec![-f32::MAX, -1e-30, 1e-30, f32::MAX],
        ],
    );
}

#[test]
fn range_f64() {
    range_cases::<f64>(
        -1e6,
        -1.0,
        &[
            vec![f64::NEG_INFINITY, -1.0, f64::INFINITY],
            vec![0.0, 0.1, 0.2, 0.30000000000000004],
        ],
    );
}

/// Bad arguments return `Err` on every engine and variant, never panic.
#[test]
fn bad_arguments_are_errors() {
    fn expect_err<T: std::fmt::Debug>(
        e: &Engine,
        a: HistogramAlgorithm,
        what: &str,
        r: histosort::Result<T>,
        needle: &str,
    ) {
        match r {
            Ok(v) => panic!(
                "engine={} variant={a}: {what} should fail, returned {v:?}",
                engine_name(e)
            ),
            Err(err) => {
                let m = err.to_string();
                assert!(
                    m.contains(needle),
                    "engine={} variant={a}: {what}: message '{m}' should mention '{needle}'",
                    engine_name(e)
                );
            }
        }
    }
    let data_u32: Vec<u32> = (0..1000).collect();
    let data_f32: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    for e in &engines() {
        for a in histogram_variants(e) {
            expect_err(
                e,
                a,
                "bins = 0",
                e.histogram_even(&data_u32, 0, 0, 10, a),
                "bins",
            );
            expect_err(
                e,
                a,
                "lower == upper",
                e.histogram_even(&data_u32, 4, 5, 5, a),
                "lower < upper",
            );
            expect_err(
                e,
                a,
                "lower > upper",
                e.histogram_even(&data_u32, 4, 9, 5, a),
                "lower < upper",
            );
            expect_err(
                e,
                a,
                "f32 lower > upper",
                e.histogram_even(&data_f32, 4, 1.0, -1.0, a),
                "lower < upper",
            );
            expect_err(
                e,
                a,
                "NaN lower",
                e.histogram_even(&data_f32, 4, f32::NAN, 1.0, a),
                "lower",
            );
            expect_err(
                e,
                a,
                "infinite upper",
                e.histogram_even(&data_f32, 4, 0.0, f32::INFINITY, a),
                "finite",
            );
            expect_err(
                e,
                a,
                "empty boundaries",
                e.histogram_range(&data_u32, &[], a),
                "at least 2",
            );
            expect_err(
                e,
                a,
                "one boundary",
                e.histogram_range(&data_u32, &[3], a),
                "at least 2",
            );
            expect_err(
                e,
                a,
                "equal boundaries",
                e.histogram_range(&data_u32, &[1, 5, 5, 9], a),
                "strictly increasing",
            );
            expect_err(
                e,
                a,
                "decreasing boundaries",
                e.histogram_range(&data_f32, &[1.0, 0.0], a),
                "strictly increasing",
            );
            expect_err(
                e,
                a,
                "NaN boundary",
                e.histogram_range(&data_f32, &[0.0, f32::NAN, 2.0], a),
                "NaN",
            );
        }
    }
    // Byte-only variants refuse other sample types with an error, not a wrong answer.
    for e in &engines() {
        for a in histogram_variants(e) {
            if BYTE_ONLY_HISTOGRAMS.contains(&a) {
                let d: Vec<u16> = vec![1, 2, 3];
                assert!(
                    e.histogram_even(&d, 4, 0, 4, a).is_err(),
                    "{} ran {a} on u16",
                    engine_name(e)
                );
                assert!(
                    e.histogram_range(&d, &[0, 2, 4], a).is_err(),
                    "{} ran {a} on u16",
                    engine_name(e)
                );
            }
        }
    }
    // Variants the CPU backend does not have are errors there, not silent fallbacks.
    let cpu = Engine::cpu();
    for a in HistogramAlgorithm::ALL {
        if !matches!(a, HistogramAlgorithm::Auto | HistogramAlgorithm::CpuPrivate) {
            assert!(cpu.histogram_u8(b"abc", *a).is_err(), "cpu ran {a}");
        }
    }
}

/// Data that makes 16-bit counters wrap: long runs of one value and of two values sharing one
/// 32-bit word of counters (an even value and the next odd one), mixed with uniform samples.
fn wrap_heavy_u16(n: usize, seed: u64) -> Vec<u16> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| match (i / 4096) % 4 {
            0 => 4,
            1 => 4 + (rng.below(2) as u16),
            2 => 65535 - (rng.below(2) as u16),
            _ => rng.below(1 << 16) as u16,
        })
        .collect()
}

#[test]
fn histogram_u16_every_distribution() {
    let f = Failures::new();
    let dists = [
        Distribution::Uniform,
        Distribution::FewDistinct(1),
        Distribution::FewDistinct(2),
        Distribution::FewDistinct(8),
        Distribution::AllEqual,
        Distribution::Sorted,
        Distribution::Entropy(EntropyPreset::ALL[1]),
    ];
    let sizes = [
        0,
        1,
        2,
        3,
        7,
        8,
        9,
        15,
        16,
        17,
        1023,
        65_535,
        65_536,
        65_537,
        (1 << 20) + 3,
    ];
    let mut inputs: Vec<(String, Vec<u16>)> = Vec::new();
    for (di, dist) in dists.iter().enumerate() {
        for n in sizes {
            inputs.push((dist.name(), generate(dist, n, seed(n, 50 + di as u64))));
        }
    }
    // Enough samples per block that one counter passes 65536 several times in a block.
    for n in [(3 << 20) + 5, 1 << 24] {
        inputs.push(("wrap-heavy".into(), wrap_heavy_u16(n, n as u64)));
        inputs.push(("all-equal".into(), vec![4u16; n]));
        inputs.push(("all-equal-odd".into(), vec![65535u16; n]));
    }
    for e in &engines() {
        for (dist, data) in &inputs {
            let n = data.len();
            let expected = reference::histogram_u16(data);
            for a in [
                HistogramAlgorithm::Auto,
                HistogramAlgorithm::SharedPrivate,
                HistogramAlgorithm::CpuPrivate,
            ] {
                if !is_cuda(e) && a == HistogramAlgorithm::SharedPrivate {
                    continue;
                }
                let case = Case::new(e, a.to_string(), "u16", dist, n);
                f.checked();
                if let Some(h) = f.ok(&case, "histogram_u16", e.histogram_u16(data, a)) {
                    check_counts(&f, &case, "histogram_u16", &expected, &h);
                }
                // Sub-slices start off the 16-byte boundary: a ragged head and tail.
                if n > 3 && n < 2_000_000 {
                    for off in [1, 3, 7] {
                        if off + 2 > n {
                            continue;
                        }
                        let sub = &data[off..n - 2];
                        let case =
                            Case::new(e, format!("{a} offset={off}"), "u16", dist, sub.len());
                        if let Some(h) = f.ok(&case, "histogram_u16", e.histogram_u16(sub, a)) {
                            check_counts(
                                &f,
                                &case,
                                "histogram_u16",
                                &reference::histogram_u16(sub),
                                &h,
                            );
                        }
                    }
                }
            }
        }
    }
    f.finish("histogram_u16_every_distribution");
}

#[test]
fn histogram_channels_every_width() {
    let f = Failures::new();
    let pixel_counts = [
        0usize,
        1,
        2,
        3,
        4,
        5,
        15,
        16,
        17,
        63,
        1023,
        65_537,
        (1 << 20) + 3,
    ];
    for e in &engines() {
        for c in 1..=4usize {
            for (pi, &px) in pixel_counts.iter().enumerate() {
                let n = px * c;
                let salt = 100 + (c * 31 + pi) as u64;
                let mut inputs: Vec<(String, Vec<u8>)> = vec![
                    (
                        "uniform".into(),
                        generate(&Distribution::Uniform, n, seed(n, salt)),
                    ),
                    ("all-equal".into(), vec![200u8; n]),
                ];
                // Channel-dependent data: channel k holds values k * 50 + (0..4), so a byte
                // counted in the wrong channel lands in an empty bin.
                let mut rng = Rng::new(salt);
                inputs.push((
                    "per-channel".into(),
                    (0..n)
                        .map(|i| ((i % c) * 50) as u8 + rng.below(4) as u8)
                        .collect(),
                ));
                for (dist, data) in &inputs {
                    let want = reference::histogram_channels_u8(data, c).unwrap();
                    let mut variants =
                        vec![HistogramAlgorithm::Auto, HistogramAlgorithm::CpuPrivate];
                    if is_cuda(e) {
                        variants.push(HistogramAlgorithm::SharedPrivate);
                    }
                    for a in variants {
                        let case = Case::new(e, format!("{a} channels={c}"), "u8", dist, n);
                        f.checked();
                        let r = e.histogram_channels_u8(data, c, a);
                        if let Some(h) = f.ok(&case, "histogram_channels_u8", r) {
                            if h.len() != c {
                                f.fail(format!("{case}: {} histograms, expected {c}", h.len()));
                                continue;
                            }
                            for ch in 0..c {
                                check_counts(
                                    &f,
                                    &case,
                                    &format!("channel {ch}"),
                                    &want[ch],
                                    &h[ch],
                                );
                            }
                        }
                        // Whole pixels from an odd byte offset: a ragged head.
                        if px > 2 && n < 2_000_000 {
                            let sub = &data[c + 1..];
                            let sub = &sub[..sub.len() / c * c];
                            let want = reference::histogram_channels_u8(sub, c).unwrap();
                            let case = Case::new(
                                e,
                                format!("{a} channels={c} offset={}", c + 1),
                                "u8",
                                dist,
                                sub.len(),
                            );
                            if let Some(h) = f.ok(
                                &case,
                                "histogram_channels_u8",
                                e.histogram_channels_u8(sub, c, a),
                            ) {
                                for ch in 0..c {
                                    check_counts(
                                        &f,
                                        &case,
                                        &format!("channel {ch}"),
                                        &want[ch],
                                        &h[ch],
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    f.finish("histogram_channels_every_width");
}

#[test]
fn u16_and_channel_histograms_refuse_bad_requests() {
    for e in &engines() {
        for c in [0usize, 5] {
            let r = e.histogram_channels_u8(
                &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                c,
                HistogramAlgorithm::Auto,
            );
            let m = r.expect_err("bad channel count must fail").to_string();
            assert!(m.contains("1 to 4 channels"), "{}: {m}", engine_name(e));
        }
        let m = e
            .histogram_channels_u8(&[1, 2, 3, 4, 5], 4, HistogramAlgorithm::Auto)
            .expect_err("a partial pixel must fail")
            .to_string();
        assert!(m.contains("whole number"), "{}: {m}", engine_name(e));
        if is_cuda(e) {
            for a in [
                HistogramAlgorithm::GlobalAtomic,
                HistogramAlgorithm::GlobalAtomicUnrolled,
                HistogramAlgorithm::WarpPrivate,
            ] {
                assert!(e.histogram_u16(&[1, 2, 3], a).is_err(), "{a} on u16");
                assert!(
                    e.histogram_channels_u8(&[1, 2, 3, 4], 4, a).is_err(),
                    "{a} on channels"
                );
            }
        } else {
            assert!(e
                .histogram_u16(&[1, 2, 3], HistogramAlgorithm::SharedPrivate)
                .is_err());
        }
    }
}

/// A float sample type for the exact-arithmetic oracle: its finite values as `m * 2^e` with an
/// integer `m`, its precision, and the documented binning emulated in wider arithmetic.
trait ExactFloat: TestSample + Into<f64> {
    /// Mantissa bits, the implicit one included (24, 53).
    const PRECISION: i32;
    /// `(m, e)` with `self == m * 2^e` exactly (`m` signed; finite values only).
    fn parts(self) -> (i128, i32);
    /// The next float towards +infinity (finite, non-maximal values).
    fn up(self) -> Self;
    /// The next float towards -infinity.
    fn down(self) -> Self;
    fn from_f64(x: f64) -> Self;
    /// The documented bin (`min(bins - 1, floor((x - lower) * scale))`, `scale = bins /
    /// (upper - lower)`, each operation rounded to this type), computed without `EvenBin` by
    /// doing each operation in f64 and rounding it to this type (f64 has more than twice f32's
    /// precision plus two bits, so that double rounding is exact); `None` where it has no
    /// such emulation (f64). For samples within `[lower, upper)` only.
    fn emulated_bin(x: Self, lo: Self, hi: Self, bins: usize) -> Option<usize>;
}

macro_rules! exact_float {
    ($t:ty, $bits:ty, $prec:expr, $emul:expr) => {
        impl ExactFloat for $t {
            const PRECISION: i32 = $prec;
            fn parts(self) -> (i128, i32) {
                assert!(self.is_finite(), "{self:?} is not finite");
                let b = self.to_bits();
                let width = <$bits>::BITS as i32;
                let frac_bits = $prec - 1;
                let exp_bits = width - 1 - frac_bits;
                let bias = (1 << (exp_bits - 1)) - 1;
                let raw_e = ((b >> frac_bits) & ((1 << exp_bits) - 1)) as i32;
                let frac = (b & ((1 << frac_bits) - 1)) as i128;
                let (m, e) = if raw_e == 0 {
                    (frac, 1 - bias - frac_bits)
                } else {
                    (frac | (1 << frac_bits), raw_e - bias - frac_bits)
                };
                (if b >> (width - 1) == 1 { -m } else { m }, e)
            }
            fn up(self) -> Self {
                if self == 0.0 {
                    <$t>::from_bits(1)
                } else if self > 0.0 {
                    <$t>::from_bits(self.to_bits() + 1)
                } else {
                    <$t>::from_bits(self.to_bits() - 1)
                }
            }
            fn down(self) -> Self {
                -(-self).up()
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn emulated_bin(x: Self, lo: Self, hi: Self, bins: usize) -> Option<usize> {
                $emul(x, lo, hi, bins)
            }
        }
    };
}
exact_float!(f32, u32, 24, |x: f32, lo: f32, hi: f32, bins: usize| {
    let r = |v: f64| v as f32 as f64;
    let d = r(x as f64 - lo as f64);
    let scale = r(r(bins as f64) / r(hi as f64 - lo as f64));
    let p = r(d * scale);
    Some((p.floor() as usize).min(bins - 1))
});
exact_float!(f64, u64, 53, |_: f64, _: f64, _: f64, _: usize| None);

/// The bin of `x` in `bins` even bins over `[lo, hi)` by integer arithmetic,
/// `floor((x - lo) * bins / (hi - lo))`, with the distance of that quotient to the nearest
/// integer as a fraction of a bin. The three values are put on one scale of 2^-k in 128 bits:
/// exact where their exponents lie within 100 bits of each other; beyond that, bits more than
/// 2^100 below the largest are dropped, which moves the quotient by less than 2^-80 of a bin.
fn exact_bin<T: ExactFloat>(x: T, lo: T, hi: T, bins: usize) -> (usize, f64) {
    assert!(bins < 1 << 20, "the scale leaves 20 bits for the bin count");
    let ps = [x.parts(), lo.parts(), hi.parts()];
    let nonzero = || ps.iter().filter(|(m, _)| *m != 0);
    let len = |m: i128| 128 - m.unsigned_abs().leading_zeros() as i32;
    let top = nonzero().map(|&(m, e)| e + len(m)).max().expect("lo < hi");
    let unit = nonzero().map(|&(_, e)| e).min().unwrap().max(top - 100);
    let scaled = |(m, e): (i128, i32)| {
        if e >= unit {
            m << (e - unit)
        } else {
            m >> (unit - e).min(127)
        }
    };
    let [sx, sl, sh] = ps.map(scaled);
    let num = (sx - sl) * bins as i128;
    let den = sh - sl;
    let (q, r) = (num / den, num % den);
    let frac = r as f64 / den as f64;
    (q as usize, frac.min(1.0 - frac))
}

/// Even float bins against arithmetic that shares nothing with `EvenBin`: each sample alone
/// (around every bin edge, the range's ends, in between) through every engine and variant, its
/// bin against the exact quotient `floor((x - lower) * bins / (upper - lower))` (equal, or one
/// away where the quotient lies within the float formula's rounding error of a bin edge, and
/// on the side of that edge), and for f32 equal to the documented IEEE formula emulated in
/// f64; then whole arrays of those samples bin by bin against the emulation.
fn even_float_bins_exact<T: ExactFloat>(ranges: &[(f64, f64, usize)]) {
    let f = Failures::new();
    for (ri, &(lo, hi, bins)) in ranges.iter().enumerate() {
        let (lo, hi) = (T::from_f64(lo), T::from_f64(hi));
        let (lo64, hi64): (f64, f64) = (lo.into(), hi.into());
        // Each bin edge lo + k (hi - lo) / bins rounded, two floats either side of it, for a
        // spread of k; random samples in and around the range; the range's ends.
        let mut rng = Rng::new(ri as u64 + 5);
        let mut xs = vec![lo, lo.up(), lo.down(), hi, hi.down(), hi.up()];
        for i in 0..64 {
            let k = if i < 16 {
                i as u64
            } else {
                rng.below(bins as u64 + 1)
            };
            let edge = T::from_f64(lo64 + (hi64 - lo64) * k as f64 / bins as f64);
            xs.extend([
                edge,
                edge.up(),
                edge.up().up(),
                edge.down(),
                edge.down().down(),
            ]);
        }
        xs.extend((0..64).map(|_| T::lerp(lo, hi, rng.unit_f64() * 1.2 - 0.1)));
        // Every sample alone, then (f32) the array against the emulation's counts.
        let mut emulated_all = vec![0u64; bins];
        for &x in &xs {
            let inside = x >= lo && x < hi;
            let exact = inside.then(|| exact_bin(x, lo, hi, bins));
            let emulated = if inside {
                T::emulated_bin(x, lo, hi, bins)
            } else {
                None
            };
            if let Some(b) = emulated {
                emulated_all[b] += 1;
            }
            for e in &engines() {
                for a in bins_histogram_variants(e) {
                    let what = format!(
                        "{} {a}: {} x={x:?} in {bins} bins over [{lo:?}, {hi:?})",
                        engine_name(e),
                        <T as Sample>::DTYPE
                    );
                    f.checked();
                    let h = match e.histogram_even(&[x], bins, lo, hi, a) {
                        Ok(h) => h,
                        Err(err) => {
                            f.fail(format!("{what}: {err}"));
                            continue;
                        }
                    };
                    let got: Vec<usize> = (0..bins).filter(|&b| h[b] != 0).collect();
                    let total: u64 = h.iter().sum();
                    match exact {
                        None if total != 0 => f.fail(format!("{what}: counted in {got:?}")),
                        None => {}
                        Some(_) if total != 1 || got.len() != 1 => {
                            f.fail(format!("{what}: {total} counts in bins {got:?}"))
                        }
                        Some((b, dist)) => {
                            let g = got[0];
                            // Relative error of the three rounded operations and the scale's
                            // two, with room to spare, in bins.
                            let tol = bins as f64 * 8.0 * (-(T::PRECISION as f64)).exp2();
                            let ok = g == b
                                || (dist <= tol && g + 1 == b)
                                || (dist <= tol && g == b + 1);
                            if !ok {
                                f.fail(format!(
                                    "{what}: bin {g}, exact bin {b} (quotient {dist:.3e} of a bin \
                                     from an edge, tolerance {tol:.3e})"
                                ));
                            }
                            if let Some(m) = emulated.filter(|&m| m != g) {
                                f.fail(format!("{what}: bin {g}, the IEEE formula gives {m}"));
                            }
                        }
                    }
                }
            }
        }
        // The whole array at once against the emulation's counts (f32).
        if T::emulated_bin(lo, lo, hi, bins).is_some() {
            for e in &engines() {
                for a in bins_histogram_variants(e) {
                    let case = Case::new(
                        e,
                        format!("{a} even bins={bins} range=[{lo:?}, {hi:?})"),
                        <T as Sample>::DTYPE.name(),
                        "bin edges",
                        xs.len(),
                    );
                    f.checked();
                    let r = e.histogram_even(&xs, bins, lo, hi, a);
                    if let Some(h) = f.ok(&case, "histogram_even", r) {
                        check_counts(
                            &f,
                            &case,
                            "histogram_even (IEEE emulation)",
                            &emulated_all,
                            &h,
                        );
                    }
                }
            }
        }
    }
    f.finish(&format!(
        "even_float_bins_exact::<{}>",
        <T as Sample>::DTYPE
    ));
}

#[test]
fn even_f32_bins_against_exact_arithmetic() {
    even_float_bins_exact::<f32>(&[
        (-1.0, 1.0, 7),
        (-100.0, -10.0, 1000),
        (0.0, 1.0, 256),
        (-1e-30, 1e30, 5),
        (1e-3, 2e-3, 2),
        (-3.0, 0.5, 3),
        (-1.0, 1.0, 100_000),
        (1000.0, 1000.5, 17),
        (0.1, 0.7, 3),
    ]);
}

#[test]
fn even_f64_bins_against_exact_arithmetic() {
    even_float_bins_exact::<f64>(&[
        (-1.0, 1.0, 7),
        (-100.0, -10.0, 1000),
        (0.0, 1.0, 256),
        (0.1, 0.7, 3),
        (-1.0, 1.0, 100_000),
        (1e6, 1e6 + 0.5, 17),
    ]);
}
