//! `histosort validate`: every sort, histogram and scan variant the chosen backend offers, on
//! generated data of many types, distributions and sizes, compared element by element with the
//! serial reference ([`histosort::reference`]).

use std::time::Instant;

use bytemuck::Pod;
use clap::Args;
use histosort::gen::{generate, Distribution, EntropyPreset};
use histosort::{
    reference, BackendKind, Engine, Error, HistogramAlgorithm, LaunchMode, Order, RadixBits,
    RadixKey, Sample, ScanAlgorithm, ScanElem, ScanKind, SortAlgorithm, SortOptions,
};

use super::{fmt_duration, CliResult, Failure, Global};

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// A short run: fewer distributions and sizes (a few seconds).
    #[arg(long)]
    pub quick: bool,
    /// Only run cases whose name contains this text (e.g. "sort f32", "hist").
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Seed of the generated data.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

impl From<Result<(), String>> for Outcome {
    fn from(r: Result<(), String>) -> Outcome {
        match r {
            Ok(()) => Outcome::Pass,
            Err(m) => Outcome::Fail(m),
        }
    }
}

/// Engine errors: an unsupported combination is a skip, anything else a failure.
fn engine_result<T>(r: histosort::Result<T>) -> Result<T, Outcome> {
    r.map_err(|e| match e {
        Error::Unsupported(m) => Outcome::Skip(m),
        e => Outcome::Fail(e.to_string()),
    })
}

type Job = Box<dyn FnOnce() -> Outcome>;

struct Case {
    name: String,
    job: Job,
}

/// What to cover.
struct Plan {
    engine: Engine,
    seed: u64,
    sizes: Vec<usize>,
    /// A few sizes for the less central matrices.
    some_sizes: Vec<usize>,
    dists: Vec<Distribution>,
    sort_algorithms: Vec<SortAlgorithm>,
    hist_algorithms: Vec<HistogramAlgorithm>,
    scan_algorithms: Vec<ScanAlgorithm>,
    cases: Vec<Case>,
}

impl Plan {
    fn add(&mut self, name: String, job: impl FnOnce() -> Outcome + 'static) {
        self.cases.push(Case {
            name,
            job: Box::new(job),
        });
    }
}

/// The first index where `got` and `want` differ, described.
fn compare<T: Pod + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: length {} instead of {}",
            got.len(),
            want.len()
        ));
    }
    let bytes = |x: &T| bytemuck::bytes_of(x).to_vec();
    match got.iter().zip(want).position(|(g, w)| bytes(g) != bytes(w)) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: first difference at index {i}: expected {:?}, got {:?}",
            want[i], got[i]
        )),
    }
}

fn order_name(o: &SortOptions) -> String {
    let mut s = match o.order {
        Order::Ascending => "asc".to_string(),
        Order::Descending => "desc".to_string(),
    };
    if let Some((b, e)) = o.bits {
        s += &format!(" bits={b}:{e}");
    }
    if let Some(d) = o.digit_bits {
        s += &format!(" digit={d}");
    }
    if o.launch == LaunchMode::Graph {
        s += " graph";
    }
    s
}

fn sort_case<K: RadixKey>(p: &mut Plan, dist: Distribution, n: usize, opts: SortOptions) {
    let (engine, seed) = (p.engine.clone(), p.seed);
    let name = format!(
        "sort {} {dist} n={n} {} {}",
        K::DTYPE,
        order_name(&opts),
        opts.algorithm
    );
    p.add(name, move || {
        let data: Vec<K> = generate(&dist, n, seed);
        let want = reference::sort_keys(&data, &opts);
        let mut got = data;
        if let Err(o) = engine_result(engine.sort(&mut got, &opts)) {
            return o;
        }
        compare("keys", &got, &want).into()
    });
}

/// Payload `i` as a `V`: the low bytes of the index, so narrow payloads wrap.
fn payload<V: Pod>(i: usize) -> V {
    let bytes = (i as u128).to_le_bytes();
    bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<V>()])
}

