//! Histogram launch sequences (kernels/histogram.cu and kernels/histogram_bins.cu).

use super::launch::{DeviceBuffer, KArg};
use super::{CudaBackend, KernelFile, ModuleSpec};
use crate::algorithm::HistogramAlgorithm;
use crate::error::{Error, Result};
use crate::key::DType;
use crate::sample::Sample;
use crate::tuning::cuda::{
    hist_bins_threads, hist_bytes_threads, HIST16_MIN_SAMPLES_PER_BLOCK, HIST16_THREADS,
    HIST16_VECS, HIST_BINS_COPIES_BYTES, HIST_CHANNELS_THREADS, HIST_CHUNK, HIST_SHARED_BYTES,
    HIST_THREADS,
};

pub(crate) fn u8_spec() -> ModuleSpec {
    ModuleSpec::new(KernelFile::Histogram).define("THREADS", HIST_THREADS)
}

/// The module of the default byte histogram (`hist_bytes`, in the same file as the seeds'
/// variants, with its own block size).
pub(crate) fn bytes_spec() -> ModuleSpec {
    ModuleSpec::new(KernelFile::Histogram).define("THREADS", hist_bytes_threads())
}

pub(crate) fn u16_spec() -> ModuleSpec {
    ModuleSpec::new(KernelFile::Histogram16)
        .define("THREADS", HIST16_THREADS)
        .define("VECS", HIST16_VECS)
}

pub(crate) fn channels_spec() -> ModuleSpec {
    ModuleSpec::new(KernelFile::HistogramChannels).define("THREADS", HIST_CHANNELS_THREADS)
}

/// Bins of a 16-bit histogram.
const U16_BINS: usize = 1 << 16;

/// The 16-bit and multi-channel histograms have one CUDA design each: the block-private
/// shared-memory one.
fn check_shared_only(a: HistogramAlgorithm, what: &str) -> Result<()> {
    match a {
        HistogramAlgorithm::Auto | HistogramAlgorithm::SharedPrivate => Ok(()),
        other => Err(Error::Unsupported(format!(
            "histogram variant '{other}' does not run {what} on the CUDA backend (auto and shared do)"
        ))),
    }
}

/// The entry point of a byte-histogram variant.
fn u8_kernel(a: HistogramAlgorithm) -> Result<&'static str> {
    Ok(match a {
        HistogramAlgorithm::GlobalAtomic => "hist_global_atomic",
        HistogramAlgorithm::GlobalAtomicUnrolled => "hist_global_atomic_u32",
        HistogramAlgorithm::SharedPrivate => "hist_shared",
        HistogramAlgorithm::WarpPrivate => "hist_warp_private",
        HistogramAlgorithm::LanePrivate => "hist_lane_private",
        HistogramAlgorithm::Auto => "hist_bytes",
        HistogramAlgorithm::CpuPrivate => {
            return Err(Error::Unsupported(
                "cpu-private runs on the CPU backend".into(),
            ))
        }
    })
}

pub(crate) fn bins_spec(d: DType) -> Result<ModuleSpec> {
    let (t, float, double) = match d {
        DType::U8 => ("u8", 0, 0),
        DType::U16 => ("u16", 0, 0),
        DType::U32 => ("u32", 0, 0),
        DType::I8 => ("i8", 0, 0),
        DType::I16 => ("i16", 0, 0),
        DType::I32 => ("i32", 0, 0),
        DType::F32 => ("float", 1, 0),
        DType::F64 => ("double", 1, 1),
        other => {
            return Err(Error::Unsupported(format!(
                "CUDA even/range histograms do not support {other} samples"
            )))
        }
    };
    Ok(ModuleSpec::new(KernelFile::HistogramBins)
        .define("THREADS", hist_bins_threads())
        .define("SAMPLE_T", t)
        .define("SAMPLE_FLOAT", float)
        .define("SAMPLE_DOUBLE", double))
}

