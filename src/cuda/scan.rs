//! Device-wide prefix sums (reduce-then-scan, kernels/scan.cu). The sort's histogram scan uses
//! the same sequence.

use cudarc::driver::CudaSlice;

use super::launch::{DeviceBuffer, KArg};
use super::{dptr, CudaBackend, KernelFile, ModuleSpec};
use crate::algorithm::{ScanAlgorithm, ScanKind};
use crate::error::{Error, Result};
use crate::key::DType;
use crate::sample::ScanElem;
use crate::tuning::cuda::{SCAN_ITEMS, SCAN_THREADS, SCAN_TILE};

/// The CUDA type name of a scan element.
fn cuda_type(d: DType) -> Result<&'static str> {
    Ok(match d {
        DType::U32 => "u32",
        DType::U64 => "u64",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::F32 => "float",
        DType::F64 => "double",
        other => {
            return Err(Error::Unsupported(format!(
                "CUDA scans do not support {other}"
            )))
        }
    })
}

pub fn scan_spec(d: DType) -> Result<ModuleSpec> {
    Ok(ModuleSpec::new(KernelFile::Scan)
        .define("THREADS", SCAN_THREADS)
        .define("ITEMS", SCAN_ITEMS)
        .define("SCAN_T", cuda_type(d)?))
}

/// Scratch for the recursive tile sums of a scan of `n` elements of `elem_bytes` bytes.
pub struct ScanScratch {
    levels: Vec<CudaSlice<u8>>,
}

impl CudaBackend {
    pub fn scan_scratch(&self, n: u64, elem_bytes: usize) -> Result<ScanScratch> {
        let mut levels = Vec::new();
        let mut m = n;
        while m > SCAN_TILE as u64 {
            m = m.div_ceil(SCAN_TILE as u64);
            levels.push(self.alloc::<u8>(m as usize * elem_bytes, "scan tile sums")?);
        }
        Ok(ScanScratch { levels })
    }

    /// Enqueues (without waiting) a scan of `n` elements from `input` to `output` (may be
    /// equal); for timing with events. `spec` comes from [`scan_spec`].
    #[allow(clippy::too_many_arguments)] // the launch's own parameters, passed through
    pub fn enqueue_scan(
        &self,
        spec: &ModuleSpec,
        input: u64,
        output: u64,
        n: u64,
        inclusive: bool,
        scratch: &ScanScratch,
        level: usize,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let tiles_fn = self.function(spec, "scan_tiles")?;
        if n <= SCAN_TILE as u64 {
            return self.launch(
                &tiles_fn,
                "scan_tiles",
                1,
                SCAN_THREADS,
                0,
                &[
                    KArg::U64(input),
                    KArg::U64(output),
                    KArg::U64(0),
                    KArg::U64(n),
                    KArg::U32(inclusive as u32),
                ],
            );
        }
        let tiles = n.div_ceil(SCAN_TILE as u64);
        let sums = scratch
            .levels
            .get(level)
            .ok_or_else(|| Error::invalid("scan scratch too small"))?;
        let sums = dptr(sums, &self.stream);
        let sums_fn = self.function(spec, "scan_tile_sums")?;
        self.launch(
            &sums_fn,
            "scan_tile_sums",
            tiles as u32,
            SCAN_THREADS,
            0,
            &[KArg::U64(input), KArg::U64(sums), KArg::U64(n)],
        )?;
        self.enqueue_scan(spec, sums, sums, tiles, false, scratch, level + 1)?;
        self.launch(
            &tiles_fn,
            "scan_tiles",
            tiles as u32,
            SCAN_THREADS,
            0,
            &[
                KArg::U64(input),
                KArg::U64(output),
                KArg::U64(sums),
                KArg::U64(n),
                KArg::U32(inclusive as u32),
            ],
        )
    }

    /// Device-resident scan: `output` (same length as `input`) gets the prefix sums.
    pub fn scan_device<T: ScanElem>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        kind: ScanKind,
    ) -> Result<()> {
        if input.len() != output.len() {
            return Err(Error::invalid(format!(
                "scan output has {} elements, input {}",
                output.len(),
                input.len()
            )));
        }
        let spec = scan_spec(T::DTYPE)?;
        let n = input.len() as u64;
        let scratch = self.scan_scratch(n, std::mem::size_of::<T>())?;
        self.enqueue_scan(
            &spec,
            input.device_ptr(self),
            output.device_ptr(self),
            n,
            kind == ScanKind::Inclusive,
            &scratch,
            0,
        )?;
        self.sync()
    }

    /// Host-slice scan: upload, scan on the device, download.
    pub fn scan_into<T: ScanElem>(
        &self,
        data: &[T],
        out: &mut [T],
        kind: ScanKind,
        algorithm: ScanAlgorithm,
    ) -> Result<()> {
        match algorithm {
            ScanAlgorithm::Auto | ScanAlgorithm::ReduceThenScan => {}
            a => {
                return Err(Error::Unsupported(format!(
                    "scan variant '{a}' does not run on the CUDA backend"
                )))
            }
        }
        scan_spec(T::DTYPE)?;
        if data.is_empty() {
            return Ok(());
        }
        let _guard = self.lock();
        let input = DeviceBuffer::upload(self, data)?;
        let mut output = DeviceBuffer::<T>::alloc(self, data.len())?;
        self.scan_device(&input, &mut output, kind)?;
        output.copy_to_host(self, out)
    }
}