fn pairs_case<K: RadixKey, V: Pod + std::fmt::Debug + Send + Sync>(
    p: &mut Plan,
    dist: Distribution,
    n: usize,
    opts: SortOptions,
) {
    let (engine, seed) = (p.engine.clone(), p.seed);
    let name = format!(
        "pairs {}/{}B {dist} n={n} {} {}",
        K::DTYPE,
        std::mem::size_of::<V>(),
        order_name(&opts),
        opts.algorithm
    );
    p.add(name, move || {
        let keys: Vec<K> = generate(&dist, n, seed);
        let values: Vec<V> = (0..n).map(payload).collect();
        let (want_k, want_v) = reference::sort_pairs(&keys, &values, &opts);
        let (mut k, mut v) = (keys, values);
        if let Err(o) = engine_result(engine.sort_pairs(&mut k, &mut v, &opts)) {
            return o;
        }
        compare("keys", &k, &want_k)
            .and_then(|()| compare("values (stability)", &v, &want_v))
            .into()
    });
}

fn argsort_case<K: RadixKey, I: histosort::SortIndex>(
    p: &mut Plan,
    dist: Distribution,
    n: usize,
    opts: SortOptions,
) {
    let (engine, seed) = (p.engine.clone(), p.seed);
    let name = format!(
        "argsort {}->{} {dist} n={n} {} {}",
        K::DTYPE,
        I::DTYPE,
        order_name(&opts),
        opts.algorithm
    );
    p.add(name, move || {
        let keys: Vec<K> = generate(&dist, n, seed);
        let want: Vec<I> = reference::argsort(&keys, &opts);
        match engine_result(engine.argsort_as::<K, I>(&keys, &opts)) {
            Ok(got) => compare("permutation", &got, &want).into(),
            Err(o) => o,
        }
    });
}

/// Every sort variant over one key type.
fn key_cases<K: RadixKey>(p: &mut Plan, quick: bool) {
    let bits = K::Bits::BITS;
    let algorithms = p.sort_algorithms.clone();
    let (sizes, some, dists) = (p.sizes.clone(), p.some_sizes.clone(), p.dists.clone());
    let big = |n: usize| n > 100_000;
    for &alg in &algorithms {
        let base = SortOptions::new().algorithm(alg);
        for &dist in &dists {
            for &n in &sizes {
                // The largest sizes only for the distributions that differ most.
                let central = matches!(
                    dist,
                    Distribution::Uniform | Distribution::Reversed | Distribution::FloatSpecials
                );
                if big(n) && !central {
                    continue;
                }
                sort_case::<K>(p, dist, n, base.clone());
                sort_case::<K>(p, dist, n, base.clone().descending());
            }
        }
        // Bit ranges and digit widths on uniform keys.
        let uni = Distribution::Uniform;
        for &n in &some {
            for (b, e) in [
                (bits / 4, 3 * bits / 4),
                (0, bits / 2),
                (bits / 2, bits / 2),
            ] {
                sort_case::<K>(p, uni, n, base.clone().bits(b, e));
                if !quick {
                    sort_case::<K>(p, uni, n, base.clone().bits(b, e).descending());
                }
            }
            let digits: &[u32] = if quick {
                &[1, 4, 11]
            } else {
                &[1, 2, 3, 4, 5, 8, 11, 16]
            };
            for &d in digits {
                sort_case::<K>(p, uni, n, base.clone().digit_bits(d));
            }
            if p.engine.kind() == BackendKind::Cuda {
                sort_case::<K>(p, uni, n, base.clone().launch(LaunchMode::Graph));
            }
        }
    }
    // Auto (the engine's own choice) on a few inputs.
    for &n in &some {
        sort_case::<K>(p, Distribution::Uniform, n, SortOptions::new());
    }
}

