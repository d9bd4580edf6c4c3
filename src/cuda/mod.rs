//! The CUDA backend: a context and stream on one device, kernels compiled by NVRTC on first use
//! (cached in memory and on disk, see [`compile`]), and the launch sequences of every primitive.
//!
//! cudarc loads libcuda and libnvrtc dynamically and panics on first use when one is missing,
//! so [`probe_libraries`] runs before any other CUDA call.

pub mod compile;
mod histogram;
mod launch;
mod scan;
mod sort;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{
    sys as drv, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr,
};

pub use compile::{KernelFile, ModuleSpec, Target};
pub use launch::DeviceBuffer;
pub use scan::{scan_lookback_spec, scan_pipelined_spec, scan_spec, LookbackScratch, ScanScratch};
pub use sort::SortPlan;

use crate::error::{Error, Result};

/// Checks that libcuda and libnvrtc can be loaded; `Err` says which is missing.
pub fn probe_libraries() -> std::result::Result<(), String> {
    // SAFETY: these only try to dlopen the libraries by their candidate names.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("the CUDA driver library (libcuda.so) was not found: no NVIDIA driver is installed, or it is not on the library path".into());
    }
    // SAFETY: as above.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("the NVRTC library (libnvrtc.so.13, .12, ...) was not found: install the CUDA toolkit or the `nvidia-cuda-nvrtc` wheel and add its lib folder to LD_LIBRARY_PATH".into());
    }
    Ok(())
}

pub(crate) fn driver_err(call: &str, e: cudarc::driver::DriverError) -> Error {
    Error::Cuda {
        call: call.to_string(),
        message: format!("{e}"),
    }
}

/// Lets kernel `f` (named `name` in errors) launch with up to `bytes` of dynamic shared memory
/// (beyond 48 KiB a kernel must opt in).
pub(crate) fn allow_dynamic_shared(f: &CudaFunction, bytes: u32, name: &str) -> Result<()> {
    f.set_attribute(
        drv::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        bytes as i32,
    )
    .map_err(|e| driver_err(&format!("cuFuncSetAttribute({name})"), e))
}

/// What `histosort info` and the benchmark records say about a device.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub sm_count: u32,
    pub l2_bytes: u64,
    pub total_memory: u64,
    pub shared_per_block_optin: u32,
    /// Shared memory of one SM, shared by its resident blocks.
    pub shared_per_sm: u32,
    /// e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
    pub nvrtc_version: (i32, i32),
    /// What the kernels are compiled to: `sm_90` (CUBIN) or `compute_XY` (PTX fallback).
    pub target: String,
}

impl DeviceInfo {
    pub fn driver_version_string(&self) -> String {
        format!(
            "{}.{}",
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10
        )
    }
}

/// Queries the driver version without creating a context.
pub fn driver_version() -> Result<i32> {
    let mut v = 0;
    // SAFETY: valid out-pointer; the library was probed by the caller.
    unsafe { drv::cuDriverGetVersion(&mut v) }
        .result()
        .map_err(|e| driver_err("cuDriverGetVersion", e))?;
    Ok(v)
}

