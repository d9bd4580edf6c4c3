//! The one entry point: an [`Engine`] on a backend, with the same calls on every backend.

use std::sync::Arc;

use crate::algorithm::{BackendKind, HistogramAlgorithm, ScanAlgorithm, ScanKind, SortAlgorithm};
use crate::cpu;
use crate::cuda::{self, CudaBackend};
use crate::error::{Error, Result};
use crate::key::{RadixBits, RadixKey, SortIndex, Value};
use crate::options::SortOptions;
use crate::sample::{Sample, ScanElem};

/// Which backend to run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// CUDA when a usable GPU (driver and NVRTC) is found, else the CPU. Never fails.
    #[default]
    Auto,
    /// The rayon-parallel CPU backend.
    Cpu,
    /// The CUDA backend on the given device ordinal.
    Cuda { device: usize },
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "cuda" | "gpu" => Ok(Backend::Cuda { device: 0 }),
            _ => match t.strip_prefix("cuda:") {
                Some(d) => d
                    .parse()
                    .map(|device| Backend::Cuda { device })
                    .map_err(|_| format!("bad CUDA device ordinal in '{s}'")),
                None => Err(format!(
                    "unknown backend '{s}' (expected auto, cpu, cuda or cuda:N)"
                )),
            },
        }
    }
}

#[derive(Clone)]
enum Inner {
    Cpu,
    Cuda(Arc<CudaBackend>),
}

/// Runs histograms, scans and sorts on one backend.
///
/// ```
/// use histosort::{Backend, Engine, SortOptions};
/// let engine = Engine::new(Backend::Cpu).unwrap();
/// let mut keys = vec![3.5f32, -1.0, f32::NAN, -0.0, 0.0, f32::NEG_INFINITY];
/// engine.sort(&mut keys, &SortOptions::new()).unwrap();
/// assert_eq!(keys[0], f32::NEG_INFINITY);
/// assert!(keys[5].is_nan());
/// ```
#[derive(Clone)]
pub struct Engine {
    inner: Inner,
    /// Created by `Backend::Auto`: ops the GPU lacks run on the CPU instead of failing.
    auto: bool,
    /// Why `Auto` chose the CPU, when it did.
    fallback_reason: Option<String>,
}

impl Engine {
    /// An engine on `backend`. `Backend::Auto` never fails; an explicit `Cuda` fails with the
    /// reason when no usable GPU is found.
    pub fn new(backend: Backend) -> Result<Engine> {
        match backend {
            Backend::Cpu => Ok(Engine::cpu()),
            Backend::Cuda { device } => Ok(Engine {
                inner: Inner::Cuda(Arc::new(CudaBackend::new(device)?)),
                auto: false,
                fallback_reason: None,
            }),
            Backend::Auto => Ok(Engine::auto()),
        }
    }

    /// The CPU backend.
    pub fn cpu() -> Engine {
        Engine {
            inner: Inner::Cpu,
            auto: false,
            fallback_reason: None,
        }
    }

    /// CUDA device 0 when usable, else the CPU (with the reason kept in [`Engine::fallback_reason`]).
    pub fn auto() -> Engine {
        match CudaBackend::new(0) {
            Ok(b) => Engine {
                inner: Inner::Cuda(Arc::new(b)),
                auto: true,
                fallback_reason: None,
            },
            Err(e) => Engine {
                inner: Inner::Cpu,
                auto: true,
                fallback_reason: Some(e.to_string()),
            },
        }
    }

    pub fn kind(&self) -> BackendKind {
        match self.inner {
            Inner::Cpu => BackendKind::Cpu,
            Inner::Cuda(_) => BackendKind::Cuda,
        }
    }

    /// Why `Backend::Auto` fell back to the CPU, if it did.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }

    /// The CUDA backend, for device-resident calls.
    pub fn cuda(&self) -> Option<&CudaBackend> {
        match &self.inner {
            Inner::Cuda(b) => Some(b),
            Inner::Cpu => None,
        }
    }

    /// A one-line description: backend, device, versions.
    pub fn describe(&self) -> String {
        match &self.inner {
            Inner::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
            Inner::Cuda(b) => b.describe(),
        }
    }

    /// Runs `gpu` on the CUDA backend or `cpu` on the CPU; on an `Auto` engine an op the GPU
    /// does not support (it says so before touching any data) runs on the CPU instead.
    fn dispatch<S: ?Sized, T>(
        &self,
        state: &mut S,
        gpu: impl FnOnce(&CudaBackend, &mut S) -> Result<T>,
        cpu: impl FnOnce(&mut S) -> Result<T>,
    ) -> Result<T> {
        match &self.inner {
            Inner::Cpu => cpu(state),
            Inner::Cuda(b) => match gpu(b, state) {
                Err(Error::Unsupported(_)) if self.auto => cpu(state),
                r => r,
            },
        }
    }