/// Pair sorts with a u32 payload over a key type, and argsorts.
fn pair_cases<K: RadixKey>(p: &mut Plan) {
    let dists = [
        Distribution::Uniform,
        Distribution::AllEqual,
        Distribution::FewDistinct(2),
        Distribution::FloatSpecials,
    ];
    let sizes = p.some_sizes.clone();
    for alg in p.sort_algorithms.clone() {
        let base = SortOptions::new().algorithm(alg);
        for dist in dists {
            for &n in &sizes {
                pairs_case::<K, u32>(p, dist, n, base.clone());
                pairs_case::<K, u32>(p, dist, n, base.clone().descending());
                argsort_case::<K, u32>(p, dist, n, base.clone());
            }
        }
    }
}

/// Payload widths 1 to 16 bytes, and u64 argsort indices, on u32 keys.
fn width_cases(p: &mut Plan) {
    let sizes = p.some_sizes.clone();
    for alg in p.sort_algorithms.clone() {
        let base = SortOptions::new().algorithm(alg);
        for &n in &sizes {
            let d = Distribution::FewDistinct(2);
            pairs_case::<u32, u8>(p, d, n, base.clone());
            pairs_case::<u32, u16>(p, d, n, base.clone());
            pairs_case::<u32, u64>(p, d, n, base.clone().descending());
            pairs_case::<u32, u128>(p, d, n, base.clone());
            argsort_case::<u64, u64>(p, Distribution::Uniform, n, base.clone());
        }
    }
}

/// Boundaries from the data: quantiles of its finite values, strictly increasing.
fn quantiles<T: Sample>(data: &[T], k: usize) -> Vec<T> {
    let mut v: Vec<T> = data
        .iter()
        .copied()
        .filter(|x| !x.is_nan() && x.to_f64().is_finite())
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let mut q: Vec<T> = Vec::new();
    if v.is_empty() {
        return q;
    }
    for i in 0..=k {
        let x = v[(v.len() - 1) * i / k];
        if q.last().is_none_or(|l| *l < x) {
            q.push(x);
        }
    }
    q
}

/// Bin boundaries from the data (so that some samples fall outside), or from uniform samples of
/// the type when the data has too few distinct values (tiny or constant inputs).
fn bounds<T: Sample + RadixKey>(data: &[T], k: usize, seed: u64) -> Vec<T> {
    let q = quantiles(&data[..data.len().min(4096)], k);
    if q.len() >= 4 {
        return q;
    }
    let uniform: Vec<T> = generate(&Distribution::Uniform, 256, seed ^ 0xB0B);
    quantiles(&uniform, k)
}

fn hist_cases<T: Sample + RadixKey>(p: &mut Plan) {
    let dists = [
        Distribution::Uniform,
        Distribution::Entropy(EntropyPreset::E0544),
        Distribution::FewDistinct(8),
        Distribution::FloatSpecials,
    ];
    for alg in p.hist_algorithms.clone() {
        for dist in dists {
            for &n in &p.some_sizes.clone() {
                for bins in [1usize, 7, 256] {
                    let (engine, seed) = (p.engine.clone(), p.seed);
                    let name = format!(
                        "hist-even {} {dist} n={n} bins={bins} {alg}",
                        <T as Sample>::DTYPE
                    );
                    p.add(name, move || {
                        let data: Vec<T> = generate(&dist, n, seed);
                        let q = bounds::<T>(&data, 10, seed);
                        let (lo, hi) = match q.as_slice() {
                            [_, lo, .., hi, _] => (*lo, *hi),
                            _ => return Outcome::Fail("no bounds for the test".into()),
                        };
                        let want = match reference::histogram_even(&data, bins, lo, hi) {
                            Ok(w) => w,
                            Err(e) => return Outcome::Fail(format!("reference: {e}")),
                        };
                        match engine_result(engine.histogram_even(&data, bins, lo, hi, alg)) {
                            Ok(got) => compare("bins", &got, &want).into(),
                            Err(o) => o,
                        }
                    });
                }
                let (engine, seed) = (p.engine.clone(), p.seed);
                let name = format!("hist-range {} {dist} n={n} {alg}", <T as Sample>::DTYPE);
                p.add(name, move || {
                    let data: Vec<T> = generate(&dist, n, seed);
                    let bounds = bounds::<T>(&data, 6, seed);
                    let want = match reference::histogram_range(&data, &bounds) {
                        Ok(w) => w,
                        Err(e) => return Outcome::Fail(format!("reference: {e}")),
                    };
                    match engine_result(engine.histogram_range(&data, &bounds, alg)) {
                        Ok(got) => compare("bins", &got, &want).into(),
                        Err(o) => o,
                    }
                });
            }
        }
    }
}

