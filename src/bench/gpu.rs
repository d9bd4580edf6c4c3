//! The suites on the CUDA backend, timed by device events on the backend's stream.

use cudarc::driver::{result as dres, sys as drv, CudaEvent};

use super::data::{self, HistInput};
use super::record::Record;
use super::stats::speedup;
use super::table::{self, Table};
use super::{Method, Run, Suite};
use crate::algorithm::{HistogramAlgorithm, LaunchMode, ScanAlgorithm, ScanKind, SortAlgorithm};
use crate::cuda::{driver_err, scan_spec, CudaBackend, DeviceBuffer};
use crate::error::Result;
use crate::gen::{self, Distribution};
use crate::key::RadixKey;
use crate::options::SortOptions;
use crate::reference;

pub(crate) fn suite(run: &mut Run, b: &CudaBackend, suite: Suite) -> Result<()> {
    match suite {
        Suite::HistStudy => hist_study(run, b),
        Suite::Contention => contention(run, b),
        Suite::Sort => sort(run, b),
        Suite::Graph => graph(run, b),
        Suite::Scan => scan(run, b),
        Suite::Peers => super::peers::run_peers(run, b),
    }
}

/// A pair of timing events on the backend's stream.
pub(crate) struct Timer {
    start: CudaEvent,
    end: CudaEvent,
}

