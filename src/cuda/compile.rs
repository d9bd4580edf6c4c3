//! NVRTC compilation of the kernels under `kernels/`, with an on-disk cache.
//!
//! Each module is one `.cu` file with `common.cuh` prepended, compiled with `-D` defines that
//! come from [`crate::tuning::cuda`]. We compile to CUBIN for the device's own architecture
//! (`--gpu-architecture=sm_XY`): a CUBIN needs no JIT by the driver, so an NVRTC newer than the
//! driver still works (PTX from a newer NVRTC would not load). If NVRTC does not know the
//! architecture we fall back to PTX for the newest virtual architecture it supports.
//!
//! Cache key: the source text, the flags, the NVRTC version and the architecture. An entry
//! stores its full key and a checksum; an entry that does not match (stale, corrupt, a hash
//! collision) is recompiled and rewritten, never trusted.

use std::ffi::{c_char, c_int, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};

use crate::error::{Error, Result};

/// The kernel sources, embedded in the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KernelFile {
    Keys,
    ThreePhase,
    Onesweep,
    RankSort,
    Scan,
    Histogram,
    HistogramBins,
    ScanLookback,
    Histogram16,
    HistogramChannels,
    ClusterSort,
}

impl KernelFile {
    pub const ALL: [KernelFile; 11] = [
        KernelFile::Keys,
        KernelFile::ThreePhase,
        KernelFile::Onesweep,
        KernelFile::RankSort,
        KernelFile::Scan,
        KernelFile::Histogram,
        KernelFile::HistogramBins,
        KernelFile::ScanLookback,
        KernelFile::Histogram16,
        KernelFile::HistogramChannels,
        KernelFile::ClusterSort,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            KernelFile::Keys => "keys.cu",
            KernelFile::ThreePhase => "radix_sort_three_phase.cu",
            KernelFile::Onesweep => "radix_sort_onesweep.cu",
            KernelFile::RankSort => "sort_rank.cu",
            KernelFile::Scan => "scan.cu",
            KernelFile::Histogram => "histogram.cu",
            KernelFile::HistogramBins => "histogram_bins.cu",
            KernelFile::ScanLookback => "scan_lookback.cu",
            KernelFile::Histogram16 => "histogram_u16.cu",
            KernelFile::HistogramChannels => "histogram_channels.cu",
            KernelFile::ClusterSort => "radix_sort_cluster.cu",
        }
    }

    fn source(self) -> &'static str {
        match self {
            KernelFile::Keys => include_str!("../../kernels/keys.cu"),
            KernelFile::ThreePhase => include_str!("../../kernels/radix_sort_three_phase.cu"),
            KernelFile::Onesweep => include_str!("../../kernels/radix_sort_onesweep.cu"),
            KernelFile::RankSort => include_str!("../../kernels/sort_rank.cu"),
            KernelFile::Scan => include_str!("../../kernels/scan.cu"),
            KernelFile::Histogram => include_str!("../../kernels/histogram.cu"),
            KernelFile::HistogramBins => include_str!("../../kernels/histogram_bins.cu"),
            KernelFile::ScanLookback => include_str!("../../kernels/scan_lookback.cu"),
            KernelFile::Histogram16 => include_str!("../../kernels/histogram_u16.cu"),
            KernelFile::HistogramChannels => include_str!("../../kernels/histogram_channels.cu"),
            KernelFile::ClusterSort => include_str!("../../kernels/radix_sort_cluster.cu"),
        }
    }

    /// The full translation unit: the common header, then the file, with `#line` markers so
    /// that NVRTC's messages name the right file and line.
    pub fn full_source(self) -> String {
        format!(
            "#line 1 \"common.cuh\"\n{}\n#line 1 \"{}\"\n{}",
            include_str!("../../kernels/common.cuh"),
            self.file_name(),
            self.source()
        )
    }
}

/// One module to compile: a kernel file and its `-D` defines.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleSpec {
    pub file: KernelFile,
    pub defines: Vec<(String, String)>,
}