fn hist_u8_cases(p: &mut Plan) {
    let dists = [
        Distribution::Uniform,
        Distribution::Entropy(EntropyPreset::E0544),
        Distribution::FewDistinct(8),
        Distribution::AllEqual,
    ];
    let mut sizes = p.some_sizes.clone();
    sizes.push(3 << 20 | 5);
    for alg in p.hist_algorithms.clone() {
        for dist in dists {
            for &n in &sizes {
                let (engine, seed) = (p.engine.clone(), p.seed);
                p.add(format!("hist-u8 {dist} n={n} {alg}"), move || {
                    let data: Vec<u8> = generate(&dist, n, seed);
                    let want = reference::histogram_u8(&data);
                    match engine_result(engine.histogram_u8(&data, alg)) {
                        Ok(got) => compare("bins", &got, &want).into(),
                        Err(o) => o,
                    }
                });
            }
        }
    }
}

/// 65536-bin histograms of u16 samples, with every variant that takes them.
fn hist_u16_cases(p: &mut Plan) {
    let dists = [
        Distribution::Uniform,
        Distribution::FewDistinct(8),
        Distribution::AllEqual,
    ];
    let mut sizes = p.some_sizes.clone();
    sizes.push(3 << 20 | 5);
    for alg in p.hist_algorithms.clone() {
        if matches!(
            p.engine.histogram_u16(&[1, 2, 3], alg),
            Err(Error::Unsupported(_))
        ) {
            continue;
        }
        for dist in dists {
            for &n in &sizes {
                let (engine, seed) = (p.engine.clone(), p.seed);
                p.add(format!("hist-u16 {dist} n={n} {alg}"), move || {
                    let data: Vec<u16> = generate(&dist, n, seed);
                    let want = reference::histogram_u16(&data);
                    match engine_result(engine.histogram_u16(&data, alg)) {
                        Ok(got) => compare("bins", &got, &want).into(),
                        Err(o) => o,
                    }
                });
            }
        }
    }
}

/// Multi-channel byte histograms (1 to 4 interleaved channels).
fn hist_channels_cases(p: &mut Plan) {
    for alg in p.hist_algorithms.clone() {
        if matches!(
            p.engine.histogram_channels_u8(&[1, 2, 3, 4], 4, alg),
            Err(Error::Unsupported(_))
        ) {
            continue;
        }
        for c in 1..=4usize {
            for &px in &p.some_sizes.clone() {
                let (engine, seed) = (p.engine.clone(), p.seed);
                p.add(
                    format!("hist-channels c={c} pixels={px} {alg}"),
                    move || {
                        let data: Vec<u8> = generate(&Distribution::Uniform, px * c, seed);
                        let want = match reference::histogram_channels_u8(&data, c) {
                            Ok(w) => w.concat(),
                            Err(e) => return Outcome::Fail(e.to_string()),
                        };
                        match engine_result(engine.histogram_channels_u8(&data, c, alg)) {
                            Ok(got) => compare("bins", &got.concat(), &want).into(),
                            Err(o) => o,
                        }
                    },
                );
            }
        }
    }
}

