//! The CPU backend's internals against `crate::reference`: every key type, both orders, bit
//! ranges, digit widths, payload = index (stability), sizes around every threshold and chunk
//! boundary, and the distributions that break radix sorts (all-equal, sorted, reversed,
//! reduced entropy).

use super::radix::{plan, Chunks, Digit, Pair};
use super::{histogram, scan, sort};
use crate::algorithm::ScanKind;
use crate::key::{RadixBits, RadixKey};
use crate::options::SortOptions;
use crate::reference;
use crate::tuning::cpu as tuning;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn wide(&mut self) -> u128 {
        ((self.next() as u128) << 64) | self.next() as u128
    }
}

#[derive(Clone, Copy, Debug)]
enum Dist {
    Uniform,
    /// AND of three random words: about 0.54 bits of entropy per bit.
    LowEntropy,
    /// Only the low 12 bits vary (skipped high digits).
    Narrow,
    Sorted,
    Reversed,
    AllEqual,
    /// Eight distinct values.
    Few,
}

const DISTS: [Dist; 7] = [
    Dist::Uniform,
    Dist::LowEntropy,
    Dist::Narrow,
    Dist::Sorted,
    Dist::Reversed,
    Dist::AllEqual,
    Dist::Few,
];

fn gen<K: RadixKey>(n: usize, dist: Dist, seed: u64) -> Vec<K> {
    let mut r = Rng(seed);
    let from = |v: u128| K::from_radix(K::Bits::from_u128(v));
    let mut v: Vec<K> = match dist {
        Dist::Uniform | Dist::Sorted | Dist::Reversed => (0..n).map(|_| from(r.wide())).collect(),
        Dist::LowEntropy => (0..n)
            .map(|_| from(r.wide() & r.wide() & r.wide()))
            .collect(),
        Dist::Narrow => (0..n).map(|_| from(r.wide() & 0xfff)).collect(),
        Dist::AllEqual => {
            let x = r.wide();
            (0..n).map(|_| from(x)).collect()
        }
        Dist::Few => {
            let vals: Vec<u128> = (0..8).map(|_| r.wide()).collect();
            (0..n)
                .map(|_| from(vals[(r.next() % 8) as usize]))
                .collect()
        }
    };
    match dist {
        Dist::Sorted => v.sort_by_key(|k| k.to_radix()),
        Dist::Reversed => v.sort_by_key(|k| std::cmp::Reverse(k.to_radix())),
        _ => {}
    }
    v
}

/// Runs `f` inside a rayon pool of `threads` threads.
fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
        .install(f)
}

fn same_bits<K: RadixKey>(a: &[K], b: &[K]) -> bool {
    bytemuck::cast_slice::<K, u8>(a) == bytemuck::cast_slice::<K, u8>(b)
}

/// Keys, pairs (payload = index) and argsort (u32 and u64) against the reference.
fn check<K: RadixKey>(keys: &[K], opts: &SortOptions, what: &str) {
    let want = reference::sort_keys(keys, opts);
    let mut got = keys.to_vec();
    sort::sort_keys(&mut got, opts).unwrap();
    assert!(
        same_bits(&got, &want),
        "keys {} n={} {what} {opts:?}",
        K::DTYPE,
        keys.len()
    );

    let want_perm: Vec<u32> = reference::argsort(keys, opts);
    let mut k = keys.to_vec();
    let mut v: Vec<u32> = (0..keys.len() as u32).collect();
    sort::sort_pairs(&mut k, &mut v, opts).unwrap();
    assert!(
        same_bits(&k, &want),
        "pair keys {} n={} {what} {opts:?}",
        K::DTYPE,
        keys.len()
    );
    if let Some(i) = v.iter().zip(&want_perm).position(|(a, b)| a != b) {
        panic!(
            "pairs {} n={} {what} {opts:?}: first difference at {i}: key {:?}, payload {} want {}",
            K::DTYPE,
            keys.len(),
            k[i],
            v[i],
            want_perm[i]
        );
    }
    let p32: Vec<u32> = sort::argsort(keys, opts).unwrap();
    assert_eq!(
        p32,
        want_perm,
        "argsort u32 {} n={} {what} {opts:?}",
        K::DTYPE,
        keys.len()
    );
    let p64: Vec<u64> = sort::argsort(keys, opts).unwrap();
    assert!(
        p64.iter().zip(&want_perm).all(|(&a, &b)| a == b as u64),
        "argsort u64 {} n={} {what}",
        K::DTYPE,
        keys.len()
    );
}

