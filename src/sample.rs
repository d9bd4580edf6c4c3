//! Sample types for histograms and element types for scans, with the one definition of how a
//! sample falls into a bin. The reference, the CPU backend and the CUDA kernels all follow it.

use std::fmt::Debug;

use bytemuck::Pod;

use crate::error::{Error, Result};
use crate::key::DType;

/// A numeric sample that can be histogrammed into even or range bins.
///
/// Even bins: `bins` equal bins over `[lower, upper)`. A sample `x` with `lower <= x < upper`
/// goes to bin `floor((x - lower) * bins / (upper - lower))`, computed exactly for integers
/// (in 128-bit arithmetic) and as `min(bins - 1, floor((x - lower) * scale))` with
/// `scale = bins / (upper - lower)` in the sample's own float type for floats (the same IEEE
/// operations the kernels do). Samples outside the range, and NaN, are not counted.
///
/// Range bins: bin `i` holds `boundaries[i] <= x < boundaries[i + 1]`; boundaries must be
/// strictly increasing. Samples outside `[boundaries[0], boundaries[last])` are not counted.
pub trait Sample: Copy + Send + Sync + Pod + PartialOrd + Debug + 'static {
    const DTYPE: DType;
    /// Precomputed mapping for even bins; `None` for samples that fall outside.
    type Even: EvenBin<Self>;
    fn even(lower: Self, upper: Self, bins: usize) -> Result<Self::Even>;
    /// The float scale `bins / (upper - lower)` of an even mapping (zero for integers, whose
    /// bins are exact and need none).
    fn even_scale(e: &Self::Even) -> Self;
    /// NaN for floats; never for integers.
    fn is_nan(self) -> bool;
    /// Lossy conversion for printing bin edges.
    fn to_f64(self) -> f64;
}

/// Maps a sample to its even bin.
pub trait EvenBin<T>: Copy + Send + Sync {
    fn bin(&self, x: T) -> Option<usize>;
}

/// The most bins a histogram may have: 2^30 (8 GiB of u64 counts, before any per-thread copies).
pub const MAX_BINS: usize = 1 << 30;

/// Checks a bin count: at least 1, at most [`MAX_BINS`].
pub fn check_bins(bins: usize) -> Result<()> {
    if bins == 0 {
        return Err(Error::invalid("the number of bins must be at least 1"));
    }
    if bins > MAX_BINS {
        return Err(Error::invalid(format!(
            "{bins} bins are more than histosort supports ({MAX_BINS}, 2^30)"
        )));
    }
    Ok(())
}

fn check_even<T: PartialOrd + Debug>(lower: T, upper: T, bins: usize) -> Result<()> {
    check_bins(bins)?;
    // NaN bounds compare as neither: they are refused too.
    if lower.partial_cmp(&upper) != Some(std::cmp::Ordering::Less) {
        return Err(Error::invalid(format!(
            "even bins need lower < upper, got lower {lower:?}, upper {upper:?}"
        )));
    }
    Ok(())
}

/// Even bins over an integer sample type, exact in 128-bit arithmetic.
#[derive(Clone, Copy, Debug)]
pub struct IntEven {
    lower: i128,
    upper: i128,
    bins: u128,
}

impl IntEven {
    #[inline(always)]
    fn bin_i128(&self, x: i128) -> Option<usize> {
        if x < self.lower || x >= self.upper {
            return None;
        }
        let range = (self.upper - self.lower) as u128;
        Some((((x - self.lower) as u128) * self.bins / range) as usize)
    }
}

macro_rules! int_sample {
    ($($t:ty => $d:ident),*) => {$(
        impl Sample for $t {
            const DTYPE: DType = DType::$d;
            type Even = IntEven;
            fn even(lower: Self, upper: Self, bins: usize) -> Result<IntEven> {
                check_even(lower, upper, bins)?;
                Ok(IntEven { lower: lower as i128, upper: upper as i128, bins: bins as u128 })
            }
            fn even_scale(_: &IntEven) -> Self { 0 }
            #[inline(always)]
            fn is_nan(self) -> bool { false }
            fn to_f64(self) -> f64 { self as f64 }
        }
        impl EvenBin<$t> for IntEven {
            #[inline(always)]
            fn bin(&self, x: $t) -> Option<usize> { self.bin_i128(x as i128) }
        }
    )*};
}
int_sample!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32, i64 => I64);

/// Even bins over a float sample type: `(x - lower) * scale`, clamped to the last bin.
#[derive(Clone, Copy, Debug)]
pub struct FloatEven<T> {
    pub lower: T,
    pub upper: T,
    pub scale: T,
    pub bins: usize,
}

macro_rules! float_sample {
    ($($t:ty => $d:ident),*) => {$(
        impl Sample for $t {
            const DTYPE: DType = DType::$d;
            type Even = FloatEven<$t>;
            fn even(lower: Self, upper: Self, bins: usize) -> Result<FloatEven<$t>> {
                check_even(lower, upper, bins)?;
                if !lower.is_finite() || !upper.is_finite() || !(upper - lower).is_finite() {
                    return Err(Error::invalid(format!(
                        "even bins need a finite range, got [{lower}, {upper})"
                    )));
                }
                Ok(FloatEven { lower, upper, scale: bins as $t / (upper - lower), bins })
            }
            fn even_scale(e: &FloatEven<$t>) -> Self { e.scale }
            #[inline(always)]
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn to_f64(self) -> f64 { self as f64 }
        }
        impl EvenBin<$t> for FloatEven<$t> {
            #[inline(always)]
            fn bin(&self, x: $t) -> Option<usize> {
                // NaN fails both comparisons and is dropped.
                if !(x >= self.lower && x < self.upper) {
                    return None;
                }
                let b = ((x - self.lower) * self.scale) as usize;
                Some(b.min(self.bins - 1))
            }
        }
    )*};
}
float_sample!(f32 => F32, f64 => F64);

