//! Prefix scans on every engine and variant against `histosort::reference`: integers exactly
//! (wrapping), floats exactly where every partial sum is an exactly representable integer and
//! within a relative tolerance otherwise (backends associate the sum differently).

mod common;

use common::*;
use histosort::gen::{generate, Distribution, Rng};
use histosort::reference;
use histosort::{Engine, ScanAlgorithm, ScanElem, ScanKind};

const KINDS: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];

/// Sizes around the usual block sizes (256 threads x 1..8 items, the CPU's 2^16 blocks), around
/// the look-back scan's tiles for 4- and 8-byte elements (one tile minus one to two plus one,
/// many tiles plus a remainder) and 2^20 + 1.
fn sizes() -> Vec<usize> {
    let mut v = SMALL_SIZES.to_vec();
    v.extend_from_slice(TILE_SIZES);
    for bytes in [4, 8] {
        let t = histosort::tuning::cuda::scan_lb_tile(bytes) as usize;
        v.extend([t - 1, t, t + 1, 2 * t - 1, 2 * t, 2 * t + 1, 37 * t + 5]);
        // The pipelined kernel's tile (the default on sm_90), and more tiles than its grid
        // holds stages.
        let t = histosort::tuning::cuda::scan_pipe_shape().tile(bytes) as usize;
        v.extend([t - 1, t, t + 1, 2 * t + 1, 1500 * t + 3]);
    }
    // A look-back window of 32 x windows tiles, and one more tile.
    let t = histosort::tuning::cuda::scan_lb_tile(4) as usize;
    let w = 32 * histosort::tuning::cuda::scan_lb_shape().windows as usize;
    v.extend([w * t, (w + 1) * t + 3]);
    v.extend([
        65_535,
        65_536,
        65_537,
        131_071,
        131_073,
        200_001,
        (1 << 20) + 1,
    ]);
    v
}

fn run<T: ScanElem>(
    f: &Failures,
    e: &Engine,
    a: ScanAlgorithm,
    kind: ScanKind,
    dist: &str,
    data: &[T],
    check: impl Fn(&[T], &[T]) -> Result<(), String>,
) {
    let case = Case::new(e, format!("{a}/{kind}"), T::DTYPE.name(), dist, data.len());
    f.checked();
    let expected = reference::scan(data, kind);
    let mut out = vec![T::ZERO; data.len()];
    if f.ok(&case, "scan_into", e.scan_into(data, &mut out, kind, a))
        .is_some()
    {
        if let Err(m) = check(&expected, &out) {
            f.fail(format!("{case}: scan: {m}"));
        }
    }
    // The convenience call runs the default variant; check it once per case family.
    if a == ScanAlgorithm::Auto {
        if let Some(out) = f.ok(&case, "scan", e.scan(data, kind)) {
            if let Err(m) = check(&expected, &out) {
                f.fail(format!("{case}: scan (Auto): {m}"));
            }
        }
    }
}

fn exact_ints<T: ScanElem + histosort::RadixKey>() {
    let f = Failures::new();
    for e in &engines() {
        for (i, n) in sizes().into_iter().enumerate() {
            // Full-width random values wrap; small ones do not.
            let wide: Vec<T> = generate(&Distribution::Uniform, n, i as u64);
            let small: Vec<T> = generate(&Distribution::FewDistinct(4), n, i as u64);
            for a in scan_variants(e) {
                for kind in KINDS {
                    run(&f, e, a, kind, "uniform (wrapping)", &wide, compare_values);
                    run(&f, e, a, kind, "distinct-4", &small, compare_values);
                }
            }
        }
    }
    f.finish(&format!("exact_ints::<{}>", <T as ScanElem>::DTYPE));
}

#[test]
fn scan_u32() {
    exact_ints::<u32>();
}
#[test]
fn scan_u64() {
    exact_ints::<u64>();
}
#[test]
fn scan_i32() {
    exact_ints::<i32>();
}
#[test]
fn scan_i64() {
    exact_ints::<i64>();
}

/// Float element types: conversion from small integers and the tolerance of a sum.
trait FloatElem: ScanElem {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    const REL_TOL: f64;
}
impl FloatElem for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const REL_TOL: f64 = 2e-3;
}
impl FloatElem for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    const REL_TOL: f64 = 1e-9;
}

