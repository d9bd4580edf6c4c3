//! The results file: the environment and a flat list of records (schema in bench/schema.md).

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::stats::Summary;
use crate::error::{Error, Result};

/// The `schema` field of every results file; bump it when a field changes meaning.
pub const SCHEMA: &str = "histosort-bench/1";

/// One measured case: one implementation and variant on one input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// hist-study, contention, sort, graph, scan, peers.
    pub suite: String,
    /// The variant's name as the CLI spells it (`three-phase-b4`, `shared`, `SortKeys`, ...).
    pub variant: String,
    /// histosort, cub, std, cpu, copy.
    pub implementation: String,
    /// Key or sample type (`u32`, `u8`, `u32/u32` for pairs).
    pub dtype: String,
    /// Elements (keys, pairs, samples); bytes for copies.
    pub n: u64,
    pub distribution: String,
    pub median_ms: f64,
    pub p10_ms: f64,
    pub p90_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Number of timed samples.
    pub samples: usize,
    /// Every timed sample, in the order taken.
    pub samples_ms: Vec<f64>,
    /// At the median time, in `unit`.
    pub throughput: f64,
    /// Gkeys/s, Gpairs/s, GB/s, Gsamples/s.
    pub unit: String,
    /// Case-specific facts: digit bits, passes, launch mode, batch size, checks made, ...
    #[serde(default)]
    pub extra: Map<String, Value>,
}

impl Record {
    /// A record from timed samples; `work` is the quantity per run (keys, or bytes) and
    /// `scale` turns work per millisecond into `unit` (1e-6 for G-per-second from per-ms).
    #[allow(clippy::too_many_arguments)]
    pub fn from_samples(
        suite: &str,
        variant: &str,
        implementation: &str,
        dtype: &str,
        n: u64,
        distribution: &str,
        samples_ms: Vec<f64>,
        work: f64,
        unit: &str,
    ) -> Result<Record> {
        let s = Summary::of(&samples_ms).ok_or_else(|| {
            Error::Validation(format!(
                "{suite}/{variant}/{implementation}: no valid timing samples"
            ))
        })?;
        Ok(Record {
            suite: suite.into(),
            variant: variant.into(),
            implementation: implementation.into(),
            dtype: dtype.into(),
            n,
            distribution: distribution.into(),
            median_ms: s.median,
            p10_ms: s.p10,
            p90_ms: s.p90,
            min_ms: s.min,
            max_ms: s.max,
            samples: s.n,
            samples_ms,
            throughput: per_second_g(work, s.median),
            unit: unit.into(),
            extra: Map::new(),
        })
    }

    /// Adds one `extra` field.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Record {
        self.extra.insert(key.to_string(), value.into());
        self
    }
}

/// `work` per `ms` milliseconds, in billions per second.
pub fn per_second_g(work: f64, ms: f64) -> f64 {
    if ms > 0.0 {
        work / ms * 1e-6
    } else {
        f64::NAN
    }
}

/// Where and with what the results were measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    /// UTC, RFC 3339.
    pub date: String,
    pub hostname: String,
    pub cpu_model: String,
    /// Threads of the CPU backend (rayon).
    pub cpu_threads: usize,
    /// `cpu` or `cuda`.
    pub backend: String,
    pub gpu_name: Option<String>,
    pub gpu_sm_count: Option<u32>,
    pub gpu_compute_capability: Option<String>,
    pub gpu_l2_bytes: Option<u64>,
    pub gpu_memory_bytes: Option<u64>,
    pub driver_version: Option<String>,
    pub nvrtc_version: Option<String>,
    /// What the kernels were compiled to (`sm_90` CUBIN, or a PTX fallback).
    pub kernel_target: Option<String>,
    /// NVRTC flags shared by every module; each module's `-D` tuning defines are in
    /// `kernel_modules`.
    pub kernel_flags: Vec<String>,
    pub kernel_modules: Vec<String>,
    /// `nvcc --version`'s release line, when nvcc is on PATH.
    pub nvcc_version: Option<String>,
    /// The CUB peer's compile command and CUB_VERSION, when it was built.
    pub cub_build: Option<String>,
    pub git_commit: Option<String>,
    /// Whether the working tree had uncommitted changes to tracked files.
    pub git_dirty: Option<bool>,
    pub histosort_version: String,
    /// The command line the run was started with.
    pub command: String,
    /// Every `HISTOSORT_*` environment variable set for the run (`NAME=value`, sorted): the
    /// tuning overrides an A/B run sets (`HISTOSORT_CHAINED=0`, `HISTOSORT_ONESWEEP_SHAPE`,
    /// `HISTOSORT_KERNEL_DEFINES`, ...). Absent from files written before it existed.
    #[serde(default)]
    pub histosort_env: Vec<String>,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub environment: Environment,
    /// The configuration: suites, quick, sample counts.
    pub config: Value,
    pub records: Vec<Record>,
    /// Cases that were skipped, and why (e.g. "CUB not measured: nvcc not found").
    pub notes: Vec<String>,
}