impl Timer {
    pub fn new(b: &CudaBackend) -> Result<Timer> {
        let ev = || {
            b.context()
                .new_event(Some(drv::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| driver_err("cuEventCreate", e))
        };
        Ok(Timer {
            start: ev()?,
            end: ev()?,
        })
    }

    /// Device time of the work `f` enqueues, in milliseconds (waits for it).
    pub fn time(&self, b: &CudaBackend, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        self.start
            .record(b.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        f()?;
        self.end
            .record(b.stream())
            .map_err(|e| driver_err("cuEventRecord", e))?;
        let ms = self
            .start
            .elapsed_ms(&self.end)
            .map_err(|e| driver_err("cuEventElapsedTime", e))?;
        Ok(f64::from(ms))
    }
}

/// Warm-ups (the first one sizes the sample count), then timed samples. `pre` runs before
/// each timed window (counter zeroing), `op` inside it; both get the run's index.
pub(crate) fn measure(
    b: &CudaBackend,
    m: &Method,
    mut pre: impl FnMut(usize) -> Result<()>,
    mut op: impl FnMut(usize) -> Result<()>,
) -> Result<Vec<f64>> {
    let timer = Timer::new(b)?;
    let mut one = 0.0;
    let mut i = 0;
    for w in 0..m.warmups.max(1) {
        pre(i)?;
        let t = timer.time(b, || op(i))?;
        if w == 0 {
            one = t;
        }
        i += 1;
    }
    let count = m.samples_for(one);
    let mut v = Vec::with_capacity(count);
    for _ in 0..count {
        pre(i)?;
        v.push(timer.time(b, || op(i))?);
        i += 1;
    }
    Ok(v)
}

/// Zeroes `bytes` bytes at `ptr` on the backend's stream.
pub(crate) fn zero(b: &CudaBackend, ptr: u64, bytes: usize) -> Result<()> {
    // SAFETY: callers pass a live device allocation of at least `bytes` bytes.
    unsafe { dres::memset_d8_async(ptr, 0, bytes, b.stream().cu_stream()) }
        .map_err(|e| driver_err("cuMemsetD8Async", e))
}

/// Fills `bytes` bytes at `ptr` with 0xAB on the backend's stream: histogram counters are
/// poisoned before every timed call, which must write all of them (0xABABABAB is no count a
/// benchmark input produces).
pub(crate) fn poison(b: &CudaBackend, ptr: u64, bytes: usize) -> Result<()> {
    // SAFETY: callers pass a live device allocation of at least `bytes` bytes.
    unsafe { dres::memset_d8_async(ptr, 0xAB, bytes, b.stream().cu_stream()) }
        .map_err(|e| driver_err("cuMemsetD8Async", e))
}

/// Copies `bytes` bytes from `src` to `dst` on the backend's stream.
pub(crate) fn copy(b: &CudaBackend, dst: u64, src: u64, bytes: usize) -> Result<()> {
    // SAFETY: callers pass live, non-overlapping device allocations of at least `bytes`.
    unsafe { dres::memcpy_dtod_async(dst, src, bytes, b.stream().cu_stream()) }
        .map_err(|e| driver_err("cuMemcpyDtoDAsync", e))
}

/// Several device copies of one input, so that consecutive runs read different addresses and
/// an input that fits in L2 is not served from the previous run's cached lines.
pub(crate) struct Copies {
    buf: DeviceBuffer<u8>,
    stride: usize,
    count: usize,
}

impl Copies {
    /// How many copies an input of `bytes` gets: one when it is at least twice the L2, else
    /// enough to cover three L2s (2 to 16).
    pub fn count_for(b: &CudaBackend, bytes: usize) -> usize {
        let l2 = b.info().l2_bytes.max(1) as usize;
        if bytes >= 2 * l2 {
            1
        } else {
            (3 * l2).div_ceil(bytes.max(1)).clamp(2, 16)
        }
    }

    /// `count` copies of `host` (as bytes), 256-byte aligned.
    pub fn upload<T: bytemuck::Pod>(b: &CudaBackend, host: &[T], count: usize) -> Result<Copies> {
        let bytes: &[u8] = bytemuck::cast_slice(host);
        let stride = bytes.len().div_ceil(256).max(1) * 256;
        let count = count.max(1);
        let buf = DeviceBuffer::<u8>::alloc(b, stride * count)?;
        let first = DeviceBuffer::upload(b, bytes)?;
        for i in 0..count {
            copy(
                b,
                buf.device_ptr(b) + (i * stride) as u64,
                first.device_ptr(b),
                bytes.len(),
            )?;
        }
        b.sync()?;
        Ok(Copies { buf, stride, count })
    }

    /// Uninitialised space for `count` outputs of `bytes` each.
    pub fn alloc(b: &CudaBackend, bytes: usize, count: usize) -> Result<Copies> {
        let stride = bytes.div_ceil(256).max(1) * 256;
        let count = count.max(1);
        Ok(Copies {
            buf: DeviceBuffer::<u8>::alloc(b, stride * count)?,
            stride,
            count,
        })
    }

    pub fn ptr(&self, b: &CudaBackend, i: usize) -> u64 {
        self.buf.device_ptr(b) + ((i % self.count) * self.stride) as u64
    }

    pub fn count(&self) -> usize {
        self.count
    }
}

fn download_counts(b: &CudaBackend, ptr_buf: &DeviceBuffer<u32>) -> Result<Vec<u64>> {
    Ok(ptr_buf.download(b)?.into_iter().map(u64::from).collect())
}

fn hist_variants() -> Vec<HistogramAlgorithm> {
    HistogramAlgorithm::ALL
        .iter()
        .copied()
        .filter(|a| *a != HistogramAlgorithm::CpuPrivate)
        .collect()
}

fn hist_n(run: &Run, full: usize, quick: usize) -> usize {
    run.cfg
        .hist_bytes
        .unwrap_or(if run.cfg.quick { quick } else { full })
}

/// The histogram study (seeds/002): every variant, alternating, one precheck, warm-ups, then
/// timed samples whose 256 bins are each checked against the CPU reference.
fn hist_study(run: &mut Run, b: &CudaBackend) -> Result<()> {
    let n = hist_n(run, 64 << 20, 64 << 20);
    let m = run.cfg.study_method();
    // The study's pair first, then the other variants.
    let mut variants = vec![
        HistogramAlgorithm::GlobalAtomic,
        HistogramAlgorithm::SharedPrivate,
    ];
    for v in hist_variants() {
        if !variants.contains(&v) {
            variants.push(v);
        }
    }
    let timer = Timer::new(b)?;
    let mut t = Table::new(&[
        "input",
        "variant",
        "median ms",
        "P10-P90 ms",
        "min-max ms",
        "GB/s",
        "vs global-atomic",
    ]);
    let mut headline = Vec::new();
    for input in [HistInput::Active8, HistInput::Uniform] {
        run.step(format!(
            "hist-study {} ({} variants)",
            input.name(),
            variants.len()
        ));
        let host = data::hist_bytes(input, n, run.cfg.seed);
        let want = reference::histogram_u8(&host);
        let copies = Copies::upload(b, &host, Copies::count_for(b, n))?;
        let counts: Vec<DeviceBuffer<u32>> = variants
            .iter()
            .map(|_| b.zeroed_counts(256))
            .collect::<Result<_>>()?;
        let mut checks = vec![0u64; variants.len()];
        let mut times = vec![Vec::new(); variants.len()];
        let mut k = 0usize;
        // Round 0 is the precheck, then warm-ups, then samples; variants alternate in each.
        for round in 0..1 + m.warmups + m.samples {
            for (vi, v) in variants.iter().enumerate() {
                let h = &counts[vi];
                poison(b, h.device_ptr(b), 256 * 4)?;
                let ms = timer.time(b, || {
                    b.enqueue_histogram_u8(*v, copies.ptr(b, k), n as u64, h.device_ptr(b))
                })?;
                k += 1;
                let got = download_counts(b, h)?;
                checks[vi] += 256;
                data::check_equal(&format!("histogram {v} on {}", input.name()), &got, &want)?;
                if round > m.warmups {
                    times[vi].push(ms);
                }
            }
        }
        let mut recs = Vec::new();
        for (vi, v) in variants.iter().enumerate() {
            let r = Record::from_samples(
                "hist-study",
                v.name(),
                "histosort",
                "u8",
                n as u64,
                &input.name(),
                std::mem::take(&mut times[vi]),
                n as f64,
                "GB/s",
            )?
            .with("bins", 256)
            .with("bin_checks", checks[vi])
            .with("precheck", 1)
            .with("warmups", m.warmups)
            .with("input_copies", copies.count())
            .with(
                "timing",
                "device events around the whole call: the seeds' variants' memset of the \
                 counters and their kernel, auto's one launch; counters poisoned before the start event",
            );
            recs.push(r);
        }
        let base = recs[0].median_ms;
        for r in &mut recs {
            let s = speedup(base, r.median_ms);
            r.extra.insert("speedup_vs_global_atomic".into(), s.into());
            t.row(vec![
                input.name(),
                r.variant.clone(),
                table::ms(r.median_ms),
                format!("{}-{}", table::ms(r.p10_ms), table::ms(r.p90_ms)),
                format!("{}-{}", table::ms(r.min_ms), table::ms(r.max_ms)),
                table::num(r.throughput),
                format!("{}x", table::num(s)),
            ]);
        }
        headline.push(format!(
            "{}: shared {}x faster than global-atomic (median {} ms -> {} ms), {} per-bin checks",
            input.name(),
            table::num(speedup(recs[0].median_ms, recs[1].median_ms)),
            table::ms(recs[0].median_ms),
            table::ms(recs[1].median_ms),
            checks.iter().sum::<u64>()
        ));
        for r in recs {
            run.push(r);
        }
    }
    run.say(&format!(
        "Histogram study: {} of u8, 256 bins; 1 precheck, {} warm-ups, {} samples per variant, \
         variants alternating; every sample's bins checked against the CPU reference. Device \
         events around the whole call (the seeds' variants' memset of the counters and their \
         kernel, auto's one launch), transfers \
         excluded; type-7 quantiles; speed-up = ratio of medians.\n{}{}",
        table::bytes(n as u64),
        m.warmups,
        m.samples,
        t.render(),
        headline.join("\n")
    ));
    Ok(())
}

/// CUDA Handbook Table 16-3: each variant over 1, 2, 4, ..., 256 distinct values.
fn contention(run: &mut Run, b: &CudaBackend) -> Result<()> {
    let n = hist_n(run, 64 << 20, 16 << 20);
    let m = run.cfg.method(true);
    let variants = hist_variants();
    let mut header = vec!["input".to_string()];
    header.extend(variants.iter().map(|v| v.name().to_string()));
    let mut t = Table::new(&header);
    let h = b.zeroed_counts(256)?;
    // 1, 2, 4, ..., 256 distinct values (Table 16-3), then the reduced-entropy presets.
    let inputs = (0..=8).map(|k| HistInput::Distinct(1u32 << k)).chain(
        crate::gen::EntropyPreset::ALL
            .iter()
            .map(|&p| HistInput::Entropy(p)),
    );
    for input in inputs {
        let name = input.name();
        let host = data::hist_bytes(input, n, run.cfg.seed);
        let want = reference::histogram_u8(&host);
        let distinct = want.iter().filter(|&&c| c > 0).count();
        let copies = Copies::upload(b, &host, Copies::count_for(b, n))?;
        let mut row = vec![name.clone()];
        for v in &variants {
            run.step(format!("contention {name} {v}"));
            let check = |what: &str| -> Result<()> {
                data::check_equal(
                    &format!("histogram {v} {name} ({what})"),
                    &download_counts(b, &h)?,
                    &want,
                )
            };
            poison(b, h.device_ptr(b), 1024)?;
            b.enqueue_histogram_u8(*v, copies.ptr(b, 0), n as u64, h.device_ptr(b))?;
            b.sync()?;
            check("precheck")?;
            let samples = measure(
                b,
                &m,
                |_| poison(b, h.device_ptr(b), 1024),
                |i| b.enqueue_histogram_u8(*v, copies.ptr(b, i), n as u64, h.device_ptr(b)),
            )?;
            check("last sample")?;
            let r = Record::from_samples(
                "contention",
                v.name(),
                "histosort",
                "u8",
                n as u64,
                &name,
                samples,
                n as f64,
                "Gsamples/s",
            )?
            .with("distinct", distinct)
            .with("input_copies", copies.count())
            .with("checked", "precheck and last sample, every bin");
            row.push(table::num(r.throughput));
            run.push(r);
        }
        t.row(row);
    }
    run.say(&format!(
        "Contention sweep (CUDA Handbook Table 16-3, then the reduced-entropy presets): {} of \
         u8, Gsamples/s at the median.\n{}",
        table::bytes(n as u64),
        t.render()
    ));
    Ok(())
}

/// A sort variant to time: name and options.
#[derive(Clone, Debug)]
pub(crate) struct SortVariant {
    pub name: String,
    pub opts: SortOptions,
}

/// The CUDA sort variants: `auto` (the backend's default), then each GPU algorithm; the
/// three-phase sort at the digit widths the seeds compare.
fn sort_variants(n: usize, quick: bool) -> Vec<SortVariant> {
    let mut v = vec![SortVariant {
        name: "auto".into(),
        opts: SortOptions::new(),
    }];
    for a in SortAlgorithm::ALL {
        match a {
            SortAlgorithm::Auto | SortAlgorithm::CpuLsd => {}
            SortAlgorithm::ThreePhase => {
                // 1-bit splits take 32 passes: only at the seed's size, as the seed did.
                let widths: &[u32] = if n <= 4_194_915 && !quick {
                    &[1, 4, 8]
                } else {
                    &[4, 8]
                };
                for &w in widths {
                    v.push(SortVariant {
                        name: format!("{a}-b{w}"),
                        opts: SortOptions::new().algorithm(*a).digit_bits(w),
                    });
                }
            }
            other => v.push(SortVariant {
                name: other.to_string(),
                opts: SortOptions::new().algorithm(*other),
            }),
        }
    }
    v
}

/// Device-resident inputs and outputs of a sort case, and its references.
pub(crate) struct SortData<K: RadixKey> {
    pub n: usize,
    pub pairs: bool,
    pub distribution: String,
    pub keys: Vec<K>,
    pub want: Vec<K>,
    keys_in: DeviceBuffer<K>,
    vals_in: Option<DeviceBuffer<u32>>,
    keys_out: DeviceBuffer<K>,
    vals_out: Option<DeviceBuffer<u32>>,
    opts_ref: SortOptions,
}

impl<K: RadixKey> SortData<K> {
    /// Generates `n` keys (values are the input indices) and the reference for `opts`'s bits.
    pub fn new(
        b: &CudaBackend,
        n: usize,
        pairs: bool,
        dist: Distribution,
        seed: u64,
        opts: &SortOptions,
    ) -> Result<Self> {
        let keys: Vec<K> = gen::generate(&dist, n, seed);
        let opts_ref = SortOptions {
            algorithm: SortAlgorithm::Auto,
            launch: LaunchMode::Stream,
            digit_bits: None,
            ..opts.clone()
        };
        let want = data::sorted_keys(&keys, &opts_ref);
        let vals: Vec<u32> = if pairs {
            (0..n as u32).collect()
        } else {
            Vec::new()
        };
        Ok(SortData {
            n,
            pairs,
            distribution: dist.name(),
            keys_in: DeviceBuffer::upload(b, &keys)?,
            vals_in: if pairs {
                Some(DeviceBuffer::upload(b, &vals)?)
            } else {
                None
            },
            keys_out: DeviceBuffer::alloc(b, n)?,
            vals_out: if pairs {
                Some(DeviceBuffer::alloc(b, n)?)
            } else {
                None
            },
            keys,
            want,
            opts_ref,
        })
    }

    pub fn dtype(&self) -> String {
        if self.pairs {
            format!("{}/u32", K::DTYPE)
        } else {
            K::DTYPE.to_string()
        }
    }

    pub fn unit(&self) -> &'static str {
        if self.pairs {
            "Gpairs/s"
        } else {
            "Gkeys/s"
        }
    }

    fn io(&self, b: &CudaBackend) -> [u64; 4] {
        [
            self.keys_in.device_ptr(b),
            self.vals_in.as_ref().map_or(0, |v| v.device_ptr(b)),
            self.keys_out.device_ptr(b),
            self.vals_out.as_ref().map_or(0, |v| v.device_ptr(b)),
        ]
    }

    /// Checks the outputs against the reference at every element.
    pub fn check(&self, b: &CudaBackend, what: &str) -> Result<()> {
        let got = self.keys_out.download(b)?;
        match &self.vals_out {
            None => data::check_keys(what, &got, &self.want),
            Some(v) => data::check_pairs(
                what,
                &self.keys,
                &got,
                &v.download(b)?,
                &self.want,
                &self.opts_ref,
            ),
        }
    }

    /// Bytes a copy of the data reads (and writes): keys, and values for pairs.
    pub fn bytes(&self) -> usize {
        self.n * (std::mem::size_of::<K>() + if self.pairs { 4 } else { 0 })
    }
}

/// Validates, then times, one sort variant on `d`: out of place from an input never written.
/// `batch` sorts run back to back in each timed window; the samples are per sort.
pub(crate) fn time_sort<K: RadixKey>(
    run: &mut Run,
    b: &CudaBackend,
    d: &SortData<K>,
    suite: &str,
    v: &SortVariant,
    m: &Method,
    batch: usize,
) -> Result<Record> {
    let vb = if d.pairs { 4 } else { 0 };
    let mut plan = b.sort_plan::<K>(d.n, vb, &v.opts)?;
    let io = d.io(b);
    let what = format!("{} {} n={} {}", v.name, d.dtype(), d.n, d.distribution);
    run.step(format!("{suite}: {what}"));
    zero(b, io[2], d.n * std::mem::size_of::<K>())?;
    b.run_sort_plan(&mut plan, io[0], io[1], io[2], io[3])?;
    b.sync()?;
    d.check(b, &what)?;
    let batch = batch.max(1);
    let samples = measure(
        b,
        m,
        |_| Ok(()),
        |_| {
            for _ in 0..batch {
                b.run_sort_plan(&mut plan, io[0], io[1], io[2], io[3])?;
            }
            Ok(())
        },
    )?;
    // The last sample's output is checked too: replays must keep sorting correctly.
    d.check(b, &format!("{what} (after timing)"))?;
    let per_sort: Vec<f64> = samples.iter().map(|t| t / batch as f64).collect();
    let r = Record::from_samples(
        suite,
        &v.name,
        "histosort",
        &d.dtype(),
        d.n as u64,
        &d.distribution,
        per_sort,
        d.n as f64,
        d.unit(),
    )?
    .with("passes", plan.passes())
    .with(
        "digit_bits",
        v.opts
            .digit_bits
            .map_or(serde_json::Value::Null, |x| x.into()),
    )
    .with("algorithm", v.opts.algorithm.name())
    .with("path", plan.path())
    .with("launch", v.opts.launch.name())
    .with("batch", batch)
    .with("out_of_place", true)
    .with(
        "checked",
        "every element, before timing and after the last sample",
    );
    let r = match v.opts.bits {
        Some((lo, hi)) => r.with("begin_bit", lo).with("end_bit", hi),
        None => r,
    };
    Ok(r)
}

/// The copy baseline of `bytes` bytes (read and written), rotating buffers below L2 size.
pub(crate) fn time_copy(
    run: &mut Run,
    b: &CudaBackend,
    suite: &str,
    dtype: &str,
    n: u64,
    bytes: usize,
    m: &Method,
) -> Result<Record> {
    run.step(format!("{suite}: copy {} ", table::bytes(bytes as u64)));
    let count = Copies::count_for(b, bytes);
    let src = Copies::alloc(b, bytes, count)?;
    let dst = Copies::alloc(b, bytes, count)?;
    for i in 0..count {
        zero(b, src.ptr(b, i), bytes)?;
    }
    let samples = measure(
        b,
        m,
        |_| Ok(()),
        |i| copy(b, dst.ptr(b, i), src.ptr(b, i), bytes),
    )?;
    Ok(Record::from_samples(
        suite,
        "memcpy-dtod",
        "copy",
        dtype,
        n,
        "-",
        samples,
        2.0 * bytes as f64,
        "GB/s",
    )?
    .with("bytes", bytes)
    .with("buffers", count)
    .with("counts", "bytes read + bytes written"))
}

fn sort_sizes(run: &Run) -> Vec<usize> {
    run.cfg.sizes.clone().unwrap_or_else(|| {
        if run.cfg.quick {
            vec![1 << 20, 4_194_915]
        } else {
            vec![4_194_915, 1 << 24, 1 << 28]
        }
    })
}

/// The course page's table (seeds/001): copy baseline, then each variant, for keys and
/// pairs, plus the CPU baselines.
fn sort(run: &mut Run, b: &CudaBackend) -> Result<()> {
    let m = run.cfg.method(true);
    // The one-core baselines take seconds per sort at 2^24: fewer runs, within the budget.
    let mut cpu_m = run.cfg.method(false);
    cpu_m.warmups = cpu_m.warmups.min(1);
    cpu_m.samples = cpu_m.samples.min(5);
    cpu_m.budget_ms = cpu_m.budget_ms.min(2000.0);
    for n in sort_sizes(run) {
        for pairs in [false, true] {
            let d =
                SortData::<u32>::new(b, n, pairs, run.cfg.dist, run.cfg.seed, &SortOptions::new())?;
            let copy = time_copy(run, b, "sort", &d.dtype(), n as u64, d.bytes(), &m)?;
            let mut recs = vec![];
            for v in sort_variants(n, run.cfg.quick) {
                recs.push(time_sort(run, b, &d, "sort", &v, &m, 1)?);
            }
            // CPU baselines, at the sizes where they fit the time budget.
            if n <= 1 << 24 || run.cfg.sizes.is_some() {
                recs.extend(super::cpu::sort_baselines(
                    run, &d.keys, &d.want, pairs, &cpu_m,
                )?);
            } else {
                run.note(format!(
                    "sort: CPU baselines skipped at n = {} (too slow for the run's budget)",
                    table::count(n as u64)
                ));
            }
            let mut t = Table::new(&[
                "kernel",
                "passes",
                "time (ms)",
                "P10-P90",
                "ms/pass",
                "Mkeys/s",
                "x copy",
            ]);
            t.row(vec![
                "copy, no sort".into(),
                "-".into(),
                table::ms(copy.median_ms),
                format!("{}-{}", table::ms(copy.p10_ms), table::ms(copy.p90_ms)),
                "-".into(),
                "-".into(),
                "1.00".into(),
            ]);
            for r in &mut recs {
                let x = r.median_ms / copy.median_ms;
                r.extra.insert("x_copy".into(), x.into());
                let passes = r.extra.get("passes").and_then(|p| p.as_u64());
                let label = if r.implementation == "histosort" {
                    r.variant.clone()
                } else {
                    format!("{} ({})", r.variant, r.implementation)
                };
                t.row(vec![
                    label,
                    passes.map_or("-".into(), |p| p.to_string()),
                    table::ms(r.median_ms),
                    format!("{}-{}", table::ms(r.p10_ms), table::ms(r.p90_ms)),
                    passes.map_or("-".into(), |p| table::ms(r.median_ms / p.max(1) as f64)),
                    table::num(n as f64 / r.median_ms * 1e-3),
                    table::num(x),
                ]);
            }
            run.say(&format!(
                "Sort, {} {} keys{}, {}, out of place; every variant matched the CPU \
                 reference at all {} elements before timing.\n{}The copy row moves {} bytes in \
                 and {} out, {} GB/s.\n",
                table::count(n as u64),
                d.dtype(),
                if pairs { " with u32 values" } else { "" },
                run.cfg.dist,
                table::count(n as u64),
                t.render(),
                table::count(d.bytes() as u64),
                table::count(d.bytes() as u64),
                table::num(copy.throughput)
            ));
            run.push(copy);
            for r in recs {
                run.push(r);
            }
        }
    }
    Ok(())
}

/// Plain launches against the captured graph (seeds/000, CUDA Handbook 6.9).
fn graph(run: &mut Run, b: &CudaBackend) -> Result<()> {
    let sizes: Vec<usize> = run.cfg.sizes.clone().unwrap_or_else(|| {
        if run.cfg.quick {
            vec![1 << 10, 1 << 14, 1 << 18, 1 << 22]
        } else {
            (10..=24).map(|k| 1usize << k).collect()
        }
    });
    let mut m = run.cfg.method(true);
    m.budget_ms = m.budget_ms.min(300.0);
    let mut summary = Vec::new();
    for bits in [4u32, 8] {
        let mut t = Table::new(&["n", "batch", "stream ms", "graph ms", "stream/graph"]);
        let mut ratios = Vec::new();
        for &n in &sizes {
            let d = SortData::<u32>::new(
                b,
                n,
                false,
                Distribution::Uniform,
                run.cfg.seed,
                &SortOptions::new(),
            )?;
            // Enough sorts per timed window that the window is not one launch's latency.
            let batch = ((1usize << 20) / n.max(1)).clamp(1, 64);
            let mut recs = Vec::new();
            for mode in [LaunchMode::Stream, LaunchMode::Graph] {
                let v = SortVariant {
                    name: format!("three-phase-b{bits}"),
                    opts: SortOptions::new()
                        .algorithm(SortAlgorithm::ThreePhase)
                        .digit_bits(bits)
                        .launch(mode),
                };
                recs.push(time_sort(run, b, &d, "graph", &v, &m, batch)?);
            }
            let ratio = speedup(recs[0].median_ms, recs[1].median_ms);
            ratios.push((n, ratio));
            t.row(vec![
                table::count(n as u64),
                batch.to_string(),
                table::ms(recs[0].median_ms),
                table::ms(recs[1].median_ms),
                format!("{}x", table::num(ratio)),
            ]);
            for mut r in recs {
                r.extra.insert("stream_over_graph".into(), ratio.into());
                run.push(r);
            }
        }
        // The graph "pays" while it is at least 5% faster; report the first size from which it
        // no longer does at any larger size.
        let stop = ratios
            .iter()
            .enumerate()
            .find(|(i, _)| ratios[*i..].iter().all(|(_, r)| *r < 1.05))
            .map(|(_, (n, _))| *n);
        let line = match stop {
            Some(n) => format!(
                "b={bits}: the graph stops paying (under 5% faster) from n = {}",
                table::count(n as u64)
            ),
            None => format!("b={bits}: the graph pays at every measured size"),
        };
        run.say(&format!(
            "Graph crossover, three-phase b={bits}, u32 keys: plain stream launches against one \
             cuGraphLaunch per sort; per-sort device time, batches back to back.\n{}{line}\n",
            t.render()
        ));
        summary.push(line);
    }
    run.notes.extend(summary);
    Ok(())
}

/// Device-wide scans in GB/s (bytes read + written), every CUDA variant against the copy of the
/// same bytes: exclusive u32 at every size, then inclusive u32, exclusive u64 and inclusive f32
/// at the largest.
fn scan(run: &mut Run, b: &CudaBackend) -> Result<()> {
    let m = run.cfg.method(true);
    let sizes = run.cfg.sizes.clone().unwrap_or_else(|| {
        if run.cfg.quick {
            vec![1 << 20, 1 << 24]
        } else {
            vec![1 << 20, 1 << 24, 1 << 28]
        }
    });
    let big = sizes.iter().copied().max().unwrap_or(1 << 20);
    let mut t = Table::new(&[
        "n",
        "dtype",
        "kind",
        "variant",
        "median ms",
        "P10-P90",
        "GB/s",
        "of copy",
    ]);
    let mut cases: Vec<(usize, ScanType, ScanKind)> = sizes
        .iter()
        .map(|&n| (n, ScanType::U32, ScanKind::Exclusive))
        .collect();
    cases.push((big, ScanType::U32, ScanKind::Inclusive));
    cases.push((big, ScanType::U64, ScanKind::Exclusive));
    cases.push((big, ScanType::F32, ScanKind::Inclusive));
    for (n, ty, kind) in cases {
        let copy = time_copy(run, b, "scan", ty.name(), n as u64, n * ty.bytes(), &m)?;
        let mut recs = Vec::new();
        let mut variants = vec![
            ScanAlgorithm::ReduceThenScan,
            ScanAlgorithm::DecoupledLookback,
        ];
        if b.info().compute_capability.0 >= 9 {
            variants.push(ScanAlgorithm::Pipelined);
        }
        for a in variants {
            recs.push(scan_case(run, b, n, ty, kind, a, &m)?);
        }
        for x in std::iter::once(&copy).chain(&recs) {
            t.row(vec![
                table::count(n as u64),
                ty.name().into(),
                kind.name().into(),
                x.variant.clone(),
                table::ms(x.median_ms),
                format!("{}-{}", table::ms(x.p10_ms), table::ms(x.p90_ms)),
                table::num(x.throughput),
                format!("{:.0}%", 100.0 * x.throughput / copy.throughput),
            ]);
        }
        run.push(copy);
        for mut r in recs {
            r.suite = "scan".into();
            run.push(r);
        }
    }
    run.say(&format!(
        "Scans, out of place; GB/s counts bytes read and written; every element checked against \
         the CPU reference before timing (u32 values below 2^16, u64 full-width so the sums \
         wrap, f32 small integers so every partial sum is exact).\n{}",
        t.render()
    ));
    Ok(())
}

/// Element types of the scan benchmarks, with the inputs CUB's side generates too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScanType {
    /// u32 below 2^16.
    U32,
    /// Full-width u64 (the sums wrap).
    U64,
    /// f32 integers in [-8, 8] with mean zero: every partial sum of up to ~2^28 of them is
    /// exact w.h.p.
    F32,
}