/// Scan inputs: small integers (as floats for float types), so that float sums are exact in
/// any association order and can be compared bit for bit.
trait ScanInput: ScanElem {
    fn from_small(x: i32) -> Self;
    fn is_float() -> bool;
}
macro_rules! scan_input {
    ($($t:ty, $f:expr);*) => {$(
        impl ScanInput for $t {
            fn from_small(x: i32) -> Self { x as $t }
            fn is_float() -> bool { $f }
        }
    )*};
}
scan_input!(u32, false; u64, false; i32, false; i64, false; f32, true; f64, true);

fn scan_cases<T: ScanInput>(p: &mut Plan) {
    let mut sizes = p.some_sizes.clone();
    sizes.push(1 << 20 | 3);
    for alg in p.scan_algorithms.clone() {
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for &n in &sizes {
                let (engine, seed) = (p.engine.clone(), p.seed);
                p.add(format!("scan {} {kind} n={n} {alg}", T::DTYPE), move || {
                    let raw: Vec<u32> = generate(&Distribution::Uniform, n, seed);
                    let data: Vec<T> = if T::is_float() {
                        // |x| <= 8, so every partial sum of up to 2^21 terms is exact in f32.
                        raw.iter()
                            .map(|r| T::from_small((r % 17) as i32 - 8))
                            .collect()
                    } else {
                        // Large values, so that integer sums wrap.
                        raw.iter().map(|r| T::from_small(*r as i32)).collect()
                    };
                    let want = reference::scan(&data, kind);
                    let mut got = vec![T::ZERO; n];
                    match engine_result(engine.scan_into(&data, &mut got, kind, alg)) {
                        Ok(()) => compare("sums", &got, &want).into(),
                        Err(o) => o,
                    }
                });
            }
        }
    }
}

/// The variants the engine accepts (an `Unsupported` answer on a tiny input means no).
fn supported(
    engine: &Engine,
) -> (
    Vec<SortAlgorithm>,
    Vec<HistogramAlgorithm>,
    Vec<ScanAlgorithm>,
) {
    let sorts = SortAlgorithm::ALL
        .iter()
        .copied()
        .filter(|&a| a != SortAlgorithm::Auto)
        .filter(|&a| {
            let mut k = [3u32, 1, 2];
            !matches!(
                engine.sort(&mut k, &SortOptions::new().algorithm(a)),
                Err(Error::Unsupported(_))
            )
        })
        .collect();
    let hists = HistogramAlgorithm::ALL
        .iter()
        .copied()
        .filter(|&a| {
            !matches!(
                engine.histogram_u8(&[1, 2, 3], a),
                Err(Error::Unsupported(_))
            )
        })
        .collect();
    let scans = ScanAlgorithm::ALL
        .iter()
        .copied()
        .filter(|&a| {
            let mut out = [0u32; 3];
            !matches!(
                engine.scan_into(&[1u32, 2, 3], &mut out, ScanKind::Inclusive, a),
                Err(Error::Unsupported(_))
            )
        })
        .collect();
    (sorts, hists, scans)
}

