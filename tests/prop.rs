//! Property tests: arbitrary vectors, random bit ranges, both orders and a random variant of
//! each engine sort exactly like the reference (keys, pairs and argsort). Case counts stay
//! modest so that CI on two cores stays fast.

mod common;

use common::*;
use histosort::reference;
use histosort::{Order, RadixBits, RadixKey, SortOptions};
use proptest::prelude::*;

const CASES: u32 = 64;

/// Options from the generated parameters, for engine `e`.
fn options<K: RadixKey>(
    e: &histosort::Engine,
    config: usize,
    descending: bool,
    a: u32,
    b: u32,
) -> SortOptions {
    let configs = sort_configs(e);
    let bits = K::Bits::BITS;
    let (a, b) = (a % (bits + 1), b % (bits + 1));
    let o = configs[config % configs.len()]
        .clone()
        .order(if descending {
            Order::Descending
        } else {
            Order::Ascending
        });
    // One case in four sorts on every bit.
    if (a + b) % 4 == 0 {
        o
    } else {
        o.bits(a.min(b), a.max(b))
    }
}

fn check_all<K: RadixKey>(
    keys: &[K],
    config: usize,
    descending: bool,
    a: u32,
    b: u32,
) -> Result<(), TestCaseError> {
    for e in &engines() {
        let o = options::<K>(e, config, descending, a, b);
        let case = Case::new(e, describe(&o), K::DTYPE.name(), "proptest", keys.len());
        let expected = reference::sort_keys(keys, &o);
        let mut actual = keys.to_vec();
        e.sort(&mut actual, &o)
            .map_err(|err| TestCaseError::fail(format!("{case}: sort returned an error: {err}")))?;
        compare_keys(&expected, &actual)
            .map_err(|m| TestCaseError::fail(format!("{case}: sort: {m}")))?;

        let idx: Vec<u32> = (0..keys.len() as u32).collect();
        let (ek, ev) = reference::sort_pairs(keys, &idx, &o);
        let (mut ak, mut av) = (keys.to_vec(), idx.clone());
        e.sort_pairs(&mut ak, &mut av, &o).map_err(|err| {
            TestCaseError::fail(format!("{case}: sort_pairs returned an error: {err}"))
        })?;
        compare_keys(&ek, &ak)
            .map_err(|m| TestCaseError::fail(format!("{case}: sort_pairs keys: {m}")))?;
        compare_values(&ev, &av).map_err(|m| {
            TestCaseError::fail(format!(
                "{case}: sort_pairs index payloads (stability): {m}"
            ))
        })?;

        let p = e.argsort_as::<K, u32>(keys, &o).map_err(|err| {
            TestCaseError::fail(format!("{case}: argsort returned an error: {err}"))
        })?;
        compare_values(&ev, &p)
            .map_err(|m| TestCaseError::fail(format!("{case}: argsort: {m}")))?;
    }
    Ok(())
}

macro_rules! prop_suite {
    ($($name:ident: $strategy:expr => $t:ty),* $(,)?) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]
            $(
                #[test]
                fn $name(
                    keys in prop::collection::vec($strategy, 0..2000),
                    config in 0usize..64,
                    descending in any::<bool>(),
                    a in 0u32..200,
                    b in 0u32..200,
                ) {
                    let keys: Vec<$t> = keys;
                    check_all(&keys, config, descending, a, b)?;
                }
            )*
        }
    };
}

prop_suite!(
    prop_u8: any::<u8>() => u8,
    prop_u32: any::<u32>() => u32,
    // Few distinct values: long runs of equal keys, where stability shows.
    prop_u32_ties: (0u32..8).prop_map(|x| x.wrapping_mul(0x8000_1001)) => u32,
    prop_i16: any::<i16>() => i16,
    prop_i64: any::<i64>() => i64,
    prop_u128: any::<u128>() => u128,
    // Every bit pattern, NaNs with payloads included.
    prop_f32: any::<u32>().prop_map(f32::from_bits) => f32,
    prop_f64: prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        prop::sample::select(vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, 1.0, -1.0]),
    ] => f64,
);
