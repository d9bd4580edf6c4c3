//! Timing shared by the GPU experiments in `examples/` (included with `#[path]`; not an
//! example itself).

use histosort::cuda::CudaBackend;
use std::time::Instant;

/// Median, fastest and slowest of 15 runs of `f` after 3 warm-ups, in ms; each run is
/// synchronised with the device, so the time is the work's, not the launch's.
pub fn median_ms(b: &CudaBackend, mut f: impl FnMut() -> histosort::Result<()>) -> (f64, f64, f64) {
    for _ in 0..3 {
        f().unwrap();
    }
    b.sync().unwrap();
    let mut t: Vec<f64> = (0..15)
        .map(|_| {
            let s = Instant::now();
            f().unwrap();
            b.sync().unwrap();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (t[7], t[0], t[14])
}

/// The log2 sizes given on the command line, or `default` when there are none (not every
/// example that includes this file takes sizes).
#[allow(dead_code)]
pub fn sizes_from_args(default: &[u32]) -> Vec<u32> {
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("lg n"))
        .collect();
    if sizes.is_empty() {
        default.to_vec()
    } else {
        sizes
    }
}