pub fn run(args: ValidateArgs, g: &Global) -> CliResult {
    let engine = g.engine()?;
    let (sort_algorithms, hist_algorithms, scan_algorithms) = supported(&engine);
    let (sizes, some_sizes, dists) = if args.quick {
        (
            vec![0, 1, 2, 257, 4097, 65_537],
            vec![1, 1000, 65_537],
            vec![
                Distribution::Uniform,
                Distribution::Entropy(EntropyPreset::E0201),
                Distribution::Reversed,
                Distribution::AllEqual,
                Distribution::FloatSpecials,
            ],
        )
    } else {
        (
            vec![
                0,
                1,
                2,
                3,
                31,
                255,
                256,
                257,
                1023,
                1024,
                1025,
                4095,
                4096,
                4097,
                8193,
                65_535,
                65_536,
                65_537,
                1 << 20,
                1_000_003,
            ],
            vec![0, 1, 2, 255, 4097, 65_537, 300_007],
            Distribution::ALL.to_vec(),
        )
    };
    let mut p = Plan {
        engine: engine.clone(),
        seed: args.seed,
        sizes,
        some_sizes,
        dists,
        sort_algorithms,
        hist_algorithms,
        scan_algorithms,
        cases: Vec::new(),
    };
    let q = args.quick;
    key_cases::<u8>(&mut p, q);
    key_cases::<u16>(&mut p, q);
    key_cases::<u32>(&mut p, q);
    key_cases::<u64>(&mut p, q);
    key_cases::<u128>(&mut p, q);
    key_cases::<i8>(&mut p, q);
    key_cases::<i16>(&mut p, q);
    key_cases::<i32>(&mut p, q);
    key_cases::<i64>(&mut p, q);
    key_cases::<i128>(&mut p, q);
    key_cases::<f32>(&mut p, q);
    key_cases::<f64>(&mut p, q);
    pair_cases::<u32>(&mut p);
    pair_cases::<i64>(&mut p);
    pair_cases::<f32>(&mut p);
    pair_cases::<u128>(&mut p);
    width_cases(&mut p);
    hist_u8_cases(&mut p);
    hist_u16_cases(&mut p);
    hist_channels_cases(&mut p);
    hist_cases::<u8>(&mut p);
    hist_cases::<u16>(&mut p);
    hist_cases::<u32>(&mut p);
    hist_cases::<u64>(&mut p);
    hist_cases::<i8>(&mut p);
    hist_cases::<i16>(&mut p);
    hist_cases::<i32>(&mut p);
    hist_cases::<i64>(&mut p);
    hist_cases::<f32>(&mut p);
    hist_cases::<f64>(&mut p);
    scan_cases::<u32>(&mut p);
    scan_cases::<u64>(&mut p);
    scan_cases::<i32>(&mut p);
    scan_cases::<i64>(&mut p);
    scan_cases::<f32>(&mut p);
    scan_cases::<f64>(&mut p);

    let cases: Vec<Case> = match &args.filter {
        Some(f) => p
            .cases
            .into_iter()
            .filter(|c| c.name.contains(f.as_str()))
            .collect(),
        None => p.cases,
    };
    if cases.is_empty() {
        // A filter with a typo must not pass by checking nothing.
        return Err(Failure::usage(format!(
            "--filter '{}' matches no case (names look like \"sort u32\" or \"hist\"; \
             `histosort validate --quick` prints them all)",
            args.filter.as_deref().unwrap_or_default()
        )));
    }
    outln!(
        "validating {} cases on {}{}",
        cases.len(),
        engine.describe(),
        match engine.fallback_reason() {
            Some(why) => format!(" (CUDA not used: {why})"),
            None => String::new(),
        }
    );
    let bar = g.progress().bar(cases.len() as u64, "validate");
    let start = Instant::now();
    let (mut passed, mut failed, mut skipped) = (0usize, Vec::new(), 0usize);
    for case in cases {
        bar.set_message(case.name.clone());
        let t = Instant::now();
        let outcome = (case.job)();
        let took = fmt_duration(t.elapsed());
        let line = match outcome {
            Outcome::Pass => {
                passed += 1;
                (!g.quiet).then(|| format!("PASS  {}  ({took})", case.name))
            }
            Outcome::Skip(why) => {
                skipped += 1;
                (!g.quiet).then(|| format!("SKIP  {}: {why}", case.name))
            }
            Outcome::Fail(why) => {
                let line = format!("FAIL  {}: {why}", case.name);
                failed.push(line.clone());
                Some(line)
            }
        };
        if let Some(line) = line {
            bar.suspend(|| outln!("{line}"));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    outln!(
        "{passed} passed, {} failed, {skipped} skipped on {} in {}",
        failed.len(),
        engine.kind(),
        fmt_duration(start.elapsed())
    );
    if failed.is_empty() {
        Ok(())
    } else {
        for f in failed.iter().take(20) {
            eprintln!("{f}");
        }
        Err(Failure::new(format!(
            "{} validation case(s) failed on {}",
            failed.len(),
            engine.kind()
        )))
    }
}