/// A sample value as a kernel argument of the sample's own type.
fn sample_arg<T: Sample>(x: T) -> KArg {
    let b = bytemuck::bytes_of(&x);
    match T::DTYPE {
        DType::U8 => KArg::U8(b[0]),
        DType::I8 => KArg::I8(b[0] as i8),
        DType::U16 => KArg::U16(bytemuck::pod_read_unaligned(b)),
        DType::I16 => KArg::I16(bytemuck::pod_read_unaligned(b)),
        DType::U32 => KArg::U32(bytemuck::pod_read_unaligned(b)),
        DType::I32 => KArg::I32(bytemuck::pod_read_unaligned(b)),
        DType::F32 => KArg::F32(bytemuck::pod_read_unaligned(b)),
        DType::F64 => KArg::F64(bytemuck::pod_read_unaligned(b)),
        DType::U64 => KArg::U64(bytemuck::pod_read_unaligned(b)),
        DType::I64 => KArg::I64(bytemuck::pod_read_unaligned(b)),
        DType::U128 | DType::I128 => KArg::U64(0),
    }
}

impl CudaBackend {
    /// Zeroes `bins` 32-bit counters.
    /// A buffer of `bins` zeroed 32-bit counters.
    pub fn zeroed_counts(&self, bins: usize) -> Result<DeviceBuffer<u32>> {
        let mut h = DeviceBuffer::<u32>::alloc(self, bins)?;
        self.stream
            .memset_zeros(&mut h.bytes)
            .map_err(|e| super::driver_err("cuMemsetD8Async", e))?;
        Ok(h)
    }

    /// Runs `launch(first_sample, samples, counters)` over chunks of at most HIST_CHUNK
    /// samples, each into fresh 32-bit counters (which cannot overflow), and sums the chunks'
    /// counts in 64 bits. Every histogram variant with 32-bit counters goes through here.
    fn counts_in_chunks(
        &self,
        n: u64,
        bins: usize,
        launch: impl FnMut(u64, u64, u64) -> Result<()>,
    ) -> Result<Vec<u64>> {
        self.counts_in_chunks_of(n, bins, HIST_CHUNK, launch)
    }

    /// [`Self::counts_in_chunks`] with chunks of `chunk` samples (at most `HIST_CHUNK`). The
    /// counters are not zeroed here: every `enqueue_histogram_*` writes all of its counters.
    fn counts_in_chunks_of(
        &self,
        n: u64,
        bins: usize,
        chunk: u64,
        mut launch: impl FnMut(u64, u64, u64) -> Result<()>,
    ) -> Result<Vec<u64>> {
        let chunk = chunk.clamp(1, HIST_CHUNK);
        let mut total = vec![0u64; bins];
        let mut start = 0u64;
        while start < n {
            let len = (n - start).min(chunk);
            let h = DeviceBuffer::<u32>::alloc(self, bins)?;
            launch(start, len, h.device_ptr(self))?;
            for (t, c) in total.iter_mut().zip(h.download(self)?) {
                *t += c as u64;
            }
            start += len;
        }
        Ok(total)
    }

    /// Enqueues the 256-bin byte histogram of `n` bytes at `data` and writes it to the 256
    /// 32-bit counters at `hist` (which need not be zeroed; `n` < 2^32, or the counts wrap).
    /// `auto` takes one launch and reads `data` at any alignment. The seeds' variants add to
    /// counters that a memset zeroes first, and need `data` aligned to their loads: 4 bytes
    /// for global-atomic-unrolled, 16 for shared, warp- and lane-private.
    pub fn enqueue_histogram_u8(
        &self,
        a: HistogramAlgorithm,
        data: u64,
        n: u64,
        hist: u64,
    ) -> Result<()> {
        let name = u8_kernel(a)?;
        if n > u32::MAX as u64 {
            return Err(Error::invalid(format!(
                "{n} bytes in one byte-histogram launch overflow its 32-bit counters"
            )));
        }
        if a == HistogramAlgorithm::Auto {
            return self.enqueue_histogram_bytes(data, n, hist);
        }
        let align = match a {
            HistogramAlgorithm::GlobalAtomic => 1,
            HistogramAlgorithm::GlobalAtomicUnrolled => 4,
            _ => 16,
        };
        if !data.is_multiple_of(align) {
            return Err(Error::invalid(format!(
                "histogram variant '{a}' reads {align}-byte words and needs data aligned to \
                 {align} bytes (address {data:#x}); auto reads any alignment"
            )));
        }
        self.memset0(hist, 256 * 4)?;
        let f = self.function(&u8_spec(), name)?;
        let grid = self.grid_stride_blocks(n / 16 + 1, HIST_THREADS);
        self.launch(
            &f,
            name,
            grid,
            HIST_THREADS,
            0,
            &[KArg::U64(hist), KArg::U64(data), KArg::U64(n)],
        )
    }