/// Checks range-bin boundaries: at least two, strictly increasing, no NaN.
pub fn check_boundaries<T: Sample>(boundaries: &[T]) -> Result<()> {
    if boundaries.len() < 2 {
        return Err(Error::invalid(format!(
            "range bins need at least 2 boundaries, got {}",
            boundaries.len()
        )));
    }
    check_bins(boundaries.len() - 1)?;
    if let Some(i) = boundaries.iter().position(|b| b.is_nan()) {
        return Err(Error::invalid(format!("boundary {i} is NaN")));
    }
    if let Some(i) = boundaries
        .windows(2)
        .position(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less))
    {
        return Err(Error::invalid(format!(
            "range boundaries must be strictly increasing: boundary {} ({:?}) is not below boundary {} ({:?})",
            i,
            boundaries[i],
            i + 1,
            boundaries[i + 1]
        )));
    }
    Ok(())
}

/// The range bin of `x`, by binary search. `boundaries` must have passed [`check_boundaries`].
#[inline]
pub fn range_bin<T: Sample>(boundaries: &[T], x: T) -> Option<usize> {
    // Number of boundaries <= x; NaN compares false everywhere and gives 0.
    let idx = boundaries.partition_point(|b| *b <= x);
    if idx == 0 || idx == boundaries.len() {
        None
    } else {
        Some(idx - 1)
    }
}

/// Most channels of a multi-channel histogram (RGBA).
pub const MAX_CHANNELS: usize = 4;

/// Checks a multi-channel histogram request: 1 to [`MAX_CHANNELS`] channels and a whole number
/// of pixels (`n` bytes, `channels` bytes a pixel, interleaved: byte i is in channel
/// i % channels).
pub fn check_channels(n: usize, channels: usize) -> Result<()> {
    if channels == 0 || channels > MAX_CHANNELS {
        return Err(Error::invalid(format!(
            "multi-channel histograms take 1 to {MAX_CHANNELS} channels, got {channels}"
        )));
    }
    if !n.is_multiple_of(channels) {
        return Err(Error::invalid(format!(
            "{n} bytes are not a whole number of {channels}-channel pixels ({} bytes left over)",
            n % channels
        )));
    }
    Ok(())
}

/// Element types of prefix sums. Integer sums wrap on overflow (as CUB's do); float sums are
/// rounded, and their association order differs between backends (see [`crate::Engine::scan`]).
pub trait ScanElem: Copy + Send + Sync + Pod + PartialEq + Debug + 'static {
    const DTYPE: DType;
    const ZERO: Self;
    fn add(self, other: Self) -> Self;
}

macro_rules! scan_int {
    ($($t:ty => $d:ident),*) => {$(
        impl ScanElem for $t {
            const DTYPE: DType = DType::$d;
            const ZERO: Self = 0;
            #[inline(always)]
            fn add(self, other: Self) -> Self { self.wrapping_add(other) }
        }
    )*};
}
scan_int!(u32 => U32, u64 => U64, i32 => I32, i64 => I64);

macro_rules! scan_float {
    ($($t:ty => $d:ident),*) => {$(
        impl ScanElem for $t {
            const DTYPE: DType = DType::$d;
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn add(self, other: Self) -> Self { self + other }
        }
    )*};
}
scan_float!(f32 => F32, f64 => F64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_int_bins() {
        let e = u8::even(0, 255, 256).unwrap();
        assert_eq!(e.bin(0), Some(0));
        assert_eq!(e.bin(254), Some(254));
        assert_eq!(e.bin(255), None);
        let e = i32::even(-10, 10, 4).unwrap();
        assert_eq!(e.bin(-10), Some(0));
        assert_eq!(e.bin(-6), Some(0));
        assert_eq!(e.bin(-5), Some(1));
        assert_eq!(e.bin(9), Some(3));
        assert_eq!(e.bin(10), None);
        let e = i64::even(i64::MIN, i64::MAX, 3).unwrap();
        assert_eq!(e.bin(i64::MIN), Some(0));
        assert_eq!(e.bin(i64::MAX - 1), Some(2));
        assert!(u32::even(5, 5, 1).is_err());
        assert!(u32::even(0, 5, 0).is_err());
    }

    #[test]
    fn even_float_bins() {
        let e = f32::even(0.0, 1.0, 10).unwrap();
        assert_eq!(e.bin(0.0), Some(0));
        assert_eq!(e.bin(0.999_999_94), Some(9));
        assert_eq!(e.bin(1.0), None);
        assert_eq!(e.bin(f32::NAN), None);
        assert_eq!(e.bin(-0.0), Some(0));
        assert_eq!(e.bin(f32::INFINITY), None);
        assert!(f32::even(0.0, f32::INFINITY, 3).is_err());
    }

    #[test]
    fn range_bins() {
        let b = [0.0f64, 1.0, 10.0, 100.0];
        check_boundaries(&b).unwrap();
        assert_eq!(range_bin(&b, -1.0), None);
        assert_eq!(range_bin(&b, 0.0), Some(0));
        assert_eq!(range_bin(&b, 1.0), Some(1));
        assert_eq!(range_bin(&b, 99.9), Some(2));
        assert_eq!(range_bin(&b, 100.0), None);
        assert_eq!(range_bin(&b, f64::NAN), None);
        assert!(check_boundaries(&[1u32, 1]).is_err());
        assert!(check_boundaries(&[1.0f32, f32::NAN]).is_err());
        assert!(check_boundaries(&[1u32]).is_err());
    }
}
