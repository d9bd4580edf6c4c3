//! The CUDA runtime: device-resident calls, plans, graph mode, out-of-place inputs, errors.
//! The per-variant comparisons with the reference live in the shared suite (sort.rs, ...);
//! these tests cover what only the CUDA backend has. They skip without a GPU and fail instead
//! with HISTOSORT_REQUIRE_GPU=1.

mod common;

use histosort::cuda::{CudaBackend, DeviceBuffer};
use histosort::{
    reference, Engine, Error, HistogramAlgorithm, LaunchMode, RadixKey, ScanKind, SortAlgorithm,
    SortOptions,
};

fn gpu() -> Option<Engine> {
    common::cuda_engine()
}

/// `e.sort_pairs` of `input` and `vals` under `o` gives the reference's keys, bit for bit, and
/// its payloads (the first payload that differs is reported with both values).
fn pairs<K: RadixKey, V: histosort::Value + PartialEq + std::fmt::Debug>(
    e: &Engine,
    input: &[K],
    vals: &[V],
    o: &SortOptions,
    what: &str,
) {
    let mut k = input.to_vec();
    let mut v = vals.to_vec();
    e.sort_pairs(&mut k, &mut v, o).unwrap();
    let (rk, rv) = reference::sort_pairs(input, vals, o);
    same_bits(&k, &rk, &format!("{what} keys {o:?}"));
    if let Some(i) = (0..v.len()).find(|&i| v[i] != rv[i]) {
        panic!(
            "{what} {o:?}: payload {i}: got {:?}, expected {:?}",
            v[i], rv[i]
        );
    }
}

/// `e.sort` of `input` under `o` gives the reference's keys, bit for bit.
fn sorts_like_reference<K: RadixKey>(e: &Engine, input: &[K], o: &SortOptions, what: &str) {
    let n = input.len();
    let mut k = input.to_vec();
    e.sort(&mut k, o).unwrap();
    same_bits(
        &k,
        &reference::sort_keys(input, o),
        &format!("{what} n={n} {o:?}"),
    );
}

/// A device-resident in-place sort of `host` under `o` gives the reference's keys.
fn sorts_in_place_like_reference(g: &CudaBackend, host: &[i32], o: &SortOptions, what: &str) {
    let mut d = DeviceBuffer::upload(g, host).unwrap();
    g.sort_device_in_place(&mut d, o).unwrap();
    same_bits(
        &d.download(g).unwrap(),
        &reference::sort_keys(host, o),
        what,
    );
}

/// Under compute-sanitizer (`HISTOSORT_SANITIZE_SMALL=1`) large sizes shrink: the tools slow
/// kernels down a hundredfold, and the small sizes still cover every tile boundary.
fn size(n: usize) -> usize {
    if std::env::var("HISTOSORT_SANITIZE_SMALL").as_deref() == Ok("1") {
        n.min(20_000)
    } else {
        n
    }
}

/// 2^22 + 3 keys, or under compute-sanitizer just past the single-launch sort's largest input
/// (the smallest that reaches the multi-kernel sorts).
fn multi_kernel_size() -> usize {
    if size(1 << 22) < 1 << 22 {
        histosort::tuning::cuda::ONESWEEP_FUSED_MAX + 3
    } else {
        (1 << 22) + 3
    }
}

