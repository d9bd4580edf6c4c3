//! The suites on the CPU backend (no GPU here): the CPU backend on all cores against the
//! one-core `std` baselines and a memory copy, with the same method as on the GPU but timed by
//! the wall clock.

use std::time::Instant;

use super::data::{self, HistInput};
use super::record::Record;
use super::stats::speedup;
use super::table::{self, Table};
use super::{Method, Run, Suite};
use crate::algorithm::ScanKind;
use crate::error::Result;
use crate::gen::{self, Distribution};
use crate::options::SortOptions;
use crate::reference;
use crate::{Engine, HistogramAlgorithm, ScanAlgorithm};

/// The CPU backend, on all cores.
fn eng() -> Engine {
    Engine::cpu()
}

pub(crate) fn suite(run: &mut Run, suite: Suite) -> Result<()> {
    match suite {
        Suite::HistStudy => hist_study(run),
        Suite::Contention => contention(run),
        Suite::Sort => sort(run),
        Suite::Graph => {
            run.note("graph: needs the CUDA backend (captured CUDA graphs), not measured");
            Ok(())
        }
        Suite::Scan => scan(run),
        Suite::Peers => peers(run),
    }
}

/// Times `op` after `setup` (untimed) on each run: warm-ups, then the adaptive sample count.
fn time_runs<S>(
    m: &Method,
    state: &mut S,
    mut setup: impl FnMut(&mut S),
    mut op: impl FnMut(&mut S) -> Result<()>,
) -> Result<Vec<f64>> {
    let mut one = 0.0;
    for i in 0..m.warmups.max(1) {
        setup(state);
        let t = Instant::now();
        op(state)?;
        if i == 0 {
            one = t.elapsed().as_secs_f64() * 1e3;
        }
    }
    let count = m.samples_for(one);
    let mut v = Vec::with_capacity(count);
    for _ in 0..count {
        setup(state);
        let t = Instant::now();
        op(state)?;
        v.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(v)
}

fn hist_size(run: &Run, full: usize, quick: usize) -> usize {
    run.cfg
        .hist_bytes
        .unwrap_or(if run.cfg.quick { quick } else { full })
}

fn hist_study(run: &mut Run) -> Result<()> {
    let n = hist_size(run, 64 << 20, 16 << 20);
    let m = run.cfg.study_method();
    let mut t = Table::new(&[
        "input",
        "variant",
        "median ms",
        "P10-P90 ms",
        "min-max ms",
        "GB/s",
        "speed-up",
    ]);
    for input in [HistInput::Active8, HistInput::Uniform] {
        run.step(format!("hist-study cpu {}", input.name()));
        let data = data::hist_bytes(input, n, run.cfg.seed);
        let want = reference::histogram_u8(&data);
        let mut checks = 0u64;
        // Every sample's 256 bins are checked, as in the study.
        let mut check = |got: &[u64]| {
            checks += 256;
            data::check_equal("cpu histogram", got, &want)
        };
        check(&eng().histogram_u8(&data, HistogramAlgorithm::Auto)?)?;
        let mut times = [Vec::new(), Vec::new()];
        for i in 0..m.warmups + m.samples {
            // Variants alternate within each round.
            for (v, ts) in times.iter_mut().enumerate() {
                let t0 = Instant::now();
                let h = if v == 0 {
                    reference::histogram_u8(&data)
                } else {
                    eng().histogram_u8(&data, HistogramAlgorithm::Auto)?
                };
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                // The engine's output; the serial one is the reference itself.
                if v == 1 {
                    check(&h)?;
                }
                if i >= m.warmups {
                    ts.push(ms);
                }
            }
        }
        let [serial, private] = times;
        let base = Record::from_samples(
            "hist-study",
            "serial",
            "std",
            "u8",
            n as u64,
            &input.name(),
            serial,
            n as f64,
            "GB/s",
        )?
        .with("threads", 1)
        .with("bins", 256);
        let par = Record::from_samples(
            "hist-study",
            "cpu-private",
            "cpu",
            "u8",
            n as u64,
            &input.name(),
            private,
            n as f64,
            "GB/s",
        )?
        .with("threads", rayon::current_num_threads())
        .with("bins", 256)
        .with("bin_checks", checks);
        let s = speedup(base.median_ms, par.median_ms);
        for (r, sp) in [(&base, 1.0), (&par, s)] {
            t.row(vec![
                input.name(),
                r.variant.clone(),
                table::ms(r.median_ms),
                format!("{}-{}", table::ms(r.p10_ms), table::ms(r.p90_ms)),
                format!("{}-{}", table::ms(r.min_ms), table::ms(r.max_ms)),
                table::num(r.throughput),
                format!("{}x", table::num(sp)),
            ]);
        }
        run.push(base);
        run.push(par);
    }
    run.say(&format!(
        "Histogram study (CPU): {} of u8, 256 bins; {} warm-ups and {} samples per variant, \
         alternating; every sample's bins checked against the reference.\n{}",
        table::bytes(n as u64),
        m.warmups,
        m.samples,
        t.render()
    ));
    Ok(())
}

fn contention(run: &mut Run) -> Result<()> {
    let n = hist_size(run, 64 << 20, 4 << 20);
    let m = run.cfg.method(false);
    let mut t = Table::new(&["distinct values", "cpu-private Gsamples/s", "median ms"]);
    for d in (0..=8).map(|k| 1u32 << k) {
        run.step(format!("contention cpu distinct-{d}"));
        let input = HistInput::Distinct(d);
        let data = data::hist_bytes(input, n, run.cfg.seed);
        let want = reference::histogram_u8(&data);
        data::check_equal(
            "cpu histogram",
            &eng().histogram_u8(&data, HistogramAlgorithm::Auto)?,
            &want,
        )?;
        let samples = time_runs(
            &m,
            &mut (),
            |_| {},
            |_| {
                std::hint::black_box(eng().histogram_u8(&data, HistogramAlgorithm::Auto)?);
                Ok(())
            },
        )?;
        let r = Record::from_samples(
            "contention",
            "cpu-private",
            "cpu",
            "u8",
            n as u64,
            &input.name(),
            samples,
            n as f64,
            "Gsamples/s",
        )?
        .with("distinct", d);
        t.row(vec![
            d.to_string(),
            table::num(r.throughput),
            table::ms(r.median_ms),
        ]);
        run.push(r);
    }
    run.say(&format!(
        "Contention sweep (CPU): {} of u8 over 1 to 256 distinct values.\n{}",
        table::bytes(n as u64),
        t.render()
    ));
    Ok(())
}

fn sort_sizes(run: &Run) -> Vec<usize> {
    run.cfg.sizes.clone().unwrap_or_else(|| {
        if run.cfg.quick {
            vec![1 << 16, 1 << 20]
        } else {
            vec![1 << 20, 4_194_915, 1 << 24]
        }
    })
}

fn sort(run: &mut Run) -> Result<()> {
    let m = run.cfg.method(false);
    for n in sort_sizes(run) {
        let keys: Vec<u32> = gen::generate(&run.cfg.dist, n, run.cfg.seed);
        let want = data::sorted_keys(&keys, &SortOptions::new());
        let idx: Vec<u32> = (0..n as u32).collect();
        for pairs in [false, true] {
            let (dtype, elem) = if pairs { ("u32/u32", 8) } else { ("u32", 4) };
            run.step(format!("sort cpu {dtype} n={n} copy"));
            // Baseline: a copy of the same data (keys, and values for pairs).
            let mut st = (vec![0u32; n], vec![0u32; n]);
            let copy = time_runs(
                &m,
                &mut st,
                |_| {},
                |(k, v)| {
                    k.copy_from_slice(&keys);
                    if pairs {
                        v.copy_from_slice(&idx);
                    }
                    Ok(())
                },
            )?;
            let bytes = (n * elem) as f64;
            let copy = Record::from_samples(
                "sort",
                "memcpy",
                "copy",
                dtype,
                n as u64,
                "-",
                copy,
                2.0 * bytes,
                "GB/s",
            )?
            .with("bytes", bytes)
            .with("counts", "bytes read + bytes written");
            let mut recs = sort_baselines(run, &keys, &want, pairs, &m)?;
            let mut t = Table::new(&[
                "variant",
                "impl",
                "time (ms)",
                "P10-P90",
                "Mkeys/s",
                "x copy",
            ]);
            t.row(vec![
                "copy, no sort".into(),
                "copy".into(),
                table::ms(copy.median_ms),
                format!("{}-{}", table::ms(copy.p10_ms), table::ms(copy.p90_ms)),
                "-".into(),
                "1.00".into(),
            ]);
            for r in &mut recs {
                let x = r.median_ms / copy.median_ms;
                r.extra.insert("x_copy".into(), x.into());
                t.row(vec![
                    r.variant.clone(),
                    r.implementation.clone(),
                    table::ms(r.median_ms),
                    format!("{}-{}", table::ms(r.p10_ms), table::ms(r.p90_ms)),
                    table::num(n as f64 / r.median_ms * 1e-3),
                    table::num(x),
                ]);
            }
            run.say(&format!(
                "Sort (CPU), {} {dtype}, {}; each variant matched the reference at all {} \
                 elements before timing. The copy moves {} GB/s (read + write).\n{}",
                table::count(n as u64),
                run.cfg.dist,
                table::count(n as u64),
                table::num(copy.throughput),
                t.render()
            ));
            run.push(copy);
            for r in recs {
                run.push(r);
            }
        }
    }
    Ok(())
}

/// The CPU baselines of a u32 sort: the CPU backend on all cores, and std on one core
/// (`sort_unstable` for keys, the seeds' std::sort; the stable `sort_by_key` for pairs). The
/// values of pairs are the input indices. Each is checked at every element before timing.
pub(crate) fn sort_baselines(
    run: &mut Run,
    keys: &[u32],
    want: &[u32],
    pairs: bool,
    m: &Method,
) -> Result<Vec<Record>> {
    let n = keys.len();
    let opts = SortOptions::new();
    let (dtype, unit) = if pairs {
        ("u32/u32", "Gpairs/s")
    } else {
        ("u32", "Gkeys/s")
    };
    let idx: Vec<u32> = (0..n as u32).collect();
    let mut out = Vec::new();
    let dist = run.cfg.dist.name();

    run.step(format!("sort cpu-lsd {dtype} n={n}"));
    let mut st = (keys.to_vec(), idx.clone());
    if pairs {
        eng().sort_pairs(&mut st.0, &mut st.1, &opts)?;
        data::check_pairs("cpu sort_pairs", keys, &st.0, &st.1, want, &opts)?;
    } else {
        eng().sort(&mut st.0, &opts)?;
        data::check_equal("cpu sort", &st.0, want)?;
    }
    let samples = time_runs(
        m,
        &mut st,
        |(k, v)| {
            k.copy_from_slice(keys);
            v.copy_from_slice(&idx);
        },
        |(k, v)| {
            if pairs {
                eng().sort_pairs(k, v, &opts)
            } else {
                eng().sort(k, &opts)
            }
        },
    )?;
    out.push(
        Record::from_samples(
            "sort", "cpu-lsd", "cpu", dtype, n as u64, &dist, samples, n as f64, unit,
        )?
        .with("threads", rayon::current_num_threads())
        .with("checked", "every element, before timing"),
    );

    run.step(format!("sort std {dtype} n={n}"));
    let zipped: Vec<(u32, u32)> = keys.iter().copied().zip(idx.iter().copied()).collect();
    let mut st: (Vec<u32>, Vec<(u32, u32)>) = (keys.to_vec(), Vec::new());
    if pairs {
        st.1 = zipped.clone();
        st.1.sort_by_key(|p| p.0);
        let (k, v): (Vec<u32>, Vec<u32>) = st.1.iter().copied().unzip();
        data::check_pairs("std sort_by_key", keys, &k, &v, want, &opts)?;
    } else {
        st.0.sort_unstable();
        data::check_equal("std sort_unstable", &st.0, want)?;
    }
    let samples = time_runs(
        m,
        &mut st,
        |(k, p)| {
            if pairs {
                p.clone_from(&zipped);
            } else {
                k.copy_from_slice(keys);
            }
        },
        |(k, p)| {
            if pairs {
                p.sort_by_key(|x| x.0);
            } else {
                k.sort_unstable();
            }
            Ok(())
        },
    )?;
    let variant = if pairs {
        "sort_by_key"
    } else {
        "sort_unstable"
    };
    out.push(
        Record::from_samples(
            "sort", variant, "std", dtype, n as u64, &dist, samples, n as f64, unit,
        )?
        .with("threads", 1)
        .with("checked", "every element, before timing"),
    );
    Ok(out)
}

fn scan(run: &mut Run) -> Result<()> {
    let m = run.cfg.method(false);
    let sizes = run.cfg.sizes.clone().unwrap_or_else(|| {
        if run.cfg.quick {
            vec![1 << 20, 1 << 22]
        } else {
            vec![1 << 20, 1 << 24, 1 << 26]
        }
    });
    let mut t = Table::new(&["n", "variant", "impl", "median ms", "GB/s"]);
    for n in sizes {
        run.step(format!("scan cpu n={n}"));
        let input: Vec<u32> = gen::generate::<u32>(&Distribution::Uniform, n, run.cfg.seed)
            .into_iter()
            .map(|x| x & 0xffff)
            .collect();
        let want = reference::scan(&input, ScanKind::Exclusive);
        let mut out = vec![0u32; n];
        eng().scan_into(&input, &mut out, ScanKind::Exclusive, ScanAlgorithm::Auto)?;
        data::check_equal("cpu exclusive scan", &out, &want)?;
        let bytes = 8.0 * n as f64;
        let copy = time_runs(
            &m,
            &mut out,
            |_| {},
            |o| {
                o.copy_from_slice(&input);
                Ok(())
            },
        )?;
        let scan = time_runs(
            &m,
            &mut out,
            |_| {},
            |o| eng().scan_into(&input, o, ScanKind::Exclusive, ScanAlgorithm::Auto),
        )?;
        let copy = Record::from_samples(
            "scan",
            "memcpy",
            "copy",
            "u32",
            n as u64,
            "uniform-16bit",
            copy,
            bytes,
            "GB/s",
        )?;
        let scan = Record::from_samples(
            "scan",
            "cpu-blocked",
            "cpu",
            "u32",
            n as u64,
            "uniform-16bit",
            scan,
            bytes,
            "GB/s",
        )?
        .with("kind", "exclusive")
        .with("threads", rayon::current_num_threads());
        for r in [&copy, &scan] {
            t.row(vec![
                table::count(n as u64),
                r.variant.clone(),
                r.implementation.clone(),
                table::ms(r.median_ms),
                table::num(r.throughput),
            ]);
        }
        run.push(copy);
        run.push(scan);
    }
    run.say(&format!(
        "Exclusive scan (CPU), u32; GB/s counts bytes read and written.\n{}",
        t.render()
    ));
    Ok(())
}

fn peers(run: &mut Run) -> Result<()> {
    let nvcc = if super::on_path("nvcc").is_some() {
        "nvcc found, but no CUDA device"
    } else {
        "nvcc not found"
    };
    run.note(format!(
        "CUB not measured: {nvcc} (the CPU backend has no GPU peer)"
    ));
    // The CPU peers are the one-core std sorts, measured by the sort suite.
    let mut t = Table::new(&["case", "n", "cpu ms", "std ms", "cpu vs std"]);
    let recs: Vec<Record> = run
        .records
        .iter()
        .filter(|r| r.suite == "sort")
        .cloned()
        .collect();
    for r in recs.iter().filter(|r| r.implementation == "cpu") {
        if let Some(s) = recs
            .iter()
            .find(|s| s.implementation == "std" && s.dtype == r.dtype && s.n == r.n)
        {
            t.row(vec![
                r.dtype.clone(),
                table::count(r.n),
                table::ms(r.median_ms),
                table::ms(s.median_ms),
                format!("{}x", table::num(speedup(s.median_ms, r.median_ms))),
            ]);
        }
    }
    if !t.is_empty() {
        run.say(&format!(
            "Peers (CPU): the CPU backend on all cores against std on one core.\n{}",
            t.render()
        ));
    }
    Ok(())
}
