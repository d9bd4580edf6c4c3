//! # histosort
//!
//! GPU (CUDA) and CPU **histograms, prefix scans and stable LSD radix sorts** behind one API.
//!
//! * [`Engine`] picks a backend: [`Backend::Auto`] uses CUDA when a usable GPU and NVRTC are
//!   found and the CPU otherwise (it never panics on a machine without either), [`Backend::Cpu`]
//!   and [`Backend::Cuda`] ask for one.
//! * Sorts take keys of every primitive integer and float type through an order-preserving
//!   bijection ([`key`]); floats follow [`f32::total_cmp`]. Pair sorts carry any [`bytemuck::Pod`]
//!   value along and are stable; [`Engine::argsort`] returns the permutation.
//! * Histograms: bytes into 256 bins, even bins and range bins over any numeric sample type.
//! * Scans: inclusive and exclusive prefix sums.
//!
//! ```
//! use histosort::{Engine, HistogramAlgorithm, ScanKind, SortOptions};
//!
//! let engine = Engine::auto();
//! let mut keys: Vec<i32> = vec![5, -3, 9, -3, 0];
//! let mut vals: Vec<u8> = vec![0, 1, 2, 3, 4];
//! engine.sort_pairs(&mut keys, &mut vals, &SortOptions::new()).unwrap();
//! assert_eq!(keys, [-3, -3, 0, 5, 9]);
//! assert_eq!(vals, [1, 3, 4, 0, 2]); // stable: the two -3s keep their order
//!
//! let hist = engine.histogram_u8(b"abracadabra", HistogramAlgorithm::Auto).unwrap();
//! assert_eq!(hist[b'a' as usize], 5);
//!
//! let offsets = engine.scan(&[3u32, 1, 4, 1], ScanKind::Exclusive).unwrap();
//! assert_eq!(offsets, [0, 3, 4, 8]);
//! ```

pub mod algorithm;
pub mod bench;
pub mod cpu;
pub mod cuda;
mod engine;
pub mod error;
pub mod gen;
pub mod io;
pub mod key;
mod options;
pub mod reference;
pub mod sample;
pub mod tuning;

pub use algorithm::{
    BackendKind, HistogramAlgorithm, LaunchMode, Order, ScanAlgorithm, ScanKind, SortAlgorithm,
};
pub use engine::{cuda_probe, Backend, Engine, Permutation};
pub use error::{Error, Result};
pub use key::{DType, RadixBits, RadixKey, SortIndex, Value};
pub use options::SortOptions;
pub use sample::{Sample, ScanElem};
