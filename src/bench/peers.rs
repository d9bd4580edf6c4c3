//! The peers: NVIDIA CUB measured in the same run through a small C++ program
//! (`bench/cub/cub_bench.cu`, embedded here), compiled with `nvcc` when it is on PATH.
//!
//! The program prints one JSON line per case with every sample (see the file's header); this
//! module builds it (cached by source, nvcc version and architecture), runs it, parses its
//! lines into records with implementation `cub`, measures histosort on the same cases, and
//! prints the ratio table.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::data::HistInput;
use super::gpu::{self, SortData, SortVariant};
use super::record::Record;
use super::stats::speedup;
use super::table::{self, Table};
use super::Run;
use crate::algorithm::{ScanAlgorithm, ScanKind};
use crate::cuda::CudaBackend;
use crate::error::{Error, Result};
use crate::gen::{Distribution, EntropyPreset};
use crate::options::SortOptions;

/// The peer program's source, so the release binary works from any directory.
pub const CUB_SOURCE: &str = include_str!("../../bench/cub/cub_bench.cu");

/// One case of the peers suite, as the CUB program takes it on its command line.
#[derive(Clone, Debug, PartialEq)]
pub enum PeerCase {
    SortKeys {
        dtype: &'static str,
        n: usize,
    },
    /// Keys of `dtype` (u32 or u64) with u32 values.
    SortPairs {
        dtype: &'static str,
        n: usize,
    },
    SortKeysBits {
        n: usize,
        begin: u32,
        end: u32,
    },
    Histogram {
        n: usize,
        distinct: u32,
    },
    /// 256 bins of `n` reduced-entropy bytes (each the AND of `preset.words()` random bytes).
    HistogramEntropy {
        n: usize,
        preset: EntropyPreset,
    },
    /// `inclusive-sum` or `exclusive-sum` of `dtype` (u32, u64 or f32).
    Scan {
        dtype: &'static str,
        n: usize,
        inclusive: bool,
    },
    /// Even (`range: false`) or range bins of `n` samples of `dtype` (f32, i32 or u32) into
    /// `bins` bins; the inputs are defined in bench/cub/cub_bench.cu's header.
    HistogramBins {
        dtype: &'static str,
        n: usize,
        bins: u32,
        range: bool,
    },
    /// 65536 bins of `n` uniform 16-bit samples.
    Histogram16 {
        n: usize,
    },
    /// Four 256-bin histograms of `pixels` uniform RGBA pixels.
    HistogramRgba {
        pixels: usize,
    },
    Copy {
        bytes: usize,
    },
}

impl PeerCase {
    /// The case's arguments to `cub_bench`.
    pub fn args(&self) -> Vec<String> {
        match self {
            PeerCase::SortKeys { dtype, n } => {
                vec!["sort-keys".into(), dtype.to_string(), n.to_string()]
            }
            PeerCase::SortPairs { dtype, n } => {
                vec!["sort-pairs".into(), dtype.to_string(), n.to_string()]
            }
            PeerCase::SortKeysBits { n, begin, end } => vec![
                "sort-keys-bits".into(),
                "u32".into(),
                n.to_string(),
                begin.to_string(),
                end.to_string(),
            ],
            PeerCase::Histogram { n, distinct } => vec![
                "histogram-even-u8".into(),
                n.to_string(),
                distinct.to_string(),
            ],
            PeerCase::HistogramEntropy { n, preset } => vec![
                "histogram-entropy-u8".into(),
                n.to_string(),
                entropy_words(*preset).to_string(),
            ],
            PeerCase::Scan {
                dtype,
                n,
                inclusive,
            } => vec![
                if *inclusive {
                    "inclusive-sum"
                } else {
                    "exclusive-sum"
                }
                .into(),
                dtype.to_string(),
                n.to_string(),
            ],
            PeerCase::HistogramBins {
                dtype,
                n,
                bins,
                range,
            } => vec![
                if *range {
                    "histogram-range"
                } else {
                    "histogram-even"
                }
                .into(),
                dtype.to_string(),
                n.to_string(),
                bins.to_string(),
            ],
            PeerCase::Histogram16 { n } => vec!["histogram-even-u16".into(), n.to_string()],
            PeerCase::HistogramRgba { pixels } => {
                vec!["multi-histogram-rgba".into(), pixels.to_string()]
            }
            PeerCase::Copy { bytes } => vec!["copy".into(), bytes.to_string()],
        }
    }

    /// A short label for tables: `sort-keys u32`, `histogram distinct-8`.
    pub fn label(&self) -> String {
        match self {
            PeerCase::SortKeys { dtype, .. } => format!("sort-keys {dtype}"),
            PeerCase::SortPairs { dtype, .. } => format!("sort-pairs {dtype}/u32"),
            PeerCase::SortKeysBits { begin, end, .. } => {
                format!("sort-keys u32 bits [{begin},{end})")
            }
            PeerCase::Histogram { distinct, .. } => format!("histogram u8 distinct-{distinct}"),
            PeerCase::HistogramEntropy { preset, .. } => {
                format!("histogram u8 entropy-{}", preset.name())
            }
            PeerCase::Scan {
                dtype, inclusive, ..
            } => format!(
                "{}-sum {dtype}",
                if *inclusive { "inclusive" } else { "exclusive" }
            ),
            PeerCase::HistogramBins {
                dtype, bins, range, ..
            } => format!(
                "histogram {dtype} {} {bins} bins",
                if *range { "range" } else { "even" }
            ),
            PeerCase::Histogram16 { .. } => "histogram u16 65536 bins".into(),
            PeerCase::HistogramRgba { .. } => "histogram rgba 4x256 bins".into(),
            PeerCase::Copy { .. } => "copy".into(),
        }
    }

