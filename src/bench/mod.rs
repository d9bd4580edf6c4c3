//! `histosort bench`: the seeds' measurements, reproduced on any GPU (and on the CPU backend),
//! with the same method throughout.
//!
//! **Method** (the histogram study, `seeds/002`): every variant is checked against the CPU
//! reference at every element (every bin) before it is timed; then warm-ups; then many timed
//! samples, by device events on the GPU and by the wall clock on the CPU; reported as median,
//! P10-P90 and min-max with type-7 quantiles ([`stats::quantile_type7`]), no sample discarded.
//! Speed-ups are ratios of medians. Sorts run out of place from an input the loop never
//! touches (`seeds/001`, "it gets faster every run"); inputs that fit in L2 rotate between
//! several copies so a sample does not read the previous sample's cached lines.
//!
//! **Suites**: `hist-study`, `contention`, `sort`, `graph`, `scan`, `peers` ([`Suite`]).
//! Results go to tables on stdout, and with `--json` to a file in the schema of
//! `bench/schema.md` ([`record::Report`]) with SVG charts beside it ([`charts`]).

pub mod charts;
mod cpu;
mod data;
mod gpu;
pub mod peers;
pub mod ptx;
pub mod record;
pub mod stats;
pub mod table;

use std::fmt;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::str::FromStr;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::error::{Error, Result};
use crate::{Backend, Engine};
pub use record::{Environment, Record, Report};

/// One benchmark suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suite {
    /// Naive global atomics against the block-private shared histogram (seeds/002), and the
    /// other byte-histogram variants, on 8 active bins and on uniform bytes.
    HistStudy,
    /// Every histogram variant over 1, 2, 4, ..., 256 distinct values (CUDA Handbook 16-3).
    Contention,
    /// The course page's sort table: copy baseline, then each variant (seeds/001).
    Sort,
    /// Plain launches against a captured graph, 2^10 to 2^24 keys (seeds/000).
    Graph,
    /// Device-wide scans, GB/s: every CUDA variant against the copy (u32, u64, f32).
    Scan,
    /// histosort against NVIDIA CUB in the same run (and the CPU baselines).
    Peers,
}

impl Suite {
    pub const ALL: &'static [Suite] = &[
        Suite::HistStudy,
        Suite::Contention,
        Suite::Sort,
        Suite::Graph,
        Suite::Scan,
        Suite::Peers,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Suite::HistStudy => "hist-study",
            Suite::Contention => "contention",
            Suite::Sort => "sort",
            Suite::Graph => "graph",
            Suite::Scan => "scan",
            Suite::Peers => "peers",
        }
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Suite {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Suite, String> {
        let t = s.trim().to_ascii_lowercase();
        Suite::ALL
            .iter()
            .copied()
            .find(|x| x.name() == t)
            .ok_or_else(|| {
                let names: Vec<&str> = Suite::ALL.iter().map(|x| x.name()).collect();
                format!(
                    "unknown suite '{s}' (expected one of: {}, all)",
                    names.join(", ")
                )
            })
    }
}

/// What to run and where to put the results.
#[derive(Clone, Debug)]
pub struct Config {
    /// Suites in order; empty means all.
    pub suites: Vec<Suite>,
    pub backend: Backend,
    /// Fewer samples and smaller sizes.
    pub quick: bool,
    /// Results file (written atomically).
    pub json: Option<PathBuf>,
    /// Folder for the SVG charts; defaults to the JSON file's folder.
    pub charts: Option<PathBuf>,
    /// Write the PTX (and SASS, with cuobjdump) of every kernel here.
    pub export_ptx: Option<PathBuf>,
    /// No progress indicator.
    pub quiet: bool,
    /// Override: most timed samples per case (hist-study: exactly this many).
    pub samples: Option<usize>,
    /// Override: warm-up runs per case.
    pub warmups: Option<usize>,
    /// Override: element counts of the sort, graph and scan suites.
    pub sizes: Option<Vec<usize>>,
    /// Override: bytes of the histogram suites.
    pub hist_bytes: Option<usize>,
    /// Seed of every generated input.
    pub seed: u64,
    /// Key distribution of the sort and peers suites' sorts (CUB's keys follow it).
    pub dist: crate::gen::Distribution,
    /// Skip the CUB peer even when nvcc is found.
    pub no_cub: bool,
    /// Peers suite: only the cases whose label contains one of these (empty: every case).
    pub cases: Vec<String>,
    /// The command line, for the record.
    pub command: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            suites: Vec::new(),
            backend: Backend::Auto,
            quick: false,
            json: None,
            charts: None,
            export_ptx: None,
            quiet: false,
            samples: None,
            warmups: None,
            sizes: None,
            hist_bytes: None,
            seed: 0x5eed_2026,
            dist: crate::gen::Distribution::Uniform,
            no_cub: false,
            cases: Vec::new(),
            command: String::new(),
        }
    }
}

