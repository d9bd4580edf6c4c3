//! Shared helpers of the integration tests: the engines to test, the variants each runs, and
//! element-by-element comparison with `histosort::reference` that names the failing case.
//!
//! Every test file includes this module; not every file uses every helper.
#![allow(dead_code)]

use std::fmt::{Debug, Write as _};
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};

use histosort::gen::Distribution;
use histosort::{
    Backend, BackendKind, Engine, HistogramAlgorithm, LaunchMode, RadixBits, RadixKey,
    ScanAlgorithm, SortAlgorithm, SortOptions,
};

/// Tile-boundary sizes where tile bugs live: one tile to two tiles plus one for the CUDA
/// kernels' tiles (from `histosort::tuning::cuda`: three-phase, scan, onesweep), and for a generic set of 256 to 8192 keys.
pub const TILE_SIZES: &[usize] = &{
    const SORT: usize = histosort::tuning::cuda::THREE_PHASE_TILE as usize;
    const SCAN: usize = histosort::tuning::cuda::SCAN_TILE as usize;
    // Onesweep tiles of 1-, 4- and 8-byte keys (keys only), and the long inputs' tile of keys
    // of up to 4 bytes (which these lengths take under `HISTOSORT_ONESWEEP_LONG_MIN=0`).
    use histosort::tuning::cuda::onesweep_default_shape as shape;
    const OS1: usize = shape(1, 0, 0, u64::MAX).tile() as usize;
    const OS4: usize = shape(4, 0, 0, u64::MAX).tile() as usize;
    const OS8: usize = shape(8, 0, 0, u64::MAX).tile() as usize;
    const OS4L: usize = shape(4, 0, u64::MAX, 0).tile() as usize;
    [
        OS1 + 1,
        OS4 - 1,
        OS4,
        OS4 + 1,
        OS4L - 1,
        OS4L + 1,
        2 * OS8 + 1,
        255,
        256,
        257,
        511,
        512,
        513,
        1023,
        1024,
        1025,
        2047,
        2048,
        2049,
        4095,
        4096,
        4097,
        8191,
        8192,
        8193,
        16385,
        SORT - 1,
        SORT,
        SORT + 1,
        2 * SORT - 1,
        2 * SORT,
        2 * SORT + 1,
        3 * SORT + 7,
        SCAN - 1,
        SCAN,
        SCAN + 1,
        2 * SCAN + 1,
    ]
};

/// Small sizes: the empty input, one, two, three and a handful of odd ones.
pub const SMALL_SIZES: &[usize] = &[
    0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 100, 127, 129, 1000,
];

/// The engines under test: always the CPU, plus CUDA device 0 when it can be created. When it
/// cannot, prints `SKIP cuda: <reason>` once, or panics when `HISTOSORT_REQUIRE_GPU=1`.
///
/// Per test thread: a CUDA engine is not `Send` (it owns captured graphs), so it cannot be
/// shared between the harness's threads.
pub fn engines() -> Vec<Engine> {
    thread_local! {
        static ENGINES: Vec<Engine> = make_engines();
    }
    ENGINES.with(|v| v.clone())
}

fn make_engines() -> Vec<Engine> {
    let mut v = vec![Engine::cpu()];
    v.extend(cuda_engine());
    v
}

/// CUDA device 0's engine; without one, prints `SKIP cuda: <reason>` once per test binary, or
/// panics when `HISTOSORT_REQUIRE_GPU=1`.
pub fn cuda_engine() -> Option<Engine> {
    static SKIP_SHOWN: OnceLock<()> = OnceLock::new();
    match Engine::new(Backend::Cuda { device: 0 }) {
        Ok(e) => Some(e),
        Err(e) => {
            if std::env::var("HISTOSORT_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("HISTOSORT_REQUIRE_GPU=1 but the CUDA backend is unavailable: {e}");
            }
            SKIP_SHOWN.get_or_init(|| {
                // Straight to the process's stderr: the test harness captures `eprintln!`,
                // and a skip must be visible in a passing run.
                let _ = writeln!(std::io::stderr(), "SKIP cuda: {e}");
            });
            None
        }
    }
}

/// A short name for an engine in failure messages.
pub fn engine_name(e: &Engine) -> String {
    e.kind().to_string()
}

pub fn is_cuda(e: &Engine) -> bool {
    e.kind() == BackendKind::Cuda
}

/// The largest power of two the size sweeps go up to on `e`.
pub fn max_pow2(e: &Engine) -> u32 {
    if is_cuda(e) {
        26
    } else {
        20
    }
}