    fn n(&self) -> usize {
        match self {
            PeerCase::SortKeys { n, .. }
            | PeerCase::SortPairs { n, .. }
            | PeerCase::SortKeysBits { n, .. }
            | PeerCase::Histogram { n, .. }
            | PeerCase::HistogramEntropy { n, .. }
            | PeerCase::Scan { n, .. }
            | PeerCase::HistogramBins { n, .. }
            | PeerCase::Histogram16 { n } => *n,
            PeerCase::HistogramRgba { pixels } => *pixels,
            PeerCase::Copy { bytes } => *bytes,
        }
    }
}

/// The cases: the anchors of issues 4 to 6 (full), or a small subset (quick). `sizes`
/// replaces the sort sizes.
pub fn cases(quick: bool, sizes: Option<&[usize]>) -> Vec<PeerCase> {
    let mut v = Vec::new();
    let (keys, pairs, wide, hist): (Vec<usize>, Vec<usize>, Vec<usize>, Vec<usize>) =
        match (quick, sizes) {
            (_, Some(s)) => (s.to_vec(), s.to_vec(), s.to_vec(), vec![64 << 20]),
            (true, None) => (
                vec![1 << 16, 1 << 20, 1 << 24],
                vec![1 << 24],
                vec![1 << 22],
                vec![64 << 20],
            ),
            // Issue 5: every power of two from 2^12 to 2^22 (1.0x CUB, 2x up to 2^16), then
            // the large sizes (1.3x, from 2^24 to 2^28) for u32 keys, pairs, u64 and f32 keys.
            (false, None) => (
                (12..=22).chain([24, 26, 28]).map(|e| 1usize << e).collect(),
                vec![1 << 24, 1 << 26, 1 << 28],
                vec![1 << 24, 1 << 26, 1 << 28],
                vec![64 << 20, 1 << 30],
            ),
        };
    for &n in &keys {
        v.push(PeerCase::SortKeys { dtype: "u32", n });
    }
    for &n in &pairs {
        v.push(PeerCase::SortPairs { dtype: "u32", n });
    }
    for &n in &wide {
        v.push(PeerCase::SortKeys { dtype: "u64", n });
    }
    for &n in &wide {
        v.push(PeerCase::SortPairs { dtype: "u64", n });
    }
    let big = *keys.iter().max().unwrap_or(&(1 << 20));
    // f32 keys at the pair sizes (the large ones of the full set).
    for &n in &pairs {
        v.push(PeerCase::SortKeys { dtype: "f32", n });
    }
    v.push(PeerCase::SortKeysBits {
        n: big,
        begin: 0,
        end: 16,
    });
    for &n in &hist {
        for distinct in [256, 8, 1] {
            v.push(PeerCase::Histogram { n, distinct });
        }
        // Issue 6 asks for every reduced-entropy preset (1.0 bits is the uniform case above).
        for &preset in EntropyPreset::ALL {
            if preset != EntropyPreset::Full {
                v.push(PeerCase::HistogramEntropy { n, preset });
            }
        }
    }
    for (dtype, inclusive) in [("u32", false), ("u32", true), ("u64", false), ("f32", true)] {
        v.push(PeerCase::Scan {
            dtype,
            n: big,
            inclusive,
        });
    }
    // Issue 6: even and range bins over f32, i32 and u32 samples; a bin count for each kind of
    // counters (32 lane copies, 2 copies, global memory).
    let bins_n = if quick { 1 << 22 } else { 1 << 26 };
    for dtype in ["f32", "i32", "u32"] {
        for (bins, range) in [
            (100, false),
            (4096, false),
            (1 << 20, false),
            (100, true),
            (4096, true),
        ] {
            v.push(PeerCase::HistogramBins {
                dtype,
                n: bins_n,
                bins,
                range,
            });
        }
    }
    v.push(PeerCase::Histogram16 { n: big });
    v.push(PeerCase::HistogramRgba { pixels: big });
    v.push(PeerCase::Copy { bytes: big * 4 });
    v
}

/// The cases whose label contains one of `patterns` (all of them when there is none); an
/// error when patterns are given and none matches.
pub fn select_cases(all: Vec<PeerCase>, patterns: &[String]) -> Result<Vec<PeerCase>> {
    let patterns: Vec<&str> = patterns
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    if patterns.is_empty() {
        return Ok(all);
    }
    let mut labels: Vec<String> = all.iter().map(PeerCase::label).collect();
    let picked: Vec<PeerCase> = all
        .into_iter()
        .filter(|c| {
            let l = c.label();
            patterns.iter().any(|p| l.contains(p))
        })
        .collect();
    if picked.is_empty() {
        labels.dedup();
        return Err(Error::invalid(format!(
            "--cases {}: no peers case matches; the labels are: {}",
            patterns.join(","),
            labels.join("; ")
        )));
    }
    Ok(picked)
}

