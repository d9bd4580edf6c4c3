//! Device-wide prefix sums: the single-pass decoupled look-back scan (kernels/scan_lookback.cu;
//! the default is its pipelined kernel on sm_90 and later, the classic one elsewhere) and
//! reduce-then-scan (kernels/scan.cu; the sort's histogram scan uses it, since
//! its fixed launch sequence is captured into graphs and the look-back's epochs change per
//! launch).

use std::sync::atomic::{AtomicU32, Ordering};

use cudarc::driver::{CudaFunction, CudaSlice};

use super::launch::{DeviceBuffer, KArg};
use super::{dptr, CudaBackend, KernelFile, ModuleSpec};
use crate::algorithm::{ScanAlgorithm, ScanKind};
use crate::error::{Error, Result};
use crate::key::DType;
use crate::sample::ScanElem;
use crate::tuning::cuda::{
    scan_lb_shape, scan_lb_tile, scan_pipe_shape, SCAN_ITEMS, SCAN_LB_DELAY_FIRST,
    SCAN_LB_DELAY_RETRY, SCAN_LB_STORE_STREAMING, SCAN_THREADS, SCAN_TILE,
};

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

/// The module of the decoupled look-back scan for elements of type `d`.
pub fn scan_lookback_spec(d: DType) -> Result<ModuleSpec> {
    let shape = scan_lb_shape();
    Ok(ModuleSpec::new(KernelFile::ScanLookback)
        .define("THREADS", shape.threads)
        .define("VECS", shape.vecs)
        .define("LB_WINDOWS", shape.windows)
        .define("MIN_BLOCKS", shape.min_blocks)
        .define("LB_DELAY_FIRST", SCAN_LB_DELAY_FIRST)
        .define("LB_DELAY_RETRY", SCAN_LB_DELAY_RETRY)
        .define("STORE_STREAMING", SCAN_LB_STORE_STREAMING)
        .define("SCAN_T", cuda_type(d)?)
        .define("SCAN_T_BYTES", d.size()))
}

/// The module of the pipelined look-back scan (sm_90 and later) for elements of type `d`.
pub fn scan_pipelined_spec(d: DType) -> Result<ModuleSpec> {
    let shape = scan_pipe_shape();
    Ok(ModuleSpec::new(KernelFile::ScanLookback)
        .define("THREADS", shape.threads())
        .define("VECS", shape.vecs)
        .define("PIPE_CONSUMERS", shape.consumers)
        .define("PIPE_STAGES", shape.stages)
        .define("LB_WINDOWS", scan_lb_shape().windows)
        .define("MIN_BLOCKS", shape.min_blocks)
        .define("LB_DELAY_FIRST", SCAN_LB_DELAY_FIRST)
        .define("LB_DELAY_RETRY", SCAN_LB_DELAY_RETRY)
        .define("STORE_STREAMING", SCAN_LB_STORE_STREAMING)
        .define("SCAN_T", cuda_type(d)?)
        .define("SCAN_T_BYTES", d.size()))
}

/// Largest epoch of the look-back status words (30 bits; kernels/scan_lookback.cu).
const EPOCH_MAX: u32 = (1 << 30) - 1;

/// Scratch of the look-back scan: a tile counter and one status per tile, for elements of one
/// size. Launches on it are numbered (epochs), so that statuses left by an earlier launch read
/// as "not ready" and the scratch is cleared only when allocated and when the numbers wrap.
/// Launches that share a scratch must run one after another (the same stream).
pub struct LookbackScratch {
    buf: CudaSlice<u8>,
    elem_bytes: usize,
    cap_tiles: u64,
    epoch: AtomicU32,
}

impl LookbackScratch {
    /// Bytes of scratch for `cap` tiles of `elem_bytes` elements (the kernel's layout).
    fn bytes(elem_bytes: usize, cap: u64) -> usize {
        // 4-byte elements: one 64-bit status word per tile; 8-byte ones: two.
        16 + cap as usize * 2 * elem_bytes
    }

    /// Tiles the scratch has room for.
    pub fn capacity_tiles(&self) -> u64 {
        self.cap_tiles
    }

