//! Keys-only sorts on every engine, variant and key type, against `histosort::reference`:
//! every distribution of `histosort gen`, both orders, bit sub-ranges, every digit width, every
//! size of a small window, tile boundaries, powers of two and their neighbours, float specials.

mod common;

use common::*;
use histosort::gen::{generate, Distribution, EntropyPreset};
use histosort::reference::{self, sort_image};
use histosort::{Order, RadixBits, RadixKey, SortOptions};
use rayon::prelude::*;

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// A seed per (size, distribution), so different cases see different data.
fn seed(n: usize, salt: u64) -> u64 {
    (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt
}

/// Every distribution (the few-distinct ones too) at small, odd and tile-boundary sizes, both
/// orders, the default and one explicit variant of each engine.
fn distributions_sweep<K: RadixKey>() {
    let f = Failures::new();
    let mut sizes: Vec<usize> = SMALL_SIZES.to_vec();
    sizes.extend_from_slice(TILE_SIZES);
    sizes.push(65_537);
    for e in &engines() {
        for (di, dist) in distributions().iter().enumerate() {
            for &n in &sizes {
                let keys: Vec<K> = generate(dist, n, seed(n, di as u64));
                for order in ORDERS {
                    for o in sort_configs_quick(e) {
                        check_sort(&f, e, &o.order(order), &dist.name(), &keys);
                    }
                }
            }
        }
    }
    f.finish(&format!("distributions_sweep::<{}>", K::DTYPE));
}

/// Every variant and digit width, both orders, a few distributions and sizes.
fn configs_sweep<K: RadixKey>() {
    let f = Failures::new();
    let dists = [
        Distribution::Uniform,
        Distribution::Entropy(EntropyPreset::E0544),
        Distribution::FewDistinct(8),
        Distribution::Sorted,
        Distribution::Reversed,
        Distribution::FloatSpecials,
    ];
    let sizes = [0, 1, 2, 3, 17, 255, 256, 257, 1025, 2049, 4097, 20_001];
    for e in &engines() {
        for (di, dist) in dists.iter().enumerate() {
            for n in sizes {
                let keys: Vec<K> = generate(dist, n, seed(n, 100 + di as u64));
                for order in ORDERS {
                    for o in sort_configs(e) {
                        check_sort(&f, e, &o.order(order), &dist.name(), &keys);
                    }
                }
            }
        }
    }
    f.finish(&format!("configs_sweep::<{}>", K::DTYPE));
}

/// Bit sub-ranges, the empty one included: only those bits order the keys, and keys equal on
/// them keep their input order.
fn bit_ranges<K: RadixKey>() {
    let f = Failures::new();
    let b = K::Bits::BITS;
    let ranges = [
        (0, 16.min(b)),
        (3, 19.min(b)),
        (8.min(b), b),
        (5, 5),
        (0, 0),
        (b, b),
        (0, b),
        (b - 1, b),
        (0, 1),
        (b / 2 - 1, b / 2 + 3),
        (1, b - 1),
    ];
    let dists = [
        Distribution::Uniform,
        Distribution::FewDistinct(8),
        Distribution::Entropy(EntropyPreset::E0337),
        Distribution::FloatSpecials,
    ];
    let sizes = [0, 1, 2, 3, 257, 1025, 5003];
    for e in &engines() {
        for (di, dist) in dists.iter().enumerate() {
            for n in sizes {
                let keys: Vec<K> = generate(dist, n, seed(n, 200 + di as u64));
                for (lo, hi) in ranges {
                    for order in ORDERS {
                        for o in sort_configs(e) {
                            check_sort(&f, e, &o.order(order).bits(lo, hi), &dist.name(), &keys);
                        }
                    }
                }
            }
        }
    }
    f.finish(&format!("bit_ranges::<{}>", K::DTYPE));
}

/// Every size in 0..=300, every variant, both orders.
fn window<K: RadixKey>() {
    let f = Failures::new();
    for e in &engines() {
        let configs = sort_configs(e);
        for n in 0..=300usize {
            let dist = if n % 3 == 2 {
                Distribution::FewDistinct(5)
            } else {
                Distribution::Uniform
            };
            let keys: Vec<K> = generate(&dist, n, seed(n, 300));
            for order in ORDERS {
                for o in &configs {
                    check_sort(&f, e, &o.clone().order(order), &dist.name(), &keys);
                }
            }
        }
    }
    f.finish(&format!("window::<{}>", K::DTYPE));
}

/// Powers of two and their neighbours up to 2^16, every key type, both orders.
fn powers_of_two<K: RadixKey>() {
    let f = Failures::new();
    for e in &engines() {
        for n in pow2_neighbours(0, 16) {
            let dist = pow2_dist(n);
            let keys: Vec<K> = generate(&dist, n, seed(n, 400));
            for order in ORDERS {
                for o in sort_configs_quick(e) {
                    check_sort(&f, e, &o.order(order), &dist.name(), &keys);
                }
            }
        }
    }
    f.finish(&format!("powers_of_two::<{}>", K::DTYPE));
}

/// Odd sizes see uniform keys, even ones reduced entropy.
fn pow2_dist(n: usize) -> Distribution {
    if n % 2 == 1 {
        Distribution::Uniform
    } else {
        Distribution::Entropy(EntropyPreset::E0811)
    }
}

/// Powers of two and their neighbours from 2^17 up to 2^20 on the CPU and 2^26 on CUDA (where
/// the reference costs seconds per sort, so above 2^20 only 2^k and 2^k + 1), the default
/// variant.
fn large_powers_of_two<K: RadixKey>(every_neighbour: bool) {
    let f = Failures::new();
    for e in &engines() {
        let mut sizes = if every_neighbour {
            pow2_neighbours(17, 20)
        } else {
            vec![(1 << 20) - 1, (1 << 20) + 1]
        };
        for k in 21..=max_pow2(e) {
            sizes.extend([(1usize << k) + 1, 1 << k]);
        }
        for n in sizes {
            let dist = pow2_dist(n);
            let keys: Vec<K> = generate(&dist, n, seed(n, 500));
            for order in ORDERS {
                let o = SortOptions::new().order(order);
                let expected = par_reference(&keys, &o);
                let case = Case::new(e, describe(&o), K::DTYPE.name(), dist.name(), n);
                f.checked();
                let mut actual = keys.clone();
                if f.ok(&case, "sort", e.sort(&mut actual, &o)).is_some() {
                    if let Err(m) = compare_keys(&expected, &actual) {
                        f.fail(format!("{case}: sort: {m}"));
                    }
                }
            }
        }
    }
    f.finish(&format!("large_powers_of_two::<{}>", K::DTYPE));
}

/// The reference's definition (a stable sort by [`sort_image`]) run with rayon's stable
/// parallel sort: the same output as `reference::sort_keys`, affordable at 2^26 keys.
fn par_reference<K: RadixKey>(keys: &[K], opts: &SortOptions) -> Vec<K> {
    if keys.len() <= 1 << 16 {
        return reference::sort_keys(keys, opts);
    }
    let mut v = keys.to_vec();
    v.par_sort_by_key(|k| sort_image(*k, opts));
    v
}

macro_rules! key_suite {
    ($($t:ty => $m:ident),* $(,)?) => {$(
        mod $m {
            use super::*;
            #[test]
            fn distributions() {
                distributions_sweep::<$t>();
            }
            #[test]
            fn configs() {
                configs_sweep::<$t>();
            }
            #[test]
            fn bit_subranges() {
                bit_ranges::<$t>();
            }
            #[test]
            fn every_size_to_300() {
                window::<$t>();
            }
            #[test]
            fn powers_of_two_and_neighbours() {
                powers_of_two::<$t>();
            }
        }
    )*};
}

key_suite!(
    u8 => key_u8,
    u16 => key_u16,
    u32 => key_u32,
    u64 => key_u64,
    u128 => key_u128,
    i8 => key_i8,
    i16 => key_i16,
    i32 => key_i32,
    i64 => key_i64,
    i128 => key_i128,
    f32 => key_f32,
    f64 => key_f64,
);

/// The large sweep: every neighbour for u32 and f64, 2^20 ± 1 for the other common types.
macro_rules! large_suite {
    ($($t:ty => $name:ident, $every:expr),* $(,)?) => {$(
        #[test]
        fn $name() {
            large_powers_of_two::<$t>($every);
        }
    )*};
}

large_suite!(
    u32 => large_powers_of_two_u32, true,
    u64 => large_powers_of_two_u64, false,
    i32 => large_powers_of_two_i32, false,
    f32 => large_powers_of_two_f32, false,
    f64 => large_powers_of_two_f64, true,
);

/// NaN of both signs and with payloads, ±inf, ±0.0, subnormals, extremes: sorted bit-exactly in
/// the order of `total_cmp` (which the reference is also checked against here).
fn float_specials<K: RadixKey>(specials: &[K], total_cmp: impl Fn(&K, &K) -> std::cmp::Ordering) {
    let f = Failures::new();
    // The reference itself follows total_cmp.
    let mut by_cmp = specials.to_vec();
    by_cmp.sort_by(&total_cmp);
    let r = reference::sort_keys(specials, &SortOptions::new());
    compare_keys(&by_cmp, &r).expect("the reference disagrees with total_cmp");
    let mut desc = by_cmp.clone();
    desc.reverse();
    let r = reference::sort_keys(specials, &SortOptions::new().descending());
    compare_keys(&desc, &r).expect("the reference's descending order disagrees with total_cmp");

    for e in &engines() {
        for reps in [1usize, 3, 40, 700] {
            // Repeat and shuffle deterministically so ties and both halves of a tile get specials.
            let mut keys: Vec<K> = Vec::new();
            for r in 0..reps {
                for (i, k) in specials.iter().enumerate() {
                    keys.insert((i * 7 + r * 13) % (keys.len() + 1), *k);
                }
            }
            for order in ORDERS {
                for o in sort_configs(e) {
                    check_sort(&f, e, &o.order(order), "hand-picked specials", &keys);
                }
            }
        }
        for n in [1000, 4097, 100_003] {
            let keys: Vec<K> = generate(&Distribution::FloatSpecials, n, n as u64);
            for order in ORDERS {
                for o in sort_configs_quick(e) {
                    check_sort(&f, e, &o.order(order), "specials", &keys);
                }
            }
        }
    }
    f.finish(&format!("float_specials::<{}>", K::DTYPE));
}

#[test]
fn f32_specials_bit_exact() {
    let v = vec![
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001), // signalling NaN
        f32::from_bits(0xffc0_1234), // negative NaN with payload
        f32::from_bits(0x7fff_ffff),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
        0.5,
        -2.5,
        1e30,
        -1e-30,
    ];
    float_specials(&v, f32::total_cmp);
}