/// One line of the CUB program's output.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CubLine {
    pub case: String,
    pub dtype: String,
    pub n: u64,
    #[serde(default)]
    pub begin_bit: i32,
    #[serde(default)]
    pub end_bit: i32,
    #[serde(default)]
    pub distinct: u32,
    /// The sort cases' key distribution, as `--keys` named it (absent: uniform).
    #[serde(default)]
    pub dist: Option<String>,
    pub ok: bool,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub check: Option<String>,
    #[serde(default)]
    pub temp_bytes: u64,
    #[serde(default)]
    pub times_ms: Vec<f64>,
}

/// What the program printed: its info line (CUB version, device) and the case lines. Lines
/// that are not JSON objects (warnings) are skipped; a malformed case line is an error.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CubOutput {
    pub cub_version: Option<u64>,
    pub cuda_runtime: Option<u64>,
    pub device: Option<String>,
    pub lines: Vec<CubLine>,
}

pub fn parse_cub_output(text: &str) -> Result<CubOutput> {
    let mut out = CubOutput::default();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if !l.starts_with('{') {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(l)
            .map_err(|e| Error::invalid(format!("cub_bench output line {}: {e}: {l}", i + 1)))?;
        if v.get("info").is_some() {
            out.cub_version = v.get("cub_version").and_then(|x| x.as_u64());
            out.cuda_runtime = v.get("cuda_runtime").and_then(|x| x.as_u64());
            out.device = v.get("device").and_then(|x| x.as_str()).map(String::from);
            continue;
        }
        let c: CubLine = serde_json::from_value(v)
            .map_err(|e| Error::invalid(format!("cub_bench output line {}: {e}: {l}", i + 1)))?;
        out.lines.push(c);
    }
    Ok(out)
}

/// `CUB_VERSION` as `3.0.0` (major * 100000 + minor * 100 + patch).
pub fn cub_version_string(v: u64) -> String {
    format!("{}.{}.{}", v / 100_000, v / 100 % 1000, v % 100)
}

impl CubLine {
    /// The record of this line, or `None` with the reason when CUB failed.
    pub fn to_record(&self) -> std::result::Result<Record, String> {
        if !self.ok {
            return Err(self.error.clone().unwrap_or_else(|| "failed".into()));
        }
        let n = self.n as f64;
        let keys = match self.dist.as_deref() {
            None => "uniform".to_string(),
            Some(d) => match d.strip_prefix("entropy-words-") {
                Some(w) => match w.parse().ok().and_then(preset_of_words) {
                    Some(p) => format!("entropy-{}", p.name()),
                    None => return Err(format!("no entropy preset of {w} words")),
                },
                None => d.to_string(),
            },
        };
        let (variant, dist, work, unit) = match self.case.as_str() {
            "sort-keys" | "sort-keys-bits" => ("DeviceRadixSort::SortKeys", keys, n, "Gkeys/s"),
            "sort-pairs" => ("DeviceRadixSort::SortPairs", keys, n, "Gpairs/s"),
            "histogram-even-u8" => (
                "DeviceHistogram::HistogramEven",
                distinct_name(self.distinct),
                n,
                "GB/s",
            ),
            // `distinct` carries the number of ANDed words here.
            "histogram-entropy-u8" => (
                "DeviceHistogram::HistogramEven",
                match preset_of_words(self.distinct) {
                    Some(p) => format!("entropy-{}", p.name()),
                    None => return Err(format!("no entropy preset of {} words", self.distinct)),
                },
                n,
                "GB/s",
            ),
            "exclusive-sum" | "inclusive-sum" => {
                let (bytes, dist) = match self.dtype.as_str() {
                    "u64" => (8.0, "uniform"),
                    "f32" => (4.0, "small-integers"),
                    _ => (4.0, "uniform-16bit"),
                };
                (
                    if self.case == "exclusive-sum" {
                        "DeviceScan::ExclusiveSum"
                    } else {
                        "DeviceScan::InclusiveSum"
                    },
                    dist.to_string(),
                    2.0 * bytes * n,
                    "GB/s",
                )
            }
            "histogram-even-u16" => (
                "DeviceHistogram::HistogramEven",
                "uniform".to_string(),
                2.0 * n,
                "GB/s",
            ),
            "histogram-even" | "histogram-range" => (
                if self.case == "histogram-even" {
                    "DeviceHistogram::HistogramEven"
                } else {
                    "DeviceHistogram::HistogramRange"
                },
                gpu::bins_distribution(&self.dtype, self.case == "histogram-range").to_string(),
                4.0 * n,
                "GB/s",
            ),
            // n is pixels here; the record counts bytes (samples), as histosort's does.
            "multi-histogram-rgba" => (
                "DeviceHistogram::MultiHistogramEven<4,4>",
                "uniform".to_string(),
                4.0 * n,
                "GB/s",
            ),
            "copy" => ("cudaMemcpyAsync", "-".to_string(), 2.0 * n, "GB/s"),
            other => return Err(format!("unknown case '{other}'")),
        };
        let dtype = if self.case == "sort-pairs" {
            format!("{}/u32", self.dtype)
        } else {
            self.dtype.clone()
        };
        let samples_n = if self.case == "multi-histogram-rgba" {
            4 * self.n
        } else {
            self.n
        };
        let r = Record::from_samples(
            "peers",
            variant,
            "cub",
            &dtype,
            samples_n,
            &dist,
            self.times_ms.clone(),
            work,
            unit,
        )
        .map_err(|e| e.to_string())?
        .with("temp_bytes", self.temp_bytes)
        .with("check", self.check.clone().unwrap_or_default());
        Ok(match self.case.as_str() {
            "sort-keys-bits" => r
                .with("begin_bit", self.begin_bit)
                .with("end_bit", self.end_bit),
            "histogram-even-u8" => r.with("distinct", self.distinct).with("bins", 256),
            "histogram-entropy-u8" => r.with("bins", 256),
            "histogram-even-u16" => r.with("bins", 65536),
            "histogram-even" | "histogram-range" => r.with("bins", self.distinct).with(
                "kind",
                if self.case == "histogram-even" {
                    "even"
                } else {
                    "range"
                },
            ),
            "multi-histogram-rgba" => r
                .with("channels", 4)
                .with("pixels", self.n)
                .with("bins", 256),
            "exclusive-sum" | "inclusive-sum" => r.with(
                "kind",
                if self.case == "exclusive-sum" {
                    "exclusive"
                } else {
                    "inclusive"
                },
            ),
            _ => r,
        })
    }