impl ScanType {
    pub fn name(self) -> &'static str {
        match self {
            ScanType::U32 => "u32",
            ScanType::U64 => "u64",
            ScanType::F32 => "f32",
        }
    }

    pub fn bytes(self) -> usize {
        match self {
            ScanType::U64 => 8,
            _ => 4,
        }
    }

    pub fn distribution(self) -> &'static str {
        match self {
            ScanType::U32 => "uniform-16bit",
            ScanType::U64 => "uniform",
            ScanType::F32 => "small-integers",
        }
    }
}

/// One scan of `n` elements: validated at every element, then timed. The record's suite is
/// `scan`; callers from other suites rename it.
pub(crate) fn scan_case(
    run: &mut Run,
    b: &CudaBackend,
    n: usize,
    ty: ScanType,
    kind: ScanKind,
    a: ScanAlgorithm,
    m: &Method,
) -> Result<Record> {
    let bits: Vec<u64> = gen::generate::<u64>(&Distribution::Uniform, n, run.cfg.seed);
    match ty {
        ScanType::U32 => {
            let host: Vec<u32> = bits.iter().map(|&x| (x & 0xffff) as u32).collect();
            scan_case_typed(run, b, &host, ty, kind, a, m)
        }
        ScanType::U64 => scan_case_typed(run, b, &bits, ty, kind, a, m),
        ScanType::F32 => {
            // Integers in [-8, 8], mean zero: partial sums stay far below 2^24, so they are
            // exact in any order of addition and the check can compare every element exactly.
            // (A mean of -0.5 drifted past 2^24 by element 2^25 and failed on the H200.)
            let host: Vec<f32> = bits.iter().map(|&x| (x % 17) as f32 - 8.0).collect();
            scan_case_typed(run, b, &host, ty, kind, a, m)
        }
    }
}