    /// One launch of `hist_bytes`: the counts of `n` (< 2^32) bytes at `data` written to
    /// `hist`, on a grid of one wave of resident blocks.
    fn enqueue_histogram_bytes(&self, data: u64, n: u64, hist: u64) -> Result<()> {
        let threads = hist_bytes_threads();
        let (f, per_sm) = self.resident_function(&bytes_spec(), "hist_bytes", threads, 0)?;
        let wave = per_sm as u64 * self.info.sm_count.max(1) as u64;
        // Two 16-byte vectors per thread at least, one block for an empty input.
        let grid = (n / 32).div_ceil(threads as u64).clamp(1, wave) as u32;
        let acc = self.hist_accumulator()?;
        self.launch(
            &f,
            "hist_bytes",
            grid,
            threads,
            0,
            &[
                KArg::U64(hist),
                KArg::U64(acc),
                KArg::U64(data),
                KArg::U64(n),
            ],
        )
    }

    /// The device address of `hist_bytes`'s accumulator (257 counters, zero between
    /// launches), allocated and zeroed on the stream on first use.
    fn hist_accumulator(&self) -> Result<u64> {
        let mut acc = self.hist_acc.lock().unwrap_or_else(|p| p.into_inner());
        if acc.is_none() {
            *acc = Some(self.zeroed_counts(257)?);
        }
        Ok(acc.as_ref().map_or(0, |a| a.device_ptr(self)))
    }

    /// Device-resident byte histogram into 256 bins.
    pub fn histogram_u8_device(
        &self,
        data: &DeviceBuffer<u8>,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        let base = data.device_ptr(self);
        self.counts_in_chunks(data.len() as u64, 256, |start, len, hist| {
            self.enqueue_histogram_u8(algorithm, base + start, len, hist)
        })
    }

    pub fn histogram_u8(&self, data: &[u8], algorithm: HistogramAlgorithm) -> Result<Vec<u64>> {
        u8_kernel(algorithm)?;
        let _guard = self.lock();
        let d = DeviceBuffer::upload(self, data)?;
        self.histogram_u8_device(&d, algorithm)
    }

    fn check_bins_algorithm(a: HistogramAlgorithm) -> Result<bool> {
        match a {
            HistogramAlgorithm::Auto | HistogramAlgorithm::SharedPrivate => Ok(true),
            HistogramAlgorithm::GlobalAtomic => Ok(false),
            other => Err(Error::Unsupported(format!(
                "histogram variant '{other}' supports only 8-bit samples into 256 bins"
            ))),
        }
    }

    /// Sub-histograms per block for `bins` counters next to `extra` bytes of shared data: as
    /// many copies (32, 16, ..., 2) as fit in `HIST_BINS_COPIES_BYTES`, one while a single
    /// copy fits in `HIST_SHARED_BYTES`, else 0 (global counters).
    fn bins_copies(bins: usize, extra: usize, private: bool) -> u32 {
        let bytes = |c: u32| Self::bins_shared_bytes(bins, c, extra);
        if !private {
            return 0;
        }
        for c in [32, 16, 8, 4, 2] {
            if bytes(c) <= HIST_BINS_COPIES_BYTES as usize {
                return c;
            }
        }
        if bytes(1) <= HIST_SHARED_BYTES as usize {
            1
        } else {
            0
        }
    }

    /// Shared memory of a bins kernel with `copies` sub-histograms of `bins` 32-bit counters
    /// (kept as pairs in 8-byte words) next to `extra` bytes; 0 copies is global counters.
    fn bins_shared_bytes(bins: usize, copies: u32, extra: usize) -> usize {
        if copies == 0 {
            0
        } else {
            (bins * copies as usize).div_ceil(2) * 8 + extra
        }
    }

    /// What the even-bin histogram accepts, checked before anything is launched (also for
    /// empty inputs, which launch nothing): its module, whether it privatises, and the bins.
    fn check_even<T: Sample>(
        bins: usize,
        lower: T,
        upper: T,
        algorithm: HistogramAlgorithm,
    ) -> Result<(ModuleSpec, bool, T::Even)> {
        let spec = bins_spec(T::DTYPE)?;
        let private = Self::check_bins_algorithm(algorithm)?;
        let even = T::even(lower, upper, bins)?;
        if bins > u32::MAX as usize {
            return Err(Error::Unsupported("more than 2^32 - 1 bins".into()));
        }
        Ok((spec, private, even))
    }