    fn matches(&self, c: &PeerCase) -> bool {
        let a = c.args();
        let name = a.first().map(String::as_str).unwrap_or("");
        if self.case != name || self.n != c.n() as u64 {
            return false;
        }
        match c {
            PeerCase::SortKeys { dtype, .. }
            | PeerCase::SortPairs { dtype, .. }
            | PeerCase::Scan { dtype, .. } => self.dtype == *dtype,
            PeerCase::Histogram { distinct, .. } => self.distinct == *distinct,
            PeerCase::HistogramEntropy { preset, .. } => self.distinct == entropy_words(*preset),
            PeerCase::HistogramBins { dtype, bins, .. } => {
                self.dtype == *dtype && self.distinct == *bins
            }
            PeerCase::SortKeysBits { begin, end, .. } => {
                self.begin_bit == *begin as i32 && self.end_bit == *end as i32
            }
            _ => true,
        }
    }
}

/// The `histogram-entropy-u8` argument of a preset: its number of ANDed words, 0 for all zero.
fn entropy_words(p: EntropyPreset) -> u32 {
    p.words().unwrap_or(0)
}

fn preset_of_words(w: u32) -> Option<EntropyPreset> {
    EntropyPreset::ALL
        .iter()
        .copied()
        .find(|&p| entropy_words(p) == w)
}