fn scan_case_typed<T: crate::sample::ScanElem + Sync>(
    run: &mut Run,
    b: &CudaBackend,
    host: &[T],
    ty: ScanType,
    kind: ScanKind,
    a: ScanAlgorithm,
    m: &Method,
) -> Result<Record> {
    let n = host.len();
    let size = std::mem::size_of::<T>();
    let bytes = std::mem::size_of_val(host);
    run.step(format!("scan: {a} {kind} {} n={n}", ty.name()));
    let want = reference::scan(host, kind);
    let count = Copies::count_for(b, bytes);
    let input = Copies::upload(b, host, count)?;
    let output = Copies::alloc(b, bytes, count)?;
    let inclusive = kind == ScanKind::Inclusive;
    let out0 = DeviceBuffer::<T>::alloc(b, n)?;
    let mut op: Box<dyn FnMut(u64, u64) -> Result<()>> = match a {
        ScanAlgorithm::ReduceThenScan => {
            let spec = scan_spec(T::DTYPE)?;
            let scratch = b.scan_scratch(n as u64, size)?;
            Box::new(move |i, o| b.enqueue_scan(&spec, i, o, n as u64, inclusive, &scratch, 0))
        }
        _ => {
            let scratch = b.lookback_scratch(n as u64, size)?;
            Box::new(move |i, o| {
                b.enqueue_scan_lookback_any(T::DTYPE, a, i, o, n as u64, inclusive, &scratch)
            })
        }
    };
    op(input.ptr(b, 0), out0.device_ptr(b))?;
    data::check_equal(&format!("{kind} scan {a}"), &out0.download(b)?, &want)?;
    let samples = measure(b, m, |_| Ok(()), |i| op(input.ptr(b, i), output.ptr(b, i)))?;
    // The last sample's output too: launches reuse the look-back statuses (epochs).
    let last = DeviceBuffer::<T>::alloc(b, n)?;
    let last_i = (m.warmups.max(1) + samples.len()).saturating_sub(1);
    copy(b, last.device_ptr(b), output.ptr(b, last_i), bytes)?;
    data::check_equal(
        &format!("{kind} scan {a} (last sample)"),
        &last.download(b)?,
        &want,
    )?;
    Ok(Record::from_samples(
        "scan",
        a.name(),
        "histosort",
        ty.name(),
        n as u64,
        ty.distribution(),
        samples,
        2.0 * bytes as f64,
        "GB/s",
    )?
    .with("kind", kind.name())
    .with("algorithm", a.name())
    .with("buffers", count)
    .with("counts", "bytes read + bytes written")
    .with(
        "checked",
        "every element, before timing and after the last sample",
    ))
}