/// The sort configurations (variant, digit width, launch mode) to test on `e`; order and bit
/// range are set by the caller.
pub fn sort_configs(e: &Engine) -> Vec<SortOptions> {
    let mut v = vec![SortOptions::new()];
    if is_cuda(e) {
        // Every GPU variant, so that a new one is tested as soon as it exists; the seeds'
        // three-phase sort at each digit width it accepts.
        for &a in SortAlgorithm::ALL {
            if matches!(a, SortAlgorithm::Auto | SortAlgorithm::CpuLsd) {
                continue;
            }
            for launch in [LaunchMode::Stream, LaunchMode::Graph] {
                let o = SortOptions::new().algorithm(a).launch(launch);
                if a == SortAlgorithm::ThreePhase {
                    for d in [1, 2, 4, 8] {
                        v.push(o.clone().digit_bits(d));
                    }
                } else {
                    v.push(o);
                }
            }
        }
    } else {
        v.push(SortOptions::new().algorithm(SortAlgorithm::CpuLsd));
        for d in [1, 4, 8, 11, 16] {
            v.push(
                SortOptions::new()
                    .algorithm(SortAlgorithm::CpuLsd)
                    .digit_bits(d),
            );
        }
    }
    v
}

/// A cheaper subset of [`sort_configs`] for the big sweeps: the default, plus one explicit
/// variant with its default digit width (and, on CUDA, graph launches).
pub fn sort_configs_quick(e: &Engine) -> Vec<SortOptions> {
    if is_cuda(e) {
        vec![
            SortOptions::new(),
            SortOptions::new()
                .algorithm(SortAlgorithm::ThreePhase)
                .digit_bits(4)
                .launch(LaunchMode::Graph),
        ]
    } else {
        vec![
            SortOptions::new(),
            SortOptions::new()
                .algorithm(SortAlgorithm::CpuLsd)
                .digit_bits(11),
        ]
    }
}

/// Names a configuration: `cpu-lsd/digits=4/stream/descending/bits=[3,19)`.
pub fn describe(o: &SortOptions) -> String {
    let mut s = o.algorithm.to_string();
    match o.digit_bits {
        Some(d) => write!(s, "/digits={d}").unwrap(),
        None => s.push_str("/digits=default"),
    }
    if o.algorithm != SortAlgorithm::CpuLsd {
        write!(s, "/{}", o.launch).unwrap();
    }
    write!(s, "/{}", o.order).unwrap();
    if let Some((b, e)) = o.bits {
        write!(s, "/bits=[{b},{e})").unwrap();
    }
    s
}

/// Histogram variants that run on `e`.
pub fn histogram_variants(e: &Engine) -> Vec<HistogramAlgorithm> {
    if is_cuda(e) {
        HistogramAlgorithm::ALL
            .iter()
            .copied()
            .filter(|a| *a != HistogramAlgorithm::CpuPrivate)
            .collect()
    } else {
        vec![HistogramAlgorithm::Auto, HistogramAlgorithm::CpuPrivate]
    }
}

/// Histogram variants for even and range bins on `e`: on CUDA, the variants with a bins kernel.
/// `global-atomic-u32` (CUDA Handbook Listing 16-3, 32-bit loads of bytes) and `warp-private`
/// are byte-histogram designs; for other samples they must return `Unsupported`, which
/// `histogram.rs` checks separately.
pub fn bins_histogram_variants(e: &Engine) -> Vec<HistogramAlgorithm> {
    histogram_variants(e)
        .into_iter()
        .filter(|a| !BYTE_ONLY_HISTOGRAMS.contains(a))
        .collect()
}

/// The byte-only histogram variants (see [`bins_histogram_variants`]).
pub const BYTE_ONLY_HISTOGRAMS: &[HistogramAlgorithm] = &[
    HistogramAlgorithm::GlobalAtomicUnrolled,
    HistogramAlgorithm::WarpPrivate,
    HistogramAlgorithm::LanePrivate,
];

/// Scan variants that run on `e`.
pub fn scan_variants(e: &Engine) -> Vec<ScanAlgorithm> {
    if is_cuda(e) {
        ScanAlgorithm::ALL
            .iter()
            .copied()
            .filter(|a| *a != ScanAlgorithm::CpuBlocked)
            .collect()
    } else {
        vec![ScanAlgorithm::Auto, ScanAlgorithm::CpuBlocked]
    }
}

/// The case a check belongs to, for failure messages.
#[derive(Clone, Debug)]
pub struct Case {
    pub engine: String,
    pub variant: String,
    pub dtype: String,
    pub dist: String,
    pub n: usize,
}

impl std::fmt::Display for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "engine={} variant={} dtype={} dist={} n={}",
            self.engine, self.variant, self.dtype, self.dist, self.n
        )
    }
}

impl Case {
    pub fn new(
        e: &Engine,
        variant: impl Into<String>,
        dtype: impl Into<String>,
        dist: impl Into<String>,
        n: usize,
    ) -> Case {
        Case {
            engine: engine_name(e),
            variant: variant.into(),
            dtype: dtype.into(),
            dist: dist.into(),
            n,
        }
    }
}

