//! Histogram launch sequences (kernels/histogram.cu and kernels/histogram_bins.cu).

use super::launch::{DeviceBuffer, KArg};
use super::{CudaBackend, KernelFile, ModuleSpec};
use crate::algorithm::HistogramAlgorithm;
use crate::error::{Error, Result};
use crate::key::DType;
use crate::sample::Sample;
use crate::tuning::cuda::{HIST_CHUNK, HIST_SHARED_BYTES, HIST_THREADS};

pub(crate) fn u8_spec() -> ModuleSpec {
    ModuleSpec::new(KernelFile::Histogram).define("THREADS", HIST_THREADS)
}

/// The entry point of a byte-histogram variant.
fn u8_kernel(a: HistogramAlgorithm) -> Result<&'static str> {
    Ok(match a {
        HistogramAlgorithm::GlobalAtomic => "hist_global_atomic",
        HistogramAlgorithm::GlobalAtomicUnrolled => "hist_global_atomic_u32",
        HistogramAlgorithm::SharedPrivate => "hist_shared",
        HistogramAlgorithm::WarpPrivate => "hist_warp_private",
        HistogramAlgorithm::LanePrivate | HistogramAlgorithm::Auto => "hist_lane_private",
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
        .define("THREADS", HIST_THREADS)
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
        mut launch: impl FnMut(u64, u64, u64) -> Result<()>,
    ) -> Result<Vec<u64>> {
        let mut total = vec![0u64; bins];
        let mut start = 0u64;
        while start < n {
            let len = (n - start).min(HIST_CHUNK);
            let h = self.zeroed_counts(bins)?;
            launch(start, len, h.device_ptr(self))?;
            for (t, c) in total.iter_mut().zip(h.download(self)?) {
                *t += c as u64;
            }
            start += len;
        }
        Ok(total)
    }

    /// Enqueues a 256-bin byte histogram of `n` bytes at `data` into the counters at `hist`,
    /// in chunks whose counts fit 32 bits (chunk starts stay 16-byte aligned).
    pub fn enqueue_histogram_u8(
        &self,
        a: HistogramAlgorithm,
        data: u64,
        n: u64,
        hist: u64,
    ) -> Result<()> {
        let name = u8_kernel(a)?;
        let f = self.function(&u8_spec(), name)?;
        let mut start = 0u64;
        while start < n {
            let len = (n - start).min(HIST_CHUNK);
            let grid = self.grid_stride_blocks(len / 16 + 1, HIST_THREADS);
            self.launch(
                &f,
                name,
                grid,
                HIST_THREADS,
                0,
                &[KArg::U64(hist), KArg::U64(data + start), KArg::U64(len)],
            )?;
            start += len;
        }
        Ok(())
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

    /// Even bins over `[lower, upper)` for samples already on the device.
    pub fn histogram_even_device<T: Sample>(
        &self,
        data: &DeviceBuffer<T>,
        bins: usize,
        lower: T,
        upper: T,
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        let spec = bins_spec(T::DTYPE)?;
        let want_private = Self::check_bins_algorithm(algorithm)?;
        let even = T::even(lower, upper, bins)?;
        if bins > u32::MAX as usize {
            return Err(Error::Unsupported("more than 2^32 - 1 bins".into()));
        }
        // The float scale is computed once, on the host, exactly as the reference does.
        let scale = sample_arg(T::even_scale(&even));
        let privatize = want_private && bins * 4 <= HIST_SHARED_BYTES as usize;
        let f = self.function(&spec, "hist_even")?;
        let base = data.device_ptr(self);
        let size = std::mem::size_of::<T>() as u64;
        self.counts_in_chunks(data.len() as u64, bins, |start, len, hist| {
            let grid = self.grid_stride_blocks(len, HIST_THREADS);
            let ptr = base + start * size;
            self.launch(
                &f,
                "hist_even",
                grid,
                HIST_THREADS,
                if privatize { (bins * 4) as u32 } else { 0 },
                &[
                    KArg::U64(hist),
                    KArg::U64(ptr),
                    KArg::U64(len),
                    sample_arg(lower),
                    sample_arg(upper),
                    scale,
                    KArg::U32(bins as u32),
                    KArg::U32(privatize as u32),
                ],
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

    /// Range bins for samples already on the device.
    pub fn histogram_range_device<T: Sample>(
        &self,
        data: &DeviceBuffer<T>,
        boundaries: &[T],
        algorithm: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        let spec = bins_spec(T::DTYPE)?;
        let want_private = Self::check_bins_algorithm(algorithm)?;
        crate::sample::check_boundaries(boundaries)?;
        if boundaries.len() > u32::MAX as usize {
            return Err(Error::Unsupported("more than 2^32 - 1 boundaries".into()));
        }
        let bins = boundaries.len() - 1;
        let shared = bins.div_ceil(2) * 8 + std::mem::size_of_val(boundaries);
        let privatize = want_private && shared <= HIST_SHARED_BYTES as usize;
        let bounds = DeviceBuffer::upload(self, boundaries)?;
        let f = self.function(&spec, "hist_range")?;
        let base = data.device_ptr(self);
        let size = std::mem::size_of::<T>() as u64;
        self.counts_in_chunks(data.len() as u64, bins, |start, len, hist| {
            let grid = self.grid_stride_blocks(len, HIST_THREADS);
            let ptr = base + start * size;
            self.launch(
                &f,
                "hist_range",
                grid,
                HIST_THREADS,
                if privatize { shared as u32 } else { 0 },
                &[
                    KArg::U64(hist),
                    KArg::U64(ptr),
                    KArg::U64(len),
                    KArg::U64(bounds.device_ptr(self)),
                    KArg::U32(boundaries.len() as u32),
                    KArg::U32(privatize as u32),
                ],
            )
        })
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