/// Times one histogram of the peers suite (the default variant): `enqueue(input, counts)` on
/// rotating device copies of `host`, every one of `want`'s bins compared before timing and after
/// the last sample. Returns the samples and the number of input copies.
fn timed_histogram<T: bytemuck::Pod>(
    b: &CudaBackend,
    m: &Method,
    what: &str,
    host: Vec<T>,
    want: &[u64],
    enqueue: impl Fn(u64, u64) -> Result<()>,
) -> Result<(Vec<f64>, usize)> {
    let copies = Copies::upload(
        b,
        &host,
        Copies::count_for(b, std::mem::size_of_val(&host[..])),
    )?;
    drop(host);
    let h = b.zeroed_counts(want.len())?;
    poison(b, h.device_ptr(b), 4 * want.len())?;
    enqueue(copies.ptr(b, 0), h.device_ptr(b))?;
    data::check_equal(what, &download_counts(b, &h)?, want)?;
    let samples = measure(
        b,
        m,
        |_| poison(b, h.device_ptr(b), 4 * want.len()),
        |i| enqueue(copies.ptr(b, i), h.device_ptr(b)),
    )?;
    data::check_equal(
        &format!("{what} (last sample)"),
        &download_counts(b, &h)?,
        want,
    )?;
    Ok((samples, copies.count()))
}

