//! The CUDA backend (work in progress in this commit: the runtime lands next).

use crate::algorithm::{HistogramAlgorithm, ScanAlgorithm, ScanKind};
use crate::error::{Error, Result};
use crate::key::{RadixKey, SortIndex, Value};
use crate::options::SortOptions;
use crate::sample::{Sample, ScanElem};

/// Checks that libcuda and libnvrtc can be loaded (cudarc panics on first use otherwise).
pub fn probe_libraries() -> std::result::Result<(), String> {
    // SAFETY: these only try to dlopen the libraries by name.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("the CUDA driver library (libcuda.so) was not found".into());
    }
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("the NVRTC library (libnvrtc.so.13 or older) was not found".into());
    }
    Ok(())
}

/// A CUDA device with its context, stream and compiled kernels.
pub struct CudaBackend {
    _private: (),
}

fn todo_err() -> Error {
    Error::Unsupported("the CUDA backend is not built yet".into())
}

impl CudaBackend {
    pub fn new(_device: usize) -> Result<CudaBackend> {
        probe_libraries().map_err(|reason| Error::Unavailable {
            what: "CUDA".into(),
            reason,
        })?;
        Err(Error::Unavailable {
            what: "CUDA".into(),
            reason: "the CUDA backend is not built yet".into(),
        })
    }
    pub fn describe(&self) -> String {
        "cuda".into()
    }
    pub fn sort_keys<K: RadixKey>(&self, _k: &mut [K], _o: &SortOptions) -> Result<()> {
        Err(todo_err())
    }
    pub fn sort_pairs<K: RadixKey, V: Value>(
        &self,
        _k: &mut [K],
        _v: &mut [V],
        _o: &SortOptions,
    ) -> Result<()> {
        Err(todo_err())
    }
    pub fn argsort<K: RadixKey, I: SortIndex>(&self, _k: &[K], _o: &SortOptions) -> Result<Vec<I>> {
        Err(todo_err())
    }
    pub fn histogram_u8(&self, _d: &[u8], _a: HistogramAlgorithm) -> Result<Vec<u64>> {
        Err(todo_err())
    }
    pub fn histogram_even<T: Sample>(
        &self,
        _d: &[T],
        _b: usize,
        _l: T,
        _u: T,
        _a: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        Err(todo_err())
    }
    pub fn histogram_range<T: Sample>(
        &self,
        _d: &[T],
        _b: &[T],
        _a: HistogramAlgorithm,
    ) -> Result<Vec<u64>> {
        Err(todo_err())
    }
    pub fn scan_into<T: ScanElem>(
        &self,
        _d: &[T],
        _o: &mut [T],
        _k: ScanKind,
        _a: ScanAlgorithm,
    ) -> Result<()> {
        Err(todo_err())
    }
}