#[test]
fn f64_specials_bit_exact() {
    let v = vec![
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001),
        f64::from_bits(0xfff8_0000_dead_beef),
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::from_bits(0x8000_0000_0000_0001),
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        1.0,
        -1.0,
        1e300,
        -1e-300,
        3.25,
    ];
    float_specials(&v, f64::total_cmp);
}

/// Integer extremes: MIN, MAX, 0, ±1 in every order.
#[test]
fn integer_extremes() {
    fn run<K: RadixKey + Ord>(v: &[K]) {
        let f = Failures::new();
        let mut keys = Vec::new();
        for r in 0..50 {
            for (i, k) in v.iter().enumerate() {
                keys.insert((i * 5 + r * 3) % (keys.len() + 1), *k);
            }
        }
        let mut sorted = keys.clone();
        sorted.sort();
        compare_keys(&sorted, &reference::sort_keys(&keys, &SortOptions::new())).unwrap();
        for e in &engines() {
            for order in ORDERS {
                for o in sort_configs(e) {
                    check_sort(&f, e, &o.order(order), "extremes", &keys);
                }
            }
        }
        f.finish(&format!("integer_extremes::<{}>", K::DTYPE));
    }
    run(&[i8::MIN, i8::MAX, 0, 1, -1, i8::MIN + 1]);
    run(&[i16::MIN, i16::MAX, 0, 1, -1]);
    run(&[i32::MIN, i32::MAX, 0, 1, -1]);
    run(&[i64::MIN, i64::MAX, 0, 1, -1]);
    run(&[i128::MIN, i128::MAX, 0, 1, -1, i128::MAX - 1]);
    run(&[0u8, 1, u8::MAX, u8::MAX - 1]);
    run(&[0u64, 1, u64::MAX, 1 << 63, (1 << 63) - 1]);
    run(&[0u128, 1, u128::MAX, 1 << 127, 1 << 64, (1 << 64) - 1]);
}

/// Sorting an already sorted output again changes nothing, and the all-zero-entropy input (every
/// radix image zero) comes back unchanged.
#[test]
fn idempotent_and_constant_inputs() {
    let f = Failures::new();
    for e in &engines() {
        for n in [0, 1, 1000, 70_001] {
            let keys: Vec<u64> = generate(&Distribution::Entropy(EntropyPreset::Zero), n, 1);
            check_sort(&f, e, &SortOptions::new(), "entropy-0", &keys);
            let keys: Vec<i32> = generate(&Distribution::Uniform, n, 2);
            let once = reference::sort_keys(&keys, &SortOptions::new());
            check_sort(&f, e, &SortOptions::new(), "sorted output", &once);
            check_sort(
                &f,
                e,
                &SortOptions::new().descending(),
                "sorted output",
                &once,
            );
        }
    }
    f.finish("idempotent_and_constant_inputs");
}