/// A 65536-bin histogram of `n` uniform 16-bit samples (the default variant), every bin
/// checked before timing and after the last sample.
pub(crate) fn hist16_case(run: &mut Run, b: &CudaBackend, n: usize, m: &Method) -> Result<Record> {
    run.step(format!("peers: histogram u16 n={n}"));
    let host: Vec<u16> = gen::generate(&Distribution::Uniform, n, run.cfg.seed);
    let want = reference::histogram_u16(&host);
    let (samples, copies) = timed_histogram(b, m, "histogram u16", host, &want, |p, h| {
        b.enqueue_histogram_u16(p, n as u64, h)
    })?;
    Ok(Record::from_samples(
        "peers",
        HistogramAlgorithm::Auto.name(),
        "histosort",
        "u16",
        n as u64,
        "uniform",
        samples,
        2.0 * n as f64,
        "GB/s",
    )?
    .with("bins", 1 << 16)
    .with("input_copies", copies)
    .with(
        "checked",
        "every bin, before timing and after the last sample",
    ))
}

/// Four 256-bin histograms of `pixels` uniform RGBA pixels (the default variant), every bin of
/// every channel checked before timing and after the last sample.
pub(crate) fn channels_case(
    run: &mut Run,
    b: &CudaBackend,
    pixels: usize,
    m: &Method,
) -> Result<Record> {
    let n = pixels * 4;
    run.step(format!("peers: histogram rgba {pixels} pixels"));
    let host = data::hist_bytes(HistInput::Uniform, n, run.cfg.seed);
    let want: Vec<u64> = reference::histogram_channels_u8(&host, 4)?
        .into_iter()
        .flatten()
        .collect();
    let (samples, copies) = timed_histogram(b, m, "histogram rgba", host, &want, |p, h| {
        b.enqueue_histogram_channels(4, p, n as u64, h)
    })?;
    Ok(Record::from_samples(
        "peers",
        HistogramAlgorithm::Auto.name(),
        "histosort",
        "u8",
        n as u64,
        "uniform",
        samples,
        n as f64,
        "GB/s",
    )?
    .with("channels", 4)
    .with("pixels", pixels)
    .with("bins", 256)
    .with("input_copies", copies)
    .with(
        "checked",
        "every bin of every channel, before timing and after the last sample",
    ))
}