impl ModuleSpec {
    pub fn new(file: KernelFile) -> ModuleSpec {
        ModuleSpec {
            file,
            defines: Vec::new(),
        }
    }

    pub fn define(mut self, name: &str, value: impl ToString) -> ModuleSpec {
        self.defines.push((name.to_string(), value.to_string()));
        self
    }

    /// The module's label: `radix_sort_three_phase.cu[KEY_BITS=32,...]` (its file name:
    /// [`ModuleSpec::file_stem`]).
    pub fn label(&self) -> String {
        let d: Vec<String> = self
            .defines
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}[{}]", self.file.file_name(), d.join(","))
    }

    /// A file name stem for the module's image (`compile-kernels --out`, `bench --export-ptx`):
    /// the label with every character other than ASCII letters, digits, `.`, `-` and `_` made
    /// `_`, and no `_` at the end; a label too long for a file name (most file systems allow
    /// 255 bytes) is cut to its first 160 characters and ends with the hash of the whole label,
    /// so that stems stay distinct.
    pub fn file_stem(&self) -> String {
        let label = self.label();
        let name: String = label
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let name = name.trim_end_matches('_');
        if name.len() <= 200 {
            name.to_string()
        } else {
            let hash = fnv1a(label.as_bytes(), 0xcbf2_9ce4_8422_2325);
            format!("{}_{hash:016x}", &name[..160])
        }
    }

    fn flags(&self, target: &Target) -> Vec<String> {
        let mut f = vec![
            target.arch_flag(),
            "-std=c++17".to_string(),
            "-lineinfo".to_string(),
        ];
        let overrides = kernel_define_overrides();
        for (k, v) in &self.defines {
            let v = overrides
                .iter()
                .find(|(name, _)| name == k)
                .map_or(v.as_str(), |(_, o)| o.as_str());
            f.push(format!("-D{k}={v}"));
            if k == "KEY_BITS" && v == "128" {
                // 128-bit keys are `unsigned __int128`, which NVRTC only accepts with this flag.
                f.push("--device-int128".to_string());
            }
        }
        f
    }
}

/// Defines that only the kernels read (the host's launch arithmetic does not depend on them),
/// which `HISTOSORT_KERNEL_DEFINES="LOOKBACK=4,PASS_MIN_BLOCKS=4"` may override for tuning
/// experiments with one binary. Overridden modules get their own cache entries.
pub const OVERRIDABLE_DEFINES: [&str; 14] = [
    "FREE_RANK_SKEW",
    "HYB_BALANCE",
    "HYB_PREFETCH_AHEAD",
    "HYB_STAGE",
    "HYB_TIE_RUN_MAX",
    "HYB_TOP_BITS",
    "LB_DELAY_FIRST",
    "LB_DELAY_RETRY",
    "STORE_STREAMING",
    "LOOKBACK",
    "PASS_MIN_BLOCKS",
    "PREFETCH_AHEAD",
    "RANK_BALLOT",
    "VALUES_LATE",
];

fn kernel_define_overrides() -> Vec<(String, String)> {
    let Ok(spec) = std::env::var("HISTOSORT_KERNEL_DEFINES") else {
        return Vec::new();
    };
    spec.split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            let (k, v) = (k.trim(), v.trim());
            let ok = OVERRIDABLE_DEFINES.contains(&k)
                && !v.is_empty()
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ok.then(|| (k.to_string(), v.to_string()))
        })
        .collect()
}

/// What to compile for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Real architecture, CUBIN output (`sm_90` for compute capability 9.0).
    Cubin { major: i32, minor: i32 },
    /// Virtual architecture, PTX output (fallback when NVRTC does not know the real one).
    Ptx { major: i32, minor: i32 },
}

impl Target {
    fn arch_flag(&self) -> String {
        match self {
            Target::Cubin { major, minor } => format!("--gpu-architecture=sm_{major}{minor}"),
            Target::Ptx { major, minor } => format!("--gpu-architecture=compute_{major}{minor}"),
        }
    }

