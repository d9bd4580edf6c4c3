//! Kernel launches and the crate's device buffer type.

use std::marker::PhantomData;

use bytemuck::Pod;
use cudarc::driver::{sys, CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::{dptr, driver_err, CudaBackend};
use crate::error::{Error, Result};

/// A kernel argument. Pointers travel as `u64` device addresses.
#[derive(Clone, Copy, Debug)]
pub(crate) enum KArg {
    U64(u64),
    U32(u32),
    I64(i64),
    I32(i32),
    F32(f32),
    F64(f64),
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
}

impl CudaBackend {
    /// Launches `f` on the backend's stream and checks the launch.
    pub(crate) fn launch(
        &self,
        f: &CudaFunction,
        name: &str,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KArg],
    ) -> Result<()> {
        let cfg = LaunchConfig {
            grid_dim: (grid.max(1), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: shared_bytes,
        };
        let mut b = self.stream.launch_builder(f);
        push_args(&mut b, args);
        // SAFETY: every kernel's parameter list is matched by its caller in this module tree
        // (pointers as u64 device addresses of live buffers sized for the launch); the
        // arguments outlive the call, which copies them.
        unsafe { b.launch(cfg) }.map(|_| ()).map_err(|e| {
            driver_err(
                &format!("cuLaunchKernel({name}, grid {grid}, block {block})"),
                e,
            )
        })
    }
}

impl CudaBackend {
    /// Launches `f` cooperatively (every block resident at once, as grid barriers need).
    pub(crate) fn launch_cooperative(
        &self,
        f: &CudaFunction,
        name: &str,
        grid: u32,
        block: u32,
        args: &[KArg],
    ) -> Result<()> {
        let cfg = LaunchConfig {
            grid_dim: (grid.max(1), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(f);
        push_args(&mut b, args);
        // SAFETY: as for `launch`; the grid was sized from the kernel's occupancy so that
        // every block is resident, which the driver checks again.
        unsafe { b.launch_cooperative(cfg) }
            .map(|_| ())
            .map_err(|e| {
                driver_err(
                    &format!("cuLaunchCooperativeKernel({name}, grid {grid}, block {block})"),
                    e,
                )
            })
    }
}

impl CudaBackend {
    /// Launches `f` as `clusters` thread-block clusters of `grid` blocks each (`cuLaunchKernelEx`
    /// with the cluster dimension `grid`; sm_90 and later). Sizes above 8 blocks need the
    /// function's non-portable cluster size attribute, which the caller sets.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_cluster(
        &self,
        f: &CudaFunction,
        name: &str,
        clusters: u32,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KArg],
    ) -> Result<()> {
        let what = format!(
            "cuLaunchKernelEx({name}, {clusters} cluster(s) of {grid} x {block}, {shared_bytes} B)"
        );
        self.launch_ex(
            f,
            &what,
            clusters * grid,
            block,
            shared_bytes,
            args,
            cluster_attribute(grid),
        )
    }

    /// Launches `f` through `cuLaunchKernelEx` with the one launch attribute `attr`; `what`
    /// names the launch in the error.
    #[allow(clippy::too_many_arguments)]
    fn launch_ex(
        &self,
        f: &CudaFunction,
        what: &str,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KArg],
        attr: sys::CUlaunchAttribute,
    ) -> Result<()> {
        let mut params: Vec<*mut std::ffi::c_void> = args.iter().map(arg_ptr).collect();
        let err = |e| driver_err(what, e);
        self.stream.context().bind_to_thread().map_err(err)?;
        with_config(
            grid,
            block,
            shared_bytes,
            self.stream.cu_stream(),
            attr,
            |cfg| {
                // SAFETY: `params` points at the arguments, which outlive the call (the driver
                // copies them); their list matches the kernel's as for `launch`; `cfg` and its
                // attribute are alive for the call.
                unsafe {
                    sys::cuLaunchKernelEx(
                        cfg,
                        f.cu_function(),
                        params.as_mut_ptr(),
                        std::ptr::null_mut(),
                    )
                }
            },
        )
        .result()
        .map_err(err)
    }

    /// How many clusters of `grid` blocks of `f` (with `shared_bytes` of dynamic shared memory
    /// each) the device can hold at once: 0 when none fits.
    pub(crate) fn max_active_clusters(
        &self,
        f: &CudaFunction,
        grid: u32,
        block: u32,
        shared_bytes: u32,
    ) -> Result<u32> {
        let mut count: std::ffi::c_int = 0;
        self.stream
            .context()
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let attr = cluster_attribute(grid);
        with_config(
            grid,
            block,
            shared_bytes,
            self.stream.cu_stream(),
            attr,
            |cfg| {
                // SAFETY: `cfg` and its attribute are alive for the call, which only writes `count`.
                unsafe { sys::cuOccupancyMaxActiveClusters(&mut count, f.cu_function(), cfg) }
            },
        )
        .result()
        .map_err(|e| driver_err("cuOccupancyMaxActiveClusters", e))?;
        Ok(count.max(0) as u32)
    }
}