/// SplitMix64: deterministic, full-width random bits.
fn random_bits(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

fn keys<K: RadixKey>(n: usize, seed: u64) -> Vec<K>
where
    K::Bits: TryFrom<u64>,
{
    random_bits(n, seed)
        .into_iter()
        .map(|b| {
            let bits = <K::Bits as histosort::RadixBits>::from_u128(b as u128);
            K::from_radix(bits)
        })
        .collect()
}

fn same_bits<K: RadixKey>(a: &[K], b: &[K], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: length");
    if let Some(i) = (0..a.len()).find(|&i| a[i].to_radix() != b[i].to_radix()) {
        panic!(
            "{what}: first mismatch at {i}: got {:?}, expected {:?}",
            a[i], b[i]
        );
    }
}

#[test]
fn three_phase_every_digit_width_and_launch_mode() {
    let Some(e) = gpu() else { return };
    for n in [2usize, 3, 1023, 1024, 1025, 2049, size(100_003)] {
        let input: Vec<u32> = keys(n, n as u64);
        for b in [1, 2, 4, 8] {
            for launch in [LaunchMode::Stream, LaunchMode::Graph] {
                for desc in [false, true] {
                    let mut o = SortOptions::new()
                        .algorithm(SortAlgorithm::ThreePhase)
                        .digit_bits(b)
                        .launch(launch);
                    if desc {
                        o = o.descending();
                    }
                    let mut k = input.clone();
                    e.sort(&mut k, &o).unwrap();
                    same_bits(
                        &k,
                        &reference::sort_keys(&input, &o),
                        &format!("n={n} b={b} {launch} desc={desc}"),
                    );
                    // Twice: the second call reuses the cached plan (and graph).
                    let mut k2 = input.clone();
                    e.sort(&mut k2, &o).unwrap();
                    same_bits(&k2, &k, "second run");
                }
            }
        }
    }
}

#[test]
fn pairs_are_stable_for_every_key_width() {
    let Some(e) = gpu() else { return };
    fn check<K: RadixKey>(e: &Engine, n: usize)
    where
        K::Bits: TryFrom<u64>,
    {
        // Few distinct keys: long runs of ties.
        let input: Vec<K> = keys::<K>(n, 7)
            .into_iter()
            .map(|k| {
                K::from_radix(<K::Bits as histosort::RadixBits>::from_u128(
                    k.to_radix().to_u128_lossy() % 5,
                ))
            })
            .collect();
        let o = SortOptions::new();
        let mut k = input.clone();
        let mut v: Vec<u32> = (0..n as u32).collect();
        e.sort_pairs(&mut k, &mut v, &o).unwrap();
        let (rk, rv) = reference::sort_pairs(&input, &(0..n as u32).collect::<Vec<_>>(), &o);
        same_bits(&k, &rk, K::DTYPE.name());
        assert_eq!(v, rv, "{}: payloads", K::DTYPE);
    }
    trait Lossy {
        fn to_u128_lossy(self) -> u128;
    }
    impl<B: histosort::RadixBits> Lossy for B {
        fn to_u128_lossy(self) -> u128 {
            self.to_u128()
        }
    }
    for n in [5000, size(70_001)] {
        check::<u8>(&e, n);
        check::<i16>(&e, n);
        check::<u32>(&e, n);
        check::<i64>(&e, n);
        check::<f32>(&e, n);
        check::<f64>(&e, n);
    }
}

#[test]
fn device_resident_calls_leave_the_input_alone() {
    let Some(e) = gpu() else { return };
    let g: &CudaBackend = e.cuda().unwrap();
    // A plan for no keys runs and touches nothing (every launch would have no blocks).
    for launch in [LaunchMode::Stream, LaunchMode::Graph] {
        let o = SortOptions::new().launch(launch);
        let mut p = g.sort_plan::<u32>(0, 4, &o).unwrap();
        g.run_sort_plan(&mut p, 0, 0, 0, 0).unwrap();
        g.sync().unwrap();
    }
    let n = size(300_001);
    let host: Vec<i32> = keys(n, 3);
    let input = DeviceBuffer::upload(g, &host).unwrap();
    let mut out = DeviceBuffer::<i32>::alloc(g, n).unwrap();
    for launch in [LaunchMode::Stream, LaunchMode::Graph] {
        let o = SortOptions::new().launch(launch);
        g.sort_device(&input, &mut out, &o).unwrap();
        same_bits(
            &out.download(g).unwrap(),
            &reference::sort_keys(&host, &o),
            "sort_device",
        );
        assert_eq!(input.download(g).unwrap(), host, "input modified");
    }
    let mut inplace = DeviceBuffer::upload(g, &host).unwrap();
    g.sort_device_in_place(&mut inplace, &SortOptions::new().descending())
        .unwrap();
    same_bits(
        &inplace.download(g).unwrap(),
        &reference::sort_keys(&host, &SortOptions::new().descending()),
        "in place",
    );

    let vals: Vec<u64> = (0..n as u64).collect();
    let vin = DeviceBuffer::upload(g, &vals).unwrap();
    let mut vout = DeviceBuffer::<u64>::alloc(g, n).unwrap();
    g.sort_pairs_device(&input, &vin, &mut out, &mut vout, &SortOptions::new())
        .unwrap();
    let (rk, rv) = reference::sort_pairs(&host, &vals, &SortOptions::new());
    same_bits(&out.download(g).unwrap(), &rk, "pairs keys");
    assert_eq!(vout.download(g).unwrap(), rv);

    let bytes: Vec<u8> = random_bits(size(1 << 20), 9)
        .into_iter()
        .map(|x| (x % 7) as u8)
        .collect();
    let db = DeviceBuffer::upload(g, &bytes).unwrap();
    for a in [
        HistogramAlgorithm::GlobalAtomic,
        HistogramAlgorithm::GlobalAtomicUnrolled,
        HistogramAlgorithm::SharedPrivate,
        HistogramAlgorithm::WarpPrivate,
        HistogramAlgorithm::LanePrivate,
    ] {
        assert_eq!(
            g.histogram_u8_device(&db, a).unwrap(),
            reference::histogram_u8(&bytes),
            "{a}"
        );
    }
    let sc: Vec<u64> = random_bits(100_000, 4)
        .into_iter()
        .map(|x| x >> 20)
        .collect();
    let dsc = DeviceBuffer::upload(g, &sc).unwrap();
    let mut dout = DeviceBuffer::<u64>::alloc(g, sc.len()).unwrap();
    g.scan_device(&dsc, &mut dout, ScanKind::Exclusive).unwrap();
    assert_eq!(
        dout.download(g).unwrap(),
        reference::scan(&sc, ScanKind::Exclusive)
    );
}

#[test]
fn out_of_memory_names_the_size() {
    let Some(e) = gpu() else { return };
    let g = e.cuda().unwrap();
    match DeviceBuffer::<u8>::alloc(g, 1 << 50) {
        Err(Error::OutOfMemory { bytes, .. }) => assert_eq!(bytes, 1 << 50),
        Err(other) => panic!("expected OutOfMemory, got {other}"),
        Ok(_) => panic!("a petabyte allocation succeeded"),
    }
    // The backend still works afterwards.
    let mut k = vec![3u32, 1, 2];
    e.sort(&mut k, &SortOptions::new()).unwrap();
    assert_eq!(k, [1, 2, 3]);
}

#[test]
fn unsupported_requests_say_why_and_auto_falls_back() {
    let Some(e) = gpu() else { return };
    let mut k = vec![5u32, 4, 3];
    let err = e
        .sort(
            &mut k,
            &SortOptions::new()
                .algorithm(SortAlgorithm::ThreePhase)
                .digit_bits(3),
        )
        .unwrap_err();
    assert!(err.to_string().contains("1, 2, 4 or 8"), "{err}");
    // A digit width no CUDA sort takes: an explicit CUDA engine refuses, Auto runs it on the CPU.
    let o = SortOptions::new().digit_bits(11);
    let mut k = vec![3u32, 1, 2];
    assert!(matches!(e.sort(&mut k, &o), Err(Error::Unsupported(_))));
    let auto = Engine::auto();
    auto.sort(&mut k, &o).unwrap();
    assert_eq!(k, [1, 2, 3]);
    // 128-bit keys and 3-byte values (sorted as indices, gathered on the host) run on the GPU.
    let mut big: Vec<i128> = vec![3, -1, i128::MIN, 2, i128::MAX, -1];
    let mut vals: Vec<[u8; 3]> = (0..6u8).map(|i| [i, i, i]).collect();
    e.sort_pairs(&mut big, &mut vals, &SortOptions::new())
        .unwrap();
    assert_eq!(big, [i128::MIN, -1, -1, 2, 3, i128::MAX]);
    assert_eq!(
        vals.iter().map(|v| v[0]).collect::<Vec<_>>(),
        [2, 1, 5, 3, 0, 4]
    );
}

/// The pass kernel's tile for 8-byte keys without values (256x22x3 on sm_90) on its own, at a
/// few tiles (small enough for compute-sanitizer's racecheck): graph launches, which never take
/// the single-launch kernel, so every pass runs the pass kernel and its look-back.
#[test]
fn onesweep_wide_u64_tile_alone() {
    let Some(e) = gpu() else { return };
    fn check<K: RadixKey>(e: &Engine, n: usize, o: &SortOptions, seed: u64)
    where
        K::Bits: TryFrom<u64>,
    {
        let input: Vec<K> = keys(n, seed + n as u64);
        let mut k = input.clone();
        e.sort(&mut k, o).unwrap();
        let what = format!("{} n={n} {o:?}", K::DTYPE);
        same_bits(&k, &reference::sort_keys(&input, o), &what);
    }
    let os = SortOptions::new()
        .algorithm(SortAlgorithm::Onesweep)
        .launch(LaunchMode::Graph);
    let t = onesweep_tile(8, 0);
    for n in [t + 1, 3 * t + 5] {
        for o in [os.clone(), os.clone().bits(13, 57), os.clone().descending()] {
            check::<u64>(&e, n, &o, 7);
            check::<f64>(&e, n, &o, 9);
        }
    }
}

/// The pass kernel's tile for keys of `kb` and values of `vb` bytes at the lengths of these tests
/// (the long inputs' tile where `HISTOSORT_ONESWEEP_LONG_MIN` sends every length to it).
fn onesweep_tile(kb: u32, vb: u32) -> usize {
    use histosort::tuning::cuda::{onesweep_default_shape, onesweep_long_min_keys};
    onesweep_default_shape(kb, vb, 0, onesweep_long_min_keys()).tile() as usize
}

/// The onesweep sort around its tile boundaries, for every key width, both orders, bit ranges,
/// pairs and argsort; in place and out of place on the device.
#[test]
fn onesweep_tiles_orders_bit_ranges_and_pairs() {
    let Some(e) = gpu() else { return };
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    let tile = onesweep_tile;
    fn run<K: RadixKey>(e: &Engine, n: usize, o: &SortOptions)
    where
        K::Bits: TryFrom<u64>,
    {
        let input: Vec<K> = keys(n, 11 + n as u64);
        let mut k = input.clone();
        e.sort(&mut k, o).unwrap();
        same_bits(
            &k,
            &reference::sort_keys(&input, o),
            &format!("{} n={n} {o:?}", K::DTYPE),
        );
        let mut k = input.clone();
        let mut v: Vec<u64> = (0..n as u64).collect();
        e.sort_pairs(&mut k, &mut v, o).unwrap();
        let (rk, rv) = reference::sort_pairs(&input, &(0..n as u64).collect::<Vec<_>>(), o);
        same_bits(&k, &rk, "pairs keys");
        assert_eq!(v, rv, "{} n={n} payloads", K::DTYPE);
        // 4-byte payloads: keys of up to 4 bytes take the wide tile and the late value loads.
        let mut k = input.clone();
        let mut v: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
        e.sort_pairs(&mut k, &mut v, o).unwrap();
        let (rk, rv) = reference::sort_pairs(
            &input,
            &(0..n as u32)
                .map(|i| i.wrapping_mul(2654435761))
                .collect::<Vec<_>>(),
            o,
        );
        same_bits(&k, &rk, "pairs keys (u32 payloads)");
        assert_eq!(v, rv, "{} n={n} u32 payloads", K::DTYPE);
        let p: Vec<u32> = e.argsort_as(&input, o).unwrap();
        assert_eq!(p, reference::argsort::<K, u32>(&input, o), "argsort n={n}");
    }
    for t in [tile(4, 0), tile(4, 4), tile(4, 8)] {
        for n in [t - 1, t, t + 1, 2 * t + 1, 5 * t + 3] {
            for o in [
                os.clone(),
                os.clone().descending(),
                os.clone().bits(3, 19),
                os.clone().bits(8, 16),
            ] {
                run::<u32>(&e, n, &o);
            }
            run::<i32>(&e, n, &os.clone().launch(LaunchMode::Graph));
        }
    }
    for n in [1000, tile(8, 0) + 1, 3 * tile(1, 0) + 5, size(1 << 20)] {
        run::<u8>(&e, n, &os);
        run::<i16>(&e, n, &os.clone().descending());
        run::<f32>(&e, n, &os);
        run::<u64>(&e, n, &os.clone().bits(13, 57));
        run::<f64>(&e, n, &os.clone().descending());
    }
    // Large: 2^24 + 1 with pass skipping (keys that fit 20 bits skip the top pass).
    let n = size((1 << 24) + 1);
    let input: Vec<u32> = keys::<u32>(n, 5).into_iter().map(|k| k >> 12).collect();
    let mut k = input.clone();
    e.sort(&mut k, &os).unwrap();
    let mut r = input.clone();
    r.sort_unstable();
    assert_eq!(k, r, "2^24 + 1 keys below 2^20");
    // All keys equal: every pass is skipped, pairs keep their order.
    let input = vec![7u32; size(1 << 22)];
    let mut k = input.clone();
    let mut v: Vec<u32> = (0..input.len() as u32).collect();
    e.sort_pairs(&mut k, &mut v, &os).unwrap();
    assert_eq!(k, input);
    assert!(v.iter().enumerate().all(|(i, &x)| x as usize == i));
    // The read-back of the digit counts overlaps the first pass, which always runs: keys
    // that differ only in the first digit (the first pass runs again as the last), only in
    // later digits (the first pass is an identity), in both orders, pairs, argsort, in place.
    let n = size((1 << 22) + 3);
    let base = keys::<u32>(n, 21);
    let low: Vec<u32> = base.iter().map(|k| 0x5500_0000 | (k & 0xff)).collect();
    let high: Vec<u32> = base.iter().map(|k| k << 8).collect();
    for (input, what) in [(&low, "first digit only"), (&high, "later digits only")] {
        for o in [os.clone(), os.clone().descending()] {
            let mut k = input.clone();
            let mut v: Vec<u32> = (0..n as u32).collect();
            e.sort_pairs(&mut k, &mut v, &o).unwrap();
            let (rk, rv) = reference::sort_pairs(input, &(0..n as u32).collect::<Vec<_>>(), &o);
            same_bits(&k, &rk, &format!("{what} {o:?}"));
            assert_eq!(v, rv, "{what} {o:?} payloads");
            let p: Vec<u32> = e.argsort_as(input, &o).unwrap();
            assert_eq!(
                p,
                reference::argsort::<u32, u32>(input, &o),
                "{what} argsort"
            );
        }
        let g = e.cuda().unwrap();
        let mut d = DeviceBuffer::upload(g, input).unwrap();
        g.sort_device_in_place(&mut d, &os).unwrap();
        same_bits(
            &d.download(g).unwrap(),
            &reference::sort_keys(input, &os),
            &format!("{what} in place"),
        );
    }
    // In place on the device with a single pass (bits [0, 8)) must not read what it wrote.
    let g = e.cuda().unwrap();
    let host: Vec<u32> = keys(size(1 << 20), 77);
    let mut d = DeviceBuffer::upload(g, &host).unwrap();
    let o = os.clone().bits(0, 8);
    g.sort_device_in_place(&mut d, &o).unwrap();
    same_bits(
        &d.download(g).unwrap(),
        &reference::sort_keys(&host, &o),
        "in place, one pass",
    );
}

/// Packed pairs (4-byte keys and 4-byte values moved as one 8-byte element by the u64 pass
/// kernel): this test's backend packs from 2 keys, so that graph launches (no single launch)
/// reach the packed passes around the packed tile's boundaries; longer inputs take them in
/// plain launches, where passes are skipped. Unsigned, signed and float keys, both orders, bit
/// ranges of 2 and 3 passes, payloads of three 4-byte types (stability through an index
/// payload), argsort, keys that skip the first pass's digit or later ones, all equal; every
/// result against the reference, and the backend's counter says that the packed passes ran.
/// On a device whose long inputs take a tile of their own (an H100), around its boundaries too.
#[test]
fn packed_pairs_tiles_orders_ranges_and_skips() {
    let Some(e) = gpu() else { return };
    let g = e.cuda().unwrap();
    g.set_packed_min(Some(2));
    g.set_hybrid_min(4, None);
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    fn run<K: RadixKey>(e: &Engine, input: &[K], o: &SortOptions, what: &str) {
        let n = input.len();
        let what = format!("packed {} {what} n={n} {o:?}", K::DTYPE);
        let idx: Vec<u32> = (0..n as u32).collect();
        let mut k = input.to_vec();
        let mut v = idx.clone();
        e.sort_pairs(&mut k, &mut v, o).unwrap();
        let (rk, rv) = reference::sort_pairs(input, &idx, o);
        same_bits(&k, &rk, &format!("{what} keys"));
        if let Some(i) = (0..n).find(|&i| v[i] != rv[i]) {
            panic!("{what}: payload {i}: got {}, expected {}", v[i], rv[i]);
        }
        let fv: Vec<f32> = (0..n).map(|i| i as f32 * -0.5).collect();
        let mut k = input.to_vec();
        let mut v = fv.clone();
        e.sort_pairs(&mut k, &mut v, o).unwrap();
        let (rk, rv) = reference::sort_pairs(input, &fv, o);
        same_bits(&k, &rk, &format!("{what} keys (f32 payloads)"));
        assert!(
            v.iter().zip(&rv).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{what}: f32 payloads"
        );
        let iv: Vec<i32> = (0..n as i32)
            .map(|i| i.wrapping_mul(-1_640_531_535))
            .collect();
        let mut k = input.to_vec();
        let mut v = iv.clone();
        e.sort_pairs(&mut k, &mut v, o).unwrap();
        assert_eq!(
            v,
            reference::sort_pairs(input, &iv, o).1,
            "{what}: i32 payloads"
        );
        let p: Vec<u32> = e.argsort_as(input, o).unwrap();
        assert_eq!(p, reference::argsort::<K, u32>(input, o), "{what}: argsort");
    }
    // The passes' tile on this device at these lengths (the u64 keys' tile).
    let tile = g.packed_shape(12 * 8192).tile() as usize;
    // The last pass's own tile (the default's, where this device holds it).
    let last = histosort::tuning::cuda::PACKED_LAST_SHAPE.tile() as usize;
    // Graph launches: the multi-kernel passes from just past the cluster sort's inputs.
    let graph = os.clone().launch(LaunchMode::Graph);
    let before = g.packed_runs();
    for n in [
        12 * tile - 1,
        12 * tile,
        12 * tile + 1,
        9 * last - 1,
        9 * last,
        9 * last + 1,
        17 * tile + 333,
    ] {
        for o in [
            graph.clone(),
            graph.clone().descending(),
            graph.clone().bits(4, 28),
            graph.clone().bits(8, 24).descending(),
        ] {
            run::<u32>(&e, &keys::<u32>(n, 40 + n as u64), &o, "random");
        }
        run::<i32>(
            &e,
            &keys::<i32>(n, 41),
            &graph.clone().descending(),
            "random",
        );
        run::<f32>(&e, &keys::<f32>(n, 42), &graph, "random bits");
    }
    assert!(
        g.packed_runs() > before,
        "graph sorts took the packed passes"
    );
    // Plain launches past the single-launch sort: pass skipping, both ways round.
    let n = multi_kernel_size();
    let base = keys::<u32>(n, 43);
    let low: Vec<u32> = base.iter().map(|k| 0x5500_0000 | (k & 0xff)).collect();
    let high: Vec<u32> = base.iter().map(|k| k << 8).collect();
    let top: Vec<u32> = base.iter().map(|k| k >> 8).collect();
    let equal = vec![base[0]; n];
    let before = g.packed_runs();
    for (input, what) in [
        (&base, "random"),
        (&low, "first digit only"),
        (&high, "later digits only"),
        (&top, "top digit equal"),
        (&equal, "all equal"),
    ] {
        for o in [os.clone(), os.clone().descending()] {
            run::<u32>(&e, input, &o, what);
        }
    }
    run::<i32>(&e, &keys::<i32>(n, 44), &os, "random");
    run::<f32>(
        &e,
        &keys::<f32>(n, 45),
        &os.clone().descending(),
        "random bits",
    );
    // Floats with specials: NaNs of both signs, infinities, zeros of both signs, in the mix.
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
    ];
    let mixed: Vec<f32> = keys::<f32>(n, 46)
        .into_iter()
        .enumerate()
        .map(|(i, x)| if i % 7 == 0 { specials[i % 6] } else { x })
        .collect();
    run::<f32>(&e, &mixed, &os, "specials");
    // 5 key arrays x 2 orders + 3, each with 3 pair sorts and an argsort.
    assert_eq!(
        g.packed_runs() - before,
        13 * 4,
        "plain sorts took the packed passes"
    );
    // Where long inputs take a tile of their own (an H100's), its boundaries there too.
    let long = histosort::tuning::cuda::PACKED_H100_MIN as usize;
    let long_tile = g.packed_shape(long as u64).tile() as usize;
    if long_tile != tile {
        let k = long.div_ceil(long_tile) + 1;
        let before = g.packed_runs();
        for n in [k * long_tile - 1, k * long_tile, k * long_tile + 1] {
            run::<u32>(&e, &keys::<u32>(n, 47), &os, "random");
            run::<f32>(
                &e,
                &keys::<f32>(n, 48),
                &os.clone().descending(),
                "random bits",
            );
        }
        assert_eq!(
            g.packed_runs() - before,
            6 * 4,
            "long sorts took the packed passes"
        );
    }
}