/// Sizes around every threshold of the engine.
fn edge_sizes() -> Vec<usize> {
    let mut s = vec![0, 1, 2, 3, 5, 17, 100, 1001];
    for t in [
        tuning::SMALL_SORT_MAX,
        tuning::BUCKET_STD_SORT_MAX,
        4096,
        1 << 13,
    ] {
        s.extend([t - 1, t, t + 1]);
    }
    s
}

fn all_orders() -> [SortOptions; 2] {
    [SortOptions::new(), SortOptions::new().descending()]
}

fn check_type<K: RadixKey>(seed: u64) {
    for (j, &n) in edge_sizes().iter().enumerate() {
        for (i, &d) in DISTS.iter().enumerate() {
            let keys = gen::<K>(n, d, seed ^ (j * 31 + i) as u64);
            for opts in all_orders() {
                check(&keys, &opts, &format!("{d:?}"));
            }
        }
    }
    // Parallel LSD sizes (around the 256 KiB from which parallel passes take 11-bit digits)
    // and MSD-first sizes: two distributions, both orders.
    let msd = tuning::msd_min_len(K::Bits::BITS);
    let wide = (1usize << 18) / size_of::<K>();
    for n in [
        tuning::PAR_MIN_LEN + 1,
        wide - 1,
        wide + 1,
        msd - 1,
        msd + 1,
    ] {
        for d in [Dist::Uniform, Dist::LowEntropy] {
            let keys = gen::<K>(n, d, seed + 7);
            for opts in all_orders() {
                check(&keys, &opts, &format!("{d:?}"));
            }
        }
    }
    // Bit ranges and digit widths.
    let bits = K::Bits::BITS;
    let keys = gen::<K>(3001, Dist::Uniform, seed + 11);
    for (b, e) in [
        (0, bits),
        (0, 1),
        (bits - 1, bits),
        (1, bits / 2 + 1),
        (3, 3),
        (bits / 2, bits),
    ] {
        for w in [None, Some(1), Some(3), Some(8), Some(11), Some(16)] {
            for opts in all_orders() {
                let mut o = opts.bits(b, e);
                o.digit_bits = w;
                check(&keys, &o, "range");
            }
        }
    }
}

#[test]
fn unsigned_keys() {
    check_type::<u8>(1);
    check_type::<u16>(2);
    check_type::<u32>(3);
    check_type::<u64>(4);
    check_type::<u128>(5);
}

#[test]
fn signed_keys() {
    check_type::<i8>(6);
    check_type::<i16>(7);
    check_type::<i32>(8);
    check_type::<i64>(9);
    check_type::<i128>(10);
}

#[test]
fn float_keys() {
    check_type::<f32>(11);
    check_type::<f64>(12);
    let specials = [
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
    ];
    let keys: Vec<f32> = (0..5000)
        .map(|i| specials[(i * 7) % specials.len()])
        .collect();
    for opts in all_orders() {
        check(&keys, &opts, "specials");
    }
}

/// Large enough for MSD buckets that take the in-bucket LSD (and its odd/even pass counts),
/// bit ranges that end below the MSD digit, and narrow data whose top digit is not the guess.
#[test]
fn msd_buckets() {
    let n = (1 << 18) + 5;
    for d in [Dist::Uniform, Dist::LowEntropy, Dist::Narrow, Dist::Few] {
        check(&gen::<u32>(n, d, 21), &SortOptions::new(), "msd");
        check(
            &gen::<f64>(n, d, 22),
            &SortOptions::new().descending(),
            "msd",
        );
    }
    let keys = gen::<u64>(n, Dist::Uniform, 23);
    check(&keys, &SortOptions::new().bits(3, 29), "msd range");
    check(
        &keys,
        &SortOptions::new().bits(40, 64).digit_bits(5),
        "msd range",
    );
    check(
        &gen::<i16>(n, Dist::Uniform, 24),
        &SortOptions::new(),
        "msd i16",
    );
    // In-bucket digits of 8, 8 and 7 bits, from bit 0 or not (the byte-wise count of
    // `survey_multi` with a top digit narrower than a byte, whose bits above it are the
    // bucket's own, not zero); two in-bucket passes and one (the pair and argsort outputs
    // streamed from the scratch after an odd and an even number of passes, and not streamed
    // after one; the records are 2 MiB, above the test threshold of the non-temporal paths).
    let keys = gen::<u32>(n, Dist::Uniform, 25);
    assert!(n * 8 >= super::radix::nt_min_bytes());
    for (b, e) in [(0, 31), (1, 32), (5, 29), (0, 24), (0, 16), (3, 20)] {
        for opts in all_orders() {
            check(&keys, &opts.bits(b, e), "msd u32 range");
        }
    }
}

