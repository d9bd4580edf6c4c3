//! The CPU backend: rayon-parallel histograms, scans and LSD radix sorts built from the seeds'
//! three steps (histogram, exclusive scan, stable scatter).

#[cfg(target_arch = "x86_64")]
mod hist_simd;
pub mod histogram;
mod radix;
pub mod scan;
pub mod sort;

#[cfg(test)]
mod tests;