impl Config {
    fn suites(&self) -> Vec<Suite> {
        if self.suites.is_empty() {
            Suite::ALL.to_vec()
        } else {
            self.suites.clone()
        }
    }

    /// How many warm-ups and samples a case gets: the general method, or the fixed counts of
    /// the histogram study.
    fn method(&self, gpu: bool) -> Method {
        let (warmups, samples, min_samples, budget_ms) = match (self.quick, gpu) {
            (false, true) => (3, 30, 5, 1000.0),
            (false, false) => (2, 15, 3, 3000.0),
            (true, _) => (1, 7, 3, 250.0),
        };
        Method {
            warmups: self.warmups.unwrap_or(warmups),
            samples: self.samples.unwrap_or(samples),
            min_samples: self.samples.map_or(min_samples, |s| s.min(min_samples)),
            budget_ms,
        }
    }

    /// The histogram study's fixed method: 20 warm-ups and 50 samples (seeds/002).
    fn study_method(&self) -> Method {
        let (w, s) = if self.quick { (3, 10) } else { (20, 50) };
        let s = self.samples.unwrap_or(s);
        Method {
            warmups: self.warmups.unwrap_or(w),
            samples: s,
            min_samples: s,
            budget_ms: f64::INFINITY,
        }
    }

    fn to_json(&self) -> serde_json::Value {
        json!({
            "suites": self.suites().iter().map(|s| s.name()).collect::<Vec<_>>(),
            "backend": format!("{:?}", self.backend),
            "quick": self.quick,
            "samples": self.samples,
            "warmups": self.warmups,
            "sizes": self.sizes,
            "hist_bytes": self.hist_bytes,
            "seed": self.seed,
            "method_gpu": self.method(true).to_json(),
            "method_cpu": self.method(false).to_json(),
            "method_hist_study": self.study_method().to_json(),
        })
    }
}

/// Warm-ups and sample counts of a case. The sample count adapts to the time of one run so
/// that a case takes about `budget_ms` of timed work, between `min_samples` and `samples`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Method {
    pub warmups: usize,
    pub samples: usize,
    pub min_samples: usize,
    pub budget_ms: f64,
}

impl Method {
    pub fn samples_for(&self, one_run_ms: f64) -> usize {
        let max = self.samples.max(1);
        let min = self.min_samples.clamp(1, max);
        if one_run_ms.is_nan() || one_run_ms <= 0.0 || !self.budget_ms.is_finite() {
            return max;
        }
        ((self.budget_ms / one_run_ms) as usize).clamp(min, max)
    }

    fn to_json(self) -> serde_json::Value {
        json!({
            "warmups": self.warmups,
            "max_samples": self.samples,
            "min_samples": self.min_samples,
            "budget_ms_per_case": if self.budget_ms.is_finite() { json!(self.budget_ms) } else { json!(null) },
        })
    }
}

/// A run in progress: where tables go, the progress indicator, and what was measured.
pub(crate) struct Run<'a> {
    pub cfg: &'a Config,
    out: &'a mut dyn Write,
    pb: ProgressBar,
    pub records: Vec<Record>,
    pub notes: Vec<String>,
    /// How the CUB peer was built, once it was.
    pub cub_build: Option<String>,
}

impl Run<'_> {
    /// Prints a block of text (a table) on the output.
    pub fn say(&mut self, text: &str) {
        let out = &mut self.out;
        self.pb.suspend(|| {
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        });
    }

    /// A note: printed, and kept in the report.
    pub fn note(&mut self, text: impl Into<String>) {
        let t = text.into();
        self.say(&format!("note: {t}"));
        self.notes.push(t);
    }

    /// Shows which case runs now.
    pub fn step(&self, what: impl Into<String>) {
        self.pb.set_message(what.into());
        self.pb.inc(1);
    }

    pub fn push(&mut self, r: Record) {
        self.records.push(r);
    }
}

fn progress_bar(quiet: bool) -> ProgressBar {
    let target = if !quiet && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let pb = ProgressBar::with_draw_target(None, target);
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} bench [{elapsed}] case {pos}: {wide_msg}")
    {
        pb.set_style(style);
    }
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// Runs the configured suites, prints their tables on stdout and writes the JSON and charts.
pub fn run(config: &Config) -> Result<Report> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    run_to(config, &mut lock)
}