/// Buckets whose remaining bits need more than `BUCKET_LSD_MAX_PASSES` digits take the top
/// sort and the tie fix-up: uniform 64- and 128-bit keys (ties of one element), and keys whose
/// bits between the low 24 and the MSD digit take four 16-bit values, so that the top sort
/// leaves ties of ~256 elements that are sorted recursively (small sorts and, above
/// `BUCKET_STD_SORT_MAX`, the counted in-bucket LSD on their low 24 bits); buckets with few
/// varying top bits, which the guard sends to the plain LSD.
#[test]
fn bucket_top_sort_and_ties() {
    let n = (1 << 18) + 5;
    let mut r = Rng(77);
    let few: Vec<u64> = (0..4).map(|_| r.next() & 0xffff).collect();
    let tied: Vec<u64> = (0..n)
        .map(|_| (r.next() << 56) | (few[(r.next() % 4) as usize] << 40) | (r.next() & 0xff_ffff))
        .collect();
    for opts in all_orders() {
        check(&tied, &opts, "tied");
        let signed: Vec<i64> = tied.iter().map(|&x| x as i64).collect();
        check(&signed, &opts, "tied");
        check(&gen::<u64>(n, Dist::Uniform, 31), &opts, "top sort");
        check(&gen::<f64>(n, Dist::LowEntropy, 32), &opts, "top sort");
        check(&gen::<u128>(n, Dist::Uniform, 33), &opts, "top sort");
    }
    // Ties that straddle the in-bucket thresholds: 8 high values and a 10-bit low part.
    let fewer: Vec<u64> = (0..8).map(|_| r.next() & 0xffff).collect();
    let k: Vec<u64> = (0..n)
        .map(|_| (r.next() << 50) | (fewer[(r.next() % 8) as usize] << 30) | (r.next() & 0x3ff))
        .collect();
    check(&k, &SortOptions::new(), "tied 10");
    check(&k, &SortOptions::new().bits(0, 60), "tied 10 range");
    // Buckets of ~1024 whose top-sort bits [34, 50) hold too few varying bits (four of 16
    // here, above 32 random low bits and under a random top byte) take the plain LSD instead
    // (`top_plan`'s guard); with 14 of the 16 varying, the top sort, whose ties are almost all
    // single elements.
    for mask in [0xFF03_0300_FFFF_FFFFu64, 0xFF03_3FFF_FFFF_FFFF] {
        let k: Vec<u64> = (0..n).map(|_| r.next() & mask).collect();
        for opts in all_orders() {
            check(&k, &opts, "guarded");
        }
    }
}

