//! Profiling aid: times histosort's CPU sorts alone (no other crate in the profile), or rdst's
//! unstable keys-only sort on the same keys.
//! `cargo run --release --example cpu_sort_prof -- u64 24 10` (what, log2 size, runs); `what` is
//! `u32`, `u64`, `pairs` (u32 keys, u32 values = index) or `rdst` (rdst's u32
//! `radix_sort_unstable`); an optional fourth argument sets histosort's digit width;
//! `PROF_MASK` (hex) masks the random words.

use std::time::Instant;

use histosort::{Engine, RadixKey, SortOptions};
use rdst::RadixSort as _;

/// The timed sorts' keys: `input` with the random words ANDed with `PROF_MASK` (hex, e.g.
/// `FC03030000FFFFFF`) first, for keys whose varying bits are only some (the low 32 bits of
/// the mask for 32-bit keys).
fn keys<K>(lg: u32, gen: fn(u64) -> K) -> Vec<K> {
    use std::sync::OnceLock;
    static MASK: OnceLock<u64> = OnceLock::new();
    let mask = *MASK.get_or_init(|| {
        std::env::var("PROF_MASK").map_or(u64::MAX, |m| {
            let hex = m.trim();
            let hex = hex
                .strip_prefix("0x")
                .or_else(|| hex.strip_prefix("0X"))
                .unwrap_or(hex);
            u64::from_str_radix(hex, 16).expect("PROF_MASK: a hex number")
        })
    });
    input(lg, |x| x)
        .into_iter()
        .map(|x| gen(x & mask))
        .collect()
}

fn input<K>(lg: u32, gen: fn(u64) -> K) -> Vec<K> {
    let mut seed = 1u64;
    (0..1usize << lg)
        .map(|_| {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            gen(z ^ (z >> 31))
        })
        .collect()
}

/// Process CPU time (user + system) in ms: under load it moves far less than wall time.
fn cpu_ms() -> f64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 * 1e3 + v.tv_usec as f64 * 1e-3;
    t(u.ru_utime) + t(u.ru_stime)
}

/// What runs before each timed sort, ahead of the input's copy (`PROF_BETWEEN`): nothing (the
/// default), `sleep` / `sleep20` (2 / 20 ms idle), `sleep20par` (20 ms idle, then a 2-thread
/// copy, as `benches/cpu_sort.rs` copies its input), `evict` (64 MiB written: the caches hold
/// none of the sort's data), or `std` (a `sort_unstable` of 2^20 other keys, as a benchmark's
/// rotation runs other sorts in between). bench/NOTES.md, session 21.
fn between() {
    use std::sync::OnceLock;
    static WHAT: OnceLock<String> = OnceLock::new();
    match WHAT
        .get_or_init(|| std::env::var("PROF_BETWEEN").unwrap_or_default())
        .as_str()
    {
        "sleep" => std::thread::sleep(std::time::Duration::from_millis(2)),
        "sleep20" => std::thread::sleep(std::time::Duration::from_millis(20)),
        "sleep20par" => {
            // As the benchmark's rotation does: idle, then a 2-thread copy just before the sort.
            std::thread::sleep(std::time::Duration::from_millis(20));
            let src = vec![1u32; 1 << 20];
            let mut dst = vec![0u32; 1 << 20];
            use rayon::prelude::*;
            dst.par_iter_mut()
                .zip(src.par_iter())
                .for_each(|(d, &s)| *d = s);
            std::hint::black_box(&dst);
        }
        "evict" => {
            let mut v = vec![0u8; 64 << 20];
            for (i, b) in v.iter_mut().enumerate() {
                *b = i as u8;
            }
            std::hint::black_box(&v);
        }
        "std" => {
            let mut v = input(20, |x| x);
            v.sort_unstable();
            std::hint::black_box(&v);
        }
        _ => {}
    }
}

/// Best wall and best CPU time over the runs of `op`.
struct Best(f64, f64);

impl Best {
    fn time(&mut self, op: impl FnOnce()) {
        let (c, t) = (cpu_ms(), Instant::now());
        op();
        self.0 = self.0.min(t.elapsed().as_secs_f64() * 1e3);
        self.1 = self.1.min(cpu_ms() - c);
    }
}

fn report(lg: u32, best: Best) {
    println!(
        "2^{lg}: best {:.2} ms, {:.1} Mkeys/s; best CPU {:.2} ms",
        best.0,
        (1u64 << lg) as f64 / best.0 / 1e3,
        best.1
    );
}

fn run<K: RadixKey + Ord>(lg: u32, runs: usize, opts: SortOptions, gen: fn(u64) -> K) {
    let input = keys(lg, gen);
    let e = Engine::cpu();
    let mut w = input.clone();
    let mut best = Best(f64::MAX, f64::MAX);
    for _ in 0..runs {
        between();
        w.copy_from_slice(&input);
        best.time(|| {
            let _ = e.sort(&mut w, &opts);
        });
    }
    if !w.windows(2).all(|p| p[0] <= p[1]) {
        eprintln!("not sorted");
        std::process::exit(1);
    }
    report(lg, best);
}

fn pairs(lg: u32, runs: usize, opts: SortOptions) {
    let keys = keys(lg, |x| x as u32);
    let vals: Vec<u32> = (0..keys.len() as u32).collect();
    let e = Engine::cpu();
    let (mut k, mut v) = (keys.clone(), vals.clone());
    let mut best = Best(f64::MAX, f64::MAX);
    for _ in 0..runs {
        between();
        k.copy_from_slice(&keys);
        v.copy_from_slice(&vals);
        best.time(|| {
            let _ = e.sort_pairs(&mut k, &mut v, &opts);
        });
    }
    let stable = k
        .windows(2)
        .zip(v.windows(2))
        .all(|(a, b)| a[0] < a[1] || (a[0] == a[1] && b[0] < b[1]));
    if !stable || !v.iter().zip(&k).all(|(&i, &key)| keys[i as usize] == key) {
        eprintln!("pairs not sorted stably");
        std::process::exit(1);
    }
    report(lg, best);
}

fn rdst(lg: u32, runs: usize) {
    let input = keys(lg, |x| x as u32);
    let mut w = input.clone();
    let mut best = Best(f64::MAX, f64::MAX);
    for _ in 0..runs {
        between();
        w.copy_from_slice(&input);
        best.time(|| w.radix_sort_unstable());
    }
    report(lg, best);
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let ty = a.get(1).map(String::as_str).unwrap_or("u32");
    let lg = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(24);
    let runs = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mut opts = SortOptions::new();
    opts.digit_bits = a.get(4).and_then(|s| s.parse().ok());
    match ty {
        "u64" => run::<u64>(lg, runs, opts, |x| x),
        "pairs" => pairs(lg, runs, opts),
        "rdst" => rdst(lg, runs),
        _ => run::<u32>(lg, runs, opts, |x| x as u32),
    }
}