/// A histogram case of the peers suite: the default (`auto`) variant on `input`.
pub(crate) fn hist_case(
    run: &mut Run,
    b: &CudaBackend,
    n: usize,
    input: HistInput,
    m: &Method,
) -> Result<Record> {
    run.step(format!(
        "peers: histogram auto {} {}",
        table::bytes(n as u64),
        input.name()
    ));
    let host = data::hist_bytes(input, n, run.cfg.seed);
    let want = reference::histogram_u8(&host);
    let a = HistogramAlgorithm::Auto;
    let (samples, copies) = timed_histogram(b, m, "histogram auto", host, &want, |p, h| {
        b.enqueue_histogram_u8(a, p, n as u64, h)
    })?;
    Ok(Record::from_samples(
        "peers",
        a.name(),
        "histosort",
        "u8",
        n as u64,
        &input.name(),
        samples,
        n as f64,
        "GB/s",
    )?
    .with("bins", 256)
    .with("input_copies", copies))
}

/// A sample type of the bins cases of the peers suite, with the inputs of
/// bench/cub/cub_bench.cu (same ranges, boundaries and sample definitions).
pub(crate) trait BinsSample: crate::sample::Sample + bytemuck::Pod {
    const LOWER: f64;
    const UPPER: f64;
    /// Sample `i`'s value from its hash `h`: bin-centred for even float bins (`centred`).
    fn sample(h: u64, bins: u32, centred: bool) -> Self;
    fn from_f64(x: f64) -> Self;
}