/// The non-temporal MSD scatter (staged lines streamed out, partial lines at the ends of each
/// run written element-wise): sizes around its threshold, every element size it takes
/// (keys of 1 to 16 bytes, pair and argsort records), both orders, bit ranges, few distinct
/// values (long and empty runs), sorted input (one run per chunk), and thread counts that
/// split runs between chunks.
#[test]
fn nt_scatter() {
    use super::radix::{nt_min_bytes, use_nt_for_tests};
    #[repr(C, align(64))]
    struct Aligned([u8; 64]);
    let mut buf: Vec<Aligned> = (0..4).map(|_| Aligned([0; 64])).collect();
    let p = buf.as_mut_ptr();
    let at = nt_min_bytes() / 4;
    assert!(use_nt_for_tests(p.cast::<u32>(), at));
    assert!(!use_nt_for_tests(p.cast::<u32>(), at - 1));
    assert!(use_nt_for_tests(p.cast::<u8>(), at * 4));
    assert!(use_nt_for_tests(p.cast::<Pair<u32, u32>>(), at / 2));
    // Misaligned buffers, records wider than a quarter line and records with padding (moved
    // as 16-byte vectors, their padding would be read) take the plain scatter.
    // SAFETY: four bytes into a live allocation.
    let odd = unsafe { p.cast::<u8>().add(4) };
    assert!(!use_nt_for_tests(odd.cast::<u32>(), at));
    assert!(!use_nt_for_tests(p.cast::<Pair<u128, u64>>(), at));
    assert!(!use_nt_for_tests(p.cast::<Pair<u64, u32>>(), at));

    fn around<K: RadixKey>(seed: u64) {
        let at = nt_min_bytes() / std::mem::size_of::<K>();
        for n in [at - 1, at, at + 1] {
            for d in [Dist::Uniform, Dist::Few, Dist::Sorted] {
                let keys = gen::<K>(n, d, seed ^ n as u64);
                for opts in all_orders() {
                    check(&keys, &opts, &format!("nt {d:?}"));
                }
            }
        }
        let keys = gen::<K>(at + 3, Dist::LowEntropy, seed);
        let bits = K::Bits::BITS;
        check(&keys, &SortOptions::new().bits(1, bits - 1), "nt range");
        check(&keys, &SortOptions::new().bits(0, bits / 2 + 3), "nt range");
    }
    around::<u8>(9);
    around::<u16>(1);
    around::<u32>(2);
    around::<f32>(3);
    around::<i64>(4);
    around::<u64>(5);
    around::<u128>(6);
    with_threads(3, || {
        around::<u32>(7);
        around::<u64>(8);
    });
}

/// Chunk boundaries with thread counts that do not divide the length.
#[test]
fn odd_thread_counts() {
    for threads in [3, 5] {
        with_threads(threads, || {
            for n in [
                tuning::PAR_MIN_LEN * threads,
                tuning::PAR_MIN_LEN * threads + 7,
            ] {
                for d in [Dist::Uniform, Dist::Few, Dist::Narrow] {
                    check(&gen::<u32>(n, d, n as u64), &SortOptions::new(), "pool");
                    check(
                        &gen::<i64>(n, d, n as u64 + 1),
                        &SortOptions::new().descending(),
                        "pool",
                    );
                }
            }
        });
    }
}

/// Values of every size ride along stably (large ones take the index-and-gather path).
#[test]
fn pair_value_sizes() {
    fn run<V: crate::key::Value + PartialEq + std::fmt::Debug>(f: impl Fn(usize) -> V) {
        for n in [70, 5000, 2 * tuning::PAR_MIN_LEN + 3] {
            let keys = gen::<u16>(n, Dist::Few, n as u64);
            let vals: Vec<V> = (0..n).map(&f).collect();
            for opts in all_orders() {
                let (wk, wv) = reference::sort_pairs(&keys, &vals, &opts);
                let (mut k, mut v) = (keys.clone(), vals.clone());
                sort::sort_pairs(&mut k, &mut v, &opts).unwrap();
                assert_eq!(k, wk);
                assert_eq!(v, wv);
            }
        }
    }
    run(|i| i as u8);
    run(|i| i as u16);
    run(|i| [i as u8; 3]);
    run(|i| i as u64);
    run(|i| i as u128);
    run(|i| [i as u64; 5]);
    assert!(sort::sort_pairs(&mut [1u32, 2], &mut [0u8], &SortOptions::new()).is_err());
}

