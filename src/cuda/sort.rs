//! Sort launch sequences: the seeds' three-phase LSD sort (kernels/radix_sort_three_phase.cu),
//! in plain stream launches or captured once into a CUDA graph and replayed.
//!
//! A [`SortPlan`] owns everything a sort of one shape needs (scratch buffers, staging buffers
//! for host data, the loaded kernels and the captured graph), so repeated sorts of the same
//! shape allocate nothing and, in graph mode, cost one `cuGraphLaunch`.

use cudarc::driver::{result as dres, sys as drv, CudaFunction, CudaGraph, CudaSlice};

use super::launch::{DeviceBuffer, KArg};
use super::scan::{scan_spec, ScanScratch};
use super::{driver_err, dptr, CudaBackend, KernelFile, ModuleSpec};
use crate::algorithm::{LaunchMode, Order, SortAlgorithm};
use crate::error::{Error, Result};
use crate::key::{DType, RadixBits, RadixKey, SortIndex, Value};
use crate::options::SortOptions;
use crate::tuning::cuda::{
    ELEMENTWISE_THREADS, THREE_PHASE_DIGIT_BITS, THREE_PHASE_DIGIT_WIDTHS, THREE_PHASE_ITEMS,
    THREE_PHASE_THREADS, THREE_PHASE_TILE,
};

/// KEY_BITS and KEY_KIND of a key type, or why the GPU cannot sort it.
fn key_defines(d: DType) -> Result<(u32, u32)> {
    let kind = if d.is_float() {
        2
    } else if d.is_signed_int() {
        1
    } else {
        0
    };
    match d.size() {
        1 | 2 | 4 | 8 => Ok((d.size() as u32 * 8, kind)),
        _ => Err(Error::Unsupported(format!(
            "the CUDA sorts take keys of 8 to 64 bits, not {d}"
        ))),
    }
}

fn keys_spec(key: DType) -> Result<ModuleSpec> {
    let (bits, kind) = key_defines(key)?;
    Ok(ModuleSpec::new(KernelFile::Keys)
        .define("THREADS", ELEMENTWISE_THREADS)
        .define("KEY_BITS", bits)
        .define("KEY_KIND", kind))
}

fn three_phase_spec(key: DType, value_bytes: u32) -> Result<ModuleSpec> {
    let (bits, _) = key_defines(key)?;
    // The sort itself only sees radix images, so KEY_KIND is always 0 here.
    Ok(ModuleSpec::new(KernelFile::ThreePhase)
        .define("THREADS", THREE_PHASE_THREADS)
        .define("ITEMS", THREE_PHASE_ITEMS)
        .define("KEY_BITS", bits)
        .define("KEY_KIND", 0)
        .define("VALUE_BYTES", value_bytes))
}

/// Every module the sorts can use, for `histosort compile-kernels`.
pub fn all_sort_specs() -> Vec<ModuleSpec> {
    let mut v = Vec::new();
    for d in DType::ALL {
        if let Ok(s) = keys_spec(d) {
            v.push(s);
        }
    }
    for bits in [DType::U8, DType::U16, DType::U32, DType::U64] {
        for vb in [0, 1, 2, 4, 8, 16] {
            if let Ok(s) = three_phase_spec(bits, vb) {
                v.push(s);
            }
        }
    }
    v
}

/// The shape a plan was made for.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PlanKey {
    key: DType,
    /// 0 for keys only.
    value_bytes: u32,
    /// Values are generated as indices (argsort) rather than copied from the input.
    iota: bool,
    n: usize,
    order: Order,
    begin: u32,
    end: u32,
    digit_bits: u32,
    launch: LaunchMode,
}

struct Kernels {
    to_radix: CudaFunction,
    from_radix: CudaFunction,
    iota: Option<CudaFunction>,
    local_sort: CudaFunction,
    scatter: CudaFunction,
    scan: ModuleSpec,
}

/// Everything one sort shape needs on the device.
pub struct SortPlan {
    key: PlanKey,
    kernels: Kernels,
    tiles: u64,
    a_keys: CudaSlice<u8>,
    t_keys: CudaSlice<u8>,
    a_vals: Option<CudaSlice<u8>>,
    t_vals: Option<CudaSlice<u8>>,
    hist: CudaSlice<u8>,
    scan: ScanScratch,
    /// Staging buffers for host-slice sorts (stable addresses, so a graph can be reused).
    keys_io: Option<CudaSlice<u8>>,
    vals_io: Option<CudaSlice<u8>>,
    /// The captured sequence and the (keys_in, vals_in, keys_out, vals_out) it was captured for.
    graph: Option<(CudaGraph, [u64; 4])>,
}