    /// Checks that a launch of `tiles` tiles of `elem_bytes` elements fits this scratch.
    fn check(&self, elem_bytes: usize, tiles: u64) -> Result<()> {
        if elem_bytes != self.elem_bytes {
            return Err(Error::invalid(format!(
                "look-back scratch made for {}-byte elements used for {elem_bytes}-byte ones",
                self.elem_bytes
            )));
        }
        if tiles > self.cap_tiles {
            return Err(Error::invalid(format!(
                "look-back scratch holds {} tiles, the scan needs {tiles}",
                self.cap_tiles
            )));
        }
        Ok(())
    }

    /// Sets the number of the last launch, so that tests can reach the wrap of the epochs
    /// (after 2^30 - 1 launches) without running them all.
    #[doc(hidden)]
    pub fn set_last_epoch(&self, epoch: u32) {
        self.epoch.store(epoch.min(EPOCH_MAX), Ordering::Relaxed);
    }
}

/// Tiles of a look-back scan of `n` elements of `elem_bytes` starting at device address `ptr`,
/// and the shift of `ptr` above the 16-byte boundary below it, in elements.
fn lookback_tiles(ptr: u64, n: u64, elem_bytes: usize) -> (u64, u32) {
    let shift = ((ptr % 16) / elem_bytes as u64) as u32;
    let tile = scan_lb_tile(elem_bytes as u32) as u64;
    ((n + shift as u64).div_ceil(tile), shift)
}

/// Scratch for the recursive tile sums of a scan of `n` elements of `elem_bytes` bytes.
pub struct ScanScratch {
    levels: Vec<CudaSlice<u8>>,
}

impl CudaBackend {
    /// Scratch for look-back scans of up to `n` elements of `elem_bytes` (4 or 8) at any
    /// alignment.
    pub fn lookback_scratch(&self, n: u64, elem_bytes: usize) -> Result<LookbackScratch> {
        if elem_bytes != 4 && elem_bytes != 8 {
            return Err(Error::Unsupported(format!(
                "look-back scans take 4- or 8-byte elements, not {elem_bytes}-byte ones"
            )));
        }
        // One more tile than an aligned start needs: a misaligned start can straddle one more.
        // The smaller tile of the two look-back kernels, so that either can use the scratch.
        let tile = scan_lb_tile(elem_bytes as u32).min(scan_pipe_shape().tile(elem_bytes as u32));
        let cap = n.div_ceil(tile as u64) + 1;
        let bytes = LookbackScratch::bytes(elem_bytes, cap);
        let mut buf = self.alloc::<u8>(bytes, "look-back scan status")?;
        self.stream
            .memset_zeros(&mut buf)
            .map_err(|e| super::driver_err("cuMemsetD8Async", e))?;
        Ok(LookbackScratch {
            buf,
            elem_bytes,
            cap_tiles: cap,
            epoch: AtomicU32::new(0),
        })
    }