#[test]
fn planner_places_digits_over_varying_bits() {
    let d = |shift, width| Digit { shift, width };
    assert_eq!(plan(0, 32, 8, true), vec![]);
    assert_eq!(
        plan(0xffff_ffff, 32, 8, true),
        vec![d(0, 8), d(8, 8), d(16, 8), d(24, 8)]
    );
    assert_eq!(
        plan(0xffff_ffff, 32, 11, true),
        vec![d(0, 11), d(11, 11), d(22, 10)]
    );
    // Only bits 4..12 and 40..44 vary: two passes.
    assert_eq!(
        plan(0xff0 | (0xf << 40), 64, 8, true),
        vec![d(4, 8), d(40, 8)]
    );
    // 20 bits at 8 per pass need three passes; 7 bits each do as well.
    assert_eq!(
        plan(0xf_ffff, 32, 8, true),
        vec![d(0, 7), d(7, 7), d(14, 7)]
    );
    assert_eq!(
        plan(0xf_ffff, 32, 8, false),
        vec![d(0, 8), d(8, 8), d(16, 8)]
    );
    assert_eq!(plan(1 << 127, 128, 8, true), vec![d(127, 1)]);
}

#[test]
fn chunks_partition_and_are_monotone() {
    for n in [2usize, 3, 10, 1000, 1 << 20, (1 << 20) + 7] {
        for t in 1..=7 {
            let c = Chunks::new(n, t);
            let mut prev = 0;
            for i in 0..n.min(5000) {
                let f = c.of_for_tests(i);
                assert!(f >= prev && f < c.count());
                prev = f;
            }
            for k in 0..c.count() {
                let (lo, hi) = c.range_for_tests(k);
                assert!(lo <= hi);
                if lo < hi {
                    assert_eq!(c.of_for_tests(lo), k);
                    assert_eq!(c.of_for_tests(hi - 1), k);
                }
            }
            assert_eq!(c.range_for_tests(c.count() - 1).1, n);
        }
    }
}

#[test]
fn histograms_match_reference() {
    let mut r = Rng(99);
    for n in [
        0usize,
        1,
        3,
        4,
        5,
        1000,
        15,
        16,
        17,
        31,
        33,
        tuning::HIST_CHUNK - 1,
        tuning::HIST_CHUNK + 3,
        3 * tuning::HIST_CHUNK + 17,
    ] {
        let data: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
        assert_eq!(
            histogram::histogram_u8(&data),
            reference::histogram_u8(&data),
            "n={n}"
        );
        let low: Vec<u8> = (0..n)
            .map(|_| (r.next() & r.next() & r.next()) as u8)
            .collect();
        assert_eq!(histogram::histogram_u8(&low), reference::histogram_u8(&low));
        let same = vec![7u8; n];
        assert_eq!(
            histogram::histogram_u8(&same),
            reference::histogram_u8(&same)
        );
    }
    let data: Vec<f32> = (0..10_000)
        .map(|_| (r.next() % 1000) as f32 / 7.0 - 50.0)
        .collect();
    assert_eq!(
        histogram::histogram_even(&data, 37, -20.0, 80.0).unwrap(),
        reference::histogram_even(&data, 37, -20.0, 80.0).unwrap()
    );
    let b = [-30.0f32, -1.0, 0.0, 2.5, 60.0];
    assert_eq!(
        histogram::histogram_range(&data, &b).unwrap(),
        reference::histogram_range(&data, &b).unwrap()
    );
}

#[test]
fn scans_match_reference() {
    let mut r = Rng(5);
    let block = scan::block_len::<u64>();
    for n in [
        0usize,
        1,
        2,
        block - 1,
        block,
        block + 1,
        2 * block,
        2 * block + 1,
        3 * block + 5,
        5 * block - 1,
    ] {
        let data: Vec<u64> = (0..n).map(|_| r.next()).collect();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let mut out = vec![0u64; n];
            scan::scan_into(&data, &mut out, kind).unwrap();
            assert_eq!(out, reference::scan(&data, kind), "n={n} {kind}");
        }
        let small: Vec<i64> = (0..n).map(|_| (r.next() % 100) as i64 - 50).collect();
        let mut out = vec![0i64; n];
        scan::scan_into(&small, &mut out, ScanKind::Inclusive).unwrap();
        assert_eq!(out, reference::scan(&small, ScanKind::Inclusive));
    }
    assert!(scan::scan_into(&[1u32], &mut [0u32; 2], ScanKind::Inclusive).is_err());
}