    /// The compute capability the kernels are compiled for (major, minor).
    pub fn arch(&self) -> (i32, i32) {
        match *self {
            Target::Cubin { major, minor } | Target::Ptx { major, minor } => (major, minor),
        }
    }

    /// Parses `sm_90` or `compute_90`.
    pub fn parse(s: &str) -> Option<Target> {
        let (ptx, digits) = if let Some(d) = s.strip_prefix("sm_") {
            (false, d)
        } else {
            (true, s.strip_prefix("compute_")?)
        };
        let digits = digits.trim_end_matches(['a', 'f']);
        if digits.len() < 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let (ma, mi) = digits.split_at(digits.len() - 1);
        let major = ma.parse().ok()?;
        let minor = mi.parse().ok()?;
        Some(if ptx {
            Target::Ptx { major, minor }
        } else {
            Target::Cubin { major, minor }
        })
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Cubin { major, minor } => write!(f, "sm_{major}{minor}"),
            Target::Ptx { major, minor } => write!(f, "compute_{major}{minor}"),
        }
    }
}

/// NVRTC's version as (major, minor).
pub fn nvrtc_version() -> Result<(i32, i32)> {
    let mut major: c_int = 0;
    let mut minor: c_int = 0;
    // SAFETY: two valid out-pointers; the library was probed before any call reaches here.
    unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| Error::Cuda {
            call: "nvrtcVersion".into(),
            message: format!("{e:?}"),
        })?;
    Ok((major, minor))
}

/// The architectures this NVRTC can compile for, as `major * 10 + minor`.
pub fn supported_archs() -> Vec<i32> {
    let mut n: c_int = 0;
    // SAFETY: valid out-pointer, then a buffer of the size NVRTC reported.
    unsafe {
        if nvrtc_sys::nvrtcGetNumSupportedArchs(&mut n)
            .result()
            .is_err()
            || n <= 0
        {
            return Vec::new();
        }
        let mut v = vec![0 as c_int; n as usize];
        if nvrtc_sys::nvrtcGetSupportedArchs(v.as_mut_ptr())
            .result()
            .is_err()
        {
            return Vec::new();
        }
        v
    }
}

/// Picks CUBIN for the device's architecture when NVRTC supports it, else PTX for the newest
/// virtual architecture NVRTC knows that the device can run.
pub fn target_for(major: i32, minor: i32) -> Target {
    let archs = supported_archs();
    let want = major * 10 + minor;
    if archs.is_empty() || archs.contains(&want) {
        return Target::Cubin { major, minor };
    }
    match archs.iter().copied().filter(|&a| a <= want).max() {
        Some(a) => Target::Ptx {
            major: a / 10,
            minor: a % 10,
        },
        None => Target::Cubin { major, minor },
    }
}

fn c_chars_to_string(v: &[c_char]) -> String {
    let bytes: Vec<u8> = v.iter().map(|&c| c as u8).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Compiles one module with NVRTC. Returns the image (CUBIN or NUL-terminated PTX).
pub fn compile(spec: &ModuleSpec, target: &Target) -> Result<Vec<u8>> {
    compile_with_log(spec, target, &[]).map(|(image, _)| image)
}

/// Compiles one module with NVRTC and `extra` flags after the module's own (for example
/// `--ptxas-options=-v`, whose report of registers and spills lands in the log). Returns the
/// image and NVRTC's log.
pub fn compile_with_log(
    spec: &ModuleSpec,
    target: &Target,
    extra: &[&str],
) -> Result<(Vec<u8>, String)> {
    let mut flags = spec.flags(target);
    flags.extend(extra.iter().map(|f| f.to_string()));
    let src = spec.file.full_source();
    let fail = |log: String| Error::Compile {
        kernel: spec.label(),
        flags: flags.clone(),
        log,
    };
    let c_src = CString::new(src).map_err(|_| fail("source contains a NUL byte".into()))?;
    let c_name = CString::new(spec.file.file_name()).map_err(|_| fail("bad file name".into()))?;
    let prog = nvrtc::create_program(&c_src, Some(&c_name)).map_err(|e| fail(format!("{e:?}")))?;
    // SAFETY: `prog` was created above and is destroyed exactly once at the end; the source
    // and name CStrings outlive it.
    let result = unsafe {
        let compiled = nvrtc::compile_program(prog, &flags);
        let log = nvrtc::get_program_log(prog)
            .map(|l| c_chars_to_string(&l))
            .unwrap_or_default();
        let out = match compiled {
            Err(e) => Err(fail(format!("{e:?}\n{log}"))),
            Ok(()) => match target {
                Target::Cubin { .. } => get_cubin(prog).map_err(|e| fail(format!("{e:?}"))),
                Target::Ptx { .. } => nvrtc::get_ptx(prog)
                    .map(|p| p.into_iter().map(|c| c as u8).collect())
                    .map_err(|e| fail(format!("{e:?}"))),
            }
            .map(|image| (image, log)),
        };
        let _ = nvrtc::destroy_program(prog);
        out
    };
    result
}

/// # Safety
/// `prog` must be a successfully compiled, live NVRTC program for a real architecture.
unsafe fn get_cubin(
    prog: nvrtc_sys::nvrtcProgram,
) -> std::result::Result<Vec<u8>, nvrtc::NvrtcError> {
    let mut size: usize = 0;
    nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size).result()?;
    let mut buf = vec![0u8; size];
    nvrtc_sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char).result()?;
    Ok(buf)
}