/// Collects failures so that one test reports every failing case, not only the first.
#[derive(Default)]
pub struct Failures {
    list: Mutex<Vec<String>>,
    checked: std::sync::atomic::AtomicUsize,
}

impl Failures {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn checked(&self) {
        self.checked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn fail(&self, msg: String) {
        self.list.lock().unwrap().push(msg);
    }

    /// Records `r`'s error as a failure; returns the value when there is one.
    pub fn ok<T, E: std::fmt::Display>(
        &self,
        case: &Case,
        what: &str,
        r: Result<T, E>,
    ) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(format!("{case}: {what} returned an error: {e}"));
                None
            }
        }
    }

    /// Panics with every failure (the first 30 in full) when there is any.
    pub fn finish(self, test: &str) {
        let list = self.list.into_inner().unwrap();
        let checked = self.checked.into_inner();
        if !list.is_empty() {
            let mut msg = format!("{test}: {} of {checked} cases failed:\n", list.len());
            for m in list.iter().take(30) {
                msg.push_str("  ");
                msg.push_str(m);
                msg.push('\n');
            }
            if list.len() > 30 {
                writeln!(msg, "  ... and {} more", list.len() - 30).unwrap();
            }
            panic!("{msg}");
        }
    }
}

/// A key shown with its bit pattern, so NaN payloads and -0.0 are visible.
pub fn show<K: RadixKey>(k: K) -> String {
    let bytes = bytemuck::bytes_of(&k);
    let mut hex = String::new();
    for b in bytes.iter().rev() {
        write!(hex, "{b:02x}").unwrap();
    }
    format!("{k:?} (0x{hex})")
}

/// Compares keys bit for bit (NaN != NaN, so not with `==`). Returns a message naming the first
/// mismatching index.
pub fn compare_keys<K: RadixKey>(expected: &[K], actual: &[K]) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!(
            "length {} but expected {}",
            actual.len(),
            expected.len()
        ));
    }
    let img = |k: &K| k.to_radix();
    match expected
        .iter()
        .zip(actual)
        .position(|(e, a)| img(e) != img(a))
    {
        None => Ok(()),
        Some(i) => {
            let bad = expected
                .iter()
                .zip(actual)
                .filter(|(e, a)| img(e) != img(a))
                .count();
            Err(format!(
                "first mismatch at index {i}: expected {}, actual {} ({bad} mismatching elements)",
                show(expected[i]),
                show(actual[i])
            ))
        }
    }
}

/// Compares plain values element by element.
pub fn compare_values<T: PartialEq + Debug>(expected: &[T], actual: &[T]) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!(
            "length {} but expected {}",
            actual.len(),
            expected.len()
        ));
    }
    match expected.iter().zip(actual).position(|(e, a)| e != a) {
        None => Ok(()),
        Some(i) => {
            let bad = expected.iter().zip(actual).filter(|(e, a)| e != a).count();
            Err(format!(
                "first mismatch at index {i}: expected {:?}, actual {:?} ({bad} mismatching elements)",
                expected[i], actual[i]
            ))
        }
    }
}

/// Sorts a copy of `keys` with `e` under `o` and compares it with the reference.
pub fn check_sort<K: RadixKey>(f: &Failures, e: &Engine, o: &SortOptions, dist: &str, keys: &[K]) {
    let case = Case::new(e, describe(o), K::DTYPE.name(), dist, keys.len());
    f.checked();
    let expected = histosort::reference::sort_keys(keys, o);
    let mut actual = keys.to_vec();
    if f.ok(&case, "sort", e.sort(&mut actual, o)).is_none() {
        return;
    }
    if let Err(m) = compare_keys(&expected, &actual) {
        f.fail(format!("{case}: sort: {m}"));
    }
}

/// Keys of type `K` from the radix images in `images` (truncated to the key's width).
pub fn keys_from_images<K: RadixKey>(images: &[u128]) -> Vec<K> {
    images
        .iter()
        .map(|&x| K::from_radix(K::Bits::from_u128(x)))
        .collect()
}

/// `2^k - 1`, `2^k`, `2^k + 1` for `k` in `lo..=hi`.
pub fn pow2_neighbours(lo: u32, hi: u32) -> Vec<usize> {
    let mut v = Vec::new();
    for k in lo..=hi {
        let p = 1usize << k;
        v.extend([p - 1, p, p + 1]);
    }
    v.dedup();
    v
}

/// Every distribution of `histosort gen` that the tests sweep.
pub fn distributions() -> Vec<Distribution> {
    let mut v = Distribution::ALL.to_vec();
    v.push(Distribution::FewDistinct(1));
    v.push(Distribution::FewDistinct(8));
    v.push(Distribution::Entropy(histosort::gen::EntropyPreset::Full));
    v
}
