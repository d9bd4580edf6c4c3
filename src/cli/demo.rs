//! `histosort demo`: the README's first command. On the best backend found, it generates data,
//! sorts keys and pairs, takes a histogram and a scan, checks every output element against an
//! independent result, and prints time (the median of the calls after the first, and the first
//! call apart), throughput and the speed-up over the standard library (timed in the same run).

use std::rc::Rc;
use std::time::Duration;

use clap::Args;
use histosort::bench::stats::Summary;
use histosort::gen::{generate, Distribution, EntropyPreset};
use histosort::{reference, Engine, HistogramAlgorithm, RadixKey, ScanKind, SortOptions};

use super::{fmt_count, fmt_duration, fmt_rate, timed, CliResult, Failure, Global};

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Sizes divided by 16, for a quick look.
    #[arg(long)]
    pub small: bool,
    /// Seed of the generated data.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

/// Calls of histosort timed per step after its first call: the table shows their median, and
/// the first call apart (it pays the one-time costs: on the GPU the kernels' compile or cache
/// load, on the CPU the scratch buffers' fresh pages).
const WARM_RUNS: usize = 4;
/// Calls of the baseline per step (no one-time cost to keep apart): the table shows their median.
const BASELINE_RUNS: usize = 3;

/// One measured step.
struct Step {
    name: String,
    n: usize,
    unit: &'static str,
    /// histosort's first call.
    first: Duration,
    /// The median of histosort's calls after the first.
    ours: Duration,
    baseline: &'static str,
    /// The median of the baseline's calls.
    theirs: Duration,
    check: Result<(), String>,
}

/// The first index where `got` and `want` differ under `same` (or their lengths do).
fn first_difference_by<A, B>(
    got: &[A],
    want: &[B],
    same: impl Fn(&A, &B) -> bool,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {} instead of {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(a, b)| !same(a, b)) {
        None => Ok(()),
        Some(i) => Err(format!("first difference at index {i}")),
    }
}

fn first_difference<T: PartialEq>(got: &[T], want: &[T]) -> Result<(), String> {
    first_difference_by(got, want, |a, b| a == b)
}

/// `f` called `count` times, each on a fresh copy of `input` (copied outside the timing), each
/// output handed to `keep` with the call's index as it comes: every call's time.
fn calls<I: Clone, O>(
    input: &I,
    count: usize,
    mut f: impl FnMut(I) -> histosort::Result<O>,
    mut keep: impl FnMut(usize, O),
) -> histosort::Result<Vec<Duration>> {
    let mut times = Vec::new();
    for i in 0..count {
        let copy = input.clone();
        let (out, t) = timed(|| f(copy));
        keep(i, out?);
        times.push(t);
    }
    Ok(times)
}

/// The median of `times`, as `histosort bench` takes it.
fn median(times: &[Duration]) -> Duration {
    let secs: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
    Duration::from_secs_f64(Summary::of(&secs).map_or(0.0, |s| s.median))
}

/// The baseline's calls ([`BASELINE_RUNS`]) on its input, then histosort's (the first, then
/// [`WARM_RUNS`]) on its own, every histosort output compared with the baseline's last by
/// `differs` as it comes (one output held at a time besides it).
fn step<I: Clone, O, J: Clone, P>(
    (name, n, unit, baseline): (&str, usize, &'static str, &'static str),
    (input, ours): (&I, impl FnMut(I) -> histosort::Result<O>),
    (their_input, theirs): (&J, impl FnMut(J) -> histosort::Result<P>),
    differs: impl Fn(&O, &P) -> Result<(), String>,
) -> histosort::Result<Step> {
    let mut last = None;
    let their_times = calls(their_input, BASELINE_RUNS, theirs, |_, o| last = Some(o))?;
    let want = last.expect("at least one baseline call");
    let mut check = Ok(());
    let times = calls(input, 1 + WARM_RUNS, ours, |i, o| {
        if check.is_ok() {
            if let Err(e) = differs(&o, &want) {
                check = Err(format!("call {} of {}: {e}", i + 1, 1 + WARM_RUNS));
            }
        }
    })?;
    Ok(Step {
        name: name.into(),
        n,
        unit,
        first: times[0],
        ours: median(&times[1..]),
        baseline,
        theirs: median(&their_times),
        check,
    })
}

fn sort_u32(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    let data: Vec<u32> = generate(&Distribution::Uniform, n, seed);
    let sort = |mut v: Vec<u32>| engine.sort(&mut v, &SortOptions::new()).map(|()| v);
    let std_sort = |mut v: Vec<u32>| {
        v.sort_unstable();
        Ok(v)
    };
    step(
        ("sort u32 keys, uniform", n, "keys", "slice::sort_unstable"),
        (&data, sort),
        (&data, std_sort),
        |o, w| first_difference(o, w),
    )
}

fn sort_f32(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    let data: Vec<f32> = generate(&Distribution::FloatSpecials, n, seed);
    let sort = |mut v: Vec<f32>| engine.sort(&mut v, &SortOptions::new()).map(|()| v);
    let std_sort = |mut v: Vec<f32>| {
        v.sort_unstable_by(f32::total_cmp);
        Ok(v)
    };
    // total_cmp is a total order on bit patterns, so stable and unstable sorts agree bit for bit.
    step(
        (
            "sort f32 keys, NaN/inf/-0.0",
            n,
            "keys",
            "sort_unstable_by(total_cmp)",
        ),
        (&data, sort),
        (&data, std_sort),
        |o, w| first_difference_by(o, w, |a, b| a.to_radix() == b.to_radix()),
    )
}