fn exact_floats<T: FloatElem>(expected: &[T], actual: &[T]) -> Result<(), String> {
    let bits = |v: &[T]| -> Vec<u64> { v.iter().map(|x| x.to_f64().to_bits()).collect() };
    // Bit-exact: integer-valued partial sums below 2^24 are exact in any association order.
    compare_values(&bits(expected), &bits(actual)).map_err(|m| format!("{m} (as f64 bits)"))
}

fn close_floats<T: FloatElem>(expected: &[T], actual: &[T]) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!(
            "length {} but expected {}",
            actual.len(),
            expected.len()
        ));
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        let (e, a) = (e.to_f64(), a.to_f64());
        // Positive summands: the partial sums grow, so a relative bound fits; the absolute term
        // covers the first few elements.
        if (e - a).abs() > T::REL_TOL * e.abs() + 1e-6 || a.is_nan() {
            return Err(format!(
                "first mismatch at index {i}: expected {e}, actual {a} (relative tolerance {})",
                T::REL_TOL
            ));
        }
    }
    Ok(())
}

/// Mixed signs: partial sums can be near zero while the rounding error grows with the sum of
/// |x| so far, so the bound at element i is `REL_TOL * sum(|x[..=i]|)` (the error bound of any
/// association order of the sum, times a margin).
fn close_signed_floats<T: FloatElem>(data: &[T]) -> impl Fn(&[T], &[T]) -> Result<(), String> + '_ {
    move |expected: &[T], actual: &[T]| {
        if expected.len() != actual.len() {
            return Err(format!(
                "length {} but expected {}",
                actual.len(),
                expected.len()
            ));
        }
        let mut abs = 0.0f64;
        for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
            // Exclusive scans see the magnitude of the elements before i; including x[i] only
            // loosens the bound by one element.
            abs += data[i].to_f64().abs();
            let (e, a) = (e.to_f64(), a.to_f64());
            if (e - a).abs() > T::REL_TOL * abs + 1e-6 || a.is_nan() {
                return Err(format!(
                    "first mismatch at index {i}: expected {e}, actual {a} (bound {} = {} x sum |x|)",
                    T::REL_TOL * abs + 1e-6,
                    T::REL_TOL
                ));
            }
        }
        Ok(())
    }
}

fn floats<T: FloatElem>() {
    let f = Failures::new();
    for e in &engines() {
        for (i, n) in sizes().into_iter().enumerate() {
            let mut rng = Rng::new(i as u64);
            // Integers in -8..8: every partial sum stays below 2^24 in magnitude, so exact.
            let ints: Vec<T> = (0..n)
                .map(|_| T::from_f64(rng.below(16) as f64 - 8.0))
                .collect();
            let unit: Vec<T> = (0..n).map(|_| T::from_f64(rng.unit_f64())).collect();
            let signed: Vec<T> = (0..n)
                .map(|_| T::from_f64(rng.unit_f64() * 2.0 - 1.0))
                .collect();
            for a in scan_variants(e) {
                for kind in KINDS {
                    run(&f, e, a, kind, "small integers", &ints, exact_floats::<T>);
                    run(&f, e, a, kind, "uniform [0,1)", &unit, close_floats::<T>);
                    let check = close_signed_floats(&signed);
                    run(&f, e, a, kind, "uniform [-1,1)", &signed, check);
                }
            }
        }
    }
    f.finish(&format!("floats::<{}>", T::DTYPE));
}

#[test]
fn scan_f32() {
    floats::<f32>();
}
#[test]
fn scan_f64() {
    floats::<f64>();
}

/// An output slice of the wrong length is an error, on every engine and variant.
#[test]
fn scan_length_mismatch_is_an_error() {
    for e in &engines() {
        for a in scan_variants(e) {
            let mut out = vec![0u32; 3];
            let err = e
                .scan_into(&[1u32, 2, 3, 4], &mut out, ScanKind::Inclusive, a)
                .expect_err("mismatched scan output length must fail");
            let m = err.to_string();
            assert!(
                m.contains('3') && m.contains('4'),
                "engine={} variant={a}: message '{m}' should give both lengths",
                engine_name(e)
            );
        }
    }
    let cpu = Engine::cpu();
    let mut out = vec![0u32; 2];
    assert!(cpu
        .scan_into(
            &[1u32, 2],
            &mut out,
            ScanKind::Inclusive,
            ScanAlgorithm::ReduceThenScan
        )
        .is_err());
}