/// Small sorts: the counting sort up to its largest input and just past it, and the single
/// launch at every tile size it picks (1, 2, 4, 8 keys per thread and the pass kernel's, up to
/// its largest input), on random, few-distinct and all-equal keys (whole warps of equal
/// digits), keys, pairs and argsort, both orders.
#[test]
fn small_sorts_counting_sort_and_single_launch() {
    let Some(e) = gpu() else { return };
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    fn run<K: RadixKey>(e: &Engine, input: &[K], o: &SortOptions, what: &str) {
        let n = input.len();
        sorts_like_reference(e, input, o, what);
        let mut k = input.to_vec();
        let mut v: Vec<u32> = (0..n as u32).collect();
        e.sort_pairs(&mut k, &mut v, o).unwrap();
        let (rk, rv) = reference::sort_pairs(input, &(0..n as u32).collect::<Vec<_>>(), o);
        same_bits(&k, &rk, &format!("{what} pairs keys n={n}"));
        assert_eq!(v, rv, "{what} {} n={n} payloads {o:?}", K::DTYPE);
        let p: Vec<u64> = e.argsort_as(input, o).unwrap();
        assert_eq!(
            p,
            reference::argsort::<K, u64>(input, o),
            "{what} argsort n={n}"
        );
    }
    // Generic sizes, and those around the tiles of the single-block sort of earlier versions.
    let mut sizes = vec![1, 2, 31, 32, 33, 1000, 4096];
    for c in [512, 2048, 3584, 4096, 7168] {
        sizes.extend([c - 1, c, c + 1]);
    }
    for items in histosort::tuning::cuda::ONESWEEP_FUSED_ITEMS {
        let t = 256 * items as usize;
        sizes.extend([64 * t - 1, 128 * t + 7]);
    }
    sizes.extend([(1 << 16) + 1, (1 << 18) - 3]);
    // The single-launch sort's largest inputs: the pass kernel's number of keys per thread
    // where every tile's block fits at once (132 SMs: from ~2^18 up; f64/u32 pairs and the
    // argsorts take the kernel from the pass module there).
    let fused_max = histosort::tuning::cuda::ONESWEEP_FUSED_MAX;
    sizes.extend([size(3 << 18) + 5, size(fused_max) - 1, size(fused_max)]);
    // The counting sort's largest inputs for each key width (u128 keys are cut below).
    for kb in [1, 2, 4, 8, 16] {
        let m = histosort::tuning::cuda::rank_sort_max(kb);
        sizes.extend([m - 1, m, m + 1]);
    }
    sizes.sort_unstable();
    sizes.dedup();
    for &n in &sizes {
        let r: Vec<u32> = keys(n, 3 + n as u64);
        let few: Vec<u32> = r.iter().map(|x| x % 3 * 0x0101_0101).collect();
        let equal = vec![0xdead_beefu32; n];
        for o in [os.clone(), os.clone().descending(), os.clone().bits(4, 20)] {
            run::<u32>(&e, &r, &o, "random");
            run::<u32>(&e, &few, &o, "three distinct");
        }
        run::<u32>(&e, &equal, &os, "all equal");
        run::<f64>(
            &e,
            &keys::<f64>(n, 9 + n as u64),
            &os.clone().descending(),
            "f64",
        );
        run::<i16>(&e, &keys::<i16>(n, 10 + n as u64), &os, "i16");
        run::<u128>(&e, &keys::<u128>(n.min(2048), 12), &os, "u128");
    }
    // In place on the device: the counting sort (through a copy), one launch.
    let g = e.cuda().unwrap();
    for n in [33, 4097, 7163, 20_001] {
        sorts_in_place_like_reference(g, &keys(n, 78), &os, &format!("in place, n={n}"));
    }
}

