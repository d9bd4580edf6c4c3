//! Bad sort arguments return `Err` with a message a user can act on, on every engine and
//! variant, and leave the data untouched.

mod common;

use common::*;
use histosort::{Engine, SortAlgorithm, SortOptions};

fn expect_err<T: std::fmt::Debug>(
    e: &Engine,
    o: &SortOptions,
    what: &str,
    r: histosort::Result<T>,
    needles: &[&str],
) {
    let err = match r {
        Ok(v) => panic!(
            "engine={} variant={}: {what} should fail, returned {v:?}",
            engine_name(e),
            describe(o)
        ),
        Err(err) => err.to_string(),
    };
    for n in needles {
        assert!(
            err.contains(n),
            "engine={} variant={}: {what}: message '{err}' should mention '{n}'",
            engine_name(e),
            describe(o)
        );
    }
}

#[test]
fn mismatched_pair_lengths() {
    for e in &engines() {
        for o in sort_configs(e) {
            let mut keys = vec![3u32, 1, 2];
            let mut vals = vec![0u64; 2];
            let r = e.sort_pairs(&mut keys, &mut vals, &o);
            expect_err(e, &o, "3 keys, 2 values", r, &["3", "2", "length"]);
            assert_eq!(keys, [3, 1, 2], "keys changed by a failed call");
            let mut empty: Vec<u8> = vec![];
            let r = e.sort_pairs(&mut keys, &mut empty, &o);
            expect_err(e, &o, "3 keys, 0 values", r, &["3", "0"]);
        }
    }
}

#[test]
fn bad_bit_ranges() {
    for e in &engines() {
        for o in sort_configs(e) {
            let mut keys = vec![3u32, 1, 2];
            let bad = o.clone().bits(8, 4);
            expect_err(
                e,
                &bad,
                "begin > end",
                e.sort(&mut keys, &bad),
                &["[8, 4)", "32"],
            );
            let bad = o.clone().bits(0, 33);
            expect_err(
                e,
                &bad,
                "end > 32",
                e.sort(&mut keys, &bad),
                &["[0, 33)", "32"],
            );
            let bad = o.clone().bits(9, 9 + 8);
            let mut small = vec![1u8, 2];
            expect_err(
                e,
                &bad,
                "u8 bits [9, 17)",
                e.sort(&mut small, &bad),
                &["8 bits"],
            );
            let bad = o.clone().bits(0, 129);
            let mut wide = vec![1u128, 2];
            expect_err(
                e,
                &bad,
                "u128 bits [0, 129)",
                e.sort(&mut wide, &bad),
                &["128"],
            );
            expect_err(
                e,
                &bad,
                "argsort u128 bits [0, 129)",
                e.argsort(&wide, &bad),
                &["128"],
            );
            let mut vals = vec![0u32; 2];
            expect_err(
                e,
                &bad,
                "pairs u128 bits [0, 129)",
                e.sort_pairs(&mut wide, &mut vals, &bad),
                &["128"],
            );
            assert_eq!(keys, [3, 1, 2], "keys changed by a failed call");
        }
    }
}

#[test]
fn bad_digit_widths() {
    for e in &engines() {
        for o in sort_configs(e) {
            for d in [0, 17, 64] {
                let bad = o.clone().digit_bits(d);
                let mut keys = vec![3i64, -1, 2];
                expect_err(
                    e,
                    &bad,
                    "digit width",
                    e.sort(&mut keys, &bad),
                    &["digit", &d.to_string()],
                );
                expect_err(
                    e,
                    &bad,
                    "argsort digit width",
                    e.argsort(&keys, &bad),
                    &["digit"],
                );
                assert_eq!(keys, [3, -1, 2]);
            }
        }
    }
}

/// A variant of another backend is an error naming it, never a silent fallback.
#[test]
fn variants_of_other_backends() {
    let cpu = Engine::cpu();
    let o = SortOptions::new().algorithm(SortAlgorithm::ThreePhase);
    let mut keys = vec![2u32, 1];
    expect_err(
        &cpu,
        &o,
        "three-phase on the CPU",
        cpu.sort(&mut keys, &o),
        &["three-phase"],
    );
    for e in engines().iter().filter(|e| is_cuda(e)) {
        let o = SortOptions::new().algorithm(SortAlgorithm::CpuLsd);
        expect_err(
            e,
            &o,
            "cpu-lsd on CUDA",
            e.sort(&mut keys, &o),
            &["cpu-lsd"],
        );
    }
}

/// Valid edge options: an empty bit range sorts nothing (and keeps the order), and digit widths
/// wider than the key are fine.
#[test]
fn valid_edge_options() {
    for e in &engines() {
        for o in sort_configs(e) {
            let mut keys = vec![3u8, 1, 2, 1, 0];
            e.sort(&mut keys, &o.clone().bits(5, 5)).unwrap();
            assert_eq!(keys, [3, 1, 2, 1, 0], "{}", describe(&o));
            e.sort(&mut keys, &o.clone().bits(8, 8)).unwrap();
            assert_eq!(keys, [3, 1, 2, 1, 0], "{}", describe(&o));
            e.sort(&mut keys, &o).unwrap();
            assert_eq!(keys, [0, 1, 1, 2, 3], "{}", describe(&o));
            let mut none: Vec<f64> = vec![];
            e.sort(&mut none, &o).unwrap();
            let mut vals: Vec<u8> = vec![];
            e.sort_pairs(&mut none, &mut vals, &o).unwrap();
            assert!(e.argsort(&none, &o).unwrap().is_empty());
        }
    }
}

/// A bin count of 0 or past `MAX_BINS` is an error on every engine, not an allocation failure.
#[test]
fn too_many_bins() {
    use histosort::sample::MAX_BINS;
    use histosort::HistogramAlgorithm;
    for e in &engines() {
        let data = [1u32, 2, 3];
        for bins in [0, MAX_BINS + 1, usize::MAX] {
            let r = e.histogram_even(&data, bins, 0, 10, HistogramAlgorithm::Auto);
            let err = r.expect_err("bins out of range");
            assert!(err.to_string().contains("bins"), "{bins}: {err}");
        }
    }
}