/// The SIMD block scans of 32- and 64-bit integers and floats (SSE2: 16 or 8 elements per
/// step; AVX2 f32: 32; serial tails):
/// every length up to three steps, block sizes, wrapping full-range values, both kinds, and
/// input and output slices that start off a 16-byte boundary.
#[test]
fn simd_scans_every_int_type() {
    fn run<T: crate::sample::ScanElem>(r: &mut Rng, f: fn(u64) -> T) {
        let block = scan::block_len::<T>();
        let mut lens: Vec<usize> = (0..150).collect();
        lens.extend([block - 1, block + 17, 2 * block + 9]);
        for n in lens {
            let data: Vec<T> = (0..n + 1).map(|_| f(r.next())).collect();
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                for skew in [0, 1] {
                    let d = &data[skew..skew + n];
                    let mut out = vec![T::ZERO; n + 1];
                    scan::scan_into(d, &mut out[1 - skew..1 - skew + n], kind).unwrap();
                    assert_eq!(
                        &out[1 - skew..1 - skew + n],
                        &reference::scan(d, kind)[..],
                        "{} n={n} {kind} skew={skew}",
                        T::DTYPE
                    );
                }
            }
        }
    }
    let mut r = Rng(9);
    run::<u32>(&mut r, |x| x as u32);
    run::<i32>(&mut r, |x| x as i32);
    run::<u64>(&mut r, |x| x);
    run::<i64>(&mut r, |x| x as i64);
    // Floats as small integers: exact in every association, so equal to the serial sums.
    run::<f32>(&mut r, |x| (x % 17) as f32 - 8.0);
    run::<f64>(&mut r, |x| (x % 17) as f64 - 8.0);
}

/// The look-back scan with small blocks (many blocks, so the workers race over the look-back),
/// plain and non-temporal stores, on 1, 2 and 3 threads of a local pool: every integer type
/// with full-range (wrapping) values, floats with small integers (exact in every order, so
/// they must equal the serial reference bit for bit) and with fractions (within a rounding
/// bound); sizes 0, 1, odd, around block boundaries; slices off a 16-byte boundary.
#[test]
fn lookback_scans_match_reference() {
    fn check<T: crate::sample::ScanElem>(
        data: &[T],
        block: usize,
        eq: &dyn Fn(&[T], &[T]) -> bool,
    ) {
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for nt in [false, true] {
                for skew in [0, 1] {
                    let n = data.len() - skew;
                    let d = &data[skew..];
                    let mut out = vec![T::ZERO; n + 1];
                    scan::scan_with(d, &mut out[1 - skew..1 - skew + n], kind, block, nt);
                    let want = reference::scan(d, kind);
                    assert!(
                        eq(&out[1 - skew..1 - skew + n], &want),
                        "{} n={n} block={block} {kind} nt={nt} skew={skew}",
                        T::DTYPE
                    );
                }
            }
        }
    }
    let exact = |a: &[u32], b: &[u32]| a == b;
    let mut r = Rng(21);
    for threads in [1, 2, 3] {
        with_threads(threads, || {
            for block in [1usize, 7, 64, 1000, 3000] {
                for n in [
                    0usize,
                    1,
                    2,
                    3,
                    block - 1,
                    block,
                    block + 1,
                    2 * block + 1,
                    37 * block + 5,
                    5000,
                ] {
                    let n = n + 1; // room for the skewed slice
                    let v: Vec<u32> = (0..n).map(|_| r.next() as u32).collect();
                    check(&v, block, &exact);
                    let v: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
                    check(&v, block, &|a, b| a == b);
                    let v: Vec<u64> = (0..n).map(|_| r.next()).collect();
                    check(&v, block, &|a, b| a == b);
                    let v: Vec<i64> = (0..n).map(|_| r.next() as i64).collect();
                    check(&v, block, &|a, b| a == b);
                    let v: Vec<f32> = (0..n).map(|_| (r.next() % 17) as f32 - 8.0).collect();
                    check(&v, block, &|a, b| a == b);
                    let v: Vec<f64> = (0..n).map(|_| (r.next() % 17) as f64 - 8.0).collect();
                    check(&v, block, &|a, b| a == b);
                    let v: Vec<f32> = (0..n).map(|_| (r.next() % 1000) as f32 / 7.0).collect();
                    check(&v, block, &|a, b| {
                        a.iter()
                            .zip(b)
                            .all(|(x, y)| (x - y).abs() <= 1e-3 * y.abs().max(1.0))
                    });
                }
            }
        });
    }
}