impl Report {
    pub fn new(environment: Environment, config: Value) -> Report {
        Report {
            schema: SCHEMA.to_string(),
            environment,
            config,
            records: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self)
            .map_err(|e| Error::invalid(format!("cannot serialise the report: {e}")))
    }

    pub fn from_json(text: &str) -> Result<Report> {
        serde_json::from_str(text)
            .map_err(|e| Error::invalid(format!("not a histosort-bench report: {e}")))
    }

    /// Writes the report to `path` atomically: a temporary file in the same folder, then a
    /// rename, so a reader never sees half a file.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = self.to_json()?;
        write_atomic(path, text.as_bytes())
    }

    /// The records of one suite.
    pub fn suite<'a>(&'a self, suite: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
        self.records.iter().filter(move |r| r.suite == suite)
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    tmp.flush().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// `SystemTime` as RFC 3339 UTC (`2026-11-30T12:34:56Z`), without a date crate.
pub fn rfc3339_utc(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn sample_report() -> Report {
        let mut r = Report::new(
            Environment {
                date: "2026-11-30T00:00:00Z".into(),
                gpu_name: Some("NVIDIA H200".into()),
                gpu_sm_count: Some(132),
                ..Default::default()
            },
            serde_json::json!({"suites": ["sort"], "quick": true}),
        );
        let rec = Record::from_samples(
            "sort",
            "three-phase-b4",
            "histosort",
            "u32",
            1 << 20,
            "uniform",
            vec![2.0, 1.0, 3.0],
            (1u64 << 20) as f64,
            "Gkeys/s",
        )
        .unwrap()
        .with("digit_bits", 4)
        .with("launch", "stream");
        r.records.push(rec);
        r.notes.push("CUB not measured: nvcc not found".into());
        r
    }

    #[test]
    fn json_round_trip() {
        let r = sample_report();
        let text = r.to_json().unwrap();
        let back = Report::from_json(&text).unwrap();
        assert_eq!(back, r);
        // The documented flat fields are present by name (bench/schema.md).
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema"], SCHEMA);
        let rec = &v["records"][0];
        for key in [
            "suite",
            "variant",
            "implementation",
            "dtype",
            "n",
            "distribution",
            "median_ms",
            "p10_ms",
            "p90_ms",
            "min_ms",
            "max_ms",
            "samples",
            "samples_ms",
            "throughput",
            "unit",
            "extra",
        ] {
            assert!(!rec[key].is_null(), "missing {key}");
        }
        assert_eq!(rec["median_ms"], 2.0);
        assert!((rec["throughput"].as_f64().unwrap() - 0.524288).abs() < 1e-9);
        assert_eq!(v["environment"]["gpu_sm_count"], 132);
    }

    #[test]
    fn atomic_write_then_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("r.json");
        let r = sample_report();
        r.write_json(&p).unwrap();
        let back = Report::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(back.records.len(), 1);
        // Only the file itself is left in the folder (the temporary was renamed).
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
        assert!(Report::from_json("{\"schema\": 1}").is_err());
    }

    #[test]
    fn dates() {
        assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_914_061);
        assert_eq!(rfc3339_utc(t), "2026-11-29T01:01:01Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339_utc(leap), "2000-02-29T00:00:00Z");
    }
}
