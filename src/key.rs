//! Keys and their order-preserving bijections onto unsigned integers.
//!
//! A radix sort orders keys by their bit patterns, which is the right order for unsigned
//! integers only: negative signed integers would land after the positives, and negative floats
//! would come out backwards (the course page's last pitfall, `seeds/001`). Every key type is
//! therefore mapped to an unsigned "radix image" whose unsigned order is the key's order, sorted
//! as such, and mapped back:
//!
//! * unsigned integers: the identity;
//! * signed integers: flip the sign bit;
//! * floats: flip the sign bit of positives, flip every bit of negatives. This is the order of
//!   [`f32::total_cmp`]: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`.
//!
//! Descending order complements the radix image, which keeps the sort stable: equal keys keep
//! their input order in both directions.

use std::fmt::{self, Debug, Display};

use bytemuck::Pod;

/// Element types histosort understands, named as NumPy names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    U8,
    U16,
    U32,
    U64,
    U128,
    I8,
    I16,
    I32,
    I64,
    I128,
    F32,
    F64,
}

impl DType {
    /// Every dtype, in a fixed order (used by the CLI, the tests and the benchmarks).
    pub const ALL: [DType; 12] = [
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::U128,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::I128,
        DType::F32,
        DType::F64,
    ];

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 => 1,
            DType::U16 | DType::I16 => 2,
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::U64 | DType::I64 | DType::F64 => 8,
            DType::U128 | DType::I128 => 16,
        }
    }

    /// The short name used everywhere (CLI, tables, JSON): `u8`, `i32`, `f64`, ...
    pub const fn name(self) -> &'static str {
        match self {
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::U128 => "u128",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::I128 => "i128",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    pub const fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    pub const fn is_signed_int(self) -> bool {
        matches!(
            self,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::I128
        )
    }

    /// Parses the short name (`u32`) or the NumPy name (`uint32`, `float32`). NumPy's type
    /// strings (`<u4`) are the `.npy` reader's business: there `u8` means eight bytes.
    pub fn parse(s: &str) -> Option<DType> {
        let t = s.trim().to_ascii_lowercase();
        DType::ALL
            .into_iter()
            .find(|d| d.name() == t || d.numpy_name() == t)
    }

    /// NumPy's name for the type: `uint32`, `float64`, ...
    pub const fn numpy_name(self) -> &'static str {
        match self {
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::U128 => "uint128",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::I128 => "int128",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }
}

impl Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::parse(s).ok_or_else(|| {
            format!(
                "unknown dtype '{s}' (expected one of: {})",
                DType::ALL.map(|d| d.name()).join(", ")
            )
        })
    }
}

/// The unsigned integer types that radix images live in.
pub trait RadixBits: Copy + Ord + Eq + Send + Sync + Pod + Debug + Default + 'static {
    const BITS: u32;
    const ZERO: Self;
    const MAX: Self;
    /// `(self >> shift) & mask` as an index. `shift < BITS`.
    fn digit(self, shift: u32, mask: u32) -> usize;
    /// Bitwise complement.
    fn complement(self) -> Self;
    /// Widened to u128 (used by the reference and the tests).
    fn to_u128(self) -> u128;
    fn from_u128(v: u128) -> Self;
    /// Bitwise OR.
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        Self::from_u128(self.to_u128() | other.to_u128())
    }
    /// Bitwise AND (the sorts' bit-range masks, in the image's own width).
    #[inline(always)]
    fn and(self, mask: Self) -> Self {
        Self::from_u128(self.to_u128() & mask.to_u128())
    }
}

macro_rules! radix_bits {
    ($($t:ty),*) => {$(
        impl RadixBits for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const MAX: Self = <$t>::MAX;
            #[inline(always)]
            fn digit(self, shift: u32, mask: u32) -> usize {
                ((self >> shift) as usize) & mask as usize
            }
            #[inline(always)]
            fn complement(self) -> Self { !self }
            #[inline(always)]
            fn to_u128(self) -> u128 { self as u128 }
            #[inline(always)]
            fn from_u128(v: u128) -> Self { v as $t }
            #[inline(always)]
            fn and(self, mask: Self) -> Self { self & mask }
            #[inline(always)]
            fn or(self, other: Self) -> Self { self | other }
        }
    )*};
}
radix_bits!(u8, u16, u32, u64, u128);

/// The mask of bits [begin, end) of a radix image (`end` up to 128): what a sort on that bit
/// range compares.
pub(crate) fn range_mask(begin: u32, end: u32) -> u128 {
    let hi = if end >= 128 {
        u128::MAX
    } else {
        (1u128 << end) - 1
    };
    hi & (u128::MAX << begin)
}

/// A key that histosort can radix-sort: it has an order-preserving bijection onto an unsigned
/// integer of the same width ([`RadixKey::to_radix`] / [`RadixKey::from_radix`]).
pub trait RadixKey: Copy + Send + Sync + Pod + Debug + PartialEq + 'static {
    type Bits: RadixBits;
    const DTYPE: DType;
    /// The order-preserving image: `a` sorts before `b` iff `a.to_radix() < b.to_radix()`.
    fn to_radix(self) -> Self::Bits;
    /// The inverse of [`RadixKey::to_radix`].
    fn from_radix(bits: Self::Bits) -> Self;
}