/// PTX of a module (for `histosort bench --export-ptx`), whatever the cache holds.
pub fn compile_ptx(spec: &ModuleSpec, major: i32, minor: i32) -> Result<String> {
    let bytes = compile(spec, &Target::Ptx { major, minor })?;
    Ok(String::from_utf8_lossy(&bytes)
        .trim_end_matches('\0')
        .to_string())
}

// ------------------------------------------------------------------------------------------
// The on-disk cache.

const MAGIC: &[u8; 8] = b"HSKCACH1";

/// FNV-1a, 64 bits, with a chosen offset basis (two bases give two independent-ish hashes).
fn fnv1a(data: &[u8], basis: u64) -> u64 {
    let mut h = basis;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The directory of the cache: `$HISTOSORT_CACHE_DIR`, else `$XDG_CACHE_HOME/histosort`, else
/// `~/.cache/histosort`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("HISTOSORT_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("histosort"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("histosort"))
}

/// The full cache key of a module.
pub fn cache_key(spec: &ModuleSpec, target: &Target, nvrtc: (i32, i32)) -> String {
    let src = spec.file.full_source();
    let mut key = String::new();
    let _ = write!(
        key,
        "nvrtc={}.{};target={};flags={};src={:016x}{:016x};len={}",
        nvrtc.0,
        nvrtc.1,
        target,
        spec.flags(target).join(" "),
        fnv1a(src.as_bytes(), 0xcbf2_9ce4_8422_2325),
        fnv1a(src.as_bytes(), 0x6c62_272e_07bb_0142),
        src.len()
    );
    key
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!(
        "{:016x}.bin",
        fnv1a(key.as_bytes(), 0xcbf2_9ce4_8422_2325)
    ))
}

/// Reads a cache entry; `None` unless it is intact and was written for exactly this key.
pub fn read_entry(path: &Path, key: &str) -> Option<Vec<u8>> {
    let data = std::fs::read(path).ok()?;
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let (klen, rest) = rest.split_at_checked(4)?;
    let klen = u32::from_le_bytes(klen.try_into().ok()?) as usize;
    let (k, rest) = rest.split_at_checked(klen)?;
    if k != key.as_bytes() {
        return None;
    }
    let (plen, rest) = rest.split_at_checked(8)?;
    let plen = u64::from_le_bytes(plen.try_into().ok()?) as usize;
    let (payload, rest) = rest.split_at_checked(plen)?;
    let sum = u64::from_le_bytes(rest.try_into().ok()?);
    (sum == fnv1a(payload, 0xcbf2_9ce4_8422_2325)).then(|| payload.to_vec())
}

