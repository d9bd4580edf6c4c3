//! Experiment (issue 5): the free ranking of a keys-only sort's first pass (a shared atomic on
//! the digit's counter returns each key's position; no ballots; skewed tiles keep the ballots)
//! against the stable ranking, on skewed keys as well as uniform ones. For each distribution, u32 and u64 keys: the sort timed with the free ranking
//! on and off (median of 15 sorts after 3 warm-ups, each synchronised; out of place from an input
//! never written; a fresh plan per setting), and both outputs checked against the CPU's sort at
//! every element.
//!
//! `cargo run --release --example gpu_free_rank -- [lg_n]` (default 26)
use histosort::cuda::{CudaBackend, DeviceBuffer};
use histosort::gen::{generate, Distribution};
use histosort::{RadixKey, SortOptions};

#[path = "support/timing.rs"]
mod timing;
use timing::median_ms;

fn case<K: RadixKey>(b: &CudaBackend, dist: &Distribution, n: usize) {
    let input: Vec<K> = generate(dist, n, 7);
    let mut expected: Vec<_> = input.iter().map(|k| k.to_radix()).collect();
    expected.sort_unstable();
    let ki = DeviceBuffer::upload(b, &input).unwrap();
    let ko = DeviceBuffer::<K>::alloc(b, n).unwrap();
    let (a, c) = (ki.device_ptr(b), ko.device_ptr(b));
    let opts = SortOptions::new();
    let mut line = format!(
        "{:<5} {:<14} 2^{:<3}",
        K::DTYPE,
        dist.to_string(),
        n.trailing_zeros()
    );
    for on in [false, true] {
        b.set_free_rank(on);
        let mut plan = b.sort_plan::<K>(n, 0, &opts).unwrap();
        let (med, lo, hi) = median_ms(b, || b.run_sort_plan(&mut plan, a, 0, c, 0));
        let out = ko.download(b).unwrap();
        if let Some(i) = (0..n).find(|&i| out[i].to_radix() != expected[i]) {
            panic!("{line} free={on}: first mismatch at {i}");
        }
        line += &format!(
            "  {}: {med:.3} ms [{lo:.3}, {hi:.3}]",
            if on { "free" } else { "ballots" }
        );
    }
    println!("{line}");
}

fn main() {
    let b = CudaBackend::new(0).expect("a CUDA device");
    let lg: u32 = std::env::args()
        .nth(1)
        .map_or(26, |a| a.parse().expect("lg n"));
    let n = 1usize << lg;
    for d in Distribution::ALL {
        case::<u32>(&b, d, n);
        case::<u64>(&b, d, n);
    }
    b.set_free_rank(true);
}