macro_rules! unsigned_key {
    ($($t:ty => $d:ident),*) => {$(
        impl RadixKey for $t {
            type Bits = $t;
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_radix(self) -> $t { self }
            #[inline(always)]
            fn from_radix(bits: $t) -> $t { bits }
        }
    )*};
}
unsigned_key!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128);

macro_rules! signed_key {
    ($($t:ty => $u:ty, $d:ident),*) => {$(
        impl RadixKey for $t {
            type Bits = $u;
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_radix(self) -> $u { (self as $u) ^ (1 << (<$u>::BITS - 1)) }
            #[inline(always)]
            fn from_radix(bits: $u) -> $t { (bits ^ (1 << (<$u>::BITS - 1))) as $t }
        }
    )*};
}
signed_key!(i8 => u8, I8, i16 => u16, I16, i32 => u32, I32, i64 => u64, I64, i128 => u128, I128);

macro_rules! float_key {
    ($($t:ty => $u:ty, $d:ident),*) => {$(
        impl RadixKey for $t {
            type Bits = $u;
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_radix(self) -> $u {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let b = self.to_bits();
                // Negatives: flip everything (larger magnitude sorts first); positives: set the sign.
                if b & SIGN != 0 { !b } else { b | SIGN }
            }
            #[inline(always)]
            fn from_radix(bits: $u) -> $t {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                <$t>::from_bits(if bits & SIGN != 0 { bits ^ SIGN } else { !bits })
            }
        }
    )*};
}
float_key!(f32 => u32, F32, f64 => u64, F64);

/// Values carried along by a pair sort: any plain-old-data type (1, 2, 4, 8, 16 bytes, or more).
pub trait Value: Copy + Send + Sync + Pod + 'static {}
impl<T: Copy + Send + Sync + Pod + 'static> Value for T {}

/// Index types an argsort can return.
pub trait SortIndex: Copy + Send + Sync + Pod + Debug + Ord + 'static {
    const DTYPE: DType;
    /// Largest length this index type can address.
    const MAX_LEN: u64;
    fn from_usize(i: usize) -> Self;
    fn to_usize(self) -> usize;
}

impl SortIndex for u32 {
    const DTYPE: DType = DType::U32;
    const MAX_LEN: u64 = u32::MAX as u64 + 1;
    #[inline(always)]
    fn from_usize(i: usize) -> Self {
        i as u32
    }
    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

impl SortIndex for u64 {
    const DTYPE: DType = DType::U64;
    const MAX_LEN: u64 = u64::MAX;
    #[inline(always)]
    fn from_usize(i: usize) -> Self {
        i as u64
    }
    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_masks() {
        assert_eq!(range_mask(0, 64) as u64, u64::MAX);
        assert_eq!(range_mask(0, 128), u128::MAX);
        assert_eq!(range_mask(4, 20), 0xf_fff0);
        assert_eq!(range_mask(60, 64) as u64, 0xf000_0000_0000_0000);
        assert_eq!(range_mask(8, 8), 0);
    }

    fn check_order<K: RadixKey>(mut v: Vec<K>, cmp: impl Fn(&K, &K) -> std::cmp::Ordering) {
        v.sort_by(&cmp);
        for w in v.windows(2) {
            let (a, b) = (w[0].to_radix(), w[1].to_radix());
            match cmp(&w[0], &w[1]) {
                std::cmp::Ordering::Less => assert!(a < b, "{:?} {:?}", w[0], w[1]),
                std::cmp::Ordering::Equal => assert_eq!(a, b),
                std::cmp::Ordering::Greater => unreachable!(),
            }
        }
        for k in v {
            assert_eq!(
                bytemuck::bytes_of(&K::from_radix(k.to_radix())),
                bytemuck::bytes_of(&k)
            );
        }
    }

    #[test]
    fn float_total_order() {
        let v = vec![
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
        ];
        check_order(v, f32::total_cmp);
        let v = vec![
            f64::NAN,
            -f64::NAN,
            -0.0,
            0.0,
            f64::INFINITY,
            -1e300,
            1e-300,
        ];
        check_order(v, f64::total_cmp);
        assert!((-0.0f32).to_radix() < 0.0f32.to_radix());
        assert!((-f32::NAN).to_radix() < f32::NEG_INFINITY.to_radix());
        assert!(f32::NAN.to_radix() > f32::INFINITY.to_radix());
    }

    #[test]
    fn signed_order() {
        check_order(vec![i8::MIN, -1, 0, 1, i8::MAX, 5, -5], Ord::cmp);
        check_order(vec![i64::MIN, -1, 0, 1, i64::MAX], Ord::cmp);
        check_order(vec![i128::MIN, -1, 0, 1, i128::MAX], Ord::cmp);
    }

    #[test]
    fn dtype_parse_roundtrip() {
        for d in DType::ALL {
            assert_eq!(DType::parse(d.name()), Some(d));
        }
        assert_eq!(DType::parse("float64"), Some(DType::F64));
        assert!(DType::parse("complex64").is_none());
    }
}