    /// Enqueues (without waiting) a single-pass look-back scan of `n` elements of the type of
    /// `spec` (from [`scan_lookback_spec`]) from `input` to `output` (which may be equal; any
    /// element-aligned addresses).
    pub fn enqueue_scan_lookback(
        &self,
        spec: &ModuleSpec,
        input: u64,
        output: u64,
        n: u64,
        inclusive: bool,
        scratch: &LookbackScratch,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let elem_bytes = spec
            .defines
            .iter()
            .find(|(k, _)| k == "SCAN_T_BYTES")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .ok_or_else(|| Error::invalid("not a look-back scan module"))?;
        let (tiles, shift) = lookback_tiles(input, n, elem_bytes);
        scratch.check(elem_bytes, tiles)?;
        if tiles > i32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "a scan of {n} elements needs {tiles} tiles, more than one launch takes"
            )));
        }
        let epoch = self.next_epoch(scratch)?;
        let f = self.function(spec, "scan_lookback")?;
        self.launch(
            &f,
            "scan_lookback",
            tiles as u32,
            scan_lb_shape().threads,
            0,
            &[
                KArg::U64(input),
                KArg::U64(output),
                KArg::U64(n),
                KArg::U32(shift),
                KArg::U64(dptr(&scratch.buf, &self.stream)),
                KArg::U32(scratch.cap_tiles.min(u32::MAX as u64) as u32),
                KArg::U32(epoch),
                KArg::U32(inclusive as u32),
            ],
        )
    }

    /// Whether the pipelined scan runs here (an sm_90 or later device, and kernels compiled
    /// for it: an NVRTC that only knows older architectures builds the kernel as a stub) on
    /// these addresses (both 16-byte aligned).
    pub fn pipelined_scan_fits(&self, input: u64, output: u64) -> bool {
        self.info.compute_capability.0 >= 9
            && self.target.arch().0 >= 9
            && input.is_multiple_of(16)
            && output.is_multiple_of(16)
    }

    /// Enqueues (without waiting) the pipelined look-back scan of `n` elements of `d` from
    /// `input` to `output` (may be equal; both 16-byte aligned, on sm_90 or later).
    pub fn enqueue_scan_pipelined(
        &self,
        d: DType,
        input: u64,
        output: u64,
        n: u64,
        inclusive: bool,
        scratch: &LookbackScratch,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        if !self.pipelined_scan_fits(input, output) {
            return Err(Error::Unsupported(format!(
                "the pipelined scan needs sm_90 or later (this device is sm_{}{}, its kernels \
                 are compiled for {}) and 16-byte aligned input and output (offsets {} and {})",
                self.info.compute_capability.0,
                self.info.compute_capability.1,
                self.target,
                input % 16,
                output % 16
            )));
        }
        let shape = scan_pipe_shape();
        let tiles = n.div_ceil(shape.tile(d.size() as u32) as u64);
        scratch.check(d.size(), tiles)?;
        if tiles >= u32::MAX as u64 / 2 {
            return Err(Error::Unsupported(format!(
                "a scan of {n} elements needs {tiles} tiles, more than one launch takes"
            )));
        }
        let (f, per_sm) = self.pipelined_function(d)?;
        let grid = tiles.min(per_sm as u64 * self.info.sm_count as u64) as u32;
        let smem = shape.stage_bytes();
        let epoch = self.next_epoch(scratch)?;
        self.launch(
            &f,
            "scan_pipelined",
            grid,
            shape.threads(),
            smem,
            &[
                KArg::U64(input),
                KArg::U64(output),
                KArg::U64(n),
                KArg::U32(tiles as u32),
                KArg::U64(dptr(&scratch.buf, &self.stream)),
                KArg::U32(scratch.cap_tiles.min(u32::MAX as u64) as u32),
                KArg::U32(epoch),
                KArg::U32(inclusive as u32),
                KArg::U32(shape.first_delay(tiles)),
            ],
        )
    }

    /// The pipelined scan's function for elements of `d` and its resident blocks per SM. The
    /// first call per module sets the function's shared-memory limit (the stages exceed the
    /// default 48 KiB) and asks the occupancy; later launches reuse both.
    fn pipelined_function(&self, d: DType) -> Result<(CudaFunction, u32)> {
        let shape = scan_pipe_shape();
        self.resident_function(
            &scan_pipelined_spec(d)?,
            "scan_pipelined",
            shape.threads(),
            shape.stage_bytes(),
        )
    }

    /// The number of the next launch on `scratch` (clearing it when the numbers wrap).
    fn next_epoch(&self, scratch: &LookbackScratch) -> Result<u32> {
        let mut epoch = scratch.epoch.load(Ordering::Relaxed) + 1;
        if epoch > EPOCH_MAX {
            // Every epoch has been used: statuses of old launches could match again.
            // SAFETY: the scratch buffer is live and `bytes` long; stream-ordered.
            let bytes = LookbackScratch::bytes(scratch.elem_bytes, scratch.cap_tiles);
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    dptr(&scratch.buf, &self.stream),
                    0,
                    bytes,
                    self.stream.cu_stream(),
                )
            }
            .map_err(|e| super::driver_err("cuMemsetD8Async", e))?;
            epoch = 1;
        }
        scratch.epoch.store(epoch, Ordering::Relaxed);
        Ok(epoch)
    }

    /// Enqueues the look-back scan `algorithm` asks for (`Auto`: the pipelined kernel where
    /// the tuning (`SCAN_PIPE_AUTO`) chooses it and it fits these addresses, else the classic kernel).
    #[allow(clippy::too_many_arguments)] // the launch's own parameters, passed through
    pub fn enqueue_scan_lookback_any(
        &self,
        d: DType,
        algorithm: ScanAlgorithm,
        input: u64,
        output: u64,
        n: u64,
        inclusive: bool,
        scratch: &LookbackScratch,
    ) -> Result<()> {
        let pipelined = match algorithm {
            ScanAlgorithm::Pipelined => true,
            ScanAlgorithm::Auto => {
                scan_pipe_shape().auto && self.pipelined_scan_fits(input, output)
            }
            _ => false,
        };
        if pipelined {
            self.enqueue_scan_pipelined(d, input, output, n, inclusive, scratch)
        } else {
            self.enqueue_scan_lookback(
                &scan_lookback_spec(d)?,
                input,
                output,
                n,
                inclusive,
                scratch,
            )
        }
    }

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

    /// Device-resident scan with the default variant: `output` (same length as `input`) gets
    /// the prefix sums.
    pub fn scan_device<T: ScanElem>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        kind: ScanKind,
    ) -> Result<()> {
        self.scan_device_with(input, output, kind, ScanAlgorithm::Auto)
    }

    /// Device-resident scan with a chosen variant.
    pub fn scan_device_with<T: ScanElem>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        kind: ScanKind,
        algorithm: ScanAlgorithm,
    ) -> Result<()> {
        if input.len() != output.len() {
            return Err(Error::invalid(format!(
                "scan output has {} elements, input {}",
                output.len(),
                input.len()
            )));
        }
        let n = input.len() as u64;
        self.scan_raw::<T>(
            input.device_ptr(self),
            output.device_ptr(self),
            n,
            kind,
            algorithm,
        )?;
        self.sync()
    }

    /// Enqueues a scan of `n` elements of `T` between device addresses (any element-aligned
    /// ones; `input == output` is allowed), allocating the scratch it needs.
    fn scan_raw<T: ScanElem>(
        &self,
        input: u64,
        output: u64,
        n: u64,
        kind: ScanKind,
        algorithm: ScanAlgorithm,
    ) -> Result<()> {
        let inclusive = kind == ScanKind::Inclusive;
        let size = std::mem::size_of::<T>();
        match Self::resolve_scan(algorithm)? {
            ScanAlgorithm::ReduceThenScan => {
                let spec = scan_spec(T::DTYPE)?;
                let scratch = self.scan_scratch(n, size)?;
                self.enqueue_scan(&spec, input, output, n, inclusive, &scratch, 0)
            }
            a => {
                let scratch = self.lookback_scratch(n, size)?;
                self.enqueue_scan_lookback_any(T::DTYPE, a, input, output, n, inclusive, &scratch)
            }
        }
    }

    /// The CUDA variant a scan request runs (`Auto` stays: it is resolved per launch, by the
    /// addresses).
    fn resolve_scan(algorithm: ScanAlgorithm) -> Result<ScanAlgorithm> {
        match algorithm {
            a @ (ScanAlgorithm::Auto
            | ScanAlgorithm::DecoupledLookback
            | ScanAlgorithm::ReduceThenScan
            | ScanAlgorithm::Pipelined) => Ok(a),
            a => Err(Error::Unsupported(format!(
                "scan variant '{a}' does not run on the CUDA backend"
            ))),
        }
    }

    /// Host-slice scan: upload, scan on the device, download.
    pub fn scan_into<T: ScanElem>(
        &self,
        data: &[T],
        out: &mut [T],
        kind: ScanKind,
        algorithm: ScanAlgorithm,
    ) -> Result<()> {
        Self::resolve_scan(algorithm)?;
        scan_spec(T::DTYPE)?;
        if data.is_empty() {
            return Ok(());
        }
        let _guard = self.lock();
        let input = DeviceBuffer::upload(self, data)?;
        let mut output = DeviceBuffer::<T>::alloc(self, data.len())?;
        self.scan_device_with(&input, &mut output, kind, algorithm)?;
        output.copy_to_host(self, out)
    }
}