    /// One launch of a bins kernel over `n` (< 2^32) samples, on the grid both kernels use.
    fn launch_bins(
        &self,
        spec: &ModuleSpec,
        name: &str,
        n: u64,
        shared: usize,
        args: &[KArg],
    ) -> Result<()> {
        if n >= 1 << 32 {
            return Err(Error::invalid(format!(
                "{n} samples in one launch overflow 32-bit counters"
            )));
        }
        let f = self.function(spec, name)?;
        // As many blocks as fill the SMs' thread slots, fewer when there is little to do.
        let threads = hist_bins_threads();
        let cap = self.info.sm_count.max(1) as u64 * (2048 / threads).max(1) as u64;
        let grid = n.div_ceil(4 * threads as u64).clamp(1, cap) as u32;
        self.launch(&f, name, grid, threads, shared as u32, args)
    }

    /// Enqueues (without waiting) the even-bin histogram of `n` samples of `T` at `data` (any
    /// element-aligned device address; `n` < 2^32) and writes it to the `bins` 32-bit counters
    /// at `hist` (zeroed on the stream first, then counted into).
    #[allow(clippy::too_many_arguments)] // the histogram's own parameters
    pub fn enqueue_histogram_even<T: Sample>(
        &self,
        data: u64,
        n: u64,
        bins: usize,
        lower: T,
        upper: T,
        hist: u64,
        algorithm: HistogramAlgorithm,
    ) -> Result<()> {
        let (spec, private, even) = Self::check_even(bins, lower, upper, algorithm)?;
        // The float scale is computed once, on the host, exactly as the reference does.
        let scale = sample_arg(T::even_scale(&even));
        // Integer samples (at most 32 bits on the GPU): the range and its reciprocal.
        let range = if T::DTYPE.is_float() {
            1
        } else {
            (upper.to_f64() - lower.to_f64()) as u64
        };
        let magic = u64::MAX / range.max(1);
        let copies = Self::bins_copies(bins, 0, private);
        self.memset0(hist, bins * 4)?;
        self.launch_bins(
            &spec,
            "hist_even",
            n,
            Self::bins_shared_bytes(bins, copies, 0),
            &[
                KArg::U64(hist),
                KArg::U64(data),
                KArg::U64(n),
                sample_arg(lower),
                sample_arg(upper),
                scale,
                KArg::U64(range),
                KArg::U64(magic),
                KArg::U32(bins as u32),
                KArg::U32(copies),
            ],
        )
    }

    /// Even bins over `[lower, upper)` for samples already on the device.
    pub fn histogram_even_device<T: Sample>(
        &self,
        data: &DeviceBuffer<T>,
        bins: usize,
        lower: T,
        upper: T,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        Self::check_even(bins, lower, upper, algorithm)?;
        let base = data.device_ptr(self);
        let size = std::mem::size_of::<T>() as u64;
        self.counts_in_chunks(data.len() as u64, bins, |start, len, hist| {
            self.enqueue_histogram_even(
                base + start * size,
                len,
                bins,
                lower,
                upper,
                hist,
                algorithm,
            )
        })
    }

    pub fn histogram_even<T: Sample>(
        &self,
        data: &[T],
        bins: usize,
        lower: T,
        upper: T,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        bins_spec(T::DTYPE)?;
        Self::check_bins_algorithm(algorithm)?;
        let _guard = self.lock();
        let d = DeviceBuffer::upload(self, data)?;
        self.histogram_even_device(&d, bins, lower, upper, algorithm)
    }

    /// What the range-bin histogram accepts for `num_bounds` boundaries: its module and
    /// whether it privatises.
    fn check_range<T: Sample>(
        num_bounds: usize,
        algorithm: HistogramAlgorithm,
    ) -> Result<(ModuleSpec, bool)> {
        let spec = bins_spec(T::DTYPE)?;
        let private = Self::check_bins_algorithm(algorithm)?;
        if !(2..=u32::MAX as usize).contains(&num_bounds) {
            return Err(Error::invalid(format!(
                "range bins need 2 to 2^32 - 1 boundaries, got {num_bounds}"
            )));
        }
        Ok((spec, private))
    }

