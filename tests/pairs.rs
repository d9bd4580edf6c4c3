//! Pair sorts and argsorts on every engine and variant, against `histosort::reference`.
//! Stability is proven with payload = original index: within each run of equal sort images the
//! payloads must strictly increase.

mod common;

use bytemuck::Pod;
use common::*;
use histosort::gen::{generate, Distribution, EntropyPreset};
use histosort::reference::{self, sort_image};
use histosort::{Order, Permutation, RadixKey, SortIndex, SortOptions};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Payloads built from the input index.
trait Payload: Pod + PartialEq + std::fmt::Debug + Send + Sync {
    const NAME: &'static str;
    fn from_index(i: usize) -> Self;
    /// The index back, when the payload keeps all of it.
    fn index(self) -> Option<u64>;
}

impl Payload for u32 {
    const NAME: &'static str = "u32-index";
    fn from_index(i: usize) -> Self {
        i as u32
    }
    fn index(self) -> Option<u64> {
        Some(self as u64)
    }
}
impl Payload for u64 {
    const NAME: &'static str = "u64-index";
    fn from_index(i: usize) -> Self {
        // High bits set, so a payload truncated to 32 bits shows.
        i as u64 | 0xabcd_0000_0000_0000
    }
    fn index(self) -> Option<u64> {
        Some(self & 0xffff_ffff_ffff)
    }
}
impl Payload for u8 {
    const NAME: &'static str = "u8";
    fn from_index(i: usize) -> Self {
        (i * 37) as u8
    }
    fn index(self) -> Option<u64> {
        None
    }
}
impl Payload for u16 {
    const NAME: &'static str = "u16";
    fn from_index(i: usize) -> Self {
        (i * 7919) as u16
    }
    fn index(self) -> Option<u64> {
        None
    }
}
impl Payload for [u64; 2] {
    const NAME: &'static str = "[u64;2]";
    fn from_index(i: usize) -> Self {
        [i as u64, !(i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)]
    }
    fn index(self) -> Option<u64> {
        Some(self[0])
    }
}

/// Sorts `keys` with index-derived payloads of type `V` and checks keys, stability and values.
fn check_pairs<K: RadixKey, V: Payload>(
    f: &Failures,
    e: &histosort::Engine,
    o: &SortOptions,
    dist: &str,
    keys: &[K],
) {
    let case = Case::new(
        e,
        format!("{} values={}", describe(o), V::NAME),
        K::DTYPE.name(),
        dist,
        keys.len(),
    );
    f.checked();
    let values: Vec<V> = (0..keys.len()).map(V::from_index).collect();
    let (ek, ev) = reference::sort_pairs(keys, &values, o);
    let mut ak = keys.to_vec();
    let mut av = values.clone();
    if f.ok(&case, "sort_pairs", e.sort_pairs(&mut ak, &mut av, o))
        .is_none()
    {
        return;
    }
    if let Err(m) = compare_keys(&ek, &ak) {
        f.fail(format!("{case}: sort_pairs keys: {m}"));
        return;
    }
    for i in 1..ak.len() {
        if sort_image(ak[i - 1], o) != sort_image(ak[i], o) {
            continue;
        }
        if let (Some(p), Some(q)) = (av[i - 1].index(), av[i].index()) {
            if p >= q {
                f.fail(format!(
                    "{case}: not stable at index {i}: key {} has payload {q} after payload {p} \
                     of an equal key",
                    show(ak[i])
                ));
                return;
            }
        }
    }
    if let Err(m) = compare_values(&ev, &av) {
        f.fail(format!("{case}: sort_pairs values: {m}"));
    }
}

/// argsort_as::<u32>, argsort_as::<u64> and argsort (Permutation) against the reference.
fn check_argsort<K: RadixKey>(
    f: &Failures,
    e: &histosort::Engine,
    o: &SortOptions,
    dist: &str,
    keys: &[K],
) {
    let case = Case::new(
        e,
        format!("{} argsort", describe(o)),
        K::DTYPE.name(),
        dist,
        keys.len(),
    );
    f.checked();
    let expected: Vec<u64> = reference::argsort(keys, o);
    fn widen<I: SortIndex>(v: Vec<I>) -> Vec<u64> {
        v.into_iter().map(|i| i.to_usize() as u64).collect()
    }
    if let Some(p) = f.ok(&case, "argsort_as::<u32>", e.argsort_as::<K, u32>(keys, o)) {
        if let Err(m) = compare_values(&expected, &widen(p)) {
            f.fail(format!("{case}: argsort_as::<u32>: {m}"));
        }
    }
    if let Some(p) = f.ok(&case, "argsort_as::<u64>", e.argsort_as::<K, u64>(keys, o)) {
        if let Err(m) = compare_values(&expected, &widen(p)) {
            f.fail(format!("{case}: argsort_as::<u64>: {m}"));
        }
    }
    if let Some(p) = f.ok(&case, "argsort", e.argsort(keys, o)) {
        match &p {
            Permutation::U32(v) => {
                if let Err(m) = compare_values(&expected, &widen(v.clone())) {
                    f.fail(format!("{case}: argsort: {m}"));
                }
            }
            Permutation::U64(_) => f.fail(format!(
                "{case}: argsort chose u64 indices for {} keys",
                keys.len()
            )),
        }
        if let Err(m) = compare_keys(&reference::sort_keys(keys, o), &p.apply(keys)) {
            f.fail(format!("{case}: argsort applied: {m}"));
        }
    }
}