/// [`run`], with the tables written to `out`.
pub fn run_to(config: &Config, out: &mut dyn Write) -> Result<Report> {
    let started = Instant::now();
    let engine = Engine::new(config.backend)?;
    let environment = environment(&engine, config);
    let mut report = Report::new(environment, config.to_json());
    let pb = progress_bar(config.quiet);
    let mut run = Run {
        cfg: config,
        out,
        pb,
        records: Vec::new(),
        notes: Vec::new(),
        cub_build: None,
    };
    run.say(&format!(
        "histosort bench on {}{}",
        engine.describe(),
        if config.quick { " (quick)" } else { "" }
    ));
    if let Some(reason) = engine.fallback_reason() {
        run.note(format!("running on the CPU backend: {reason}"));
    }
    if let Some(dir) = &config.export_ptx {
        run.step("export PTX");
        match ptx::export(dir, engine.cuda().map(|b| b.info().compute_capability)) {
            Ok(summary) => run.say(&summary),
            Err(e) => run.note(format!("--export-ptx failed: {e}")),
        }
    }
    let mut failures = Vec::new();
    for suite in config.suites() {
        let t = Instant::now();
        let r = match engine.cuda() {
            Some(b) => gpu::suite(&mut run, b, suite),
            None => cpu::suite(&mut run, suite),
        };
        match r {
            Ok(()) => run.say(&format!("({suite}: {:.1} s)\n", t.elapsed().as_secs_f64())),
            Err(e) => {
                run.note(format!("suite {suite} failed: {e}"));
                failures.push(format!("{suite}: {e}"));
            }
        }
    }
    run.pb.finish_and_clear();
    report.records = std::mem::take(&mut run.records);
    report.notes = std::mem::take(&mut run.notes);
    report.environment.cub_build = run.cub_build.take();
    if let Some(path) = &config.json {
        report.write_json(path)?;
        run.say(&format!("wrote {}", path.display()));
    }
    let chart_dir = config.charts.clone().or_else(|| {
        config
            .json
            .as_ref()
            .map(|p| p.parent().map(PathBuf::from).unwrap_or_default())
    });
    if let Some(dir) = chart_dir {
        let stem = config
            .json
            .as_ref()
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "bench".into());
        match charts::write_all(&report, &dir, &stem) {
            Ok(files) => {
                for f in files {
                    run.say(&format!("wrote {}", f.display()));
                }
            }
            Err(e) => run.say(&format!("note: charts not written: {e}")),
        }
    }
    run.say(&format!(
        "bench finished in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    if failures.is_empty() {
        Ok(report)
    } else {
        Err(Error::Validation(format!(
            "{} suite(s) failed (the results of the others were kept): {}",
            failures.len(),
            failures.join("; ")
        )))
    }
}

/// Runs `cmd args` and returns its stdout, trimmed, when it succeeds.
pub(crate) fn command_output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Whether `name` is an executable on PATH.
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
}

/// The release line of `nvcc --version` (`Cuda compilation tools, release 13.0, V13.0.88`).
pub(crate) fn nvcc_version() -> Option<String> {
    let text = command_output("nvcc", &["--version"])?;
    text.lines()
        .find(|l| l.contains("release"))
        .or_else(|| text.lines().last())
        .map(|l| l.trim().to_string())
}