fn distinct_name(d: u32) -> String {
    if d >= 256 {
        "uniform".into()
    } else {
        format!("distinct-{d}")
    }
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Compiles the CUB program for compute capability `cc` with nvcc, or reuses the binary
/// cached for the same source, nvcc and architecture. Returns the binary and the command.
pub fn build_cub(cc: (i32, i32), nvcc_version: &str) -> Result<(PathBuf, String)> {
    let arch = format!("sm_{}{}", cc.0, cc.1);
    let key = fnv(format!("{CUB_SOURCE}\n{nvcc_version}\n{arch}").as_bytes());
    let dir = crate::cuda::compile::cache_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("cub_bench");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let bin = dir.join(format!("cub_bench-{arch}-{key:016x}"));
    let tmp = tempfile::tempdir_in(&dir).map_err(|e| Error::io(&dir, e))?;
    let src = tmp.path().join("cub_bench.cu");
    let out = tmp.path().join("cub_bench");
    let cmd = format!(
        "nvcc -O3 -std=c++17 -arch={arch} -o {} {}",
        out.display(),
        src.display()
    );
    if bin.is_file() {
        return Ok((bin, format!("{cmd} (cached)")));
    }
    std::fs::write(&src, CUB_SOURCE).map_err(|e| Error::io(&src, e))?;
    let o = std::process::Command::new("nvcc")
        .args(["-O3", "-std=c++17", &format!("-arch={arch}"), "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .map_err(|e| Error::io("nvcc", e))?;
    if !o.status.success() {
        return Err(Error::Validation(format!(
            "nvcc failed to build the CUB peer ({cmd}):\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )));
    }
    std::fs::rename(&out, &bin)
        .or_else(|_| std::fs::copy(&out, &bin).map(|_| ()))
        .map_err(|e| Error::io(&bin, e))?;
    Ok((bin, cmd))
}

/// The CUB program's `--keys` argument for the sort cases' key distribution, or `None` where
/// it has none (sorted, reversed, equal and specials are generated on the host only).
pub fn cub_keys_arg(d: &Distribution) -> Option<String> {
    match d {
        Distribution::Uniform => Some("uniform".into()),
        Distribution::Entropy(p) => Some(format!("entropy:{}", entropy_words(*p))),
        Distribution::FewDistinct(n) => Some(format!("distinct:{}", (*n).max(1))),
        _ => None,
    }
}

/// Runs the CUB program on `cases`, the sorts' keys drawn from `keys`.
pub fn run_cub(
    bin: &Path,
    cases: &[PeerCase],
    warmups: usize,
    samples: usize,
    seed: u64,
    keys: &Distribution,
) -> Result<CubOutput> {
    let keys_arg = cub_keys_arg(keys).ok_or_else(|| {
        Error::invalid(format!(
            "the CUB peer cannot draw keys from '{keys}' (uniform, entropy-* and distinct-N \
             only)"
        ))
    })?;
    let mut cmd = std::process::Command::new(bin);
    cmd.args([
        "--warmups",
        &warmups.to_string(),
        "--samples",
        &samples.to_string(),
        "--seed",
        &seed.to_string(),
        "--keys",
        &keys_arg,
    ]);
    for c in cases {
        cmd.args(c.args());
    }
    let o = cmd.output().map_err(|e| Error::io(bin, e))?;
    let text = String::from_utf8_lossy(&o.stdout);
    let parsed = parse_cub_output(&text)?;
    if !o.status.success() && parsed.lines.is_empty() {
        return Err(Error::Validation(format!(
            "the CUB peer exited with {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        )));
    }
    Ok(parsed)
}

/// histosort on one peer case (the default variant of each primitive).
fn histosort_case(run: &mut Run, b: &CudaBackend, c: &PeerCase) -> Result<Record> {
    let m = run.cfg.method(true);
    let auto = SortVariant {
        name: "auto".into(),
        opts: SortOptions::new(),
    };
    let seed = run.cfg.seed;
    let r = match c {
        PeerCase::SortKeys { dtype: "u64", n } => {
            let d = SortData::<u64>::new(b, *n, false, run.cfg.dist, seed, &auto.opts)?;
            gpu::time_sort(run, b, &d, "peers", &auto, &m, 1)?
        }
        PeerCase::SortKeys { dtype: "f32", n } => {
            let d = SortData::<f32>::new(b, *n, false, run.cfg.dist, seed, &auto.opts)?;
            gpu::time_sort(run, b, &d, "peers", &auto, &m, 1)?
        }
        PeerCase::SortKeys { n, .. } => {
            let d = SortData::<u32>::new(b, *n, false, run.cfg.dist, seed, &auto.opts)?;
            gpu::time_sort(run, b, &d, "peers", &auto, &m, 1)?
        }
        PeerCase::SortPairs { dtype: "u64", n } => {
            let d = SortData::<u64>::new(b, *n, true, run.cfg.dist, seed, &auto.opts)?;
            gpu::time_sort(run, b, &d, "peers", &auto, &m, 1)?
        }
        PeerCase::SortPairs { n, .. } => {
            let d = SortData::<u32>::new(b, *n, true, run.cfg.dist, seed, &auto.opts)?;
            gpu::time_sort(run, b, &d, "peers", &auto, &m, 1)?
        }
        PeerCase::SortKeysBits { n, begin, end } => {
            let v = SortVariant {
                name: "auto".into(),
                opts: SortOptions::new().bits(*begin, *end),
            };
            let d = SortData::<u32>::new(b, *n, false, run.cfg.dist, seed, &v.opts)?;
            gpu::time_sort(run, b, &d, "peers", &v, &m, 1)?
        }
        PeerCase::Histogram { n, distinct } => {
            let input = if *distinct >= 256 {
                HistInput::Uniform
            } else {
                HistInput::Distinct(*distinct)
            };
            gpu::hist_case(run, b, *n, input, &m)?.with("distinct", *distinct)
        }
        PeerCase::HistogramEntropy { n, preset } => {
            gpu::hist_case(run, b, *n, HistInput::Entropy(*preset), &m)?
        }
        PeerCase::Scan {
            dtype,
            n,
            inclusive,
        } => {
            let ty = match *dtype {
                "u64" => gpu::ScanType::U64,
                "f32" => gpu::ScanType::F32,
                _ => gpu::ScanType::U32,
            };
            let kind = if *inclusive {
                ScanKind::Inclusive
            } else {
                ScanKind::Exclusive
            };
            let mut r = gpu::scan_case(run, b, *n, ty, kind, ScanAlgorithm::Auto, &m)?;
            r.suite = "peers".into();
            r.variant = ScanAlgorithm::Auto.name().into();
            r
        }
        PeerCase::HistogramBins {
            dtype,
            n,
            bins,
            range,
        } => match *dtype {
            "f32" => gpu::bins_case::<f32>(run, b, *n, *bins, *range, &m)?,
            "i32" => gpu::bins_case::<i32>(run, b, *n, *bins, *range, &m)?,
            _ => gpu::bins_case::<u32>(run, b, *n, *bins, *range, &m)?,
        },
        PeerCase::Histogram16 { n } => gpu::hist16_case(run, b, *n, &m)?,
        PeerCase::HistogramRgba { pixels } => gpu::channels_case(run, b, *pixels, &m)?,
        PeerCase::Copy { bytes } => {
            gpu::time_copy(run, b, "peers", "u8", *bytes as u64, *bytes, &m)?
        }
    };
    Ok(r)
}

/// The peers suite on the GPU.
pub(crate) fn run_peers(run: &mut Run, b: &CudaBackend) -> Result<()> {
    let cases = select_cases(
        cases(run.cfg.quick, run.cfg.sizes.as_deref()),
        &run.cfg.cases,
    )?;
    let mut ours = Vec::new();
    for c in &cases {
        ours.push(histosort_case(run, b, c)?);
    }
    // CUB: built and run when nvcc is here.
    let mut theirs: Vec<Option<Record>> = vec![None; cases.len()];
    let nvcc = super::nvcc_version();
    let why_not = if run.cfg.no_cub {
        Some("CUB not measured: --no-cub".to_string())
    } else if super::on_path("nvcc").is_none() {
        Some("CUB not measured: nvcc not found".to_string())
    } else {
        None
    };
    match why_not {
        Some(w) => run.note(w),
        None => {
            run.step("peers: building the CUB program with nvcc");
            let cc = b.info().compute_capability;
            match build_cub(cc, nvcc.as_deref().unwrap_or("")) {
                Err(e) => run.note(format!("CUB not measured: {e}")),
                Ok((bin, cmd)) => {
                    run.step("peers: running CUB");
                    let m = run.cfg.method(true);
                    let samples = if run.cfg.quick {
                        m.samples.min(10)
                    } else {
                        m.samples.min(20)
                    };
                    match run_cub(
                        &bin,
                        &cases,
                        m.warmups.max(2),
                        samples,
                        run.cfg.seed,
                        &run.cfg.dist,
                    ) {
                        Err(e) => run.note(format!("CUB not measured: {e}")),
                        Ok(out) => {
                            let version = out
                                .cub_version
                                .map(cub_version_string)
                                .unwrap_or_else(|| "?".into());
                            run.cub_build = Some(format!(
                                "{cmd}; CUB {version}; CUDA runtime {}",
                                out.cuda_runtime.unwrap_or(0)
                            ));
                            for line in &out.lines {
                                match line.to_record() {
                                    Ok(r) => {
                                        if let Some(i) = cases.iter().position(|c| line.matches(c))
                                        {
                                            theirs[i] = Some(
                                                r.clone().with("cub_version", version.clone()),
                                            );
                                        }
                                    }
                                    Err(e) => run.note(format!(
                                        "CUB {} {} n={} failed: {e}",
                                        line.case, line.dtype, line.n
                                    )),
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let mut t = Table::new(&[
        "case",
        "n",
        "histosort ms",
        "CUB ms",
        "histosort",
        "CUB",
        "unit",
        "histosort/CUB",
    ]);
    for ((c, mut o), th) in cases.iter().zip(ours).zip(theirs) {
        let ratio = th.as_ref().map(|r| speedup(r.median_ms, o.median_ms));
        if let Some(x) = ratio {
            o.extra.insert("vs_cub".into(), x.into());
        }
        t.row(vec![
            c.label(),
            if matches!(c, PeerCase::Copy { .. } | PeerCase::Histogram { .. }) {
                table::bytes(c.n() as u64)
            } else if let PeerCase::HistogramRgba { pixels } = c {
                table::bytes(4 * *pixels as u64)
            } else {
                table::count(c.n() as u64)
            },
            table::ms(o.median_ms),
            th.as_ref().map_or("-".into(), |r| table::ms(r.median_ms)),
            table::num(o.throughput),
            th.as_ref().map_or("-".into(), |r| table::num(r.throughput)),
            o.unit.clone(),
            ratio.map_or("not measured".into(), |x| format!("{}x", table::num(x))),
        ]);
        run.push(o);
        if let Some(r) = th {
            run.push(r);
        }
    }
    run.say(&format!(
        "Peers: histosort's default variants against NVIDIA CUB in the same run (throughput \
         at the median; histosort/CUB = ratio of medians, above 1 is faster than CUB).\n{}",
        t.render()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_cases_filters_by_label() {
        let all = cases(false, None);
        let n = all.len();
        assert_eq!(select_cases(all.clone(), &[]).unwrap().len(), n);
        assert_eq!(select_cases(all.clone(), &[" ".into()]).unwrap().len(), n);
        // Issue 5's large sizes, 2^24 to 2^28, for every kind of sort it names.
        for dtype in ["u32", "u64", "f32"] {
            let sel = select_cases(all.clone(), &[format!("sort-keys {dtype}")]).unwrap();
            for e in [24, 26, 28] {
                assert!(
                    sel.contains(&PeerCase::SortKeys { dtype, n: 1 << e }),
                    "{dtype} 2^{e}: {sel:?}"
                );
            }
        }
        let u64s = select_cases(all.clone(), &["sort-keys u64".into()]).unwrap();
        assert_eq!(u64s.len(), 3);
        assert!(u64s
            .iter()
            .all(|c| matches!(c, PeerCase::SortKeys { dtype: "u64", .. })));
        let two = select_cases(all.clone(), &["copy".into(), "f32 even".into()]).unwrap();
        assert_eq!(two.len(), 4, "{two:?}");
        let e = select_cases(all, &["nothing-like-this".into()]).unwrap_err();
        assert!(e.to_string().contains("no peers case matches"), "{e}");
        assert!(e.to_string().contains("exclusive-sum u32"), "{e}");
    }

    const SAMPLE: &str = r#"{"info":true,"device":"NVIDIA H200","cub_version":300000,"cuda_runtime":13000,"warmups":3,"samples":4}
nvcc warning : something unrelated
{"case":"sort-keys","dtype":"u32","n":16777216,"begin_bit":0,"end_bit":32,"distinct":0,"ok":true,"temp_bytes":123,"check":"sorted","times_ms":[0.47,0.46,0.48,0.47]}
{"case":"sort-keys-bits","dtype":"u32","n":1024,"begin_bit":0,"end_bit":16,"distinct":0,"ok":true,"temp_bytes":9,"check":"sorted","times_ms":[0.01]}
{"case":"histogram-even-u8","dtype":"u8","n":67108864,"begin_bit":0,"end_bit":0,"distinct":8,"ok":true,"temp_bytes":1,"check":"bin total","times_ms":[0.033,0.034]}
{"case":"sort-pairs","dtype":"u32","n":4096,"begin_bit":0,"end_bit":32,"distinct":0,"ok":false,"error":"cudaMalloc keys: out of memory"}
"#;

    #[test]
    fn parses_cub_lines() {
        let out = parse_cub_output(SAMPLE).unwrap();
        assert_eq!(out.cub_version, Some(300000));
        assert_eq!(cub_version_string(300000), "3.0.0");
        assert_eq!(cub_version_string(200800), "2.8.0");
        assert_eq!(out.device.as_deref(), Some("NVIDIA H200"));
        assert_eq!(out.lines.len(), 4);
        let r = out.lines[0].to_record().unwrap();
        assert_eq!(
            (r.implementation.as_str(), r.variant.as_str()),
            ("cub", "DeviceRadixSort::SortKeys")
        );
        assert_eq!(r.samples, 4);
        assert!((r.median_ms - 0.47).abs() < 1e-12);
        assert!((r.throughput - 16777216.0 / 0.47 * 1e-6).abs() < 1e-9);
        assert!(out.lines[0].matches(&PeerCase::SortKeys {
            dtype: "u32",
            n: 1 << 24
        }));
        assert!(!out.lines[0].matches(&PeerCase::SortKeys {
            dtype: "u64",
            n: 1 << 24
        }));
        assert!(out.lines[1].matches(&PeerCase::SortKeysBits {
            n: 1024,
            begin: 0,
            end: 16
        }));
        let h = out.lines[2].to_record().unwrap();
        assert_eq!(h.distribution, "distinct-8");
        assert!(out.lines[2].matches(&PeerCase::Histogram {
            n: 64 << 20,
            distinct: 8
        }));
        assert!(out.lines[3]
            .to_record()
            .unwrap_err()
            .contains("out of memory"));
        assert!(parse_cub_output("{\"case\": 3}").is_err());
    }

    #[test]
    fn parses_the_issue_6_cases() {
        let text = r#"{"case":"inclusive-sum","dtype":"u64","n":1024,"begin_bit":0,"end_bit":0,"distinct":0,"ok":true,"temp_bytes":5,"check":"every element","times_ms":[0.5]}
{"case":"histogram-even-u16","dtype":"u16","n":2048,"begin_bit":0,"end_bit":0,"distinct":0,"ok":true,"temp_bytes":5,"check":"every bin","times_ms":[0.25]}
{"case":"multi-histogram-rgba","dtype":"u8","n":1000,"begin_bit":0,"end_bit":0,"distinct":256,"ok":true,"temp_bytes":5,"check":"every bin","times_ms":[0.1]}"#;
        let out = parse_cub_output(text).unwrap();
        let scan = out.lines[0].to_record().unwrap();
        assert_eq!(scan.variant, "DeviceScan::InclusiveSum");
        assert_eq!(scan.distribution, "uniform");
        // 1024 u64 read and written in 0.5 ms.
        assert!((scan.throughput - 2.0 * 8.0 * 1024.0 / 0.5 * 1e-6).abs() < 1e-9);
        assert!(out.lines[0].matches(&PeerCase::Scan {
            dtype: "u64",
            n: 1024,
            inclusive: true
        }));
        assert!(!out.lines[0].matches(&PeerCase::Scan {
            dtype: "u64",
            n: 1024,
            inclusive: false
        }));
        let h = out.lines[1].to_record().unwrap();
        assert_eq!(
            (h.dtype.as_str(), h.extra["bins"].as_u64()),
            ("u16", Some(65536))
        );
        assert!(out.lines[1].matches(&PeerCase::Histogram16 { n: 2048 }));
        // RGBA: the record counts bytes, the line counts pixels.
        let m = out.lines[2].to_record().unwrap();
        assert_eq!(m.n, 4000);
        assert_eq!(m.extra["pixels"].as_u64(), Some(1000));
        assert!(out.lines[2].matches(&PeerCase::HistogramRgba { pixels: 1000 }));
    }

    #[test]
    fn parses_the_entropy_histogram_case() {
        let text = r#"{"case":"histogram-entropy-u8","dtype":"u8","n":4096,"begin_bit":0,"end_bit":0,"distinct":3,"ok":true,"temp_bytes":5,"check":"bin total","times_ms":[0.2]}
{"case":"histogram-entropy-u8","dtype":"u8","n":4096,"begin_bit":0,"end_bit":0,"distinct":0,"ok":true,"temp_bytes":5,"check":"bin total","times_ms":[0.2]}
{"case":"histogram-entropy-u8","dtype":"u8","n":4096,"begin_bit":0,"end_bit":0,"distinct":9,"ok":true,"temp_bytes":5,"check":"bin total","times_ms":[0.2]}"#;
        let out = parse_cub_output(text).unwrap();
        let r = out.lines[0].to_record().unwrap();
        assert_eq!(r.distribution, "entropy-0.544");
        assert_eq!(out.lines[1].to_record().unwrap().distribution, "entropy-0");
        assert!(out.lines[2].to_record().unwrap_err().contains("9 words"));
        let c = PeerCase::HistogramEntropy {
            n: 4096,
            preset: EntropyPreset::E0544,
        };
        assert_eq!(c.args(), ["histogram-entropy-u8", "4096", "3"]);
        assert!(out.lines[0].matches(&c));
        assert!(!out.lines[1].matches(&c));
        assert!(!out.lines[0].matches(&PeerCase::Histogram {
            n: 4096,
            distinct: 3
        }));
        // The full run covers every reduced preset at each histogram size.
        let full = cases(false, None);
        for &p in EntropyPreset::ALL
            .iter()
            .filter(|&&p| p != EntropyPreset::Full)
        {
            assert!(full.contains(&PeerCase::HistogramEntropy {
                n: 1 << 30,
                preset: p
            }));
        }
    }

    #[test]
    fn case_arguments() {
        assert_eq!(
            PeerCase::SortKeysBits {
                n: 8,
                begin: 0,
                end: 16
            }
            .args(),
            ["sort-keys-bits", "u32", "8", "0", "16"]
        );
        assert_eq!(PeerCase::Copy { bytes: 64 }.args(), ["copy", "64"]);
        let full = cases(false, None);
        assert!(full.contains(&PeerCase::SortKeys {
            dtype: "u32",
            n: 1 << 28
        }));
        assert!(full.contains(&PeerCase::Histogram {
            n: 1 << 30,
            distinct: 1
        }));
        // Pairs of both key widths, each its own label and CUB line.
        let wide = PeerCase::SortPairs {
            dtype: "u64",
            n: 1 << 26,
        };
        assert!(full.contains(&wide));
        assert_eq!(wide.label(), "sort-pairs u64/u32");
        assert_eq!(wide.args(), ["sort-pairs", "u64", "67108864"]);
        let line = r#"{"case":"sort-pairs","dtype":"u64","n":67108864,"ok":true,"times_ms":[1.0]}"#;
        let l = &parse_cub_output(line).unwrap().lines[0];
        assert!(l.matches(&wide));
        assert!(!l.matches(&PeerCase::SortPairs {
            dtype: "u32",
            n: 1 << 26
        }));
        assert_eq!(l.to_record().unwrap().dtype, "u64/u32");
        // Issue 5 holds every power of two from 2^12 to 2^22 to CUB.
        for e in 12..=22 {
            assert!(full.contains(&PeerCase::SortKeys {
                dtype: "u32",
                n: 1 << e
            }));
        }
        assert!(cases(true, None).len() < full.len());
        // The program accepts every case name the Rust side sends.
        for c in &full {
            assert!(
                CUB_SOURCE.contains(&format!("\"{}\"", c.args()[0])),
                "{c:?}"
            );
        }
    }

    #[test]
    fn sort_key_distributions_reach_cub_and_come_back_as_named() {
        assert_eq!(
            cub_keys_arg(&Distribution::Uniform).as_deref(),
            Some("uniform")
        );
        assert_eq!(
            cub_keys_arg(&Distribution::FewDistinct(4096)).as_deref(),
            Some("distinct:4096")
        );
        assert_eq!(
            cub_keys_arg(&Distribution::FewDistinct(0)).as_deref(),
            Some("distinct:1")
        );
        for p in EntropyPreset::ALL {
            let arg = cub_keys_arg(&Distribution::Entropy(*p)).unwrap();
            let words = arg.strip_prefix("entropy:").unwrap();
            // The program names it by its word count; the record by the preset.
            let line = format!(
                r#"{{"case":"sort-keys","dtype":"u64","n":64,"dist":"entropy-words-{words}","ok":true,"times_ms":[0.1]}}"#
            );
            let r = parse_cub_output(&line).unwrap().lines[0]
                .to_record()
                .unwrap();
            assert_eq!(r.distribution, Distribution::Entropy(*p).name());
        }
        for d in [
            Distribution::Sorted,
            Distribution::Reversed,
            Distribution::AllEqual,
            Distribution::FloatSpecials,
        ] {
            assert_eq!(cub_keys_arg(&d), None, "{d}");
        }
        let line = r#"{"case":"sort-pairs","dtype":"u32","n":64,"dist":"distinct-4096","ok":true,"times_ms":[0.1]}"#;
        let r = parse_cub_output(line).unwrap().lines[0]
            .to_record()
            .unwrap();
        assert_eq!(r.distribution, "distinct-4096");
        // Older output without the field: uniform keys.
        let out = parse_cub_output(SAMPLE).unwrap();
        assert_eq!(out.lines[0].to_record().unwrap().distribution, "uniform");
        let bad = r#"{"case":"sort-keys","dtype":"u32","n":64,"dist":"entropy-words-9","ok":true,"times_ms":[0.1]}"#;
        let e = parse_cub_output(bad).unwrap().lines[0]
            .to_record()
            .unwrap_err();
        assert!(e.contains("9 words"), "{e}");
        // The program parses every argument the Rust side sends.
        for a in ["\"--keys\"", "\"uniform\"", "\"distinct:\"", "\"entropy:\""] {
            assert!(CUB_SOURCE.contains(a), "{a}");
        }
    }
}
