//! CPU backend tunables. Numbers measured on the 2-core development machine (AMD EPYC, shared,
//! noisy); see bench/NOTES.md "2026-11-30 CPU backend" and bench/results/2026-11-30-cpu-*.json.

/// Widest digit of the MSD-first sort's passes (a caller's `digit_bits` overrides it): 8
/// bits for every key width (11 and 12 bits inside a bucket ran level or slower, bench/NOTES.md
/// session 40). The plain LSD sort takes [`lsd_digit_bits`].
pub const fn max_digit_bits(_key_bits: u32) -> u32 {
    8
}

/// From this length on, sorts go MSD-first: one parallel scatter on the top digit, then a
/// serial LSD per bucket inside the cache (see `cpu::radix::msd_then_lsd`); 32-bit keys from
/// [`msd_min_len`]'s larger length on.
pub const MSD_MIN_LEN: usize = 1 << 16;

/// Least length of the MSD-first sort for keys of `key_bits`: [`MSD_MIN_LEN`], and 2^19 for
/// 32-bit keys, which the plain LSD sort of 11-bit digits (three passes,
/// [`lsd_digit_bits`]) sorts faster below it. Zen 5, two threads, u32 keys 2^16 / 2^17 /
/// 2^18: 393 / 476 / 488 Mkeys/s against the MSD-first sort's 270 / 364 / 442 (its buckets of
/// 256-1024 keys are too short for it); u32/u32 pairs 397 / 414 / 400 against 251 / 303 /
/// 374; level at 2^19 for keys, the MSD-first sort 1.2x ahead for pairs (bench/NOTES.md,
/// session 43). 64-bit keys keep 2^16: there the MSD-first sort was 1.2x ahead of the LSD.
pub const fn msd_min_len(key_bits: u32) -> usize {
    if key_bits == 32 {
        1 << 19
    } else {
        MSD_MIN_LEN
    }
}

/// Width of the plain LSD sort's digits (below [`msd_min_len`]) for `n` elements of
/// `elem_bytes` with keys of `key_bits`: 11 bits for 32- and 64-bit keys (3 passes instead of 4,
/// 6 instead of 8) from 2^13 elements on, where the fewer passes outweigh 2048 counters a
/// digit, except for parallel passes (from [`PAR_MIN_LEN`] on) over less than 256 KiB, whose
/// per-task counters cost more than the pass saved: u32 keys at 2^15 on two threads ran 8%
/// slower with 11 bits (10% faster on one). Zen 5, two threads, Mkeys/s, 8 bits / 11 bits:
/// u32 2^13 266 / 273, 2^14 268 / 288; u64 2^13 127 / 135, 2^14 129 / 146, 2^15 170 / 188;
/// u32/u32 pairs 2^14 232 / 254, 2^15 317 / 333; at 2^12 8 bits were level or ahead
/// (bench/NOTES.md, session 43).
pub const fn lsd_digit_bits(n: usize, elem_bytes: usize, key_bits: u32) -> u32 {
    let wide = key_bits == 32 || key_bits == 64;
    let parallel_small = n >= PAR_MIN_LEN && n.saturating_mul(elem_bytes) < 1 << 18;
    if wide && n >= 1 << 13 && !parallel_small {
        11
    } else {
        8
    }
}
/// Width of the MSD digit for `n` elements of `elem_bytes`: buckets of about 256 KiB (u32:
/// 2^16 keys), so a bucket and its scratch window stay in the 1 MiB L2; 256 to 4096 buckets.
pub const fn msd_digit_bits(n: usize, elem_bytes: usize) -> u32 {
    let bytes = n.saturating_mul(elem_bytes);
    let lg = usize::BITS - 1 - (bytes | 1).leading_zeros();
    if lg < 26 {
        8
    } else if lg > 30 {
        12
    } else {
        lg - 18
    }
}
/// Buckets up to this length take std's stable sort (insertion and merge sorts in cache).
pub const BUCKET_STD_SORT_MAX: usize = 256;
/// Buckets up to this length take an insertion sort (std's stable sort above it).
pub const INSERTION_SORT_MAX: usize = 32;
/// A bucket whose remaining varying bits need more LSD passes than this sorts on its top bits
/// and then fixes ties (see `cpu::radix::sort_bucket`). 3: u32 buckets keep the plain LSD,
/// u64 buckets (7 passes) take the top sort, 1.3-1.45x rdst in CPU time at u64 2^24 vs
/// 0.9x for a plain 7-pass LSD and 0.92x for an 11-bit MSD step plus insertion sorts
/// (bench/NOTES.md 2026-11-30 v2).
pub const BUCKET_LSD_MAX_PASSES: usize = 3;
/// Least number of bits beyond log2(bucket length) that the in-bucket top sort orders by
/// before the tie fix-up (rounded up to whole digits, see `cpu::radix::top_shift`): a key ties
/// with its neighbour with probability about 2^-4 or less. 4: two 8-bit passes for buckets of
/// 2^12 (u64 2^20), three for 2^15 (u64 2^24). 4, 7 and 10 measured within noise of each other
/// at u64 2^24 when the width was not rounded (bench/NOTES.md 2026-11-30 v2).
pub const BUCKET_TOP_EXTRA_BITS: u32 = 4;
/// The in-bucket top sort runs only where at least `ceil(log2(bucket length))` plus this many
/// of its bits vary (`cpu::radix::top_plan`); with fewer, its ties are long runs (a few
/// distinct values in the high bits), each sorted again, and the plain LSD is faster. Zen 5,
/// two threads, u64 keys of random top bytes, 2^20 (buckets of ~2^12), best of two rounds,
/// Mkeys/s with no guard in buckets / guard 4 / guard 1, by how many of the top sort's 16 bits
/// vary: 4 bits 130 / 215 (both guards take the LSD there), 10 bits 179 / 230 / 228, 12 bits
/// 206 / 232 / 230, 13 bits 235 / 225 / 249, 14 bits 263 / 230 / 281; at 2^22, 4 bits 111 /
/// 189 / 179 and 18 of 24 bits 228 / 203 / 234 (a bucket just over 2^14 keys needs one bit
/// more than one just under); uniform keys unchanged (bench/NOTES.md, session 44).
pub const BUCKET_TOP_TIE_GUARD_BITS: u32 = 1;