/// The look-back itself: inclusive prefixes end it, aggregates are added, and a block whose
/// aggregate never comes (its owner descheduled) is reduced by the looking worker.
#[test]
fn scan_look_back_helps_missing_blocks() {
    let data: Vec<u64> = (1..=40).collect();
    let block = 4;
    let sum = |j: usize| data[j * block..(j + 1) * block].iter().sum::<u64>();
    // Blocks 0..10: 0 inclusive, 1 aggregate, 2 missing, 3 aggregate, 4 missing.
    let states = [2u8, 1, 0, 1, 0];
    let status = scan::test_status(&states, sum, |j| (0..=j).map(sum).sum());
    let helped = std::cell::Cell::new(0);
    let p = scan::test_look_back(&status, 5, |j| {
        helped.set(helped.get() + 1);
        sum(j)
    });
    assert_eq!(p, (0..5).map(sum).sum::<u64>());
    assert_eq!(helped.get(), 2);
    // The helpers published what they computed: a second look-back needs no help.
    let p = scan::test_look_back(&status, 5, |_| unreachable!());
    assert_eq!(p, (0..5).map(sum).sum::<u64>());
}

/// `histosort info`'s word for the byte counter agrees with the path `histogram_u8` can take.
#[test]
fn byte_counter_names_the_path_taken() {
    let vector = histogram::histogram_u8_simd(&[]).is_some();
    let name = histogram::byte_counter();
    assert_eq!(name.starts_with("AVX-512 vector counter"), vector, "{name}");
    assert_eq!(name.starts_with("scalar counters"), !vector, "{name}");
}

/// Every byte-histogram path (pair table, lane sub-histograms and, where the CPU has it, the
/// vector counter) against the reference on 1, 2 and 3 threads: sizes 0, 1, odd, around
/// words and chunk boundaries; uniform, low-entropy, all-equal and two alternating values
/// (every pair the same); and a pair counter flushed in the middle.
#[test]
fn byte_histogram_paths_match_reference() {
    let mut r = Rng(33);
    let c = tuning::HIST_CHUNK;
    for threads in [1, 2, 3] {
        with_threads(threads, || {
            for n in [
                0usize,
                1,
                7,
                8,
                9,
                15,
                16,
                17,
                1001,
                c - 1,
                c,
                c + 9,
                3 * c + 5,
            ] {
                let uniform: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
                let low: Vec<u8> = (0..n)
                    .map(|_| (r.next() & r.next() & r.next()) as u8)
                    .collect();
                let same = vec![0xA5u8; n];
                let alt: Vec<u8> = (0..n).map(|i| if i % 2 == 0 { 3 } else { 250 }).collect();
                for d in [&uniform, &low, &same, &alt] {
                    let want = reference::histogram_u8(d);
                    assert_eq!(histogram::histogram_u8_pairs(d), want, "pairs n={n}");
                    assert_eq!(histogram::histogram_u8_lanes(d), want, "lanes n={n}");
                    assert_eq!(histogram::histogram_u8(d), want, "auto n={n}");
                    if let Some(h) = histogram::histogram_u8_simd(d) {
                        assert_eq!(h, want, "simd n={n}");
                    }
                }
            }
        });
    }
    let d: Vec<u8> = (0..100_003).map(|_| r.next() as u8).collect();
    let mut p = histogram::PairCounter::new();
    p.count(&d[..40_001]);
    p.flush();
    p.count(&d[40_001..]);
    assert_eq!(p.finish(), reference::histogram_u8(&d));
}

#[test]
fn sorts_on_reused_scratch_match_the_reference() {
    // Buffers left by earlier sorts hold their data: a later sort of other keys (and of pairs,
    // which take two) must not depend on what it finds there. 2^23 keys: a 32 MiB scratch, the
    // smallest that is kept; pairs take two of 64 MiB.
    let o = SortOptions::new();
    for (round, n) in [(0u64, 1usize << 23), (1, 1 << 23), (2, (1 << 22) + 5)] {
        let keys: Vec<u32> = gen(n, Dist::Uniform, 0x5C12 + round);
        let mut k = keys.clone();
        sort::sort_keys(&mut k, &o).unwrap();
        assert_eq!(k, reference::sort_keys(&keys, &o), "keys, round {round}");
        let mut k = keys.clone();
        let mut v: Vec<u32> = (0..n as u32).collect();
        sort::sort_pairs(&mut k, &mut v, &o).unwrap();
        let (rk, rv) = reference::sort_pairs(&keys, &(0..n as u32).collect::<Vec<_>>(), &o);
        assert_eq!((k, v), (rk, rv), "pairs, round {round}");
    }
    assert!(sort::scratch_held() <= tuning::SCRATCH_KEEP_MAX_BYTES);
    sort::release_scratch();
}