/// The cluster sort (sm_90 and later): sizes around its chunk boundaries for every number of
/// keys per thread it takes by default (u32 keys above the counting sort: 2 to 8 per thread;
/// u64 keys from 4097: 1), passes skipped at the start, middle and end (digits shared by every
/// key), bit ranges (one with a partial last digit), both orders, pairs (stability through
/// index payloads, 1- to 16-byte values; f64/u128 pairs above 2^15 do not fit a block's shared
/// memory and take the single launch), argsort, in place on the device, and graph capture and
/// replay (graph mode, and auto mode from the second run on the same buffers). Where the
/// device has clusters, these sizes must take the cluster path.
#[test]
fn cluster_sort_sizes_skips_pairs_and_modes() {
    use histosort::tuning::cuda::{
        cluster_sort_limit, cluster_sort_threads, rank_sort_max, CLUSTER_SORT_BLOCKS,
        CLUSTER_SORT_ITEMS,
    };
    let Some(e) = gpu() else { return };
    let g = e.cuda().unwrap();
    let clusters = g.info().compute_capability.0 >= 9;
    let limit = cluster_sort_limit();
    let mut sizes = vec![];
    for items in CLUSTER_SORT_ITEMS {
        let chunk = (cluster_sort_threads() * items) as usize;
        for blocks in [1, 2, 5, 9, CLUSTER_SORT_BLOCKS as usize] {
            let c = chunk * blocks;
            sizes.extend([c - 1, c, c + 1]);
        }
    }
    sizes.extend([12_345, 20_001, 40_000]);
    sizes.retain(|&n| n <= limit && n > rank_sort_max(4));
    sizes.sort_unstable();
    sizes.dedup();
    assert!(sizes.len() > 10 || !clusters, "cluster sizes: {sizes:?}");
    let path = |n: usize, vb: u32, o: &SortOptions| g.sort_plan::<u32>(n, vb, o).unwrap().path();
    let os = SortOptions::new();
    for &n in &sizes {
        if clusters {
            assert_eq!(path(n, 0, &os), "cluster", "u32 keys n={n}");
            assert_eq!(path(n, 4, &os), "cluster", "u32/u32 pairs n={n}");
        }
        let r: Vec<u32> = keys(n, 21 + n as u64);
        let variants: [(&str, Vec<u32>); 6] = [
            ("random", r.clone()),
            // Passes 1 and 3 skipped (their bytes are constant).
            (
                "bytes 0 and 2",
                r.iter().map(|x| x & 0x00ff_00ff | 0x1100_2200).collect(),
            ),
            // Only the last pass active.
            ("top byte", r.iter().map(|x| x & 0xff00_0000).collect()),
            // Only the first pass active: the last three are skipped, the result is copied out.
            ("low byte", r.iter().map(|x| x & 0xff).collect()),
            (
                "three distinct",
                r.iter().map(|x| x % 3 * 0x0101_0101).collect(),
            ),
            ("all equal", vec![0x5eed_1234; n]),
        ];
        for (what, k) in &variants {
            for o in [
                os.clone(),
                os.clone().descending(),
                os.clone().bits(4, 20),
                os.clone().bits(8, 16).descending(),
                os.clone().bits(3, 22),
            ] {
                sorts_like_reference::<u32>(&e, k, &o, what);
            }
            // Stability: payloads are the input indices.
            let mut kk = k.clone();
            let mut v: Vec<u32> = (0..n as u32).collect();
            e.sort_pairs(&mut kk, &mut v, &os).unwrap();
            let (rk, rv) = reference::sort_pairs(k, &(0..n as u32).collect::<Vec<_>>(), &os);
            same_bits(&kk, &rk, &format!("{what} pairs keys n={n}"));
            assert_eq!(v, rv, "{what} pairs payloads n={n}");
        }
        sorts_like_reference::<f32>(
            &e,
            &keys::<f32>(n, 5 + n as u64),
            &os.clone().descending(),
            "f32",
        );
        sorts_like_reference::<i8>(&e, &keys::<i8>(n, 6 + n as u64), &os, "i8");
        sorts_like_reference::<i16>(
            &e,
            &keys::<i16>(n, 7 + n as u64),
            &os.clone().descending(),
            "i16",
        );
        // Pairs of other widths: few distinct keys (long runs of ties), index-derived values.
        let k64: Vec<u64> = keys::<u64>(n, 8 + n as u64)
            .iter()
            .map(|x| (x % 7) << 40)
            .collect();
        let v8: Vec<u8> = (0..n).map(|i| i as u8).collect();
        let (mut a, mut b) = (k64.clone(), v8.clone());
        e.sort_pairs(&mut a, &mut b, &os).unwrap();
        let (rk, rv) = reference::sort_pairs(&k64, &v8, &os);
        assert_eq!((a, b), (rk, rv), "u64/u8 pairs n={n}");
        let kf: Vec<f64> = keys::<f64>(n, 9 + n as u64);
        let v16: Vec<u128> = (0..n as u128).map(|i| i * 0x1_0000_0001).collect();
        let (mut a, mut b) = (kf.clone(), v16.clone());
        let od = os.clone().descending();
        e.sort_pairs(&mut a, &mut b, &od).unwrap();
        let (rk, rv) = reference::sort_pairs(&kf, &v16, &od);
        same_bits(&a, &rk, &format!("f64/u128 pairs keys n={n}"));
        assert_eq!(b, rv, "f64/u128 pairs values n={n}");
        let p: Vec<u32> = e.argsort_as(&r, &os).unwrap();
        assert_eq!(p, reference::argsort::<u32, u32>(&r, &os), "argsort n={n}");
        // In place on the device.
        sorts_in_place_like_reference(g, &keys(n, 10 + n as u64), &os, &format!("in place n={n}"));
    }
    // u64 keys just above their counting sort (2^12): one key per thread; and longer ones,
    // which the cluster sort may split between clusters and merge (every length does under
    // `HISTOSORT_CLUSTER_SEGMENT=2048`).
    for n in [4097, 5000, 8191, 8192, 16_385, 40_000, 65_536] {
        if clusters {
            assert_eq!(
                g.sort_plan::<u64>(n, 0, &os).unwrap().path(),
                "cluster",
                "u64 n={n}"
            );
        }
        let k: Vec<u64> = keys(n, 11 + n as u64);
        sorts_like_reference::<u64>(&e, &k, &os, "u64");
        sorts_like_reference::<u64>(&e, &k, &os.clone().descending().bits(5, 61), "u64");
        let few: Vec<u64> = k.iter().map(|x| (x % 5) << 56).collect();
        let v: Vec<u32> = (0..n as u32).collect();
        let (mut a, mut b) = (few.clone(), v.clone());
        e.sort_pairs(&mut a, &mut b, &os).unwrap();
        assert_eq!(
            (a, b),
            reference::sort_pairs(&few, &v, &os),
            "u64/u32 pairs n={n}"
        );
        let p: Vec<u32> = e.argsort_as(&few, &os.clone().descending()).unwrap();
        assert_eq!(
            p,
            reference::argsort::<u64, u32>(&few, &os.clone().descending()),
            "u64 argsort n={n}"
        );
    }
    // Graph capture and replay (graph mode: on the first run; auto: on the second run on the
    // same buffers), the same buffers again and then other ones.
    for mode in [LaunchMode::Graph, LaunchMode::Auto] {
        let og = os.clone().launch(mode);
        for &n in sizes.iter().step_by(3) {
            if clusters {
                assert_eq!(path(n, 0, &og), "cluster", "{mode} n={n}");
            }
            for seed in [1, 2, 3] {
                sorts_like_reference::<u32>(&e, &keys::<u32>(n, seed + n as u64), &og, "graph");
            }
            let mut plan = g.sort_plan::<u32>(n, 0, &og).unwrap();
            let inputs: Vec<Vec<u32>> = (0..3).map(|s| keys(n, 40 + s)).collect();
            let bufs: Vec<DeviceBuffer<u32>> = inputs
                .iter()
                .map(|h| DeviceBuffer::upload(g, h).unwrap())
                .collect();
            let out = DeviceBuffer::<u32>::alloc(g, n).unwrap();
            let mut prev = None;
            for i in [0, 0, 0, 1, 1, 2, 0, 0] {
                g.run_sort_plan(&mut plan, bufs[i].device_ptr(g), 0, out.device_ptr(g), 0)
                    .unwrap();
                // Graph mode captures at once, auto on a second run on the same buffers.
                if mode == LaunchMode::Graph || prev == Some(i) {
                    assert!(
                        plan.has_graph(),
                        "{mode} run on buffers {i} (after {prev:?}) n={n}"
                    );
                }
                prev = Some(i);
                same_bits(
                    &out.download(g).unwrap(),
                    &reference::sort_keys(&inputs[i], &og),
                    &format!("{mode} replay {i} n={n}"),
                );
            }
        }
    }
}

/// Lengths above 2^31 (run explicitly on a large GPU: `--ignored`): checked for order and
/// against the input's multiset (a histogram of every key's low 16 bits and the key sum).
#[test]
#[ignore]
fn onesweep_above_2_pow_31() {
    let Some(e) = gpu() else { return };
    let n: usize = (1usize << 31) + 12345;
    let input: Vec<u32> = keys(n, 31);
    let g = e.cuda().unwrap();
    let d = DeviceBuffer::upload(g, &input).unwrap();
    let mut out = DeviceBuffer::<u32>::alloc(g, n).unwrap();
    g.sort_device(&d, &mut out, &SortOptions::new()).unwrap();
    let sorted = out.download(g).unwrap();
    assert!(sorted.windows(2).all(|w| w[0] <= w[1]), "not sorted");
    let sum = |v: &[u32]| v.iter().fold(0u64, |a, &x| a.wrapping_add(x as u64));
    assert_eq!(sum(&sorted), sum(&input));
    // The same multiset, as far as both halves' histograms and the sum can tell.
    let halves = |v: &[u32]| {
        let mut h = vec![0u64; 2 << 16];
        v.iter().for_each(|&x| {
            h[(x & 0xffff) as usize] += 1;
            h[(1 << 16) + (x >> 16) as usize] += 1;
        });
        h
    };
    assert!(halves(&sorted) == halves(&input), "not the input's keys");
}

