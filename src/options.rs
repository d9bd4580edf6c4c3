//! Options of a sort.

use crate::algorithm::{LaunchMode, Order, SortAlgorithm};
use crate::error::{Error, Result};

/// How to sort: direction, which bits of the key, digit width, variant and launch mode.
///
/// ```
/// use histosort::SortOptions;
/// let opts = SortOptions::new().descending().bits(0, 16).digit_bits(4);
/// assert_eq!(opts.bit_range(32), (0, 16));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortOptions {
    /// Ascending (default) or descending; both stable.
    pub order: Order,
    /// Sort on bits `[begin, end)` of the key's radix image only (see [`crate::key`]); `None`
    /// means every bit. Keys equal on those bits keep their input order.
    pub bits: Option<(u32, u32)>,
    /// Digit width in bits per pass; `None` lets the backend choose.
    pub digit_bits: Option<u32>,
    /// Which sort to run.
    pub algorithm: SortAlgorithm,
    /// CUDA backend only: plain stream launches, a captured graph, or (auto) plain launches
    /// with graph replay for repeated one-kernel sorts.
    pub launch: LaunchMode,
}

impl Default for SortOptions {
    fn default() -> Self {
        SortOptions {
            order: Order::Ascending,
            bits: None,
            digit_bits: None,
            algorithm: SortAlgorithm::Auto,
            launch: LaunchMode::Auto,
        }
    }
}

impl SortOptions {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn descending(mut self) -> Self {
        self.order = Order::Descending;
        self
    }
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// Sort on bits `[begin, end)` of the radix image.
    pub fn bits(mut self, begin: u32, end: u32) -> Self {
        self.bits = Some((begin, end));
        self
    }
    pub fn digit_bits(mut self, bits: u32) -> Self {
        self.digit_bits = Some(bits);
        self
    }
    pub fn algorithm(mut self, algorithm: SortAlgorithm) -> Self {
        self.algorithm = algorithm;
        self
    }
    pub fn launch(mut self, launch: LaunchMode) -> Self {
        self.launch = launch;
        self
    }

    /// The bit range for a key of `key_bits` bits.
    pub fn bit_range(&self, key_bits: u32) -> (u32, u32) {
        self.bits.unwrap_or((0, key_bits))
    }

    /// Checks the options against a key of `key_bits` bits.
    pub fn validate(&self, key_bits: u32) -> Result<()> {
        if let Some((begin, end)) = self.bits {
            if begin > end || end > key_bits {
                return Err(Error::invalid(format!(
                    "bit range [{begin}, {end}) is not within the key's {key_bits} bits \
                     (need begin <= end <= {key_bits})"
                )));
            }
        }
        if let Some(d) = self.digit_bits {
            if !(1..=16).contains(&d) {
                return Err(Error::invalid(format!(
                    "digit width {d} is out of range (1 to 16 bits)"
                )));
            }
        }
        Ok(())
    }
}