impl CudaBackend {
    /// Launches `f` as a link of a chain (programmatic dependent launch, sm_90 and later): it may
    /// start while the kernel before it in the stream still runs, and its blocks wait for that
    /// kernel (`grid_dependency_wait` in kernels/common.cuh) before they touch anything it
    /// writes. Only kernels written for it may be launched so. Where chaining is off (older
    /// devices, `HISTOSORT_CHAINED=0`), a plain launch.
    pub(crate) fn launch_chained(
        &self,
        f: &CudaFunction,
        name: &str,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KArg],
    ) -> Result<()> {
        if !self.chained {
            return self.launch(f, name, grid, block, shared_bytes, args);
        }
        // SAFETY: the attribute is plain data; all zeroes is a valid value of every field.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        let what = format!("cuLaunchKernelEx({name}, chained, grid {grid}, block {block})");
        self.launch_ex(f, &what, grid, block, shared_bytes, args, attr)
    }
}

/// Calls `use_cfg` with the config of a launch of `grid` blocks with the one attribute `attr`.
/// The config points at the attribute, which lives here, so no config outlives it.
fn with_config<R>(
    grid: u32,
    block: u32,
    shared_bytes: u32,
    stream: sys::CUstream,
    mut attr: sys::CUlaunchAttribute,
    use_cfg: impl FnOnce(&sys::CUlaunchConfig) -> R,
) -> R {
    let cfg = sys::CUlaunchConfig {
        gridDimX: grid.max(1),
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: block,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: shared_bytes,
        hStream: stream,
        attrs: &mut attr,
        numAttrs: 1,
    };
    use_cfg(&cfg)
}

fn cluster_attribute(blocks: u32) -> sys::CUlaunchAttribute {
    // SAFETY: the attribute is plain data; all zeroes is a valid value of every field.
    let mut a: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    a.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: blocks.max(1),
        y: 1,
        z: 1,
    };
    a
}

/// The address of an argument's payload, as `cuLaunchKernelEx` takes it.
fn arg_ptr(a: &KArg) -> *mut std::ffi::c_void {
    let p: *const std::ffi::c_void = match a {
        KArg::U64(x) => (x as *const u64).cast(),
        KArg::U32(x) => (x as *const u32).cast(),
        KArg::I64(x) => (x as *const i64).cast(),
        KArg::I32(x) => (x as *const i32).cast(),
        KArg::F32(x) => (x as *const f32).cast(),
        KArg::F64(x) => (x as *const f64).cast(),
        KArg::U8(x) => (x as *const u8).cast(),
        KArg::I8(x) => (x as *const i8).cast(),
        KArg::U16(x) => (x as *const u16).cast(),
        KArg::I16(x) => (x as *const i16).cast(),
    };
    p.cast_mut()
}

fn push_args<'a>(b: &mut cudarc::driver::LaunchArgs<'a>, args: &'a [KArg]) {
    for a in args {
        match a {
            KArg::U64(x) => b.arg(x),
            KArg::U32(x) => b.arg(x),
            KArg::I64(x) => b.arg(x),
            KArg::I32(x) => b.arg(x),
            KArg::F32(x) => b.arg(x),
            KArg::F64(x) => b.arg(x),
            KArg::U8(x) => b.arg(x),
            KArg::I8(x) => b.arg(x),
            KArg::U16(x) => b.arg(x),
            KArg::I16(x) => b.arg(x),
        };
    }
}

/// A typed buffer in device memory (any `Pod` element type), for device-resident use:
/// upload once, run several operations without a round trip, download the result.
pub struct DeviceBuffer<T: Pod> {
    pub(crate) bytes: CudaSlice<u8>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> DeviceBuffer<T> {
    /// An uninitialised buffer of `len` elements.
    pub fn alloc(backend: &CudaBackend, len: usize) -> Result<Self> {
        let bytes = backend.alloc::<u8>(len * std::mem::size_of::<T>(), "device buffer")?;
        Ok(DeviceBuffer {
            bytes,
            len,
            _t: PhantomData,
        })
    }

    /// Copies `data` to a new device buffer.
    pub fn upload(backend: &CudaBackend, data: &[T]) -> Result<Self> {
        let mut b = Self::alloc(backend, data.len())?;
        b.copy_from_host(backend, data)?;
        Ok(b)
    }

    /// Overwrites the buffer with `data` (same length).
    pub fn copy_from_host(&mut self, backend: &CudaBackend, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::invalid(format!(
                "copy of {} elements into a device buffer of {}",
                data.len(),
                self.len
            )));
        }
        if data.is_empty() {
            return Ok(());
        }
        let src: &[u8] = bytemuck::cast_slice(data);
        let mut dst = self.bytes.slice_mut(0..src.len());
        backend
            .stream
            .memcpy_htod(src, &mut dst)
            .map_err(|e| driver_err("cuMemcpyHtoDAsync", e))
    }

    /// Copies the buffer into `out` (same length) and waits for the copy.
    pub fn copy_to_host(&self, backend: &CudaBackend, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(Error::invalid(format!(
                "copy of a device buffer of {} elements into {}",
                self.len,
                out.len()
            )));
        }
        if !out.is_empty() {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(out);
            let n = dst.len();
            let src = self.bytes.slice(0..n);
            backend
                .stream
                .memcpy_dtoh(&src, dst)
                .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
        }
        backend.sync()
    }

    /// Copies the buffer to a new `Vec`.
    pub fn download(&self, backend: &CudaBackend) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.copy_to_host(backend, &mut v)?;
        Ok(v)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first element.
    pub fn device_ptr(&self, backend: &CudaBackend) -> u64 {
        dptr(&self.bytes, &backend.stream)
    }

    /// The underlying cudarc slice (bytes).
    pub fn as_cuda_slice(&self) -> &CudaSlice<u8> {
        &self.bytes
    }
}