/// The look-back scan at raw device addresses: every misalignment of input and output within
/// 16 bytes (the kernel loads 16-byte vectors from the 16-byte boundary below the input and
/// falls back to element stores when the output is aligned differently), in place, repeated
/// launches on one scratch (each launch a new epoch, statuses of the previous launch left in
/// place), and the wrap of the epochs (which must clear the statuses).
#[test]
fn lookback_scan_misaligned_in_place_and_epochs() {
    use histosort::cuda::scan_lookback_spec;
    use histosort::tuning::cuda::scan_lb_tile;
    use histosort::{DType, ScanElem};

    fn check<T: ScanElem + std::fmt::Debug>(g: &CudaBackend, host: &[T], what: &str) {
        let size = std::mem::size_of::<T>();
        let spec = scan_lookback_spec(T::DTYPE).unwrap();
        let n = host.len();
        let slots = 16 / size;
        // Room for the data at any element offset below 16 bytes.
        let outb = DeviceBuffer::<T>::alloc(g, n + slots).unwrap();
        let scratch = g.lookback_scratch(n as u64 + 16, size).unwrap();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let want = reference::scan(host, kind);
            for (io, oo) in [
                (0, 0),
                (1, 1),
                (1, 0),
                (0, 1),
                (slots - 1, 1),
                (2 % slots, slots - 1),
            ] {
                let mut staged = vec![T::ZERO; n + slots];
                staged[io..io + n].copy_from_slice(host);
                let din = DeviceBuffer::upload(g, &staged).unwrap();
                let ip = din.device_ptr(g) + (io * size) as u64;
                let op = outb.device_ptr(g) + (oo * size) as u64;
                g.enqueue_scan_lookback(
                    &spec,
                    ip,
                    op,
                    n as u64,
                    kind == ScanKind::Inclusive,
                    &scratch,
                )
                .unwrap();
                let got = outb.download(g).unwrap();
                assert_eq!(
                    &got[oo..oo + n],
                    &want[..],
                    "{what} {kind} in+{io} out+{oo}"
                );
                // In place at the same misalignment.
                g.enqueue_scan_lookback(
                    &spec,
                    ip,
                    ip,
                    n as u64,
                    kind == ScanKind::Inclusive,
                    &scratch,
                )
                .unwrap();
                let got = din.download(g).unwrap();
                assert_eq!(&got[io..io + n], &want[..], "{what} {kind} in place +{io}");
            }
        }
        // The last epoch, then the wrap: statuses of epoch 1 (the first launch above, other
        // data) are still in the scratch and must not be taken for this launch's.
        let other: Vec<T> = host.iter().rev().copied().collect();
        let want = reference::scan(&other, ScanKind::Inclusive);
        let din = DeviceBuffer::upload(g, &other).unwrap();
        scratch.set_last_epoch(u32::MAX);
        for round in 0..3 {
            g.enqueue_scan_lookback(
                &spec,
                din.device_ptr(g),
                outb.device_ptr(g),
                n as u64,
                true,
                &scratch,
            )
            .unwrap();
            assert_eq!(
                &outb.download(g).unwrap()[..n],
                &want[..],
                "{what} epoch wrap, round {round}"
            );
        }
    }

    let Some(e) = gpu() else { return };
    let g: &CudaBackend = e.cuda().unwrap();
    for n in [
        1usize,
        5,
        1000,
        scan_lb_tile(4) as usize * 3 + 7,
        size(scan_lb_tile(4) as usize * 300 + 11),
    ] {
        let v32: Vec<u32> = random_bits(n, n as u64)
            .into_iter()
            .map(|x| x as u32)
            .collect();
        check(g, &v32, &format!("u32 n={n}"));
        let v64: Vec<u64> = random_bits(n, n as u64 + 1);
        check(g, &v64, &format!("u64 n={n}"));
        let vi: Vec<i32> = random_bits(n, 7)
            .into_iter()
            .map(|x| (x % 2001) as i32 - 1000)
            .collect();
        check(g, &vi, &format!("i32 n={n}"));
        // Small integers: every float partial sum is exact, whatever the association.
        let vf: Vec<f32> = random_bits(n, 8)
            .into_iter()
            .map(|x| (x % 17) as f32 - 8.0)
            .collect();
        check(g, &vf, &format!("f32 n={n}"));
        let vd: Vec<f64> = random_bits(n, 9)
            .into_iter()
            .map(|x| (x % 1001) as f64 - 500.0)
            .collect();
        check(g, &vd, &format!("f64 n={n}"));
    }
    // A scratch made for 4-byte elements refuses 8-byte ones; a too small one refuses too.
    let s4 = g.lookback_scratch(100, 4).unwrap();
    let d = DeviceBuffer::<u64>::alloc(g, 100).unwrap();
    let spec64 = scan_lookback_spec(DType::U64).unwrap();
    assert!(g
        .enqueue_scan_lookback(&spec64, d.device_ptr(g), d.device_ptr(g), 100, true, &s4)
        .is_err());
    let spec32 = scan_lookback_spec(DType::U32).unwrap();
    let big = DeviceBuffer::<u32>::alloc(g, 1 << 20).unwrap();
    assert!(g
        .enqueue_scan_lookback(
            &spec32,
            big.device_ptr(g),
            big.device_ptr(g),
            1 << 20,
            true,
            &s4
        )
        .is_err());
}

/// The pipelined look-back scan (sm_90 and later): sizes around its tile, grids that reuse
/// every stage of the ring many times, in place, both kinds, every element type, the epoch
/// wrap; misaligned addresses are refused with a reason, and `auto` still scans them.
#[test]
fn pipelined_scan_tiles_in_place_and_epochs() {
    use histosort::tuning::cuda::scan_pipe_shape;
    use histosort::ScanElem;

    fn check<T: ScanElem + std::fmt::Debug>(g: &CudaBackend, host: &[T], what: &str) {
        let size = std::mem::size_of::<T>();
        let n = host.len();
        let scratch = g.lookback_scratch(n as u64, size).unwrap();
        let out = DeviceBuffer::<T>::alloc(g, n).unwrap();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            let inclusive = kind == ScanKind::Inclusive;
            let want = reference::scan(host, kind);
            let din = DeviceBuffer::upload(g, host).unwrap();
            // Poisoned output: every element must be written.
            let poison = vec![bytemuck::pod_read_unaligned::<T>(&[0xa5u8; 16][..size]); n];
            let mut out_p = DeviceBuffer::<T>::alloc(g, n).unwrap();
            out_p.copy_from_host(g, &poison).unwrap();
            let (ip, op) = (din.device_ptr(g), out_p.device_ptr(g));
            g.enqueue_scan_pipelined(T::DTYPE, ip, op, n as u64, inclusive, &scratch)
                .unwrap();
            assert_eq!(out_p.download(g).unwrap(), want, "{what} {kind}");
            g.enqueue_scan_pipelined(T::DTYPE, ip, ip, n as u64, inclusive, &scratch)
                .unwrap();
            assert_eq!(din.download(g).unwrap(), want, "{what} {kind} in place");
        }
        // The epoch wrap: the first launch's statuses are still in the scratch.
        let other: Vec<T> = host.iter().rev().copied().collect();
        let want = reference::scan(&other, ScanKind::Exclusive);
        let din = DeviceBuffer::upload(g, &other).unwrap();
        scratch.set_last_epoch(u32::MAX);
        for round in 0..3 {
            g.enqueue_scan_pipelined(
                T::DTYPE,
                din.device_ptr(g),
                out.device_ptr(g),
                n as u64,
                false,
                &scratch,
            )
            .unwrap();
            assert_eq!(
                out.download(g).unwrap(),
                want,
                "{what} epoch wrap, round {round}"
            );
        }
    }

    let Some(e) = gpu() else { return };
    let g: &CudaBackend = e.cuda().unwrap();
    if g.info().compute_capability.0 < 9 {
        let d = DeviceBuffer::<u32>::alloc(g, 64).unwrap();
        let s = g.lookback_scratch(64, 4).unwrap();
        let p = d.device_ptr(g);
        let err = g
            .enqueue_scan_pipelined(histosort::DType::U32, p, p, 64, true, &s)
            .unwrap_err();
        assert!(err.to_string().contains("sm_90"), "{err}");
        return;
    }
    let tile = scan_pipe_shape().tile(4) as usize;
    for n in [
        1usize,
        5,
        tile - 1,
        tile,
        tile + 1,
        tile * 3 + 7,
        size(tile * 300 + 11),
        size(tile * 2000 + 3),
    ] {
        let v32: Vec<u32> = random_bits(n, n as u64)
            .into_iter()
            .map(|x| x as u32)
            .collect();
        check(g, &v32, &format!("u32 n={n}"));
        let v64: Vec<u64> = random_bits(n, n as u64 + 1);
        check(g, &v64, &format!("u64 n={n}"));
        let vi: Vec<i64> = random_bits(n, 7)
            .into_iter()
            .map(|x| (x % 2001) as i64 - 1000)
            .collect();
        check(g, &vi, &format!("i64 n={n}"));
        // Small integers: every float partial sum is exact, whatever the association.
        let vf: Vec<f32> = random_bits(n, 8)
            .into_iter()
            .map(|x| (x % 17) as f32 - 8.0)
            .collect();
        check(g, &vf, &format!("f32 n={n}"));
    }
    // Misaligned: the pipelined kernel refuses, `auto` and the explicit variant through the
    // engine say so or scan.
    let d = DeviceBuffer::<u32>::alloc(g, 1000).unwrap();
    let s = g.lookback_scratch(1000, 4).unwrap();
    let p = d.device_ptr(g) + 4;
    let err = g
        .enqueue_scan_pipelined(histosort::DType::U32, p, p, 999, true, &s)
        .unwrap_err();
    assert!(err.to_string().contains("aligned"), "{err}");
    let host: Vec<u32> = (0..999u32)
        .map(|i| i.wrapping_mul(2654435761) >> 8)
        .collect();
    let mut staged = vec![0u32; 1000];
    staged[1..].copy_from_slice(&host);
    let din = DeviceBuffer::upload(g, &staged).unwrap();
    let ip = din.device_ptr(g) + 4;
    g.enqueue_scan_lookback_any(
        histosort::DType::U32,
        histosort::ScanAlgorithm::Auto,
        ip,
        ip,
        999,
        true,
        &s,
    )
    .unwrap();
    assert_eq!(
        &din.download(g).unwrap()[1..],
        &reference::scan(&host, ScanKind::Inclusive)[..],
        "auto, misaligned in place"
    );
    // Through the engine, every variant.
    let want = reference::scan(&host, ScanKind::Exclusive);
    for a in [
        histosort::ScanAlgorithm::Auto,
        histosort::ScanAlgorithm::Pipelined,
        histosort::ScanAlgorithm::DecoupledLookback,
    ] {
        let mut out = vec![7u32; host.len()];
        e.scan_into(&host, &mut out, ScanKind::Exclusive, a)
            .unwrap();
        assert_eq!(out, want, "engine {a}");
    }
}

