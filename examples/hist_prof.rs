//! Profiling aid: the CPU byte histogram's paths alone on random bytes (256 MiB unless a log2
//! size is given): `cargo run --release --example hist_prof -- simd|scalar|read THREADS RUNS
//! [LOG2]`. `read` is the floor: the same bytes summed as u64 words in the same chunks, so
//! that the cores read at the rate they can.

use std::time::Instant;

use histosort::gen::{self, Distribution};
use rayon::prelude::*;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let what = a.get(1).map_or("simd", String::as_str);
    let threads: usize = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let runs: usize = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let lg: u32 = a.get(4).and_then(|s| s.parse().ok()).unwrap_or(28);
    let data: Vec<u8> = gen::generate(&Distribution::Uniform, 1 << lg, 1);
    // What each run must return: the reference histogram, or for `read` the serial sum.
    let want = if what == "read" {
        vec![read_sum_serial(&data)]
    } else {
        histosort::reference::histogram_u8(&data)
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let h = pool.install(|| match what {
            "scalar" => histosort::cpu::histogram::histogram_u8_scalar(&data),
            "read" => vec![read_sum(&data)],
            _ => histosort::cpu::histogram::histogram_u8_simd(&data).expect("AVX-512 counter"),
        });
        best = best.min(t.elapsed().as_secs_f64());
        assert_eq!(h, want);
    }
    println!(
        "{what} {threads} thread(s), 2^{lg} bytes: best {:.4} ms, {:.2} GB/s",
        best * 1e3,
        data.len() as f64 / best / 1e9
    );
}

/// Every 8 bytes as a little-endian word, summed (wrapping), in the histogram's chunks.
fn read_sum(data: &[u8]) -> u64 {
    data.par_chunks(histosort::tuning::cpu::HIST_CHUNK)
        .map(read_sum_serial)
        .reduce(|| 0, u64::wrapping_add)
}

fn read_sum_serial(data: &[u8]) -> u64 {
    let (words, rest) = data.as_chunks::<8>();
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    words.iter().fold(u64::from_le_bytes(last), |a, &w| {
        a.wrapping_add(u64::from_le_bytes(w))
    })
}