    /// Enqueues (without waiting) the range-bin histogram of `n` samples of `T` at `data` (any
    /// element-aligned device address; `n` < 2^32) with the `num_bounds` checked boundaries at
    /// device address `bounds`, written to the `num_bounds - 1` 32-bit counters at `hist`
    /// (zeroed on the stream first, then counted into).
    #[allow(clippy::too_many_arguments)] // the histogram's own parameters
    pub fn enqueue_histogram_range<T: Sample>(
        &self,
        data: u64,
        n: u64,
        bounds: u64,
        num_bounds: usize,
        hist: u64,
        algorithm: HistogramAlgorithm,
    ) -> Result<()> {
        let (spec, private) = Self::check_range::<T>(num_bounds, algorithm)?;
        let bins = num_bounds - 1;
        let bounds_bytes = num_bounds * std::mem::size_of::<T>();
        let copies = Self::bins_copies(bins, bounds_bytes, private);
        self.memset0(hist, bins * 4)?;
        self.launch_bins(
            &spec,
            "hist_range",
            n,
            Self::bins_shared_bytes(bins, copies, bounds_bytes),
            &[
                KArg::U64(hist),
                KArg::U64(data),
                KArg::U64(n),
                KArg::U64(bounds),
                KArg::U32(num_bounds as u32),
                KArg::U32(copies),
            ],
        )
    }

    /// Range bins for samples already on the device.
    pub fn histogram_range_device<T: Sample>(
        &self,
        data: &DeviceBuffer<T>,
        boundaries: &[T],
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        crate::sample::check_boundaries(boundaries)?;
        if boundaries.len() > u32::MAX as usize {
            return Err(Error::Unsupported("more than 2^32 - 1 boundaries".into()));
        }
        Self::check_range::<T>(boundaries.len(), algorithm)?;
        let bounds = DeviceBuffer::upload(self, boundaries)?;
        let base = data.device_ptr(self);
        let size = std::mem::size_of::<T>() as u64;
        self.counts_in_chunks(
            data.len() as u64,
            boundaries.len() - 1,
            |start, len, hist| {
                self.enqueue_histogram_range::<T>(
                    base + start * size,
                    len,
                    bounds.device_ptr(self),
                    boundaries.len(),
                    hist,
                    algorithm,
                )
            },
        )
    }

    pub fn histogram_range<T: Sample>(
        &self,
        data: &[T],
        boundaries: &[T],
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        bins_spec(T::DTYPE)?;
        Self::check_bins_algorithm(algorithm)?;
        let _guard = self.lock();
        let d = DeviceBuffer::upload(self, data)?;
        self.histogram_range_device(&d, boundaries, algorithm)
    }
}

impl CudaBackend {
    /// Bins of one pass of the 16-bit histogram: all 65536 where the opt-in shared memory holds
    /// 65536 16-bit counters (128 KiB: sm_80, sm_90 and later), else the largest power of two
    /// that fits, with one pass over the data per bin range.
    fn hist16_bins_per_pass(&self) -> Result<u32> {
        let words = (self.info.shared_per_block_optin / 4) as u64;
        let mut bins = U16_BINS as u64;
        while bins / 2 > words {
            bins /= 2;
        }
        if bins < 2 {
            return Err(Error::Unsupported(
                "the device has too little shared memory for 16-bit histograms".into(),
            ));
        }
        Ok(bins as u32)
    }

    /// Enqueues a 65536-bin histogram of `n` 16-bit samples at `data` (any 2-byte aligned
    /// address; fewer than 2^32 samples) and writes it to the 65536 32-bit counters at `hist`
    /// (zeroed on the stream first, then counted into).
    pub fn enqueue_histogram_u16(&self, data: u64, n: u64, hist: u64) -> Result<()> {
        let bins = self.hist16_bins_per_pass()?;
        self.enqueue_histogram_u16_passes(data, n, hist, bins)
    }