fn sort_pairs(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    // Few distinct keys, so stability matters: the payload is the input index.
    let dist = Distribution::Entropy(EntropyPreset::E0544);
    let keys: Vec<u32> = generate(&dist, n, seed);
    let values: Vec<u32> = (0..n as u32).collect();
    let sort = |(mut k, mut v): (Vec<u32>, Vec<u32>)| {
        engine.sort_pairs(&mut k, &mut v, &SortOptions::new())?;
        Ok((k, v))
    };
    // (key, index) pairs are distinct, so an unstable sort of them is the stable sort by key.
    let pairs: Vec<(u32, u32)> = keys.iter().copied().zip(0..).collect();
    let std_sort = |mut p: Vec<(u32, u32)>| {
        p.sort_unstable();
        Ok(p)
    };
    step(
        (
            "sort u32/u32 pairs, stable",
            n,
            "pairs",
            "sort_unstable of (key, i)",
        ),
        (&(keys, values), sort),
        (&pairs, std_sort),
        |(k, v), w| {
            first_difference_by(k, w, |a, b| *a == b.0)?;
            first_difference_by(v, w, |a, b| *a == b.1)
        },
    )
}

fn histogram(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    // A histogram only reads its input: every call takes the same one (`Rc`: no copy).
    let dist = Distribution::Entropy(EntropyPreset::E0811);
    let data = Rc::new(generate::<u8>(&dist, n, seed));
    let hist = |d: Rc<Vec<u8>>| engine.histogram_u8(&d, HistogramAlgorithm::Auto);
    let serial = |d: Rc<Vec<u8>>| Ok(reference::histogram_u8(&d));
    step(
        ("histogram, u8, 256 bins", n, "B", "serial loop"),
        (&data, hist),
        (&data, serial),
        |o, w| first_difference(o, w),
    )
}

fn scan(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    let data = Rc::new(generate::<u32>(&Distribution::Uniform, n, seed));
    let scan = |d: Rc<Vec<u32>>| engine.scan(&d, ScanKind::Exclusive);
    let serial = |d: Rc<Vec<u32>>| Ok(reference::scan(&d, ScanKind::Exclusive));
    step(
        ("exclusive scan, u32", n, "elements", "serial loop"),
        (&data, scan),
        (&data, serial),
        |o, w| first_difference(o, w),
    )
}

pub fn run(args: DemoArgs, g: &Global) -> CliResult {
    let engine = g.engine()?;
    let scale = if args.small { 16 } else { 1 };
    outln!("histosort demo on {}", engine.describe());
    if let Some(why) = engine.fallback_reason() {
        outln!("(CUDA not used: {why})");
    }
    outln!();
    type StepFn = fn(&Engine, usize, u64) -> histosort::Result<Step>;
    let steps: [(StepFn, usize, &str); 5] = [
        (sort_u32, (1 << 24) / scale, "sorting u32 keys"),
        (sort_f32, (1 << 22) / scale, "sorting f32 keys"),
        (sort_pairs, (1 << 24) / scale, "sorting pairs"),
        (histogram, (64 << 20) / scale, "histogram"),
        (scan, (1 << 24) / scale, "scan"),
    ];
    let bar = g.progress().bar(steps.len() as u64, "demo");
    let mut results = Vec::new();
    for (i, (f, n, what)) in steps.into_iter().enumerate() {
        bar.set_message(format!("{what} ({})", fmt_count(n)));
        results.push(f(&engine, n, args.seed.wrapping_add(i as u64))?);
        bar.inc(1);
    }
    bar.finish_and_clear();

    outln!(
        "{:<28} {:>11} {:>10} {:>10} {:>17}   {:<28} {:>10} {:>8}  check",
        "step",
        "n",
        "first call",
        "time",
        "throughput",
        "baseline (same run)",
        "time",
        "speed-up"
    );
    let mut failures = 0;
    for s in &results {
        let speedup = s.theirs.as_secs_f64() / s.ours.as_secs_f64().max(1e-9);
        let check = match &s.check {
            Ok(()) => "ok, every element".to_string(),
            Err(e) => {
                failures += 1;
                format!("FAILED: {e}")
            }
        };
        outln!(
            "{:<28} {:>11} {:>10} {:>10} {:>17}   {:<28} {:>10} {:>7.1}x  {check}",
            s.name,
            fmt_count(s.n),
            fmt_duration(s.first),
            fmt_duration(s.ours),
            fmt_rate(s.n, s.ours, s.unit),
            s.baseline,
            fmt_duration(s.theirs),
            speedup
        );
    }
    outln!();
    outln!(
        "time: the median of {WARM_RUNS} calls after the first; baseline: the median of \
         {BASELINE_RUNS}; every call's output checked."
    );
    match (engine.kind(), engine.fallback_reason()) {
        (histosort::BackendKind::Cuda, _) => outln!("Ran on the GPU: {}.", engine.describe()),
        (_, Some(why)) => outln!(
            "Ran on the CPU backend ({}); CUDA was not used because: {why}.",
            engine.describe()
        ),
        (_, None) => outln!("Ran on the CPU backend ({}), as asked.", engine.describe()),
    }
    if failures > 0 {
        return Err(Failure::new(format!(
            "{failures} demo step(s) did not match the reference"
        )));
    }
    outln!("All outputs matched. Next: `histosort --help`, `histosort validate --quick`.");
    Ok(())
}