/// Bytes per cache line: the write-combining staging unit.
pub const CACHE_LINE: usize = 64;
/// Largest radix that gets write-combining staging: 4096 lines of 64 bytes stay in L2.
pub const WC_MAX_RADIX: usize = 1 << 12;
/// Write-combining staging is off: measured slower than the plain scatter on this machine
/// (u32 2^24, one thread: 1.01 s vs 0.80 s under heavy shared load), both over memory and in L2.
pub const WRITE_COMBINING: bool = false;
/// The MSD scatter of large inputs stages cache lines and streams them out with non-temporal
/// stores (`cpu::radix::scatter_nt`).
pub const NT_SCATTER: bool = true;
/// Pair and argsort outputs of at least `NT_MIN_BYTES` of records are written bucket by bucket
/// from the in-cache scratch with non-temporal stores (`cpu::radix::stream_out`) instead of
/// by the last scatter, whose destination lines were read from memory first.
pub const NT_OUTPUT: bool = true;
/// Data from this many bytes on takes the non-temporal MSD scatter (it would not stay in the
/// caches for the bucket pass anyway). Below it the scattered data is still in the last-level
/// cache when the bucket pass reads it, and non-temporal stores would send it through memory.
/// Intel dev VM (2 MiB L2 per core, 2 threads), session 20, `examples/cpu_sort_prof`, best of
/// 8-20 sorts per call, settings alternating for 4-5 rounds (range of the rounds' bests, ms),
/// non-temporal against cached stores: 16 MiB: u32 2^22 11.98-12.32 / 11.13-11.54, u64 2^21
/// 8.75-9.12 / 8.00-8.08, pairs u32/u32 2^21 8.67-8.86 / 7.47-7.76 (cached 7-14% faster);
/// 32 MiB: u32 2^23 23.89-24.73 / 28.68-29.92 (non-temporal 17% faster), u64 2^22 and pairs
/// 2^22 a toss-up whose cached side swings by 30% between rounds (pairs 15.7-22.1 ms against
/// 16.4-17.3), so they stay non-temporal; 64 MiB and up non-temporal by 8-25%.
pub const NT_MIN_BYTES: usize = 32 << 20;
/// Below this many elements the staging buffers cost more than they save.
pub const WC_MIN_LEN: usize = 1 << 12;
/// Inputs up to this length take std's stable sort on the radix image instead of LSD passes.
pub const SMALL_SORT_MAX: usize = 64;
/// Below this length the LSD runs on one thread (rayon's fork-join costs more than it saves).
pub const PAR_MIN_LEN: usize = 1 << 15;
/// Chunks (rayon tasks) per thread in a parallel pass.
pub const CHUNKS_PER_THREAD: usize = 1;
/// Elements per block of the parallel copy-back.
pub const COPY_BLOCK: usize = 1 << 16;
/// The sort's hot loops (the scatter, the in-bucket survey) run a BMI2 build where the CPU has
/// it (x86-64, detected at run time): a shift by a run-time amount is one SHRX micro-op there,
/// against several for baseline x86-64's SHR by CL. Intel dev VM, session 16, this switch 1 / 0
/// alternating, best of 200-300 sorts each (`examples/cpu_sort_prof`, ms): pairs u32/u32 2^20
/// 3.58 / 3.89, 3.68 / 3.96, 3.88 / 3.95, 3.59 / 3.79, 3.67 / 3.89, 3.86 / 4.25 (5-9%); u32
/// 2^20 2.88-3.02 / 2.90-3.05 (level); u32 and pairs 2^24 level (best of 12). (The whole
/// crate built for BMI2 sorted u32 2^20 in 2.74-2.90 ms, but made rdst 15% faster too.)
/// `HISTOSORT_CPU_BMI2=0` turns it off (A/B runs with one binary).
pub const BMI2: bool = true;
/// [`BMI2`], or what `HISTOSORT_CPU_BMI2` says.
pub fn bmi2() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        super::cuda::env_tuning::<u32>("HISTOSORT_CPU_BMI2").map_or(BMI2, |v| v != 0)
    })
}
/// Pair sorts carry values up to this many bytes through every pass; larger values are
/// sorted by index and gathered once at the end.
pub const PAIR_MAX_VALUE: usize = 16;

