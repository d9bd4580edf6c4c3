//! `histosort demo`: the README's first command. On the best backend found, it generates data,
//! sorts keys and pairs, takes a histogram and a scan, checks every output element against an
//! independent result, and prints time, throughput and the speed-up over the standard library
//! (timed in the same run).

use std::time::Duration;

use clap::Args;
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

/// One measured step.
struct Step {
    name: String,
    n: usize,
    unit: &'static str,
    ours: Duration,
    baseline: &'static str,
    theirs: Duration,
    check: Result<(), String>,
}

fn first_difference<T: PartialEq>(got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {} instead of {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!("first difference at index {i}")),
    }
}

fn sort_u32(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    let data: Vec<u32> = generate(&Distribution::Uniform, n, seed);
    let mut ours = data.clone();
    let (r, t_ours) = timed(|| engine.sort(&mut ours, &SortOptions::new()));
    r?;
    let mut want = data;
    let ((), t_std) = timed(|| want.sort_unstable());
    Ok(Step {
        name: "sort u32 keys, uniform".into(),
        n,
        unit: "keys",
        ours: t_ours,
        baseline: "slice::sort_unstable",
        theirs: t_std,
        check: first_difference(&ours, &want),
    })
}

fn sort_f32(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    let data: Vec<f32> = generate(&Distribution::FloatSpecials, n, seed);
    let mut ours = data.clone();
    let (r, t_ours) = timed(|| engine.sort(&mut ours, &SortOptions::new()));
    r?;
    let mut want = data;
    let ((), t_std) = timed(|| want.sort_unstable_by(f32::total_cmp));
    // total_cmp is a total order on bit patterns, so stable and unstable sorts agree bit for bit.
    let img = |v: &[f32]| v.iter().map(|x| x.to_radix()).collect::<Vec<u32>>();
    Ok(Step {
        name: "sort f32 keys, NaN/inf/-0.0".into(),
        n,
        unit: "keys",
        ours: t_ours,
        baseline: "sort_unstable_by(total_cmp)",
        theirs: t_std,
        check: first_difference(&img(&ours), &img(&want)),
    })
}

fn sort_pairs(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    // Few distinct keys, so stability matters: the payload is the input index.
    let dist = Distribution::Entropy(EntropyPreset::E0544);
    let keys: Vec<u32> = generate(&dist, n, seed);
    let mut k = keys.clone();
    let mut v: Vec<u32> = (0..n as u32).collect();
    let (r, t_ours) = timed(|| engine.sort_pairs(&mut k, &mut v, &SortOptions::new()));
    r?;
    // (key, index) pairs are distinct, so an unstable sort of them is the stable sort by key.
    let mut want: Vec<(u32, u32)> = keys.into_iter().zip(0..).collect();
    let ((), t_std) = timed(|| want.sort_unstable());
    let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
    Ok(Step {
        name: "sort u32/u32 pairs, stable".into(),
        n,
        unit: "pairs",
        ours: t_ours,
        baseline: "sort_unstable of (key, i)",
        theirs: t_std,
        check: first_difference(&got, &want),
    })
}

fn histogram(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    let data: Vec<u8> = generate(&Distribution::Entropy(EntropyPreset::E0811), n, seed);
    let (got, t_ours) = timed(|| engine.histogram_u8(&data, HistogramAlgorithm::Auto));
    let got = got?;
    let (want, t_ref) = timed(|| reference::histogram_u8(&data));
    Ok(Step {
        name: "histogram, u8, 256 bins".into(),
        n,
        unit: "B",
        ours: t_ours,
        baseline: "serial loop",
        theirs: t_ref,
        check: first_difference(&got, &want),
    })
}

fn scan(engine: &Engine, n: usize, seed: u64) -> histosort::Result<Step> {
    let data: Vec<u32> = generate(&Distribution::Uniform, n, seed);
    let (got, t_ours) = timed(|| engine.scan(&data, ScanKind::Exclusive));
    let got = got?;
    let (want, t_ref) = timed(|| reference::scan(&data, ScanKind::Exclusive));
    Ok(Step {
        name: "exclusive scan, u32".into(),
        n,
        unit: "elements",
        ours: t_ours,
        baseline: "serial loop",
        theirs: t_ref,
        check: first_difference(&got, &want),
    })
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
        "{:<28} {:>11} {:>10} {:>17}   {:<28} {:>10} {:>8}  check",
        "step",
        "n",
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
            "{:<28} {:>11} {:>10} {:>17}   {:<28} {:>10} {:>7.1}x  {check}",
            s.name,
            fmt_count(s.n),
            fmt_duration(s.ours),
            fmt_rate(s.n, s.ours, s.unit),
            s.baseline,
            fmt_duration(s.theirs),
            speedup
        );
    }
    outln!();
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