impl BinsSample for f32 {
    const LOWER: f64 = -1.0;
    const UPPER: f64 = 1.0;
    fn sample(h: u64, bins: u32, centred: bool) -> f32 {
        if centred {
            let m = bins as i64 / 8 + 1;
            let k = (h % (bins as u64 + 2 * m as u64)) as i64 - m;
            (-1.0 + (k as f64 + 0.5) * 2.0 / bins as f64) as f32
        } else {
            (-1.25 + 2.5 * ((h >> 11) as f64 * (1.0 / (1u64 << 53) as f64))) as f32
        }
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl BinsSample for i32 {
    const LOWER: f64 = -1e9;
    const UPPER: f64 = 1e9;
    fn sample(h: u64, _: u32, _: bool) -> i32 {
        (-1_250_000_000i64 + (h % 2_500_000_000) as i64) as i32
    }
    fn from_f64(x: f64) -> i32 {
        x as i32
    }
}

impl BinsSample for u32 {
    const LOWER: f64 = 1e8;
    const UPPER: f64 = 4e9;
    fn sample(h: u64, _: u32, _: bool) -> u32 {
        h as u32
    }
    fn from_f64(x: f64) -> u32 {
        x as u32
    }
}

/// The distribution name of a bins case's samples.
pub(crate) fn bins_distribution(dtype: &str, range: bool) -> &'static str {
    if dtype == "f32" && !range {
        "bin-centred"
    } else {
        "uniform"
    }
}

/// Even or range bins of `n` samples of `S` into `bins` bins (the default variant), every bin
/// checked against the reference before timing and after the last sample.
pub(crate) fn bins_case<S: BinsSample>(
    run: &mut Run,
    b: &CudaBackend,
    n: usize,
    bins: u32,
    range: bool,
    m: &Method,
) -> Result<Record> {
    let kind = if range { "range" } else { "even" };
    let dtype = S::DTYPE.to_string();
    run.step(format!("peers: histogram {dtype} {kind} {bins} bins n={n}"));
    let seed = run.cfg.seed;
    let host: Vec<S> = (0..n as u64)
        .map(|i| {
            S::sample(
                gen::mix64((i ^ (seed << 1)).wrapping_add(0x9e37_79b9_7f4a_7c15)),
                bins,
                !range,
            )
        })
        .collect();
    let (lower, upper) = (S::from_f64(S::LOWER), S::from_f64(S::UPPER));
    let levels: Vec<S> = (0..=bins)
        .map(|j| {
            if j == bins {
                upper
            } else {
                let f = (j as f64 + j as f64 * j as f64 / bins as f64) / (2.0 * bins as f64);
                S::from_f64(S::LOWER + (S::UPPER - S::LOWER) * f)
            }
        })
        .collect();
    let want = if range {
        reference::histogram_range(&host, &levels)?
    } else {
        reference::histogram_even(&host, bins as usize, lower, upper)?
    };
    let bounds = DeviceBuffer::upload(b, &levels)?;
    let what = format!("histogram {dtype} {kind} {bins} bins");
    let a = HistogramAlgorithm::Auto;
    let (samples, copies) = timed_histogram(b, m, &what, host, &want, |p, h| {
        if range {
            b.enqueue_histogram_range::<S>(p, n as u64, bounds.device_ptr(b), levels.len(), h, a)
        } else {
            b.enqueue_histogram_even(p, n as u64, bins as usize, lower, upper, h, a)
        }
    })?;
    Ok(Record::from_samples(
        "peers",
        a.name(),
        "histosort",
        &dtype,
        n as u64,
        bins_distribution(&dtype, range),
        samples,
        (n * std::mem::size_of::<S>()) as f64,
        "GB/s",
    )?
    .with("bins", bins)
    .with("kind", kind)
    .with("input_copies", copies)
    .with(
        "checked",
        "every bin, before timing and after the last sample",
    ))
}
