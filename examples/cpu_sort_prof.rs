//! Profiling aid: times histosort's CPU key sort alone (no other crate in the profile).
//! `cargo run --release --example cpu_sort_prof -- u64 24 10` (key type, log2 size, runs).

use std::time::Instant;

use histosort::{Engine, RadixKey, SortOptions};

fn run<K: RadixKey + Ord>(lg: u32, runs: usize, gen: fn(u64) -> K) {
    let mut seed = 1u64;
    let input: Vec<K> = (0..1usize << lg)
        .map(|_| {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            gen(z ^ (z >> 31))
        })
        .collect();
    let e = Engine::cpu();
    let mut w = input.clone();
    let mut best = f64::MAX;
    for _ in 0..runs {
        w.copy_from_slice(&input);
        let t = Instant::now();
        let _ = e.sort(&mut w, &SortOptions::new());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    if !w.windows(2).all(|p| p[0] <= p[1]) {
        eprintln!("not sorted");
        std::process::exit(1);
    }
    println!(
        "2^{lg}: best {best:.2} ms, {:.1} Mkeys/s",
        (1u64 << lg) as f64 / best / 1e3
    );
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let ty = a.get(1).map(String::as_str).unwrap_or("u32");
    let lg = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(24);
    let runs = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    match ty {
        "u64" => run::<u64>(lg, runs, |x| x),
        _ => run::<u32>(lg, runs, |x| x as u32),
    }
}