fn seed(n: usize, salt: u64) -> u64 {
    (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt
}

/// Distributions with many ties (where stability shows) and without.
fn pair_dists() -> Vec<Distribution> {
    vec![
        Distribution::Uniform,
        Distribution::FewDistinct(1),
        Distribution::FewDistinct(3),
        Distribution::FewDistinct(64),
        Distribution::Entropy(EntropyPreset::E0337),
        Distribution::Entropy(EntropyPreset::Zero),
        Distribution::Sorted,
        Distribution::Reversed,
        Distribution::FloatSpecials,
    ]
}

/// Index payloads (u32 and u64) through every variant, both orders and a few bit ranges.
fn index_payloads<K: RadixKey>() {
    let f = Failures::new();
    let b = <K::Bits as histosort::RadixBits>::BITS;
    let mut sizes = vec![
        0, 1, 2, 3, 5, 17, 100, 255, 256, 257, 1023, 1024, 1025, 2049, 4097, 30_001,
    ];
    sizes.extend([8191, 8193]);
    for e in &engines() {
        for (di, dist) in pair_dists().iter().enumerate() {
            for &n in &sizes {
                let keys: Vec<K> = generate(dist, n, seed(n, di as u64));
                for order in ORDERS {
                    for (ci, o) in sort_configs(e).into_iter().enumerate() {
                        let o = o.order(order);
                        check_pairs::<K, u32>(&f, e, &o, &dist.name(), &keys);
                        // u64 payloads and bit ranges on fewer combinations.
                        if ci % 2 == 0 {
                            check_pairs::<K, u64>(&f, e, &o, &dist.name(), &keys);
                        }
                        if n <= 4097 {
                            let lo = (ci as u32 * 3) % b;
                            let o = o.bits(lo, (lo + 7).min(b));
                            check_pairs::<K, u32>(&f, e, &o, &dist.name(), &keys);
                        }
                    }
                }
            }
        }
    }
    f.finish(&format!("index_payloads::<{}>", K::DTYPE));
}

/// Values of 1, 2, 8 and 16 bytes; the default and one explicit variant.
fn value_widths<K: RadixKey>() {
    let f = Failures::new();
    for e in &engines() {
        for (di, dist) in [Distribution::Uniform, Distribution::FewDistinct(5)]
            .iter()
            .enumerate()
        {
            for n in [0, 1, 2, 3, 255, 257, 1025, 4097, 20_001] {
                let keys: Vec<K> = generate(dist, n, seed(n, 50 + di as u64));
                for order in ORDERS {
                    for o in sort_configs_quick(e) {
                        let o = o.order(order);
                        check_pairs::<K, u8>(&f, e, &o, &dist.name(), &keys);
                        check_pairs::<K, u16>(&f, e, &o, &dist.name(), &keys);
                        check_pairs::<K, u64>(&f, e, &o, &dist.name(), &keys);
                        check_pairs::<K, [u64; 2]>(&f, e, &o, &dist.name(), &keys);
                    }
                }
            }
        }
    }
    f.finish(&format!("value_widths::<{}>", K::DTYPE));
}

/// argsort in both index types and as a Permutation.
fn argsorts<K: RadixKey>() {
    let f = Failures::new();
    for e in &engines() {
        for (di, dist) in pair_dists().iter().enumerate() {
            for n in [0, 1, 2, 3, 7, 256, 257, 1025, 4097, 10_001] {
                let keys: Vec<K> = generate(dist, n, seed(n, 70 + di as u64));
                for order in ORDERS {
                    for o in sort_configs_quick(e) {
                        check_argsort(&f, e, &o.order(order), &dist.name(), &keys);
                    }
                }
                let o = SortOptions::new().bits(1, 9.min(<K::Bits as histosort::RadixBits>::BITS));
                check_argsort(&f, e, &o, &dist.name(), &keys);
            }
        }
    }
    f.finish(&format!("argsorts::<{}>", K::DTYPE));
}

macro_rules! pair_suite {
    ($($t:ty => $m:ident),* $(,)?) => {$(
        mod $m {
            use super::*;
            #[test]
            fn index_payloads_are_stable() {
                index_payloads::<$t>();
            }
            #[test]
            fn values_of_1_2_8_16_bytes() {
                value_widths::<$t>();
            }
            #[test]
            fn argsort_matches_reference() {
                argsorts::<$t>();
            }
        }
    )*};
}

pair_suite!(
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

/// A large stable sort with many ties, where a parallel scatter's chunk boundaries fall inside
/// runs of equal keys.
#[test]
fn large_pairs_with_ties() {
    let f = Failures::new();
    for e in &engines() {
        for n in [(1 << 20) + 1, 1 << 20] {
            let keys: Vec<u32> = generate(&Distribution::FewDistinct(100), n, 3);
            check_pairs::<u32, u32>(&f, e, &SortOptions::new(), "distinct-100", &keys);
            let keys: Vec<f64> = generate(&Distribution::Entropy(EntropyPreset::E0201), n, 4);
            check_pairs::<f64, u64>(
                &f,
                e,
                &SortOptions::new().descending(),
                "entropy-0.201",
                &keys,
            );
        }
    }
    f.finish("large_pairs_with_ties");
}