/// A CUDA device with its context, a stream and the compiled kernels.
pub struct CudaBackend {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// A second stream for reading results back while `stream` keeps working (the onesweep
    /// sort reads its digit counts there while its first pass runs).
    side: Arc<CudaStream>,
    info: DeviceInfo,
    target: Target,
    modules: Arc<Mutex<HashMap<ModuleSpec, Arc<CudaModule>>>>,
    /// Resident blocks per SM of kernels whose grid is one wave, by module and entry point
    /// (their dynamic shared-memory limit set where they need one).
    resident: Mutex<HashMap<(ModuleSpec, &'static str), u32>>,
    /// The byte histogram's accumulator: 256 counters and a ticket, zero between launches
    /// (`hist_bytes` leaves it so); allocated on first use.
    hist_acc: Mutex<Option<DeviceBuffer<u32>>>,
    /// Serialises host-slice operations on the one stream.
    op_lock: Mutex<()>,
    plans: Mutex<Vec<SortPlan>>,
    /// The gaps `HISTOSORT_ALLOC_PAD` puts before each buffer, held as long as the backend.
    pads: Mutex<Vec<CudaSlice<u8>>>,
    /// Whether multi-kernel sequences chain their launches (programmatic dependent launch): an
    /// sm_90 or later device with kernels compiled for it, unless turned off
    /// ([`crate::tuning::cuda::chained_launches`]).
    chained: bool,
    /// Sorts that took the hybrid path, those whose bucket counts sent them to the LSD sort
    /// instead, and those of the first that took the packed hybrid (tests check which path ran).
    hybrid_runs: [std::sync::atomic::AtomicU64; 3],
    /// The shortest input of the hybrid sort for 32- and 64-bit keys, keys only and with values
    /// (index `2 * (key_bytes == 8) + pairs`; 0: off), from
    /// [`crate::tuning::cuda::hybrid_min`]; tests lower it on their own backend.
    hybrid_min: [std::sync::atomic::AtomicUsize; 4],
    /// The shortest pair sort that runs as packed pairs (0: off), from
    /// [`crate::tuning::cuda::packed_pairs_min`]; tests lower it on their own backend.
    packed_min: std::sync::atomic::AtomicUsize,
    /// Sorts enqueued as packed pairs (tests check which sorts take it).
    packed_runs: std::sync::atomic::AtomicU64,
    /// Whether passes whose order among equal digits is free rank without ballots
    /// ([`crate::tuning::cuda::free_rank`]); tests turn it off on their own backend.
    free_rank: std::sync::atomic::AtomicBool,
    /// Sorts enqueued with a freely ranked pass (tests check which sorts take it).
    free_runs: std::sync::atomic::AtomicU64,
}

impl CudaBackend {
    /// Opens device `ordinal`: probes the libraries, creates the context and a stream.
    pub fn new(ordinal: usize) -> Result<CudaBackend> {
        probe_libraries().map_err(|reason| Error::Unavailable {
            what: "CUDA".into(),
            reason,
        })?;
        let unavailable = |reason: String| Error::Unavailable {
            what: format!("CUDA device {ordinal}"),
            reason,
        };
        let count = CudaContext::device_count()
            .map_err(|e| unavailable(format!("cuInit/cuDeviceGetCount failed: {e}")))?;
        if count <= 0 {
            return Err(unavailable("the driver reports no CUDA device".into()));
        }
        if ordinal >= count as usize {
            return Err(unavailable(format!("only {count} device(s) present")));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| unavailable(format!("context creation failed: {e}")))?;
        // Event tracking serialises work through events on every buffer and breaks graph
        // capture; our launch sequences order themselves on one stream.
        // SAFETY: called before any allocation on this context.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx
            .new_stream()
            .map_err(|e| driver_err("cuStreamCreate", e))?;
        Self::with_stream(ctx, stream)
    }