/// The 16-bit and RGBA histograms on data already on the device, at unaligned starts (the
/// kernels count a ragged head and tail one by one), and the 16-bit histogram in several bin
/// ranges (what devices with less shared memory run), with counters that wrap within a block.
#[test]
fn u16_and_channel_histograms_on_the_device() {
    let Some(e) = gpu() else { return };
    let g: &CudaBackend = e.cuda().unwrap();
    let n = size(5 << 20) + 3;
    // Long runs of 4, of {4, 5} (one word of two counters) and 65535, then uniform values.
    let words: Vec<u16> = random_bits(n, 11)
        .into_iter()
        .enumerate()
        .map(|(i, x)| match (i / 3000) % 4 {
            0 => 4,
            1 => 4 + (x & 1) as u16,
            2 => 65535,
            _ => x as u16,
        })
        .collect();
    let dw = DeviceBuffer::upload(g, &words).unwrap();
    for off in [0usize, 1, 5] {
        let sub = &words[off..];
        let want = reference::histogram_u16(sub);
        for bins in [65536u32, 16384, 4096] {
            let h = poisoned_counts(g, 65536);
            g.enqueue_histogram_u16_passes(
                dw.device_ptr(g) + 2 * off as u64,
                sub.len() as u64,
                h.device_ptr(g),
                bins,
            )
            .unwrap();
            let got: Vec<u64> = h.download(g).unwrap().into_iter().map(u64::from).collect();
            assert_eq!(got, want, "u16 offset {off}, {bins} bins per pass");
        }
    }
    assert_eq!(
        g.histogram_u16_device(&dw, HistogramAlgorithm::Auto)
            .unwrap(),
        reference::histogram_u16(&words)
    );
    assert!(g
        .enqueue_histogram_u16_passes(dw.device_ptr(g), 10, dw.device_ptr(g), 3)
        .is_err());

    // A whole number of pixels for every channel count 1 to 4 (12 | len), also when the
    // sanitizer shrinks the size.
    let bytes: Vec<u8> = random_bits(size(3 << 20) / 3 * 12, 12)
        .into_iter()
        .enumerate()
        .map(|(i, x)| ((i % 4) * 60) as u8 + (x % 8) as u8)
        .collect();
    let db = DeviceBuffer::upload(g, &bytes).unwrap();
    for c in 1..=4usize {
        let got = g
            .histogram_channels_device(&db, c, HistogramAlgorithm::Auto)
            .unwrap();
        assert_eq!(
            got,
            reference::histogram_channels_u8(&bytes, c).unwrap(),
            "{c} channels"
        );
        for off in [1usize, 3, 7] {
            let len = (bytes.len() - off) / c * c;
            let sub = &bytes[off..off + len];
            let h = poisoned_counts(g, c * 256);
            g.enqueue_histogram_channels(
                c,
                db.device_ptr(g) + off as u64,
                len as u64,
                h.device_ptr(g),
            )
            .unwrap();
            let got: Vec<u64> = h.download(g).unwrap().into_iter().map(u64::from).collect();
            let want = reference::histogram_channels_u8(sub, c).unwrap().concat();
            assert_eq!(got, want, "{c} channels at offset {off}");
        }
    }
}

/// The onesweep sort's up-front digit histograms (lane-private counters, 16-byte loads from the
/// first aligned key), 4 passes per launch and 1 (as a device with less shared memory runs
/// it), against the counts of the radix images on the host, at every element offset below 16
/// bytes, for bit ranges, descending order and keys of 1 to 8 bytes (u64: 8 passes, 2 or 8
/// launches).
#[test]
fn onesweep_digit_histograms_at_any_alignment() {
    let Some(e) = gpu() else { return };
    let g = e.cuda().unwrap();
    fn check<K: RadixKey>(g: &CudaBackend, n: usize, seed: u64)
    where
        K::Bits: TryFrom<u64>,
    {
        let size = std::mem::size_of::<K>();
        let slots = 16 / size;
        let mut staged: Vec<K> = keys(n + slots, seed);
        // Some runs of equal keys (one shared digit for a warp's lanes).
        for x in staged.iter_mut().skip(100).step_by(3).take(n / 4) {
            *x = K::from_radix(<K::Bits as histosort::RadixBits>::from_u128(0x5a5a));
        }
        let d = DeviceBuffer::upload(g, &staged).unwrap();
        let bits = <K::Bits as histosort::RadixBits>::BITS;
        for off in [0, 1, slots - 1] {
            let input = &staged[off..off + n];
            for o in [
                SortOptions::new(),
                SortOptions::new().descending(),
                SortOptions::new().bits(3, bits.min(19)),
                SortOptions::new().bits(1, bits),
            ] {
                let (begin, end) = o.bit_range(bits);
                let passes = (end - begin).div_ceil(8) as usize;
                let mut want = vec![0u32; passes * 256];
                for &k in input {
                    let mut r = k.to_radix();
                    if o.order == histosort::Order::Descending {
                        r = histosort::RadixBits::complement(r);
                    }
                    for p in 0..passes {
                        let shift = begin + 8 * p as u32;
                        let w = (end - shift).min(8);
                        want[p * 256 + histosort::RadixBits::digit(r, shift, (1 << w) - 1)] += 1;
                    }
                }
                let ptr = d.device_ptr(g) + (off * size) as u64;
                for per_launch in [4, 3, 1] {
                    let got = g
                        .onesweep_digit_histograms::<K>(ptr, n, &o, per_launch)
                        .unwrap();
                    assert_eq!(
                        got,
                        want,
                        "{} n={n} offset {off} {o:?} {per_launch} passes per launch",
                        K::DTYPE
                    );
                }
            }
        }
    }
    for n in [1, 17, 1000, 65_537, size(3_000_001)] {
        check::<u8>(g, n, 1);
        check::<i16>(g, n, 2);
        check::<u32>(g, n, 3);
        check::<f32>(g, n, 4);
        check::<u64>(g, n, 5);
    }
}

/// Even and range bins on data already on the device, at starts 0 to 3 elements past a 16-byte
/// boundary (the kernel counts a ragged head and tail one by one), with bin counts that give
/// each number of shared sub-histograms (32 down to 1) and global counters, on uniform samples
/// and on samples that all fall in one bin (every atomic of a warp on one counter).
#[test]
fn bins_histograms_on_the_device_at_any_alignment() {
    let Some(e) = gpu() else { return };
    let g: &CudaBackend = e.cuda().unwrap();
    let n = size(300_001);
    let bits = random_bits(n, 21);
    for bins in [1usize, 100, 400, 1000, 2000, 4000, 10_000, 20_000] {
        for one_bin in [false, true] {
            let f: Vec<f32> = bits
                .iter()
                .map(|&x| {
                    if one_bin {
                        0.25
                    } else {
                        (x >> 40) as f32 / (1u64 << 24) as f32 * 2.5 - 1.25
                    }
                })
                .collect();
            let i: Vec<i32> = bits
                .iter()
                .map(|&x| if one_bin { 7 } else { x as i32 })
                .collect();
            let bounds_f: Vec<f32> = (0..=bins)
                .map(|j| -1.0 + 2.0 * (j as f32 + (j * j) as f32 / bins as f32) / (2 * bins) as f32)
                .collect();
            let bounds_i: Vec<i32> = (0..=bins as i64)
                .map(|j| {
                    (-2_000_000_000 + 4_000_000_000 * (j + j * j / bins as i64) / (2 * bins as i64))
                        as i32
                })
                .collect();
            let df = DeviceBuffer::upload(g, &f).unwrap();
            let di = DeviceBuffer::upload(g, &i).unwrap();
            let dbf = DeviceBuffer::upload(g, &bounds_f).unwrap();
            let dbi = DeviceBuffer::upload(g, &bounds_i).unwrap();
            for off in [0usize, 1, 2, 3] {
                let what = format!("{bins} bins, offset {off}, one bin {one_bin}");
                let run = |launch: &dyn Fn(u64) -> histosort::Result<()>,
                           want: Vec<u64>,
                           kind: &str| {
                    let h = poisoned_counts(g, bins);
                    launch(h.device_ptr(g)).unwrap();
                    let got: Vec<u64> = h.download(g).unwrap().into_iter().map(u64::from).collect();
                    assert_eq!(got, want, "{kind}: {what}");
                };
                let a = HistogramAlgorithm::Auto;
                let (pf, pi) = (
                    df.device_ptr(g) + 4 * off as u64,
                    di.device_ptr(g) + 4 * off as u64,
                );
                let m = (n - off) as u64;
                run(
                    &|h| g.enqueue_histogram_even(pf, m, bins, -1.0f32, 1.0, h, a),
                    reference::histogram_even(&f[off..], bins, -1.0f32, 1.0).unwrap(),
                    "f32 even",
                );
                run(
                    &|h| {
                        g.enqueue_histogram_even(
                            pi,
                            m,
                            bins,
                            -1_500_000_000i32,
                            2_000_000_000,
                            h,
                            a,
                        )
                    },
                    reference::histogram_even(&i[off..], bins, -1_500_000_000i32, 2_000_000_000)
                        .unwrap(),
                    "i32 even",
                );
                run(
                    &|h| g.enqueue_histogram_range::<f32>(pf, m, dbf.device_ptr(g), bins + 1, h, a),
                    reference::histogram_range(&f[off..], &bounds_f).unwrap(),
                    "f32 range",
                );
                run(
                    &|h| g.enqueue_histogram_range::<i32>(pi, m, dbi.device_ptr(g), bins + 1, h, a),
                    reference::histogram_range(&i[off..], &bounds_i).unwrap(),
                    "i32 range",
                );
            }
        }
    }
}

/// 0xABABABAB in every counter: a histogram call must write all of them.
fn poisoned_counts(g: &CudaBackend, bins: usize) -> DeviceBuffer<u32> {
    DeviceBuffer::upload(g, &vec![0xABAB_ABABu32; bins]).unwrap()
}

