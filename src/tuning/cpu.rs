//! CPU backend tunables. Numbers measured on the 2-core development machine (AMD EPYC, shared,
//! noisy); see bench/NOTES.md "2026-11-30 CPU backend" and bench/results/2026-11-30-cpu-*.json.

/// Widest LSD digit the planner picks by itself (a caller's `digit_bits` overrides it).
pub const fn max_digit_bits(key_bits: u32) -> u32 {
    match key_bits {
        _ => 8,
    }
}

/// Bytes per cache line: the write-combining staging unit.
pub const CACHE_LINE: usize = 64;
/// Largest radix that gets write-combining staging: 4096 lines of 64 bytes stay in L2.
pub const WC_MAX_RADIX: usize = 1 << 12;
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
/// Pair sorts carry values up to this many bytes through every pass; larger values are
/// sorted by index and gathered once at the end.
pub const PAIR_MAX_VALUE: usize = 16;

/// Samples per rayon task in histograms: large enough to amortise the merge of 256 counters.
pub const HIST_CHUNK: usize = 1 << 18;
/// Elements per block of the two-pass scan.
pub const SCAN_BLOCK: usize = 1 << 16;