    /// A backend on a stream of the caller's choosing (its context must have event tracking
    /// disabled before buffers are allocated if graph mode is used).
    pub fn with_stream(ctx: Arc<CudaContext>, stream: Arc<CudaStream>) -> Result<CudaBackend> {
        let attr = |a| {
            ctx.attribute(a)
                .map_err(|e| driver_err("cuDeviceGetAttribute", e))
        };
        let cc = ctx
            .compute_capability()
            .map_err(|e| driver_err("cuDeviceComputeCapability", e))?;
        let nvrtc_version = compile::nvrtc_version()?;
        let target = compile::target_for(cc.0, cc.1);
        let info = DeviceInfo {
            ordinal: ctx.ordinal(),
            name: ctx.name().map_err(|e| driver_err("cuDeviceGetName", e))?,
            compute_capability: cc,
            sm_count: attr(drv::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?
                as u32,
            l2_bytes: attr(drv::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64,
            total_memory: ctx
                .total_mem()
                .map_err(|e| driver_err("cuDeviceTotalMem", e))? as u64,
            shared_per_block_optin: attr(
                drv::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )? as u32,
            shared_per_sm: attr(
                drv::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            )? as u32,
            driver_version: driver_version()?,
            nvrtc_version,
            target: target.to_string(),
        };
        let side = ctx
            .new_stream()
            .map_err(|e| driver_err("cuStreamCreate", e))?;
        // The kernels' waits exist only in code built for sm_90 or later (an older NVRTC's PTX
        // for an older architecture has none), so both the device and the target must be.
        let chained = crate::tuning::cuda::chained_launches()
            && info.compute_capability.0 >= 9
            && target.arch().0 >= 9;
        Ok(CudaBackend {
            ctx,
            stream,
            side,
            info,
            target,
            modules: Arc::new(Mutex::new(HashMap::new())),
            resident: Mutex::new(HashMap::new()),
            hist_acc: Mutex::new(None),
            op_lock: Mutex::new(()),
            plans: Mutex::new(Vec::new()),
            pads: Mutex::new(Vec::new()),
            chained,
            hybrid_runs: Default::default(),
            hybrid_min: [(4, false), (4, true), (8, false), (8, true)].map(|(kb, pairs)| {
                std::sync::atomic::AtomicUsize::new(
                    crate::tuning::cuda::hybrid_min(kb, pairs).unwrap_or(0),
                )
            }),
            packed_min: std::sync::atomic::AtomicUsize::new(
                crate::tuning::cuda::packed_pairs_min().unwrap_or(0),
            ),
            packed_runs: Default::default(),
            free_rank: std::sync::atomic::AtomicBool::new(crate::tuning::cuda::free_rank()),
            free_runs: Default::default(),
        })
    }

    /// Sets the shortest input of the hybrid sort for keys of `key_bytes` bytes (4 or 8;
    /// `None`: off), with or without values, for the plans this backend makes from now on. For
    /// tests, which run it at sizes below the default.
    #[doc(hidden)]
    pub fn set_hybrid_min(&self, key_bytes: u32, min: Option<usize>) {
        let i = 2 * (key_bytes == 8) as usize;
        for m in &self.hybrid_min[i..i + 2] {
            m.store(min.unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Sets the shortest pair sort that runs as packed pairs (`None`: off) for the plans this
    /// backend makes from now on. For tests, which run it at sizes below the default.
    #[doc(hidden)]
    pub fn set_packed_min(&self, min: Option<usize>) {
        self.packed_min
            .store(min.unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
    }

    /// The shortest pair sort that runs as packed pairs, `None` where packing is off.
    pub(crate) fn packed_min(&self) -> Option<usize> {
        let m = self.packed_min.load(std::sync::atomic::Ordering::Relaxed);
        (m > 0).then_some(m)
    }

    /// Sorts enqueued as packed pairs so far on this backend.
    #[doc(hidden)]
    pub fn packed_runs(&self) -> u64 {
        self.packed_runs.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The hybrid sort's shortest input for keys of `key_bytes` bytes, keys only or with values
    /// (`pairs`), `None` where it is off.
    pub(crate) fn hybrid_min_for(&self, key_bytes: u32, pairs: bool) -> Option<usize> {
        if !matches!(key_bytes, 4 | 8) {
            return None;
        }
        let i = 2 * (key_bytes == 8) as usize + pairs as usize;
        let m = self.hybrid_min[i].load(std::sync::atomic::Ordering::Relaxed);
        (m > 0).then_some(m)
    }

    /// Turns the free ranking of the first pass of keys-only sorts on or off for the sorts this
    /// backend runs from now on (a captured graph keeps what it was captured with). For tests,
    /// which compare both.
    #[doc(hidden)]
    pub fn set_free_rank(&self, on: bool) {
        self.free_rank
            .store(on, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn free_rank(&self) -> bool {
        self.free_rank.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn note_free_rank(&self) {
        self.free_runs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many sorts so far were enqueued with a freely ranked pass (launches of a captured
    /// graph are not counted). For tests.
    #[doc(hidden)]
    pub fn free_rank_runs(&self) -> u64 {
        self.free_runs.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many sorts so far took the hybrid path, and how many found a chunk of buckets too
    /// large for it and ran the LSD sort. For tests.
    #[doc(hidden)]
    pub fn hybrid_runs(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.hybrid_runs[0].load(Relaxed),
            self.hybrid_runs[1].load(Relaxed),
        )
    }

    /// How many sorts so far took the packed hybrid (pairs of 4-byte keys and values, see
    /// `tuning::cuda::hybrid_min`). For tests.
    #[doc(hidden)]
    pub fn packed_hybrid_runs(&self) -> u64 {
        self.hybrid_runs[2].load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every operation of this backend is issued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    pub fn describe(&self) -> String {
        let i = &self.info;
        format!(
            "cuda:{} {} (sm_{}{}, {} SMs, driver {}, NVRTC {}.{}, kernels as {}{})",
            i.ordinal,
            i.name,
            i.compute_capability.0,
            i.compute_capability.1,
            i.sm_count,
            i.driver_version_string(),
            i.nvrtc_version.0,
            i.nvrtc_version.1,
            i.target,
            // The tiles tuned on this card rather than the H200 (tuning::cuda).
            if crate::tuning::cuda::is_h100(&i.name) {
                ", H100 tiles"
            } else {
                ""
            }
        )
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.op_lock.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Function `name` of module `spec` with the number of its blocks of `threads` threads and
    /// `dyn_smem` bytes of dynamic shared memory that an SM holds at once (at least 1). The
    /// first call per kernel raises its dynamic shared-memory limit to `dyn_smem` and asks the
    /// driver; later calls reuse the answer.
    pub(crate) fn resident_function(
        &self,
        spec: &ModuleSpec,
        name: &'static str,
        threads: u32,
        dyn_smem: u32,
    ) -> Result<(CudaFunction, u32)> {
        let f = self.function(spec, name)?;
        let mut known = self.resident.lock().unwrap_or_else(|p| p.into_inner());
        let key = (spec.clone(), name);
        if let Some(&per_sm) = known.get(&key) {
            return Ok((f, per_sm));
        }
        if dyn_smem > 0 {
            allow_dynamic_shared(&f, dyn_smem, name)?;
        }
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(threads, dyn_smem as usize, None)
            .map_err(|e| driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?
            .max(1);
        known.insert(key, per_sm);
        Ok((f, per_sm))
    }

    /// Loads (compiling on first use) the module `spec` and returns function `name` from it.
    pub fn function(&self, spec: &ModuleSpec, name: &str) -> Result<CudaFunction> {
        let module = {
            let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
            match modules.get(spec) {
                Some(m) => m.clone(),
                None => {
                    let (image, _cached) = compile::compile_cached(spec, &self.target)?;
                    let m = self
                        .ctx
                        .load_module(cudarc::nvrtc::Ptx::from_binary(image))
                        .map_err(|e| {
                            driver_err(&format!("cuModuleLoadData({})", spec.label()), e)
                        })?;
                    modules.insert(spec.clone(), m.clone());
                    m
                }
            }
        };
        module.load_function(name).map_err(|e| {
            driver_err(
                &format!("cuModuleGetFunction({name} in {})", spec.label()),
                e,
            )
        })
    }

    /// Allocates `n` elements of `T`, uninitialised; out-of-memory names the size.
    pub(crate) fn alloc<T: cudarc::driver::DeviceRepr>(
        &self,
        n: usize,
        what: &str,
    ) -> Result<CudaSlice<T>> {
        // An experiment's gap before the buffer (`HISTOSORT_ALLOC_PAD` bytes, none by default),
        // held as long as the backend, so that it shifts where the buffers lie relative to
        // each other in the stream's memory pool (no freed gap for the next buffer to reuse).
        let pad = crate::tuning::cuda::alloc_pad_bytes();
        if pad > 0 {
            // SAFETY: the gap is never read or written.
            let gap = unsafe { self.stream.alloc::<u8>(pad) }.map_err(|e| {
                driver_err(&format!("cuMemAlloc({pad} bytes, HISTOSORT_ALLOC_PAD)"), e)
            })?;
            self.pads
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(gap);
        }
        // SAFETY: the memory is uninitialised; every buffer is written by a copy or a kernel
        // before it is read.
        let r = unsafe { self.stream.alloc::<T>(n.max(1)) };
        r.map_err(|e| {
            let bytes = (n.max(1) * std::mem::size_of::<T>()) as u64;
            if e.0 == drv::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY {
                let (free, total) = self.ctx.mem_get_info().unwrap_or((0, 0));
                Error::OutOfMemory {
                    what: what.to_string(),
                    bytes,
                    free: free as u64,
                    total: total as u64,
                }
            } else {
                driver_err(&format!("cuMemAlloc({bytes} bytes for {what})"), e)
            }
        })
    }

    /// Waits for everything enqueued on the backend's stream.
    pub fn sync(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))
    }

    pub(crate) fn grid_stride_blocks(&self, n: u64, threads: u32) -> u32 {
        let want = n.div_ceil(threads as u64).max(1);
        let cap = (self.info.sm_count * crate::tuning::cuda::GRID_STRIDE_BLOCKS_PER_SM) as u64;
        want.min(cap) as u32
    }
}

/// The device pointer of a slice, for kernel arguments.
pub(crate) fn dptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    let (p, _sync) = s.device_ptr(stream);
    p
}

/// Every module configuration the backend can load (for `histosort compile-kernels`, the
/// kernel-compile test and `bench --export-ptx`).
pub fn all_module_specs() -> Vec<ModuleSpec> {
    use crate::key::DType;
    let mut v = sort::all_sort_specs();
    for d in DType::ALL {
        if let Ok(s) = scan::scan_spec(d) {
            v.push(s);
        }
        if let Ok(s) = scan::scan_lookback_spec(d) {
            v.push(s);
        }
        if let Ok(s) = scan::scan_pipelined_spec(d) {
            v.push(s);
        }
        if let Ok(s) = histogram::bins_spec(d) {
            v.push(s);
        }
    }
    v.push(histogram::u8_spec());
    v.push(histogram::bytes_spec());
    v.push(histogram::u16_spec());
    v.push(histogram::channels_spec());
    // Each module once, in first-seen order (kernels that share a module configuration).
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.clone()));
    v
}

/// Compiles every module for `target` with NVRTC (no GPU needed). Returns each module's label
/// and image size, or the first error.
pub fn compile_all(target: &Target) -> Result<Vec<(String, usize)>> {
    probe_nvrtc()?;
    all_module_specs()
        .iter()
        .map(|s| compile::compile(s, target).map(|img| (s.label(), img.len())))
        .collect()
}

/// Checks only for libnvrtc (compiling needs no driver).
pub fn probe_nvrtc() -> Result<()> {
    // SAFETY: only tries to dlopen the library by its candidate names.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::Unavailable {
            what: "NVRTC".into(),
            reason: "libnvrtc.so.13 (or older) was not found on the library path".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel compiles for sm_90. Runs wherever libnvrtc is found (CI installs the
    /// `nvidia-cuda-nvrtc` wheel for it); set HISTOSORT_REQUIRE_NVRTC=1 to fail instead of skip.
    #[test]
    fn every_kernel_compiles_for_sm_90() {
        if probe_nvrtc().is_err() {
            assert!(
                std::env::var("HISTOSORT_REQUIRE_NVRTC").as_deref() != Ok("1"),
                "HISTOSORT_REQUIRE_NVRTC=1 but libnvrtc was not found"
            );
            eprintln!("SKIP every_kernel_compiles_for_sm_90: libnvrtc not found");
            return;
        }
        let target = Target::Cubin { major: 9, minor: 0 };
        let specs = all_module_specs();
        assert!(specs.len() > 20);
        // One module per core at a time (NVRTC compiles each on one thread).
        use rayon::prelude::*;
        let failures: Vec<String> = specs
            .par_iter()
            .filter_map(|s| match compile::compile(s, &target) {
                Ok(img) if img.len() > 100 => None,
                Ok(_) => Some(format!("{}: tiny image", s.label())),
                Err(e) => Some(e.to_string()),
            })
            .collect();
        assert!(
            failures.is_empty(),
            "{} of {} modules failed; the first: {}",
            failures.len(),
            specs.len(),
            failures[0]
        );
    }
}