/// The default byte histogram (`hist_bytes`: one launch, no zeroed output, an accumulator that
/// the last block clears): every start offset below 16 bytes and lengths around the vector and
/// pair boundaries, poisoned outputs, launches back to back on different data (the accumulator
/// must be clear after each), a grid of one block and a full wave, runs of one value; and the
/// seeds' variants, which now zero their counters themselves and refuse misaligned data.
#[test]
fn byte_histogram_in_one_launch() {
    let Some(e) = gpu() else { return };
    let g: &CudaBackend = e.cuda().unwrap();
    let n = size(3 << 20) + 77;
    let bytes: Vec<u8> = random_bits(n, 21)
        .into_iter()
        .enumerate()
        .map(|(i, x)| match (i / 5000) % 3 {
            0 => 200,
            1 => (x % 3) as u8,
            _ => x as u8,
        })
        .collect();
    let db = DeviceBuffer::upload(g, &bytes).unwrap();
    let a = HistogramAlgorithm::Auto;
    let mut lens = vec![0usize, 1, 15, 16, 17, 31, 32, 33, 47, 48, 1000, 65_537];
    lens.push(n - 16);
    for off in 0..16usize {
        for &len in &lens {
            let len = len.min(n - off);
            let sub = &bytes[off..off + len];
            let h = poisoned_counts(g, 256);
            g.enqueue_histogram_u8(
                a,
                db.device_ptr(g) + off as u64,
                len as u64,
                h.device_ptr(g),
            )
            .unwrap();
            let got: Vec<u64> = h.download(g).unwrap().into_iter().map(u64::from).collect();
            assert_eq!(
                got,
                reference::histogram_u8(sub),
                "offset {off}, {len} bytes"
            );
        }
    }
    // Back to back without a sync, into different counters, then each checked.
    let cases: Vec<(usize, usize)> = vec![
        (0, n),
        (3, n - 3),
        (5, 100),
        (0, n / 2),
        (9, 40_000.min(n - 9)),
    ];
    let outs: Vec<DeviceBuffer<u32>> = cases
        .iter()
        .map(|&(off, len)| {
            let h = poisoned_counts(g, 256);
            g.enqueue_histogram_u8(
                a,
                db.device_ptr(g) + off as u64,
                len as u64,
                h.device_ptr(g),
            )
            .unwrap();
            h
        })
        .collect();
    for (&(off, len), h) in cases.iter().zip(&outs) {
        let got: Vec<u64> = h.download(g).unwrap().into_iter().map(u64::from).collect();
        assert_eq!(
            got,
            reference::histogram_u8(&bytes[off..off + len]),
            "back to back: offset {off}, {len} bytes"
        );
    }
    // One value everywhere (every lane's column of one bin).
    let same = DeviceBuffer::upload(g, &vec![7u8; size(1 << 22)]).unwrap();
    assert_eq!(
        g.histogram_u8_device(&same, a).unwrap(),
        reference::histogram_u8(&vec![7u8; size(1 << 22)])
    );
    // The seeds' variants write their counters too, and refuse data their loads cannot read.
    for v in [
        HistogramAlgorithm::GlobalAtomic,
        HistogramAlgorithm::GlobalAtomicUnrolled,
        HistogramAlgorithm::SharedPrivate,
        HistogramAlgorithm::WarpPrivate,
        HistogramAlgorithm::LanePrivate,
    ] {
        let h = poisoned_counts(g, 256);
        g.enqueue_histogram_u8(v, db.device_ptr(g), n as u64, h.device_ptr(g))
            .unwrap();
        let got: Vec<u64> = h.download(g).unwrap().into_iter().map(u64::from).collect();
        assert_eq!(got, reference::histogram_u8(&bytes), "{v}");
        let misaligned = g.enqueue_histogram_u8(v, db.device_ptr(g) + 2, 100, h.device_ptr(g));
        assert_eq!(
            misaligned.is_err(),
            v != HistogramAlgorithm::GlobalAtomic,
            "{v}"
        );
    }
}

/// The hybrid sort (MSD on the top 16 bits, then in-bucket sorts), for each key width where
/// it is on (`hybrid_min`), just past its shortest input: uniform keys take it in both orders,
/// as pairs with 4-, 8- and 16-byte payloads (stability through the payloads, also with many
/// equal keys per bucket), argsort, in place on the device, for signed and float keys of the
/// width, and sorted keys. Skewed keys (reduced entropy, few distinct, all equal) send it to
/// the LSD sort. 4-byte keys with 4-byte values (and u32 argsorts) take the packed hybrid (packed
/// MSD passes, in-bucket sorts of the packed elements). Every result against the reference; the
/// backend's counters say which path ran.
#[test]
fn hybrid_sort_takes_uniform_keys_and_falls_back_on_skew() {
    let Some(e) = gpu() else { return };
    // This test's own backend takes the hybrid path from 2^22 keys of both widths (whatever the
    // defaults: off for 32-bit keys, 2.5 x 2^20 and 2^20 for 64-bit keys without and with
    // values), so that every case below runs it and stays quick; under compute-sanitizer from
    // just past the single-launch sort's largest input (smaller inputs never reach the hybrid).
    let g = e.cuda().unwrap();
    let n = multi_kernel_size();
    g.set_hybrid_min(4, Some(n - 3));
    g.set_hybrid_min(8, Some(n - 3));
    hybrid_cases::<u32, i32, f32>(&e, n);
    hybrid_cases::<u64, i64, f64>(&e, n);
    hybrid_tie_runs(&e, n);
}

/// The packed hybrid's one-bucket chunks (u32/u32 pairs from 2^26: every chunk a single 16-bit
/// bucket, two in-bucket digits, `tuning::cuda::packed_hybrid_block`): uniform u32 keys with
/// u32 values in both orders, keys with many equal copies in every bucket (stability through
/// the payloads), f32 keys, and a u32 argsort; every result against the reference, and the
/// backend's counters say the hybrid ran. (Skipped under compute-sanitizer's small sizes.)
#[test]
fn packed_hybrid_sorts_one_bucket_a_chunk() {
    let Some(e) = gpu() else { return };
    let n = (1usize << 26) + 3;
    if size(n) < n {
        return;
    }
    let g = e.cuda().unwrap();
    g.set_hybrid_min(4, Some(1 << 26));
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    let idx: Vec<u32> = (0..n as u32).collect();
    let before = (g.hybrid_runs(), g.packed_hybrid_runs());
    let u: Vec<u32> = keys(n, 41);
    // The top 16 bits uniform (every bucket holds ~1024 pairs, within its block), the low 16
    // one of 4 values: ~256 copies of each key in every bucket, runs of equal keys.
    let rep: Vec<u32> = u
        .iter()
        .map(|&x| (x & 0xffff_0000) | (x >> 8 & 3))
        .collect();
    let f: Vec<f32> = keys(n, 47);
    let check = |input: &[u32], o: &SortOptions, what: &str| {
        pairs(&e, input, &idx, o, &format!("packed hybrid {what}"))
    };
    check(&u, &os, "u32");
    check(&u, &os.clone().descending(), "u32");
    check(&rep, &os, "u32 repeated");
    pairs(&e, &f, &idx, &os.clone().descending(), "packed hybrid f32");
    let p: Vec<u32> = e.argsort_as(&u, &os).unwrap();
    assert_eq!(
        p,
        reference::argsort::<u32, u32>(&u, &os),
        "packed hybrid argsort"
    );
    let (now, packed) = (g.hybrid_runs(), g.packed_hybrid_runs());
    assert_eq!(
        (now.0 - before.0 .0, now.1 - before.0 .1, packed - before.1),
        (5, 0, 5),
        "every case takes the packed hybrid"
    );
}

/// The in-bucket top sort of 64-bit keys (sorted by the chunk's top varying digits, then runs
/// tied on them by the rest): runs short enough for the per-thread insertion sort, and runs
/// too long for it, which send the chunk through every digit; keys that repeat, in runs of
/// equal keys longer than the insertion sort takes (left as the top sort put them), and in
/// runs that mix two keys (long: every digit; short: the insertion sort among equal keys).
/// Uniform keys (short runs of 2) are `hybrid_cases`'.
fn hybrid_tie_runs(e: &Engine, n: usize) {
    let g = e.cuda().unwrap();
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    let r: Vec<u64> = keys(n, 37);
    let idx: Vec<u32> = (0..n as u32).collect();
    // Top 16 bits uniform (every chunk fits a block); bits [24, 48) one of `m` patterns that
    // differ in many bits (so those digits count as varying); bits [0, 24) random. Each
    // chunk's keys tie on its top digits in runs of about chunk / (buckets x m).
    let tied = |m: u64, low5: bool| -> Vec<u64> {
        r.iter()
            .enumerate()
            .map(|(i, &x)| {
                let top = if low5 {
                    // The 5 low bits of the top 16 fixed: one bucket in 32 holds all the keys
                    // of its 32, so runs are ~32 times longer (and such a bucket still fits the
                    // smallest in-bucket block, 2560 keys, at 2^22 keys).
                    (x & !(0x1fu64 << 48)) & (0xffffu64 << 48)
                } else {
                    x & (0xffffu64 << 48)
                };
                let pat = (i as u64 * 7 % m).wrapping_mul(0x5a5a_5a5a_5a5a) & (0xff_ffffu64 << 24);
                top | pat | (x & 0xff_ffff)
            })
            .collect()
    };
    // `d` distinct keys spread over every bucket, each drawn about n / d times; with `twin`
    // each key's copies alternate between two keys that differ in bit 0 only.
    let repeated = |d: u64, twin: bool| -> Vec<u64> {
        r.iter()
            .enumerate()
            .map(|(i, &x)| {
                let j = x % d + 1;
                let base = j.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    ^ (j.wrapping_mul(0xd6e8_feb8_6659_fd93) >> 32);
                if twin {
                    (base & !1) | (i as u64 & 1)
                } else {
                    base
                }
            })
            .collect()
    };
    let before = g.hybrid_runs();
    let d = n as u64;
    for (input, what) in [
        (tied(2, false), "runs of ~32"),
        (tied(5, false), "runs of ~13"),
        (tied(2, true), "runs of ~1024"),
        (tied(3, true), "runs of ~683"),
        (repeated(d / 64, false), "equal keys in runs of ~64"),
        (repeated(d / 64, true), "two keys in runs of ~64"),
        (repeated(d / 16, true), "two keys in runs of ~16"),
    ] {
        for o in [os.clone(), os.clone().descending()] {
            let mut k = input.clone();
            let mut v = idx.clone();
            e.sort_pairs(&mut k, &mut v, &o).unwrap();
            let (rk, rv) = reference::sort_pairs(&input, &idx, &o);
            same_bits(&k, &rk, &format!("hybrid ties {what} keys {o:?}"));
            if let Some(i) = (0..n).find(|&i| v[i] != rv[i]) {
                panic!(
                    "hybrid ties {what} {o:?}: payload {i}: got {}, expected {} (key {:#x})",
                    v[i], rv[i], k[i]
                );
            }
            sorts_like_reference(e, &input, &o, &format!("hybrid ties {what}"));
            let fk: Vec<f64> = input.iter().map(|&x| f64::from_bits(x)).collect();
            sorts_like_reference(e, &fk, &o, &format!("hybrid ties {what} f64"));
        }
    }
    let now = g.hybrid_runs();
    assert_eq!(
        (now.0 - before.0, now.1 - before.1),
        (42, 0),
        "keys with tie runs take the hybrid path"
    );
}