    /// [`Self::enqueue_histogram_u16`] in passes of `bins` bins (an even divisor of 65536 whose
    /// 16-bit counters fit the device): what devices with less shared memory run; public so
    /// that tests reach that path on any device.
    #[doc(hidden)]
    pub fn enqueue_histogram_u16_passes(
        &self,
        data: u64,
        n: u64,
        hist: u64,
        bins: u32,
    ) -> Result<()> {
        if bins < 2
            || !(U16_BINS as u32).is_multiple_of(bins)
            || bins > self.hist16_bins_per_pass()?
        {
            return Err(Error::invalid(format!(
                "{bins} bins per pass of a 16-bit histogram: not an even divisor of 65536 that fits"
            )));
        }
        if n > u32::MAX as u64 {
            return Err(Error::invalid(format!(
                "{n} samples in one 16-bit histogram launch overflow its 32-bit counters"
            )));
        }
        self.memset0(hist, U16_BINS * 4)?;
        if n == 0 {
            return Ok(());
        }
        let f = self.function(&u16_spec(), "hist_u16")?;
        let shared = bins * 2;
        if shared > 48 * 1024 {
            super::allow_dynamic_shared(&f, shared, "hist_u16")?;
        }
        let grid = n
            .div_ceil(HIST16_MIN_SAMPLES_PER_BLOCK)
            .clamp(1, self.info.sm_count.max(1) as u64) as u32;
        let mut lo = 0u32;
        while (lo as usize) < U16_BINS {
            self.launch(
                &f,
                "hist_u16",
                grid,
                HIST16_THREADS,
                shared,
                &[
                    KArg::U64(hist + lo as u64 * 4),
                    KArg::U64(data),
                    KArg::U64(n),
                    KArg::U32(lo),
                    KArg::U32(bins),
                ],
            )?;
            lo += bins;
        }
        Ok(())
    }

    /// Device-resident histogram of 16-bit samples into 65536 bins.
    pub fn histogram_u16_device(
        &self,
        data: &DeviceBuffer<u16>,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        check_shared_only(algorithm, "16-bit histograms")?;
        let base = data.device_ptr(self);
        self.counts_in_chunks(data.len() as u64, U16_BINS, |start, len, hist| {
            self.enqueue_histogram_u16(base + start * 2, len, hist)
        })
    }

    pub fn histogram_u16(&self, data: &[u16], algorithm: HistogramAlgorithm) -> Result<Vec<u64>> {
        check_shared_only(algorithm, "16-bit histograms")?;
        let _guard = self.lock();
        let d = DeviceBuffer::upload(self, data)?;
        self.histogram_u16_device(&d, algorithm)
    }

    /// Enqueues `channels` 256-bin histograms of `n` interleaved bytes at `data` (byte i in
    /// channel i % channels), written to `channels * 256` 32-bit counters at `hist` (zeroed on
    /// the stream first, then counted into).
    pub fn enqueue_histogram_channels(
        &self,
        channels: usize,
        data: u64,
        n: u64,
        hist: u64,
    ) -> Result<()> {
        crate::sample::check_channels(n as usize, channels)?;
        if n > u32::MAX as u64 {
            return Err(Error::invalid(format!(
                "{n} bytes in one multi-channel histogram launch overflow its 32-bit counters"
            )));
        }
        self.memset0(hist, channels * 256 * 4)?;
        if n == 0 {
            return Ok(());
        }
        let name = match channels {
            1 => "hist_channels_1",
            2 => "hist_channels_2",
            3 => "hist_channels_3",
            _ => "hist_channels_4",
        };
        let f = self.function(&channels_spec(), name)?;
        let grid = self.grid_stride_blocks(n / 16 + 1, HIST_CHANNELS_THREADS);
        self.launch(
            &f,
            name,
            grid,
            HIST_CHANNELS_THREADS,
            0,
            &[KArg::U64(hist), KArg::U64(data), KArg::U64(n)],
        )
    }

    /// Device-resident multi-channel byte histograms: `channels` histograms of 256 bins.
    pub fn histogram_channels_device(
        &self,
        data: &DeviceBuffer<u8>,
        channels: usize,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<Vec<u64>>> {
        check_shared_only(algorithm, "multi-channel histograms")?;
        crate::sample::check_channels(data.len(), channels)?;
        let base = data.device_ptr(self);
        // Chunks start on pixel boundaries, so byte i of a chunk is still in channel i % C.
        let chunk = HIST_CHUNK - HIST_CHUNK % channels as u64;
        let flat = self.counts_in_chunks_of(
            data.len() as u64,
            channels * 256,
            chunk,
            |start, len, hist| self.enqueue_histogram_channels(channels, base + start, len, hist),
        )?;
        Ok(flat.chunks(256).map(<[u64]>::to_vec).collect())
    }

    pub fn histogram_channels_u8(
        &self,
        data: &[u8],
        channels: usize,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<Vec<u64>>> {
        check_shared_only(algorithm, "multi-channel histograms")?;
        crate::sample::check_channels(data.len(), channels)?;
        let _guard = self.lock();
        let d = DeviceBuffer::upload(self, data)?;
        self.histogram_channels_device(&d, channels, algorithm)
    }
}
