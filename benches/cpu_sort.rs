//! CPU sort and histogram comparison, interleaved: every round runs every implementation once
//! on a fresh copy of the same input, in a rotating order, so background load on a shared
//! machine hits all of them alike; medians over rounds are reported.
//!
//! `cargo bench --bench cpu_sort` runs everything; environment knobs:
//! * `HS_SIZES=20,24,26` (log2 sizes), `HS_ROUNDS=7`, `HS_ONLY=sort|pairs|hist|scan` (one
//!   group; `mine` times histosort against rdst alone, wall and CPU time, `HS_KEY=u64`),
//! * `HS_VARIANTS=1` adds histosort with fixed digit widths (tuning runs),
//! * `HS_JSON=path` writes the results as JSON (`HS_RUSTC`, `HS_LOAD` and `HS_DATE` fill
//!   its header).

use std::time::Instant;

use histosort::{Engine, HistogramAlgorithm, ScanAlgorithm, ScanKind, SortOptions};
use rayon::prelude::*;
use rdst::RadixSort as _;
use voracious_radix_sort::RadixSort as _;

fn splitmix(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn env_list(name: &str, default: &[u32]) -> Vec<u32> {
    std::env::var(name)
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

struct Row {
    group: String,
    size: usize,
    name: String,
    unit: &'static str,
    samples_ms: Vec<f64>,
    /// Work items (keys or bytes) per run.
    items: f64,
}

impl Row {
    fn rate(&self) -> (f64, f64, f64) {
        let mut ms = self.samples_ms.clone();
        let med = median(&mut ms);
        let best = ms[0];
        let worst = ms[ms.len() - 1];
        let r = |t: f64| self.items / (t * 1e-3) / 1e6;
        (r(med), r(worst), r(best))
    }
}

type Runner<T> = (String, Box<dyn Fn(&mut Vec<T>)>);

/// Runs every implementation `rounds` times on copies of `input`, interleaved.
fn compare<T: Copy + Send + Sync>(
    group: &str,
    input: &[T],
    impls: &[Runner<T>],
    rounds: usize,
    check: &dyn Fn(&str, &[T]),
    rows: &mut Vec<Row>,
) {
    let mut samples = vec![Vec::new(); impls.len()];
    let mut work = input.to_vec();
    for r in 0..rounds {
        for k in 0..impls.len() {
            let i = (k + r) % impls.len();
            work.par_iter_mut()
                .zip(input.par_iter())
                .for_each(|(w, &x)| *w = x);
            let t = Instant::now();
            (impls[i].1)(&mut work);
            samples[i].push(t.elapsed().as_secs_f64() * 1e3);
            if r == 0 {
                check(&impls[i].0, &work);
            }
        }
    }
    for (i, (name, _)) in impls.iter().enumerate() {
        let row = Row {
            group: group.to_string(),
            size: input.len(),
            name: name.clone(),
            unit: "Mkeys/s",
            samples_ms: samples[i].clone(),
            items: input.len() as f64,
        };
        let (med, lo, hi) = row.rate();
        println!(
            "{group:<10} 2^{:<3} {name:<24} {med:8.1} Mkeys/s  (range {lo:.1}-{hi:.1})",
            input.len().trailing_zeros()
        );
        rows.push(row);
    }
}

fn key_impls<T>(variants: bool) -> Vec<Runner<T>>
where
    T: histosort::RadixKey
        + rdst::RadixKey
        + voracious_radix_sort::Radixable<T>
        + voracious_radix_sort::RadixKey
        + Ord,
{
    let engine = Engine::cpu();
    let mut v: Vec<Runner<T>> = vec![
        ("histosort".into(), {
            let e = engine.clone();
            Box::new(move |x: &mut Vec<T>| {
                let _ = e.sort(x, &SortOptions::new());
            })
        }),
        (
            "rdst".into(),
            Box::new(|x: &mut Vec<T>| x.radix_sort_unstable()),
        ),
        (
            "voracious_mt(2)".into(),
            Box::new(|x: &mut Vec<T>| x.voracious_mt_sort(2)),
        ),
        (
            "std sort_unstable".into(),
            Box::new(|x: &mut Vec<T>| x.sort_unstable()),
        ),
        (
            "rayon par_sort_unstable".into(),
            Box::new(|x: &mut Vec<T>| x.par_sort_unstable()),
        ),
    ];
    if variants {
        for d in [8u32, 11] {
            let e = engine.clone();
            v.push((
                format!("histosort d={d}"),
                Box::new(move |x: &mut Vec<T>| {
                    let _ = e.sort(x, &SortOptions::new().digit_bits(d));
                }),
            ));
        }
    }
    v
}

fn sort_group<T>(
    name: &str,
    sizes: &[u32],
    rounds: usize,
    variants: bool,
    rows: &mut Vec<Row>,
    gen: fn(u64) -> T,
) where
    T: histosort::RadixKey
        + rdst::RadixKey
        + voracious_radix_sort::Radixable<T>
        + voracious_radix_sort::RadixKey
        + Ord,
{
    for &lg in sizes {
        let n = 1usize << lg;
        let mut seed = 0x5EED ^ lg as u64;
        let input: Vec<T> = (0..n).map(|_| gen(splitmix(&mut seed))).collect();
        let mut want = input.clone();
        want.par_sort_unstable();
        let check = |who: &str, got: &[T]| {
            if got != want.as_slice() {
                eprintln!("WRONG RESULT from {who} at {name} 2^{lg}");
                std::process::exit(1);
            }
        };
        let mut impls = key_impls::<T>(variants);
        // std's serial sort at 2^26 takes seconds per run: fewer rounds would skew the rotation,
        // so it is dropped there; rayon's parallel sort stays.
        if lg >= 26 {
            impls.retain(|(n, _)| n != "std sort_unstable");
        }
        compare(name, &input, &impls, rounds, &check, rows);
        if lg >= 26 {
            let t: Vec<Runner<T>> = vec![(
                "std sort_unstable".into(),
                Box::new(|x: &mut Vec<T>| x.sort_unstable()),
            )];
            compare(name, &input, &t, 2, &check, rows);
        }
    }
}

/// Stable u32/u32 pairs against rdst's keys-only unstable sort on the same keys.
fn pairs_group(sizes: &[u32], rounds: usize, rows: &mut Vec<Row>) {
    let engine = Engine::cpu();
    for &lg in sizes {
        let n = 1usize << lg;
        let mut seed = 0xFA1 ^ lg as u64;
        let keys: Vec<u32> = (0..n).map(|_| splitmix(&mut seed) as u32).collect();
        let vals: Vec<u32> = (0..n as u32).collect();
        let mut samples = [Vec::new(), Vec::new()];
        let mut k = keys.clone();
        let mut v = vals.clone();
        for r in 0..rounds {
            for j in 0..2 {
                let i = (j + r) % 2;
                k.copy_from_slice(&keys);
                v.copy_from_slice(&vals);
                let t = Instant::now();
                if i == 0 {
                    let _ = engine.sort_pairs(&mut k, &mut v, &SortOptions::new());
                } else {
                    k.radix_sort_unstable();
                }
                samples[i].push(t.elapsed().as_secs_f64() * 1e3);
                if i == 0 && r == 0 {
                    let ok = k.windows(2).all(|w| w[0] <= w[1])
                        && v.iter().zip(&k).all(|(&i, &key)| keys[i as usize] == key)
                        && k.windows(2)
                            .zip(v.windows(2))
                            .all(|(kw, vw)| kw[0] < kw[1] || vw[0] < vw[1]);
                    if !ok {
                        eprintln!("WRONG pair sort at 2^{lg}");
                        std::process::exit(1);
                    }
                }
            }
        }
        for (i, name) in ["histosort pairs u32/u32", "rdst keys-only u32"]
            .iter()
            .enumerate()
        {
            let row = Row {
                group: "pairs".into(),
                size: n,
                name: name.to_string(),
                unit: "Mkeys/s",
                samples_ms: samples[i].clone(),
                items: n as f64,
            };
            let (med, lo, hi) = row.rate();
            println!("pairs      2^{lg:<3} {name:<24} {med:8.1} Mkeys/s  (range {lo:.1}-{hi:.1})");
            rows.push(row);
        }
    }
}

/// Byte histogram (the default path and the scalar one) against copy and read baselines over
/// the same bytes.
fn hist_group(rounds: usize, rows: &mut Vec<Row>) {
    let n = 1usize << 28;
    let mut seed = 0x4157;
    let data: Vec<u8> = (0..n / 8)
        .flat_map(|_| splitmix(&mut seed).to_le_bytes())
        .collect();
    let mut dst = vec![0u8; n];
    let engine = Engine::cpu();
    let want = histosort::reference::histogram_u8(&data);
    let names = [
        "histogram_u8",
        "histogram_u8 scalar",
        "copy (2 threads)",
        "copy (1 thread)",
        "read sum (2 threads)",
    ];
    let mut samples = vec![Vec::new(); names.len()];
    for r in 0..rounds {
        for j in 0..names.len() {
            let i = (j + r) % names.len();
            let t = Instant::now();
            match i {
                0 => {
                    let h = engine
                        .histogram_u8(&data, HistogramAlgorithm::Auto)
                        .unwrap_or_default();
                    if h != want {
                        eprintln!("WRONG histogram");
                        std::process::exit(1);
                    }
                }
                1 => {
                    if histosort::cpu::histogram::histogram_u8_scalar(&data) != want {
                        eprintln!("WRONG scalar histogram");
                        std::process::exit(1);
                    }
                }
                2 => dst
                    .par_chunks_mut(1 << 20)
                    .zip(data.par_chunks(1 << 20))
                    .for_each(|(d, s)| d.copy_from_slice(s)),
                3 => dst.copy_from_slice(&data),
                _ => {
                    let words: &[u64] = bytemuck::cast_slice(&data);
                    let s: u64 = words
                        .par_chunks(1 << 17)
                        .map(|c| c.iter().fold(0u64, |a, &x| a.wrapping_add(x)))
                        .sum();
                    std::hint::black_box(s);
                }
            }
            samples[i].push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    for (i, name) in names.iter().enumerate() {
        let row = Row {
            group: "histogram".into(),
            size: n,
            name: name.to_string(),
            unit: "MB/s",
            samples_ms: samples[i].clone(),
            items: n as f64,
        };
        let (med, lo, hi) = row.rate();
        println!(
            "histogram  2^28 {name:<24} {:8.2} GB/s  (range {:.2}-{:.2})",
            med / 1e3,
            lo / 1e3,
            hi / 1e3
        );
        rows.push(row);
    }
}

/// Prefix scans (u32, u64 and f32; exclusive and inclusive) against copies of the same bytes:
/// the scan reads and writes each element once, as a copy does. f32 inputs are small integers
/// with mean 0, so every partial sum is exact in any order and the check is bit for bit.
fn scan_group(rounds: usize, rows: &mut Vec<Row>) {
    fn one<T: histosort::ScanElem + Default>(
        name: &str,
        rounds: usize,
        rows: &mut Vec<Row>,
        gen: fn(u64) -> T,
    ) {
        let n = 1usize << 26;
        let mut seed = 0x5CA;
        let data: Vec<T> = (0..n).map(|_| gen(splitmix(&mut seed))).collect();
        let mut dst = vec![T::default(); n];
        let engine = Engine::cpu();
        let want = [
            histosort::reference::scan(&data, ScanKind::Exclusive),
            histosort::reference::scan(&data, ScanKind::Inclusive),
        ];
        let names = [
            "scan (exclusive)",
            "scan (inclusive)",
            "copy (2 threads)",
            "copy (1 thread)",
        ];
        let mut samples = vec![Vec::new(); names.len()];
        for r in 0..rounds {
            for j in 0..names.len() {
                let i = (j + r) % names.len();
                let t = Instant::now();
                match i {
                    0 | 1 => {
                        let kind = [ScanKind::Exclusive, ScanKind::Inclusive][i];
                        let _ = engine.scan_into(&data, &mut dst, kind, ScanAlgorithm::Auto);
                    }
                    2 => dst
                        .par_chunks_mut(1 << 18)
                        .zip(data.par_chunks(1 << 18))
                        .for_each(|(d, s)| d.copy_from_slice(s)),
                    _ => dst.copy_from_slice(&data),
                }
                samples[i].push(t.elapsed().as_secs_f64() * 1e3);
                if i < 2 && r == 0 && dst != want[i] {
                    eprintln!("WRONG scan {name} {}", names[i]);
                    std::process::exit(1);
                }
            }
        }
        let bytes = (n * std::mem::size_of::<T>()) as f64;
        for (i, what) in names.iter().enumerate() {
            let row = Row {
                group: format!("scan {name}"),
                size: n,
                name: what.to_string(),
                unit: "MB/s",
                samples_ms: samples[i].clone(),
                items: bytes,
            };
            let (med, lo, hi) = row.rate();
            println!(
                "scan {name:<5} 2^26 {what:<24} {:8.2} GB/s  (range {:.2}-{:.2})",
                med / 1e3,
                lo / 1e3,
                hi / 1e3
            );
            rows.push(row);
        }
    }
    one::<u32>("u32", rounds, rows, |x| (x & 0xff) as u32);
    one::<u64>("u64", rounds, rows, |x| x & 0xffff);
    one::<f32>("f32", rounds, rows, |x| (x % 17) as f32 - 8.0);
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is expected.
    let sizes = env_list("HS_SIZES", &[20, 24, 26]);
    let rounds = env_usize("HS_ROUNDS", 7);
    let only = std::env::var("HS_ONLY").unwrap_or_default();
    let variants = env_usize("HS_VARIANTS", 0) != 0;
    println!(
        "rayon threads: {}, rounds: {rounds} (medians; range = slowest-fastest)",
        rayon::current_num_threads()
    );
    let mut rows = Vec::new();
    if only == "mine" {
        // Profiling aid: histosort alone against rdst (`HS_KEY=u64` for 64-bit keys).
        if std::env::var("HS_KEY").as_deref() == Ok("u64") {
            mine::<u64>(&sizes, rounds, |x| x);
        } else {
            mine::<u32>(&sizes, rounds, |x| x as u32);
        }
        return;
    }
    if only.is_empty() || only == "sort" {
        sort_group::<u32>("u32", &sizes, rounds, variants, &mut rows, |x| x as u32);
        sort_group::<u64>("u64", &sizes, rounds, variants, &mut rows, |x| x);
    }
    if only.is_empty() || only == "pairs" {
        pairs_group(&sizes, rounds, &mut rows);
    }
    if only.is_empty() || only == "hist" {
        hist_group(rounds, &mut rows);
    }
    if only.is_empty() || only == "scan" {
        scan_group(rounds, &mut rows);
    }
    if let Ok(path) = std::env::var("HS_JSON") {
        let results: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let (med, lo, hi) = r.rate();
                serde_json::json!({
                    "group": r.group,
                    "log2_size": r.size.trailing_zeros(),
                    "implementation": r.name,
                    "unit": r.unit,
                    "median": (med * 10.0).round() / 10.0,
                    "slowest": (lo * 10.0).round() / 10.0,
                    "fastest": (hi * 10.0).round() / 10.0,
                    "samples_ms": r.samples_ms.iter().map(|t| (t * 1000.0).round() / 1000.0).collect::<Vec<_>>(),
                })
            })
            .collect();
        let doc = serde_json::json!({
            "date": std::env::var("HS_DATE").unwrap_or_else(|_| "2026-11-30".into()),
            "machine": {
                "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
                "cpu": cpu_model(),
                "shared": std::env::var("HS_LOAD").unwrap_or_else(|_| "yes: other engineers compiled in parallel; medians of interleaved rounds".into()),
            },
            "rustc": std::env::var("HS_RUSTC").unwrap_or_default(),
            "rounds": rounds,
            "results": results,
        });
        if let Err(e) = std::fs::write(
            &path,
            serde_json::to_string_pretty(&doc).unwrap_or_default(),
        ) {
            eprintln!("cannot write {path}: {e}");
        }
    }
}

fn mine<T: histosort::RadixKey + rdst::RadixKey + Ord>(
    sizes: &[u32],
    rounds: usize,
    gen: fn(u64) -> T,
) {
    for &lg in sizes {
        let mut seed = 1;
        let input: Vec<T> = (0..1usize << lg)
            .map(|_| gen(splitmix(&mut seed)))
            .collect();
        let e = Engine::cpu();
        let mut w = input.clone();
        for _ in 0..rounds {
            w.copy_from_slice(&input);
            let (t, c) = (Instant::now(), cpu_ms());
            let _ = e.sort(&mut w, &SortOptions::new());
            let (a, ac) = (t.elapsed().as_secs_f64() * 1e3, cpu_ms() - c);
            w.copy_from_slice(&input);
            let (t, c) = (Instant::now(), cpu_ms());
            w.radix_sort_unstable();
            let (b, bc) = (t.elapsed().as_secs_f64() * 1e3, cpu_ms() - c);
            println!(
                "2^{lg}: histosort {a:.2} ms (cpu {ac:.1}), rdst {b:.2} ms (cpu {bc:.1}), cpu ratio {:.2}",
                bc / ac
            );
        }
    }
}

/// CPU time of the whole process (all threads), ms: a load-robust cost measure.
fn cpu_ms() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        let t = |v: libc::timeval| v.tv_sec as f64 * 1e3 + v.tv_usec as f64 / 1e3;
        t(u.ru_utime) + t(u.ru_stime)
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_default()
}