/// Writes a cache entry atomically (temporary file, then rename). Failures are ignored: the
/// cache only saves time.
pub fn write_entry(path: &Path, key: &str, payload: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let mut buf = Vec::with_capacity(payload.len() + key.len() + 32);
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&(key.len() as u32).to_le_bytes());
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    buf.extend_from_slice(payload);
    buf.extend_from_slice(&fnv1a(payload, 0xcbf2_9ce4_8422_2325).to_le_bytes());
    if let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) {
        use std::io::Write;
        if tmp.write_all(&buf).is_ok() {
            let _ = tmp.persist(path);
        }
    }
}

/// Compiles through the cache. Returns the image and whether it came from the cache.
pub fn compile_cached(spec: &ModuleSpec, target: &Target) -> Result<(Vec<u8>, bool)> {
    let version = nvrtc_version()?;
    let key = cache_key(spec, target, version);
    let path = cache_dir().map(|d| entry_path(&d, &key));
    if let Some(p) = &path {
        if let Some(image) = read_entry(p, &key) {
            return Ok((image, true));
        }
    }
    let image = compile(spec, target)?;
    if let Some(p) = &path {
        write_entry(p, &key, &image);
    }
    Ok((image, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_parse() {
        assert_eq!(
            Target::parse("sm_90"),
            Some(Target::Cubin { major: 9, minor: 0 })
        );
        assert_eq!(
            Target::parse("compute_120"),
            Some(Target::Ptx {
                major: 12,
                minor: 0
            })
        );
        assert_eq!(
            Target::parse("sm_90a").map(|t| t.to_string()).as_deref(),
            Some("sm_90")
        );
        assert_eq!(Target::parse("gfx90"), None);
        assert_eq!(Target::parse("compute_86").map(|t| t.arch()), Some((8, 6)));
        assert_eq!(Target::parse("sm_120").map(|t| t.arch()), Some((12, 0)));
    }

    #[test]
    fn file_stems_fit_a_file_name_and_stay_distinct() {
        let short = ModuleSpec::new(KernelFile::ThreePhase)
            .define("THREADS", 256)
            .define("KEY_BITS", 32);
        assert_eq!(
            short.file_stem(),
            "radix_sort_three_phase.cu_THREADS_256_KEY_BITS_32"
        );
        let long = |last: u32| {
            (0..30)
                .fold(ModuleSpec::new(KernelFile::Onesweep), |s, i| {
                    s.define(&format!("DEFINE_{i}"), 1000 + i)
                })
                .define("LAST", last)
        };
        let (a, b) = (long(1).file_stem(), long(2).file_stem());
        assert!(long(1).label().len() > 255);
        assert!(a.len() <= 200 && b.len() <= 200, "{a}");
        assert_ne!(a, b);
        assert!(a.starts_with("radix_sort_onesweep.cu_DEFINE_0_1000_"));
    }

    /// An override reaches only a define the host passes (`flags` replaces values; it adds
    /// nothing), so each overridable define must be passed to some module.
    #[test]
    fn every_overridable_define_reaches_a_module() {
        let specs = crate::cuda::all_module_specs();
        for name in OVERRIDABLE_DEFINES {
            assert!(
                specs
                    .iter()
                    .any(|s| s.defines.iter().any(|(k, _)| k == name)),
                "no module is compiled with -D{name}, so HISTOSORT_KERNEL_DEFINES cannot set it"
            );
        }
    }

    #[test]
    fn cache_entries_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.bin");
        write_entry(&p, "key-a", b"payload");
        assert_eq!(read_entry(&p, "key-a").as_deref(), Some(&b"payload"[..]));
        assert_eq!(read_entry(&p, "key-b"), None);
        // Corrupt one payload byte: the checksum rejects it.
        let mut data = std::fs::read(&p).unwrap();
        let n = data.len();
        data[n - 9] ^= 1;
        std::fs::write(&p, &data).unwrap();
        assert_eq!(read_entry(&p, "key-a"), None);
        std::fs::write(&p, b"HSKC").unwrap();
        assert_eq!(read_entry(&p, "key-a"), None);
    }
}