/// Samples per rayon task in histograms: large enough to amortise the merge of 256 counters.
pub const HIST_CHUNK: usize = 1 << 18;
/// Byte histograms from this many bytes on take the pair counter (`cpu::histogram`): below it
/// the 256 KiB pair table per fold state (zeroed, then folded into 256 bins) costs more than
/// it saves.
pub const HIST_PAIR_MIN: usize = 16 << 20;
/// Byte histograms from this many bytes on take the vector counter (`cpu::hist_simd`) where
/// the CPU has it. Session 38 (`examples/hist_prof`, AMD EPYC Zen 4, best of 200, µs, vector
/// against scalar): 2^14 bytes 19.7 / 25.0 on one thread, 8.2 / 8.5 on two; 2^16 27.5 / 33.3
/// and 18.1 / 23.4; 2^20 284 / 303 and 124 / 152.
pub const HIST_SIMD_MIN: usize = 1 << 14;
/// Bytes per block of the parallel scan (`cpu::scan`): a block is reduced from memory and then
/// scanned again from L2, so it must stay well inside the 1 MiB L2 next to what else streams
/// through it.
pub const SCAN_BLOCK_BYTES: usize = 256 << 10;
/// f32 scans take an 8-lane AVX2 loop where the CPU has it (u32 measured no faster than SSE2).
pub const SCAN_AVX2: bool = true;
/// How long (ns) a scan worker waits for an earlier block's aggregate before it reduces that
/// block itself: about the time a running owner needs to scan a block in one pass (256 KiB at
/// ~5-10 GB/s), far below the time slice a descheduled one loses.
pub const SCAN_LOOKBACK_SPIN: u64 = 50_000;
/// Scan outputs from this many bytes on are written with non-temporal stores (they would not
/// stay in the caches anyway, and streaming saves the read-for-ownership of every line).
pub const SCAN_NT_MIN_BYTES: usize = 16 << 20;

/// Huge page size for scratch buffers (Linux transparent huge pages, `madvise` mode).
pub const HUGE_PAGE: usize = 2 << 20;
/// Scratch buffers from this size on are 2 MiB aligned and advised as huge pages. 32 MiB:
/// glibc's largest dynamic mmap threshold on 64-bit, so smaller buffers come from the heap after
/// the first call and are reused without faults (u32 2^20: the 4 MiB buffer's two huge pages,
/// zeroed by the kernel on every call, were 3.5% of the sort; bench/NOTES.md 2026-11-30
/// session 4), while larger ones are mapped afresh every time and fault in 2 MiB at once.
pub const HUGE_PAGE_MIN: usize = 32 << 20;
/// Scratch buffers are kept after a sort for the next one (`cpu::sort::release_scratch` frees
/// them): at most this many (pairs use two)...
pub const SCRATCH_KEEP: usize = 2;
/// ...of at least this many bytes: the huge-page buffers, which the allocator maps afresh for
/// every sort. (Kept from 1 MiB on, the 4 MiB buffer of a u32 2^20 sort made it 5-10%
/// slower, 3.09-3.30 against 2.90-3.09 ms in A/B runs, session 12; cause not established,
/// perhaps the fixed placement of a kept buffer relative to the keys.)
pub const SCRATCH_KEEP_MIN_BYTES: usize = HUGE_PAGE_MIN;
/// ...and at most this many bytes together (a u32/u32 pair sort of 2^26 takes two of 512 MiB).
pub const SCRATCH_KEEP_MAX_BYTES: usize = 1 << 30;
/// Loops that stream their source from memory prefetch it this many bytes ahead (one prefetch
/// per cache line read). The hardware prefetcher of the 2-core development VM (Intel Xeon,
/// model 167, session 12) leaves a read-and-count loop at ~3 GB/s per core; with 4 KiB of
/// software prefetch it ran 2.3-2.8x faster (u32 2^24 survey loop in C: scalar 1.78 -> 0.65
/// ns/key, AVX-512 1.15 -> 0.52; 1 KiB 0.63, 16 KiB 0.60).
pub const PREFETCH_AHEAD_BYTES: usize = 4096;
