//! The CPU backend: rayon-parallel histograms, scans and LSD radix sorts built from the seeds'
//! three steps (histogram, exclusive scan, stable scatter).

mod hist_simd;
pub mod histogram;
mod radix;
pub mod scan;
pub mod sort;

#[cfg(test)]
mod tests;
