//! Experiment (issue 5, session 26): u64 keys with 8- and 16-byte values, the hybrid sort
//! against the LSD passes. The hybrid takes 64-bit pairs from `HYBRID_MIN_U64_PAIRS` on, a
//! default measured with 4-byte values only; wider values shrink the in-bucket block (fewer
//! keys fit its shared memory) but make each of the LSD sort's eight passes move more. Times
//! both (median of 15 sorts after 3 warm-ups, each synchronised; out of place from an input
//! never written) and checks both against the serial reference at every element (exit 1 on a
//! mismatch). The values are the input index (8 bytes) or the index and its complement (16).
//!
//! `cargo run --release --example gpu_wide_pairs -- [lg_n ...]` (default 21 23 25 27)
use histosort::cuda::{CudaBackend, DeviceBuffer};
use histosort::SortOptions;

#[path = "support/timing.rs"]
mod timing;
use timing::{median_ms, sizes_from_args};

/// Median, fastest and slowest time in ms, and the plan's path.
type Timed = ((f64, f64, f64), &'static str);

/// One value type's sorts: the hybrid's, the LSD passes', and the check of their outputs.
fn compare<V: bytemuck::Pod + PartialEq>(
    b: &CudaBackend,
    keys: &[u64],
    vals: &[V],
) -> (Timed, Timed, String) {
    let n = keys.len();
    let opts = SortOptions::new();
    let vb = std::mem::size_of::<V>() as u32;
    let (ki, vi) = (
        DeviceBuffer::upload(b, keys).unwrap(),
        DeviceBuffer::upload(b, vals).unwrap(),
    );
    let (ko, vo) = (
        DeviceBuffer::<u64>::alloc(b, n).unwrap(),
        DeviceBuffer::<V>::alloc(b, n).unwrap(),
    );
    let p = [&ki, &ko].map(|x| x.device_ptr(b));
    let q = [&vi, &vo].map(|x| x.device_ptr(b));
    let mut runs = Vec::new();
    for hybrid in [true, false] {
        b.set_hybrid_min(8, if hybrid { Some(1) } else { None });
        let mut plan = b.sort_plan::<u64>(n, vb, &opts).unwrap();
        let t = median_ms(b, || b.run_sort_plan(&mut plan, p[0], q[0], p[1], q[1]));
        runs.push((
            t,
            plan.path(),
            ko.download(b).unwrap(),
            vo.download(b).unwrap(),
        ));
    }
    let (h, l) = (&runs[0], &runs[1]);
    // Both against the serial reference (stable), at every element.
    let (wk, wv) = histosort::reference::sort_pairs(keys, vals, &opts);
    let wrong = |r: &(_, _, Vec<u64>, Vec<V>)| (0..n).find(|&i| r.2[i] != wk[i] || r.3[i] != wv[i]);
    let check = match (wrong(h), wrong(l)) {
        (None, None) => "both equal to the reference".to_string(),
        (a, b) => format!("MISMATCH: hybrid at {a:?}, LSD at {b:?}"),
    };
    ((h.0, h.1), (l.0, l.1), check)
}

fn main() {
    let b = CudaBackend::new(0).expect("a CUDA device");
    let sizes = sizes_from_args(&[21, 23, 25, 27]);
    let mut failed = false;
    for lg in sizes {
        let n = 1usize << lg;
        let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ lg as u64;
        let keys: Vec<u64> = (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s ^ (s >> 29)
            })
            .collect();
        let v8: Vec<u64> = (0..n as u64).collect();
        let v16: Vec<u128> = (0..n as u128).map(|i| i | (!i << 64)).collect();
        for (what, r) in [
            ("u64/u64", compare(&b, &keys, &v8)),
            ("u64/u128", compare(&b, &keys, &v16)),
        ] {
            let ((h, hp), (l, lp), check) = r;
            failed |= check.starts_with("MISMATCH");
            println!(
                "2^{lg} {what}: {hp} {:.3} ms [{:.3}-{:.3}], {lp} {:.3} ms [{:.3}-{:.3}], \
                 {:+.1}%: {check}",
                h.0,
                h.1,
                h.2,
                l.0,
                l.1,
                l.2,
                (h.0 / l.0 - 1.0) * 100.0
            );
        }
    }
    if failed {
        std::process::exit(1);
    }
}