/// The one-bucket sort's pass count, which decides between it and the plain LSD for inputs
/// that one task sorts: std's sort up to 256 elements, the top `log2(n) + 4` bits in 8-bit
/// digits beyond three passes (where enough of them vary), the plain in-bucket LSD otherwise.
#[test]
fn one_bucket_passes_follow_the_bucket_sort() {
    let all32 = u32::MAX as u128;
    let all64 = u64::MAX as u128;
    assert_eq!(super::radix::whole_passes(all32, 0, 32, 256, 8), 0);
    assert_eq!(super::radix::whole_passes(all32, 0, 32, 257, 8), 2);
    assert_eq!(super::radix::whole_passes(all32, 0, 32, 4096, 8), 2);
    assert_eq!(super::radix::whole_passes(all32, 0, 32, 8192, 8), 3);
    assert_eq!(super::radix::whole_passes(all64, 0, 64, 16384, 8), 3);
    assert_eq!(super::radix::whole_passes(all64, 0, 64, 1 << 15, 8), 3);
    // Top bits with few distinct values (bits 48-49 and 56-57 above 40 random low bits): the
    // top sort's ties would be long, so no top sort (in a whole input or in an MSD bucket):
    // the plain LSD's seven 8-bit digits, which never beat the LSD sort itself.
    let skewed = (0x0303u128 << 48) | ((1u128 << 40) - 1);
    assert!(super::radix::top_plan(skewed, 64, 8192, 8, 0).is_none());
    assert_eq!(super::radix::whole_passes(skewed, 0, 64, 8192, 8), 7);
    // Uniform 64-bit keys: the top 24 bits (lg 13 + 4, in whole 8-bit digits) in 3 digits.
    let (t, top) = super::radix::top_plan(all64, 64, 8192, 8, 0).unwrap();
    assert_eq!((t, top.len()), (40, 3));
    // Buckets of 2^12 sort on their top 16 bits, [48, 64) here: 13 of them varying (ties of
    // about one element) still take the top sort, 12 do not (the plan `sort_bucket` follows:
    // the plain LSD over all eight digits). One element more (lg 13) sorts on the top 24
    // bits, [40, 64), in three digits.
    use super::radix::{bucket_plan, BucketPlan};
    let low48 = (1u128 << 48) - 1;
    let some = low48 | (0b1111_1111_1111_1000u128 << 48);
    let few = low48 | (0xFFF0u128 << 48);
    assert_eq!(super::radix::top_plan(some, 64, 4096, 8, 0).unwrap().0, 48);
    assert!(super::radix::top_plan(few, 64, 4096, 8, 0).is_none());
    assert!(matches!(bucket_plan(some, 64, 4096, 8), BucketPlan::Top(48, ref d) if d.len() == 2));
    assert!(matches!(bucket_plan(few, 64, 4096, 8), BucketPlan::Lsd(ref d) if d.len() == 8));
    assert!(matches!(bucket_plan(some, 64, 4097, 8), BucketPlan::Top(40, ref d) if d.len() == 3));
    assert_eq!(bucket_plan(0, 64, 4096, 8), BucketPlan::Copy);
    // Few varying bits: the plain LSD over them (three 7-bit digits of 20 varying bits; two
    // 8-bit ones of 16).
    assert_eq!(super::radix::whole_passes(0xF_FFFF, 0, 32, 5000, 8), 3);
    assert_eq!(super::radix::whole_passes(0xFFFF, 0, 32, 5000, 8), 2);
    // Nothing varies inside the range.
    assert_eq!(super::radix::whole_passes(0xFF00, 0, 8, 5000, 8), 0);
}