    fn check_sort_algorithm(&self, algorithm: SortAlgorithm) -> Result<()> {
        let ok = match (&self.inner, algorithm) {
            (_, SortAlgorithm::Auto) => true,
            (Inner::Cpu, a) => a == SortAlgorithm::CpuLsd,
            (Inner::Cuda(_), a) => a != SortAlgorithm::CpuLsd,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "sort variant '{algorithm}' does not run on the {} backend",
                self.kind()
            )))
        }
    }

    /// Stable radix sort of `keys` in place.
    pub fn sort<K: RadixKey>(&self, keys: &mut [K], opts: &SortOptions) -> Result<()> {
        opts.validate(K::Bits::BITS)?;
        self.check_sort_algorithm(opts.algorithm)?;
        if keys.len() <= 1 {
            return Ok(());
        }
        self.dispatch(
            keys,
            |g, keys| g.sort_keys(keys, opts),
            |keys| cpu::sort::sort_keys(keys, opts),
        )
    }

    /// Stable radix sort of `keys` with `values` carried along (equal keys keep their order).
    pub fn sort_pairs<K: RadixKey, V: Value>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        opts: &SortOptions,
    ) -> Result<()> {
        opts.validate(K::Bits::BITS)?;
        self.check_sort_algorithm(opts.algorithm)?;
        if keys.len() != values.len() {
            return Err(Error::invalid(format!(
                "keys and values differ in length: {} keys, {} values",
                keys.len(),
                values.len()
            )));
        }
        if keys.len() <= 1 {
            return Ok(());
        }
        self.dispatch(
            &mut (keys, values),
            |g, (k, v)| g.sort_pairs(k, v, opts),
            |(k, v)| cpu::sort::sort_pairs(k, v, opts),
        )
    }

    /// The stable sorting permutation, in the index type `I` (`u32` or `u64`).
    pub fn argsort_as<K: RadixKey, I: SortIndex>(
        &self,
        keys: &[K],
        opts: &SortOptions,
    ) -> Result<Vec<I>> {
        opts.validate(K::Bits::BITS)?;
        self.check_sort_algorithm(opts.algorithm)?;
        if keys.len() as u64 > I::MAX_LEN {
            return Err(Error::invalid(format!(
                "{} keys do not fit {} indices",
                keys.len(),
                I::DTYPE
            )));
        }
        self.dispatch(
            &mut (),
            |g, _| g.argsort(keys, opts),
            |_| cpu::sort::argsort(keys, opts),
        )
    }

    /// The stable sorting permutation: `u32` indices, or `u64` when the length needs them.
    pub fn argsort<K: RadixKey>(&self, keys: &[K], opts: &SortOptions) -> Result<Permutation> {
        if keys.len() as u64 <= u32::MAX_LEN {
            self.argsort_as::<K, u32>(keys, opts).map(Permutation::U32)
        } else {
            self.argsort_as::<K, u64>(keys, opts).map(Permutation::U64)
        }
    }

    /// 256-bin histogram of bytes.
    pub fn histogram_u8(&self, data: &[u8], algorithm: HistogramAlgorithm) -> Result<Vec<u64>> {
        match (&self.inner, algorithm) {
            (Inner::Cpu, HistogramAlgorithm::Auto | HistogramAlgorithm::CpuPrivate) => {
                Ok(cpu::histogram::histogram_u8(data))
            }
            (Inner::Cpu, a) => Err(cpu_only(a)),
            (Inner::Cuda(_), HistogramAlgorithm::CpuPrivate) => {
                Ok(cpu::histogram::histogram_u8(data))
            }
            (Inner::Cuda(g), a) => g.histogram_u8(data, a),
        }
    }

    /// 65536-bin histogram of 16-bit samples: bin `i` counts the samples equal to `i`.
    pub fn histogram_u16(&self, data: &[u16], algorithm: HistogramAlgorithm) -> Result<Vec<u64>> {
        match (&self.inner, algorithm) {
            (Inner::Cpu, HistogramAlgorithm::Auto | HistogramAlgorithm::CpuPrivate)
            | (Inner::Cuda(_), HistogramAlgorithm::CpuPrivate) => {
                Ok(cpu::histogram::histogram_u16(data))
            }
            (Inner::Cpu, a) => Err(cpu_only(a)),
            (Inner::Cuda(_), a) => self.dispatch(
                &mut (),
                |g, _| g.histogram_u16(data, a),
                |_| Ok(cpu::histogram::histogram_u16(data)),
            ),
        }
    }

    /// Multi-channel byte histograms (like CUB's `MultiHistogramEven`): `data` holds
    /// interleaved pixels of `channels` bytes (1 to 4; RGBA is 4), and the result has one
    /// 256-bin histogram per channel; byte `i` counts in channel `i % channels`. The length
    /// must be a whole number of pixels.
    pub fn histogram_channels_u8(
        &self,
        data: &[u8],
        channels: usize,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<Vec<u64>>> {
        crate::sample::check_channels(data.len(), channels)?;
        match (&self.inner, algorithm) {
            (Inner::Cpu, HistogramAlgorithm::Auto | HistogramAlgorithm::CpuPrivate)
            | (Inner::Cuda(_), HistogramAlgorithm::CpuPrivate) => {
                cpu::histogram::histogram_channels_u8(data, channels)
            }
            (Inner::Cpu, a) => Err(cpu_only(a)),
            (Inner::Cuda(_), a) => self.dispatch(
                &mut (),
                |g, _| g.histogram_channels_u8(data, channels, a),
                |_| cpu::histogram::histogram_channels_u8(data, channels),
            ),
        }
    }

    /// `bins` even bins over `[lower, upper)` (see [`Sample`] for the exact definition).
    pub fn histogram_even<T: Sample>(
        &self,
        data: &[T],
        bins: usize,
        lower: T,
        upper: T,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        T::even(lower, upper, bins)?;
        match (&self.inner, algorithm) {
            (Inner::Cpu, HistogramAlgorithm::Auto | HistogramAlgorithm::CpuPrivate)
            | (Inner::Cuda(_), HistogramAlgorithm::CpuPrivate) => {
                cpu::histogram::histogram_even(data, bins, lower, upper)
            }
            (Inner::Cpu, a) => Err(cpu_only(a)),
            (Inner::Cuda(_), a) => self.dispatch(
                &mut (),
                |g, _| g.histogram_even(data, bins, lower, upper, a),
                |_| cpu::histogram::histogram_even(data, bins, lower, upper),
            ),
        }
    }

    /// Range bins: bin `i` counts `boundaries[i] <= x < boundaries[i + 1]`.
    pub fn histogram_range<T: Sample>(
        &self,
        data: &[T],
        boundaries: &[T],
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        crate::sample::check_boundaries(boundaries)?;
        match (&self.inner, algorithm) {
            (Inner::Cpu, HistogramAlgorithm::Auto | HistogramAlgorithm::CpuPrivate)
            | (Inner::Cuda(_), HistogramAlgorithm::CpuPrivate) => {
                cpu::histogram::histogram_range(data, boundaries)
            }
            (Inner::Cpu, a) => Err(cpu_only(a)),
            (Inner::Cuda(_), a) => self.dispatch(
                &mut (),
                |g, _| g.histogram_range(data, boundaries, a),
                |_| cpu::histogram::histogram_range(data, boundaries),
            ),
        }
    }

    /// Prefix sum of `data` into `out`. Integer sums wrap; float sums are exact only up to
    /// rounding, and their association order is the backend's (blocked), not left to right.
    /// On CUDA the default (`decoupled-lookback`) groups the sums of earlier tiles as its
    /// look-back met them, so float results may also differ between runs in the last bits.
    pub fn scan_into<T: ScanElem>(
        &self,
        data: &[T],
        out: &mut [T],
        kind: ScanKind,
        algorithm: ScanAlgorithm,
    ) -> Result<()> {
        if data.len() != out.len() {
            return Err(Error::invalid(format!(
                "scan output has {} elements, input {}",
                out.len(),
                data.len()
            )));
        }
        match (&self.inner, algorithm) {
            (Inner::Cpu, ScanAlgorithm::Auto | ScanAlgorithm::CpuBlocked)
            | (Inner::Cuda(_), ScanAlgorithm::CpuBlocked) => cpu::scan::scan_into(data, out, kind),
            (Inner::Cpu, a) => Err(Error::Unsupported(format!(
                "scan variant '{a}' needs the CUDA backend"
            ))),
            (Inner::Cuda(_), a) => self.dispatch(
                out,
                |g, out| g.scan_into(data, out, kind, a),
                |out| cpu::scan::scan_into(data, out, kind),
            ),
        }
    }

    /// Prefix sum of `data` (see [`Engine::scan_into`]).
    pub fn scan<T: ScanElem>(&self, data: &[T], kind: ScanKind) -> Result<Vec<T>> {
        let mut out = vec![T::ZERO; data.len()];
        self.scan_into(data, &mut out, kind, ScanAlgorithm::Auto)?;
        Ok(out)
    }
}

fn cpu_only(a: HistogramAlgorithm) -> Error {
    Error::Unsupported(format!("histogram variant '{a}' needs the CUDA backend"))
}

/// A sorting permutation in the narrowest index type that fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Permutation {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Permutation {
    pub fn len(&self) -> usize {
        match self {
            Permutation::U32(v) => v.len(),
            Permutation::U64(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The `i`-th index.
    pub fn get(&self, i: usize) -> usize {
        match self {
            Permutation::U32(v) => v[i] as usize,
            Permutation::U64(v) => v[i] as usize,
        }
    }
    /// Applies the permutation: `out[i] = data[self[i]]`.
    pub fn apply<T: Copy>(&self, data: &[T]) -> Vec<T> {
        (0..self.len()).map(|i| data[self.get(i)]).collect()
    }
}

/// Whether CUDA looks usable here, without creating a context: `Err` carries the reason.
pub fn cuda_probe() -> std::result::Result<(), String> {
    cuda::probe_libraries()
}