fn hybrid_cases<U, S, F>(e: &Engine, n: usize)
where
    U: RadixKey + std::ops::BitAnd<Output = U> + std::ops::Shl<u32, Output = U> + Copy,
    S: RadixKey,
    F: RadixKey,
    U::Bits: TryFrom<u64>,
    S::Bits: TryFrom<u64>,
    F::Bits: TryFrom<u64>,
{
    let g = e.cuda().unwrap();
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    let what = U::DTYPE;
    let delta = |before: (u64, u64)| {
        let now = g.hybrid_runs();
        (now.0 - before.0, now.1 - before.1)
    };
    let input: Vec<U> = keys(n, 31);
    let idx: Vec<u32> = (0..n as u32).collect();
    let wide: Vec<u64> = (0..n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let sixteen: Vec<[u64; 2]> = (0..n as u64).map(|i| [i, !i]).collect();
    for o in [os.clone(), os.clone().descending()] {
        let b = g.hybrid_runs();
        let packed_before = g.packed_hybrid_runs();
        sorts_like_reference(e, &input, &o, &format!("hybrid {what}"));
        pairs(e, &input, &idx, &o, &format!("hybrid {what}/u32"));
        pairs(e, &input, &wide, &o, &format!("hybrid {what}/u64"));
        pairs(e, &input, &sixteen, &o, &format!("hybrid {what}/16 bytes"));
        let p: Vec<u32> = e.argsort_as(&input, &o).unwrap();
        assert_eq!(
            p,
            reference::argsort::<U, u32>(&input, &o),
            "hybrid argsort {what}"
        );
        let p: Vec<u64> = e.argsort_as(&input, &o).unwrap();
        assert_eq!(
            p,
            reference::argsort::<U, u64>(&input, &o),
            "hybrid argsort {what}"
        );
        // (Payloads of 16 bytes may find a chunk too large for their smaller blocks.)
        let (took, fell) = delta(b);
        assert!(
            took >= 5 && took + fell == 6,
            "{what} uniform keys {o:?}: {took} hybrid, {fell} LSD"
        );
        // 4-byte keys with 4-byte values run packed, and so does their hybrid: the pair sort
        // with u32 values and the u32 argsort.
        let packed = if U::DTYPE.size() == 4 { 2 } else { 0 };
        assert_eq!(
            g.packed_hybrid_runs() - packed_before,
            packed,
            "{what} {o:?}: sorts that took the packed hybrid"
        );
    }
    // Many equal keys inside uniform buckets: all but the top 20 bits cleared, payload = index.
    let ones = U::from_radix(<U::Bits as histosort::RadixBits>::from_u128(u128::MAX));
    let top20 = ones << (U::DTYPE.size() as u32 * 8 - 20);
    let coarse: Vec<U> = input.iter().map(|&k| k & top20).collect();
    let b = g.hybrid_runs();
    pairs(
        e,
        &coarse,
        &idx,
        &os,
        &format!("hybrid {what} equal low bits"),
    );
    assert_eq!(
        delta(b),
        (1, 0),
        "{what} keys with equal low bits take the hybrid path"
    );
    let b = g.hybrid_runs();
    sorts_like_reference(e, &keys::<S>(n, 32), &os, "hybrid signed");
    sorts_like_reference(
        e,
        &keys::<F>(n, 33),
        &os.clone().descending(),
        "hybrid float",
    );
    let mut sorted = input.clone();
    sorted.sort_unstable_by_key(|k| k.to_radix());
    sorts_like_reference(e, &sorted, &os, "hybrid sorted");
    let mut d = DeviceBuffer::upload(g, &input).unwrap();
    g.sort_device_in_place(&mut d, &os).unwrap();
    same_bits(
        &d.download(g).unwrap(),
        &reference::sort_keys(&input, &os),
        "hybrid in place",
    );
    assert_eq!(
        delta(b),
        (4, 0),
        "{what}: signed, float, sorted and in-place sorts take the hybrid path"
    );
    // Skewed keys: a chunk of buckets holds too many keys, the LSD sort runs.
    let (a, b2, c) = (keys::<U>(n, 34), keys::<U>(n, 35), keys::<U>(n, 36));
    let and3: Vec<U> = (0..n).map(|i| a[i] & b2[i] & c[i]).collect();
    let few: Vec<U> = (0..n).map(|i| input[i % 8]).collect();
    let equal: Vec<U> = vec![input[0]; n];
    let b = g.hybrid_runs();
    for (v, name) in [
        (&and3, "AND of 3"),
        (&few, "8 distinct"),
        (&equal, "all equal"),
    ] {
        pairs(e, v, &idx, &os, &format!("{what} {name}"));
        pairs(
            e,
            v,
            &idx,
            &os.clone().descending(),
            &format!("{what} {name}"),
        );
    }
    assert_eq!(
        delta(b),
        (0, 6),
        "{what}: skewed keys fall back to the LSD sort"
    );
    // The same plan serves a hybrid sort after fallbacks.
    let b = g.hybrid_runs();
    sorts_like_reference(e, &input, &os, "hybrid after fallbacks");
    assert_eq!(delta(b), (1, 0));
}

/// The free ranking of a keys-only sort's first pass (a shared atomic on the digit's counter
/// returns each key's position, no ballots; tiles whose digits are skewed rank by ballots): on
/// by default for keys-only sorts of whole keys, where it must give the reference's keys on
/// every distribution and order (free tiles, skewed tiles and both in one sort), and never
/// taken where the order among equal digits matters (a bit range short of the key, pairs,
/// argsort), which must stay stable. Every sort here runs the pass kernel (many tiles and a
/// partial last one); the backend's counter says which sorts ranked freely.
#[test]
fn free_ranking_sorts_like_the_reference_and_only_where_order_is_free() {
    let Some(e) = gpu() else { return };
    let g = e.cuda().unwrap();
    let n = multi_kernel_size();
    // (The hybrid sort's free passes are covered by its own test.)
    g.set_hybrid_min(4, None);
    g.set_hybrid_min(8, None);
    assert!(g.free_rank_runs() == 0 || histosort::tuning::cuda::free_rank());
    g.set_free_rank(true);
    free_rank_cases::<u32>(&e, n);
    free_rank_cases::<i32>(&e, n);
    free_rank_cases::<f32>(&e, n);
    free_rank_cases::<u64>(&e, n);
    free_rank_cases::<f64>(&e, n);
    // Turned off, the same sorts rank with ballots.
    g.set_free_rank(false);
    let b = g.free_rank_runs();
    let input: Vec<u32> = keys(n, 41);
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    sorts_like_reference(&e, &input, &os, "free ranking off");
    assert_eq!(g.free_rank_runs(), b, "free ranking off: no sort takes it");
    g.set_free_rank(true);
}

fn free_rank_cases<K: RadixKey>(e: &Engine, n: usize)
where
    K::Bits: TryFrom<u64>,
{
    let g = e.cuda().unwrap();
    let os = SortOptions::new().algorithm(SortAlgorithm::Onesweep);
    let what = K::DTYPE;
    let runs = || g.free_rank_runs();
    let input: Vec<K> = keys(n, 40);
    // Skewed keys rank many equal digits per warp: the atomics' returns must stay distinct.
    let (a, b, c) = (keys::<K>(n, 42), keys::<K>(n, 43), keys::<K>(n, 44));
    let and = |three: bool| -> Vec<K> {
        (0..n)
            .map(|i| {
                use histosort::RadixBits;
                let mut r = a[i].to_radix().to_u128() & b[i].to_radix().to_u128();
                if three {
                    r &= c[i].to_radix().to_u128();
                }
                K::from_radix(K::Bits::from_u128(r))
            })
            .collect()
    };
    // AND of 2: the largest digit holds ~10% of a tile, which still ranks freely (contended
    // atomics); AND of 3: ~34%, every tile ranks by ballots.
    let (and2, and3) = (and(false), and(true));
    // Free tiles, then skewed ones.
    let mixed: Vec<K> = (0..n)
        .map(|i| if i < n / 2 { input[i] } else { input[0] })
        .collect();
    let few: Vec<K> = (0..n).map(|i| input[i % 5]).collect();
    let mut sorted = input.clone();
    sorted.sort_unstable_by_key(|k| k.to_radix());
    let mut odd = input.clone();
    // (Still above the single-launch kernel's limit at the sanitizer's size, where n is that
    // limit + 3: the single-launch sort never ranks freely.)
    let cut = if n - 1000 > histosort::tuning::cuda::ONESWEEP_FUSED_MAX + 1 {
        1000
    } else {
        1
    };
    odd.truncate(n - cut);
    let before = runs();
    let mut sorts = 0;
    for o in [os.clone(), os.clone().descending()] {
        for (v, name) in [
            (&input, "uniform"),
            (&and2, "AND of 2"),
            (&and3, "AND of 3"),
            (&mixed, "half uniform, half equal"),
            (&few, "5 distinct"),
            (&sorted, "sorted"),
            (&odd, "uniform, another partial tile"),
        ] {
            sorts_like_reference(e, v, &o, &format!("free ranking {what} {name}"));
            sorts += 1;
        }
    }
    assert_eq!(
        runs() - before,
        sorts,
        "{what}: every keys-only sort of whole keys ranks its first pass freely"
    );
    // Where the order among equal digits matters: a bit range (keys equal in the range but not
    // outside it keep their input order), pairs and argsort. None ranks freely.
    let before = runs();
    let bits = K::DTYPE.size() as u32 * 8;
    for range in [(0, bits / 2), (4, bits)] {
        let o = os.clone().bits(range.0, range.1);
        sorts_like_reference(
            e,
            &input,
            &o,
            &format!("free ranking {what} bits {range:?}"),
        );
    }
    let idx: Vec<u32> = (0..n as u32).collect();
    let mut k = and3.clone();
    let mut v = idx.clone();
    e.sort_pairs(&mut k, &mut v, &os).unwrap();
    let (rk, rv) = reference::sort_pairs(&and3, &idx, &os);
    same_bits(&k, &rk, &format!("free ranking {what} pairs"));
    assert!(v == rv, "free ranking {what}: pairs' payloads out of order");
    let p: Vec<u32> = e.argsort_as(&and3, &os).unwrap();
    assert!(
        p == reference::argsort::<K, u32>(&and3, &os),
        "free ranking {what}: argsort"
    );
    assert_eq!(
        runs(),
        before,
        "{what}: bit ranges, pairs and argsort never rank freely"
    );
}