impl SortPlan {
    /// Number of digit passes the plan runs.
    pub fn passes(&self) -> u32 {
        (self.key.end - self.key.begin).div_ceil(self.key.digit_bits)
    }

    /// Number of kernel launches per sort (for the graph study).
    pub fn len(&self) -> usize {
        self.key.n
    }

    pub fn is_empty(&self) -> bool {
        self.key.n == 0
    }
}

impl CudaBackend {
    fn digit_bits_for(&self, opts: &SortOptions) -> Result<u32> {
        let b = opts.digit_bits.unwrap_or(THREE_PHASE_DIGIT_BITS);
        if !THREE_PHASE_DIGIT_WIDTHS.contains(&b) {
            return Err(Error::Unsupported(format!(
                "the three-phase sort takes digit widths of 1, 2, 4 or 8 bits, not {b}"
            )));
        }
        Ok(b)
    }

    fn check_sort<K: RadixKey>(&self, n: usize, value_bytes: u32, opts: &SortOptions) -> Result<u32> {
        match opts.algorithm {
            SortAlgorithm::Auto | SortAlgorithm::ThreePhase => {}
            a => {
                return Err(Error::Unsupported(format!(
                    "sort variant '{a}' does not run on the CUDA backend"
                )))
            }
        }
        key_defines(K::DTYPE)?;
        if n as u64 > u32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "the three-phase sort takes at most 2^32 - 1 keys, got {n}"
            )));
        }
        if ![0, 1, 2, 4, 8, 16].contains(&value_bytes) {
            return Err(Error::Unsupported(format!("values of {value_bytes} bytes")));
        }
        self.digit_bits_for(opts)
    }

    fn make_plan(&self, key: PlanKey, staging: bool) -> Result<SortPlan> {
        let ks = keys_spec(key.key)?;
        let ts = three_phase_spec(key.key, key.value_bytes)?;
        let kernels = Kernels {
            to_radix: self.function(&ks, "keys_to_radix")?,
            from_radix: self.function(&ks, "radix_to_keys")?,
            iota: if key.iota {
                Some(self.function(&ks, if key.value_bytes == 4 { "iota_u32" } else { "iota_u64" })?)
            } else {
                None
            },
            local_sort: self.function(&ts, "three_phase_local_sort")?,
            scatter: self.function(&ts, "three_phase_scatter")?,
            scan: scan_spec(DType::U32)?,
        };
        // Load the scan kernels now: nothing may be loaded while a graph is being captured.
        self.function(&kernels.scan, "scan_tiles")?;
        self.function(&kernels.scan, "scan_tile_sums")?;
        let n = key.n;
        let kb = key.key.size();
        let vb = key.value_bytes as usize;
        let tiles = (n as u64).div_ceil(THREE_PHASE_TILE as u64).max(1);
        let padded = (tiles * THREE_PHASE_TILE as u64) as usize;
        let hist_len = (tiles << key.digit_bits) as usize;
        let opt_alloc = |bytes: usize, what: &str| -> Result<Option<CudaSlice<u8>>> {
            if vb == 0 {
                Ok(None)
            } else {
                self.alloc::<u8>(bytes, what).map(Some)
            }
        };
        Ok(SortPlan {
            tiles,
            a_keys: self.alloc::<u8>(n * kb, "sort keys")?,
            t_keys: self.alloc::<u8>(padded * kb, "sorted tiles")?,
            a_vals: opt_alloc(n * vb, "sort values")?,
            t_vals: opt_alloc(padded * vb, "sorted tile values")?,
            hist: self.alloc::<u8>(hist_len * 4, "tile digit histograms")?,
            scan: self.scan_scratch(hist_len as u64, 4)?,
            keys_io: if staging { Some(self.alloc::<u8>(n * kb, "key staging")?) } else { None },
            vals_io: if staging && vb > 0 && !key.iota {
                Some(self.alloc::<u8>(n * vb, "value staging")?)
            } else {
                None
            },
            graph: None,
            kernels,
            key,
        })
    }

    /// Enqueues the whole sort: keys (and values) from `io[0]`/`io[1]` to `io[2]`/`io[3]`.
    /// The inputs are only read; the outputs may equal the inputs.
    fn enqueue_sort(&self, p: &SortPlan, io: [u64; 4]) -> Result<()> {
        let s = &self.stream;
        let k = &p.key;
        let n = k.n as u64;
        let desc = (k.order == Order::Descending) as u32;
        let grid = self.grid_stride_blocks(n, ELEMENTWISE_THREADS);
        let a_keys = dptr(&p.a_keys, s);
        let t_keys = dptr(&p.t_keys, s);
        let a_vals = p.a_vals.as_ref().map_or(0, |b| dptr(b, s));
        let t_vals = p.t_vals.as_ref().map_or(0, |b| dptr(b, s));
        let hist = dptr(&p.hist, s);
        let vbytes = k.n * k.value_bytes as usize;

        self.launch(&p.kernels.to_radix, "keys_to_radix", grid, ELEMENTWISE_THREADS, 0, &[KArg::U64(io[0]), KArg::U64(a_keys), KArg::U64(n), KArg::U32(desc)])?;
        if let Some(iota) = &p.kernels.iota {
            self.launch(iota, "iota", grid, ELEMENTWISE_THREADS, 0, &[KArg::U64(a_vals), KArg::U64(n)])?;
        } else if vbytes > 0 {
            // SAFETY: both ranges are live device allocations of at least `vbytes` bytes.
            unsafe { dres::memcpy_dtod_async(a_vals, io[1], vbytes, s.cu_stream()) }.map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
        }
        let mut shift = k.begin;
        while shift < k.end {
            let w = k.digit_bits.min(k.end - shift);
            let args = [
                KArg::U64(a_keys),
                KArg::U64(a_vals),
                KArg::U64(t_keys),
                KArg::U64(t_vals),
                KArg::U64(hist),
                KArg::U64(n),
                KArg::U32(shift),
                KArg::U32(w),
                KArg::U32(p.tiles as u32),
            ];
            self.launch(&p.kernels.local_sort, "three_phase_local_sort", p.tiles as u32, THREE_PHASE_THREADS, 0, &args)?;
            self.enqueue_scan(&p.kernels.scan, hist, hist, p.tiles << w, false, &p.scan, 0)?;
            let args = [
                KArg::U64(t_keys),
                KArg::U64(t_vals),
                KArg::U64(a_keys),
                KArg::U64(a_vals),
                KArg::U64(hist),
                KArg::U64(n),
                KArg::U32(shift),
                KArg::U32(w),
                KArg::U32(p.tiles as u32),
            ];
            self.launch(&p.kernels.scatter, "three_phase_scatter", p.tiles as u32, THREE_PHASE_THREADS, 0, &args)?;
            shift += w;
        }
        self.launch(&p.kernels.from_radix, "radix_to_keys", grid, ELEMENTWISE_THREADS, 0, &[KArg::U64(a_keys), KArg::U64(io[2]), KArg::U64(n), KArg::U32(desc)])?;
        if vbytes > 0 {
            // SAFETY: as above.
            unsafe { dres::memcpy_dtod_async(io[3], a_vals, vbytes, s.cu_stream()) }.map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
        }
        Ok(())
    }

    /// Runs the plan on `io`: plain launches, or the graph (captured on first use for `io`).
    fn run_plan(&self, p: &mut SortPlan, io: [u64; 4]) -> Result<()> {
        if p.key.launch == LaunchMode::Stream {
            return self.enqueue_sort(p, io);
        }
        let reuse = matches!(&p.graph, Some((_, captured)) if *captured == io);
        if !reuse {
            p.graph = None;
            self.stream
                .begin_capture(drv::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
                .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
            let enq = self.enqueue_sort(p, io);
            let graph = self
                .stream
                .end_capture(drv::CUgraphInstantiate_flags(0))
                .map_err(|e| driver_err("cuStreamEndCapture/cuGraphInstantiate", e));
            enq?;
            let graph = graph?.ok_or_else(|| Error::Cuda {
                call: "cuStreamEndCapture".into(),
                message: "the capture produced no graph".into(),
            })?;
            p.graph = Some((graph, io));
        }
        match &p.graph {
            Some((g, _)) => g.launch().map_err(|e| driver_err("cuGraphLaunch", e)),
            None => Ok(()),
        }
    }

    /// Takes a cached plan of this shape, or makes one.
    fn take_plan(&self, key: PlanKey, staging: bool) -> Result<SortPlan> {
        {
            let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = plans.iter().position(|p| p.key == key && (p.keys_io.is_some() == staging)) {
                return Ok(plans.swap_remove(i));
            }
        }
        self.make_plan(key, staging)
    }

    fn return_plan(&self, p: SortPlan) {
        let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        // A few recent shapes: enough for benchmarks and repeated calls, bounded memory.
        if plans.len() >= 4 {
            plans.remove(0);
        }
        plans.push(p);
    }

    fn plan_key<K: RadixKey>(&self, n: usize, value_bytes: u32, iota: bool, opts: &SortOptions) -> Result<PlanKey> {
        let digit_bits = self.check_sort::<K>(n, value_bytes, opts)?;
        let (begin, end) = opts.bit_range(K::Bits::BITS);
        Ok(PlanKey {
            key: K::DTYPE,
            value_bytes,
            iota,
            n,
            order: opts.order,
            begin,
            end,
            digit_bits,
            launch: opts.launch,
        })
    }

    /// Host-slice sort of keys and, optionally, values of 1, 2, 4, 8 or 16 bytes (as bytes).
    fn sort_host(&self, key_bytes: &mut [u8], vals: Option<&mut [u8]>, key: PlanKey) -> Result<()> {
        let _guard = self.lock();
        let mut p = self.take_plan(key, true)?;
        let s = &self.stream;
        let result = (|| {
            let (Some(kio), vio) = (p.keys_io.as_mut(), p.vals_io.as_mut()) else {
                return Err(Error::invalid("internal: plan without staging buffers"));
            };
            s.memcpy_htod(&*key_bytes, &mut kio.slice_mut(0..key_bytes.len())).map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
            if let (Some(v), Some(vio)) = (vals.as_deref(), vio) {
                s.memcpy_htod(v, &mut vio.slice_mut(0..v.len())).map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
            }
            let kptr = p.keys_io.as_ref().map_or(0, |b| dptr(b, s));
            let vptr = p.vals_io.as_ref().map_or(0, |b| dptr(b, s));
            // Outputs go back into the staging buffers (the sequence reads its inputs first).
            let vout = if p.key.iota { vptr } else { vptr };
            self.run_plan(&mut p, [kptr, vptr, kptr, vout])?;
            if let Some(kio) = p.keys_io.as_ref() {
                s.memcpy_dtoh(&kio.slice(0..key_bytes.len()), key_bytes).map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
            }
            if let (Some(v), Some(vio)) = (vals, p.vals_io.as_ref()) {
                let len = v.len();
                s.memcpy_dtoh(&vio.slice(0..len), v).map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
            }
            self.sync()
        })();
        self.return_plan(p);
        result
    }

    pub fn sort_keys<K: RadixKey>(&self, keys: &mut [K], opts: &SortOptions) -> Result<()> {
        let key = self.plan_key::<K>(keys.len(), 0, false, opts)?;
        if keys.len() <= 1 {
            return Ok(());
        }
        self.sort_host(bytemuck::cast_slice_mut(keys), None, key)
    }

    pub fn sort_pairs<K: RadixKey, V: Value>(&self, keys: &mut [K], values: &mut [V], opts: &SortOptions) -> Result<()> {
        let vb = std::mem::size_of::<V>() as u32;
        if [1, 2, 4, 8, 16].contains(&vb) {
            let key = self.plan_key::<K>(keys.len(), vb, false, opts)?;
            if keys.len() <= 1 {
                return Ok(());
            }
            return self.sort_host(bytemuck::cast_slice_mut(keys), Some(bytemuck::cast_slice_mut(values)), key);
        }
        // Other value sizes: sort (key, index) pairs on the GPU, then gather on the host.
        let perm: Vec<u32> = self.argsort(keys, opts)?;
        let k: Vec<K> = perm.iter().map(|&i| keys[i as usize]).collect();
        let v: Vec<V> = perm.iter().map(|&i| values[i as usize]).collect();
        keys.copy_from_slice(&k);
        values.copy_from_slice(&v);
        Ok(())
    }

    pub fn argsort<K: RadixKey, I: SortIndex>(&self, keys: &[K], opts: &SortOptions) -> Result<Vec<I>> {
        let ib = std::mem::size_of::<I>() as u32;
        let key = self.plan_key::<K>(keys.len(), ib, true, opts)?;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut k = keys.to_vec();
        let mut idx = vec![I::from_usize(0); keys.len()];
        self.sort_host_iota(bytemuck::cast_slice_mut(&mut k), bytemuck::cast_slice_mut(&mut idx), key)?;
        Ok(idx)
    }

    /// Like `sort_host`, with the values generated on the device as indices 0..n.
    fn sort_host_iota(&self, key_bytes: &mut [u8], idx_out: &mut [u8], key: PlanKey) -> Result<()> {
        let _guard = self.lock();
        let mut p = self.take_plan(key, true)?;
        let s = &self.stream;
        let result = (|| {
            let Some(kio) = p.keys_io.as_mut() else {
                return Err(Error::invalid("internal: plan without staging buffers"));
            };
            s.memcpy_htod(&*key_bytes, &mut kio.slice_mut(0..key_bytes.len())).map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
            let kptr = p.keys_io.as_ref().map_or(0, |b| dptr(b, s));
            let out = self.alloc::<u8>(idx_out.len(), "argsort indices")?;
            let optr = dptr(&out, s);
            self.run_plan(&mut p, [kptr, 0, kptr, optr])?;
            s.memcpy_dtoh(&out.slice(0..idx_out.len()), idx_out).map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
            self.sync()
        })();
        // A graph captured for a temporary output pointer cannot be replayed.
        if p.key.launch == LaunchMode::Graph {
            p.graph = None;
        }
        self.return_plan(p);
        result
    }

    /// Device-resident sort: `keys_out` gets `keys_in` sorted; `keys_in` is not modified
    /// (pass the same buffer twice to sort in place... not allowed by Rust's borrows, so use
    /// [`CudaBackend::sort_device_in_place`]).
    pub fn sort_device<K: RadixKey>(&self, keys_in: &DeviceBuffer<K>, keys_out: &mut DeviceBuffer<K>, opts: &SortOptions) -> Result<()> {
        if keys_in.len() != keys_out.len() {
            return Err(Error::invalid("input and output buffers differ in length"));
        }
        let key = self.plan_key::<K>(keys_in.len(), 0, false, opts)?;
        let io = [keys_in.device_ptr(self), 0, keys_out.device_ptr(self), 0];
        self.run_device(key, io)
    }

    /// Device-resident sort in place.
    pub fn sort_device_in_place<K: RadixKey>(&self, keys: &mut DeviceBuffer<K>, opts: &SortOptions) -> Result<()> {
        let key = self.plan_key::<K>(keys.len(), 0, false, opts)?;
        let p = keys.device_ptr(self);
        self.run_device(key, [p, 0, p, 0])
    }

    /// Device-resident pair sort (values of 1, 2, 4, 8 or 16 bytes); inputs are not modified.
    pub fn sort_pairs_device<K: RadixKey, V: Value>(
        &self,
        keys_in: &DeviceBuffer<K>,
        values_in: &DeviceBuffer<V>,
        keys_out: &mut DeviceBuffer<K>,
        values_out: &mut DeviceBuffer<V>,
        opts: &SortOptions,
    ) -> Result<()> {
        let n = keys_in.len();
        if values_in.len() != n || keys_out.len() != n || values_out.len() != n {
            return Err(Error::invalid("key and value buffers differ in length"));
        }
        let key = self.plan_key::<K>(n, std::mem::size_of::<V>() as u32, false, opts)?;
        let io = [
            keys_in.device_ptr(self),
            values_in.device_ptr(self),
            keys_out.device_ptr(self),
            values_out.device_ptr(self),
        ];
        self.run_device(key, io)
    }

    fn run_device(&self, key: PlanKey, io: [u64; 4]) -> Result<()> {
        if key.n <= 1 {
            // Nothing to sort; out-of-place still copies.
            if key.n == 1 && io[0] != io[2] {
                // SAFETY: both buffers hold at least one key.
                unsafe { dres::memcpy_dtod_async(io[2], io[0], key.key.size(), self.stream.cu_stream()) }.map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
                if key.value_bytes > 0 {
                    // SAFETY: as above, one value.
                    unsafe { dres::memcpy_dtod_async(io[3], io[1], key.value_bytes as usize, self.stream.cu_stream()) }.map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
                }
            }
            return self.sync();
        }
        let _guard = self.lock();
        let mut p = self.take_plan(key, false)?;
        let r = self.run_plan(&mut p, io).and_then(|_| self.sync());
        self.return_plan(p);
        r
    }

    /// A plan for repeated device-resident sorts of one shape (benchmarks, graph replay):
    /// `run` sorts `keys_in` into `keys_out` with no allocation.
    pub fn sort_plan<K: RadixKey>(&self, n: usize, value_bytes: u32, opts: &SortOptions) -> Result<SortPlan> {
        let key = self.plan_key::<K>(n, value_bytes, false, opts)?;
        self.make_plan(key, false)
    }

    /// Enqueues one sort with `plan` (no synchronisation: time it with events).
    pub fn run_sort_plan(&self, plan: &mut SortPlan, keys_in: u64, vals_in: u64, keys_out: u64, vals_out: u64) -> Result<()> {
        self.run_plan(plan, [keys_in, vals_in, keys_out, vals_out])
    }
}
