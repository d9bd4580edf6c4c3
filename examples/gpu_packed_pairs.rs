//! Experiment (issue 5): do u32/u32 pairs sort faster as one array of 64-bit elements (key in
//! the low half, value in the high half) sorted on bits [0, 32), than as two arrays? Times
//! both on the GPU (median of 15 sorts after 3 warm-ups, each sort synchronised; out of place
//! from an input never written) and checks that the packed sort's output is the pair sort's
//! at every element. The tile shape follows `HISTOSORT_ONESWEEP_SHAPE` as for any sort.
//!
//! `cargo run --release --example gpu_packed_pairs -- [lg_n ...]` (default 24 26)
use histosort::cuda::{CudaBackend, DeviceBuffer};
use histosort::SortOptions;

#[path = "support/timing.rs"]
mod timing;
use timing::{median_ms, sizes_from_args};

fn main() {
    let b = CudaBackend::new(0).expect("a CUDA device");
    let sizes = sizes_from_args(&[24, 26]);
    let mut failed = false;
    for lg in sizes {
        let n = 1usize << lg;
        let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ lg as u64;
        let keys: Vec<u32> = (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 32) as u32
            })
            .collect();
        let vals: Vec<u32> = (0..n as u32).collect();
        let packed: Vec<u64> = keys
            .iter()
            .zip(&vals)
            .map(|(&k, &v)| k as u64 | (v as u64) << 32)
            .collect();

        let opts = SortOptions::new();
        let (ki, vi) = (
            DeviceBuffer::upload(&b, &keys).unwrap(),
            DeviceBuffer::upload(&b, &vals).unwrap(),
        );
        let (ko, vo) = (
            DeviceBuffer::<u32>::alloc(&b, n).unwrap(),
            DeviceBuffer::<u32>::alloc(&b, n).unwrap(),
        );
        let mut plan = b.sort_plan::<u32>(n, 4, &opts).unwrap();
        let p = [&ki, &vi, &ko, &vo].map(|x| x.device_ptr(&b));
        let pairs = median_ms(&b, || b.run_sort_plan(&mut plan, p[0], p[1], p[2], p[3]));
        let (k_out, v_out) = (ko.download(&b).unwrap(), vo.download(&b).unwrap());

        let pi = DeviceBuffer::upload(&b, &packed).unwrap();
        let po = DeviceBuffer::<u64>::alloc(&b, n).unwrap();
        let popts = SortOptions::new().bits(0, 32);
        let mut pplan = b.sort_plan::<u64>(n, 0, &popts).unwrap();
        let (a, c) = (pi.device_ptr(&b), po.device_ptr(&b));
        let pk = median_ms(&b, || b.run_sort_plan(&mut pplan, a, 0, c, 0));
        let p_out = po.download(&b).unwrap();
        let bad = (0..n)
            .find(|&i| p_out[i] != (k_out[i] as u64 | (v_out[i] as u64) << 32))
            .map_or("ok".to_string(), |i| format!("MISMATCH at {i}"));
        let sorted = k_out.windows(2).all(|w| w[0] <= w[1]);
        failed |= bad != "ok" || !sorted;
        println!(
            "2^{lg}: pairs u32/u32 {:.3} ms [{:.3}-{:.3}] ({}), packed u64 bits [0,32) {:.3} ms [{:.3}-{:.3}] ({}): {bad}, pairs sorted: {sorted}",
            pairs.0,
            pairs.1,
            pairs.2,
            plan.path(),
            pk.0,
            pk.1,
            pk.2,
            pplan.path()
        );
    }
    if failed {
        std::process::exit(1);
    }
}
