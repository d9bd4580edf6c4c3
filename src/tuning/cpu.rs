//! CPU backend tunables.

/// Bits per LSD digit: 256 counters stay in L1 (the seeds' natural CPU choice, `seeds/001`).
pub const DIGIT_BITS: u32 = 8;
/// Samples per rayon task in histograms: large enough to amortise the merge of 256 counters.
pub const HIST_CHUNK: usize = 1 << 18;
/// Elements per block of the two-pass scan.
pub const SCAN_BLOCK: usize = 1 << 16;

