//! End-to-end smoke test of `histosort bench` on the CPU backend: every suite runs on tiny
//! inputs, the JSON round-trips through the documented schema, and the charts are written.

use histosort::bench::{self, Config, Report, Suite};
use histosort::Backend;

#[test]
fn quick_cpu_bench_writes_tables_json_and_charts() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let cfg = Config {
        backend: Backend::Cpu,
        quick: true,
        quiet: true,
        json: Some(json.clone()),
        samples: Some(3),
        warmups: Some(1),
        sizes: Some(vec![1000, 1 << 12]),
        hist_bytes: Some(1 << 14),
        command: "bench --quick --backend cpu (test)".into(),
        ..Config::default()
    };
    let mut out = Vec::new();
    let report = bench::run_to(&cfg, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    for want in [
        "Histogram study (CPU)",
        "Contention sweep (CPU)",
        "Sort (CPU)",
        "copy, no sort",
        "Exclusive scan (CPU)",
        "CUB not measured",
        "graph: needs the CUDA backend",
    ] {
        assert!(text.contains(want), "missing '{want}' in:\n{text}");
    }
    // Every suite that runs on the CPU left records; each record is complete.
    for s in [
        Suite::HistStudy,
        Suite::Contention,
        Suite::Sort,
        Suite::Scan,
    ] {
        assert!(report.suite(s.name()).count() > 0, "no records for {s}");
    }
    for r in &report.records {
        assert_eq!(r.samples, r.samples_ms.len());
        assert!(
            r.samples >= 1 && r.median_ms > 0.0 && r.throughput > 0.0,
            "{r:?}"
        );
        assert!(r.p10_ms <= r.median_ms && r.median_ms <= r.p90_ms);
        assert!(r.min_ms <= r.p10_ms && r.p90_ms <= r.max_ms);
    }
    // hist-study keeps its fixed counts: every sample of both variants, every bin checked.
    let study: Vec<_> = report.suite("hist-study").collect();
    assert!(study.iter().all(|r| r.samples == 3));
    let back = Report::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // serde_json's default float parsing may be one ulp off; everything else is exact.
    assert_eq!(back.records.len(), report.records.len());
    assert_eq!(back.environment, report.environment);
    assert_eq!(back.notes, report.notes);
    for (a, b) in back.records.iter().zip(&report.records) {
        assert_eq!(
            (&a.suite, &a.variant, &a.implementation, &a.dtype, a.n),
            (&b.suite, &b.variant, &b.implementation, &b.dtype, b.n)
        );
        assert_eq!(
            (
                &a.distribution,
                a.samples,
                &a.unit,
                &a.extra.keys().collect::<Vec<_>>()
            ),
            (
                &b.distribution,
                b.samples,
                &b.unit,
                &b.extra.keys().collect::<Vec<_>>()
            )
        );
        for (x, y) in [
            (a.median_ms, b.median_ms),
            (a.p10_ms, b.p10_ms),
            (a.p90_ms, b.p90_ms),
            (a.throughput, b.throughput),
        ] {
            assert!((x - y).abs() <= 1e-12 * y.abs(), "{x} vs {y}");
        }
    }
    assert_eq!(back.schema, "histosort-bench/1");
    assert_eq!(back.environment.backend, "cpu");
    for chart in [
        "run-sort-u32.svg",
        "run-sort-u32-u32.svg",
        "run-contention.svg",
        "run-scan.svg",
    ] {
        let p = dir.path().join(chart);
        assert!(p.is_file(), "missing chart {chart}");
    }
}

#[test]
fn sort_suite_draws_keys_from_the_chosen_distribution() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("dup.json");
    let cfg = Config {
        suites: vec![Suite::Sort],
        backend: Backend::Cpu,
        quick: true,
        quiet: true,
        json: Some(json),
        samples: Some(2),
        warmups: Some(1),
        sizes: Some(vec![5000]),
        dist: "distinct-16".parse().unwrap(),
        ..Config::default()
    };
    let mut out = Vec::new();
    let report = bench::run_to(&cfg, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("u32, distinct-16;"), "{text}");
    let sorts: Vec<_> = report
        .records
        .iter()
        .filter(|r| r.unit == "Gkeys/s" || r.unit == "Gpairs/s")
        .collect();
    assert!(sorts.len() >= 4, "{sorts:?}");
    for r in sorts {
        assert_eq!(r.distribution, "distinct-16", "{} {}", r.variant, r.dtype);
    }
    for chart in [
        "dup-sort-u32-distinct-16.svg",
        "dup-sort-u32-u32-distinct-16.svg",
    ] {
        assert!(dir.path().join(chart).is_file(), "missing chart {chart}");
    }
}

#[test]
fn one_suite_at_a_time() {
    let cfg = Config {
        suites: vec![Suite::Scan],
        backend: Backend::Cpu,
        quick: true,
        quiet: true,
        samples: Some(2),
        warmups: Some(1),
        sizes: Some(vec![5000]),
        ..Config::default()
    };
    let mut out = Vec::new();
    let report = bench::run_to(&cfg, &mut out).unwrap();
    assert!(report.records.iter().all(|r| r.suite == "scan"));
    assert_eq!(report.records.len(), 2);
}

#[test]
fn replot_reads_a_results_file_back_into_a_table_and_charts() {
    use histosort::bench::{Environment, Record};
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("peers.json");
    let env = Environment {
        gpu_name: Some("Test GPU".into()),
        ..Environment::default()
    };
    let mut report = Report::new(env, serde_json::json!({}));
    let n = 1u64 << 20;
    for (imp, variant, ms, ratio) in [
        ("histosort", "auto", vec![2.0, 2.1, 1.9], Some(1.5)),
        (
            "cub",
            "DeviceRadixSort::SortKeys",
            vec![3.0, 3.1, 2.9],
            None,
        ),
    ] {
        let mut r = Record::from_samples(
            "peers", variant, imp, "u32", n, "uniform", ms, n as f64, "Gkeys/s",
        )
        .unwrap();
        if let Some(x) = ratio {
            r = r.with("vs_cub", x);
        }
        report.records.push(r);
    }
    report.write_json(&json).unwrap();
    let charts = dir.path().join("charts");
    let (table, files) = bench::replot(&json, Some(&charts)).unwrap();
    assert!(table.contains("2 records; Test GPU"), "{table}");
    let ours = table.lines().find(|l| l.contains("histosort")).unwrap();
    assert!(ours.contains("2^20") && ours.contains("1.50x"), "{table}");
    let theirs = table
        .lines()
        .find(|l| l.contains("DeviceRadixSort"))
        .unwrap();
    assert!(theirs.trim_end().ends_with('-'), "{table}");
    assert!(!files.is_empty());
    for f in &files {
        assert!(f.starts_with(&charts), "{f:?}");
        let svg = std::fs::read_to_string(f).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("Test GPU"), "{f:?}");
    }
    // Not a results file: an error that names it, and nothing written.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"x\": 1}").unwrap();
    let out = dir.path().join("none");
    let e = bench::replot(&bad, Some(&out)).unwrap_err().to_string();
    assert!(
        e.contains("bad.json") && e.contains("not a histosort-bench report"),
        "{e}"
    );
    assert!(!out.exists());
}