/// `NAME=value` of the variables among `vars` whose name starts with `HISTOSORT_`, sorted.
fn histosort_vars(vars: impl Iterator<Item = (String, String)>) -> Vec<String> {
    let mut v: Vec<String> = vars
        .filter(|(k, _)| k.starts_with("HISTOSORT_"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    v.sort();
    v
}

fn environment(engine: &Engine, config: &Config) -> Environment {
    let mut env = Environment {
        date: record::rfc3339_utc(std::time::SystemTime::now()),
        hostname: hostname(),
        cpu_model: cpu_model(),
        cpu_threads: rayon::current_num_threads(),
        backend: engine.kind().to_string(),
        nvcc_version: nvcc_version(),
        git_commit: command_output("git", &["rev-parse", "HEAD"]),
        git_dirty: command_output("git", &["status", "--porcelain", "--untracked-files=no"])
            .map(|s| !s.is_empty()),
        histosort_version: env!("CARGO_PKG_VERSION").to_string(),
        command: config.command.clone(),
        histosort_env: histosort_vars(std::env::vars()),
        ..Default::default()
    };
    if let Some(b) = engine.cuda() {
        let i = b.info();
        env.gpu_name = Some(i.name.clone());
        env.gpu_sm_count = Some(i.sm_count);
        env.gpu_compute_capability = Some(format!(
            "{}.{}",
            i.compute_capability.0, i.compute_capability.1
        ));
        env.gpu_l2_bytes = Some(i.l2_bytes);
        env.gpu_memory_bytes = Some(i.total_memory);
        env.driver_version = Some(i.driver_version_string());
        env.nvrtc_version = Some(format!("{}.{}", i.nvrtc_version.0, i.nvrtc_version.1));
        env.kernel_target = Some(i.target.clone());
        env.kernel_flags = vec![
            format!("--gpu-architecture={}", i.target),
            "-std=c++17".into(),
            "-lineinfo".into(),
        ];
        env.kernel_modules = crate::cuda::all_module_specs()
            .iter()
            .map(|s| s.label())
            .collect();
    }
    env
}

/// Re-renders a results file written by `--json`: its charts into `charts` (default: the
/// file's folder) and a table of every record with its ratio to CUB where the run measured
/// one, so that a committed run's charts and ratio table can be produced again on any machine.
/// Returns the table and the chart files written.
pub fn replot(
    json: &std::path::Path,
    charts: Option<&std::path::Path>,
) -> Result<(String, Vec<PathBuf>)> {
    let text = std::fs::read_to_string(json).map_err(|e| Error::io(json, e))?;
    let report = Report::from_json(&text).map_err(|e| match e {
        Error::InvalidArgument(m) => Error::format(json, m),
        e => e,
    })?;
    let dir = match charts {
        Some(d) => d.to_path_buf(),
        None => json.parent().map(PathBuf::from).unwrap_or_default(),
    };
    let stem = json
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bench".into());
    let files = charts::write_all(&report, &dir, &stem)?;
    let mut t = table::Table::new(&[
        "suite",
        "implementation",
        "variant",
        "dtype",
        "n",
        "distribution",
        "median ms",
        "P10-P90 ms",
        "throughput",
        "unit",
        "vs CUB",
    ]);
    for r in &report.records {
        let bits = match (r.extra.get("begin_bit"), r.extra.get("end_bit")) {
            (Some(b), Some(e)) => format!(" bits [{b},{e})"),
            _ => String::new(),
        };
        t.row(vec![
            r.suite.clone(),
            r.implementation.clone(),
            r.variant.clone(),
            format!("{}{bits}", r.dtype),
            table::count(r.n),
            r.distribution.clone(),
            table::ms(r.median_ms),
            format!("{}-{}", table::ms(r.p10_ms), table::ms(r.p90_ms)),
            table::num(r.throughput),
            r.unit.clone(),
            r.extra
                .get("vs_cub")
                .and_then(|v| v.as_f64())
                .map_or("-".into(), |x| format!("{}x", table::num(x))),
        ]);
    }
    let env = &report.environment;
    let head = format!(
        "{} ({} records; {})",
        json.display(),
        report.records.len(),
        env.gpu_name
            .clone()
            .unwrap_or_else(|| format!("CPU, {} threads", env.cpu_threads))
    );
    Ok((format!("{head}\n{}", t.render()), files))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_names_round_trip() {
        for s in Suite::ALL {
            assert_eq!(s.name().parse::<Suite>().unwrap(), *s);
        }
        assert!("sorts".parse::<Suite>().unwrap_err().contains("hist-study"));
    }

    #[test]
    fn histosort_variables_are_recorded_sorted() {
        let vars = [
            ("PATH", "/usr/bin"),
            ("HISTOSORT_ONESWEEP_SHAPE", "256x28x3"),
            ("HISTOSORT_CHAINED", "0"),
            ("XHISTOSORT_NOT", "1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()));
        assert_eq!(
            histosort_vars(vars),
            ["HISTOSORT_CHAINED=0", "HISTOSORT_ONESWEEP_SHAPE=256x28x3"]
        );
        // Files written before the field existed still read back, with none recorded.
        let old = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("bench/results/2026-12-02-h200-s16/run2/peers.json");
        let text = std::fs::read_to_string(&old).unwrap();
        assert!(!text.contains("histosort_env"));
        let r: record::Report = serde_json::from_str(&text).unwrap();
        assert!(r.environment.histosort_env.is_empty());
        assert!(!r.records.is_empty());
    }

    #[test]
    fn adaptive_samples() {
        let m = Method {
            warmups: 3,
            samples: 30,
            min_samples: 5,
            budget_ms: 1500.0,
        };
        assert_eq!(m.samples_for(1.0), 30);
        assert_eq!(m.samples_for(100.0), 15);
        assert_eq!(m.samples_for(1000.0), 5);
        assert_eq!(m.samples_for(0.0), 30);
        let study = Config::default().study_method();
        assert_eq!((study.warmups, study.samples_for(1e9)), (20, 50));
    }
}
