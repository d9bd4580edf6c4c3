//! Kernel launches and the crate's device buffer type.

use std::marker::PhantomData;

use bytemuck::Pod;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

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
