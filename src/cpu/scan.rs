//! CPU prefix sums: blocks scanned in parallel rounds, offsets added while the blocks are in
//! cache (one read and one write of the data).

use rayon::prelude::*;

use crate::algorithm::ScanKind;
use crate::error::{Error, Result};
use crate::sample::ScanElem;
use crate::tuning::cpu::SCAN_BLOCK;

/// Scans `data` into `out` (same length).
pub fn scan_into<T: ScanElem>(data: &[T], out: &mut [T], kind: ScanKind) -> Result<()> {
    if data.len() != out.len() {
        return Err(Error::invalid(format!(
            "scan output has {} elements, input {}",
            out.len(),
            data.len()
        )));
    }
    // Rounds of one block per thread: each block is scanned from zero into `out` (one read of
    // the input, one write), then the round's offsets are added while the block is still in
    // the core's L2. One pass over memory instead of reduce-then-scan's two reads; the extra
    // add runs in cache. (For floats the sums associate differently from the serial order,
    // within the same rounding bound.)
    let threads = rayon::current_num_threads().max(1);
    let round = SCAN_BLOCK * threads;
    let mut carry = T::ZERO;
    for (d, o) in data.chunks(round).zip(out.chunks_mut(round)) {
        if d.len() <= SCAN_BLOCK {
            carry = scan_block(d, o, kind, carry);
            continue;
        }
        let sums: Vec<T> = o
            .par_chunks_mut(SCAN_BLOCK)
            .zip(d.par_chunks(SCAN_BLOCK))
            .map(|(o, d)| scan_block(d, o, kind, T::ZERO))
            .collect();
        let mut offsets = Vec::with_capacity(sums.len());
        for s in sums {
            offsets.push(carry);
            carry = carry.add(s);
        }
        o.par_chunks_mut(SCAN_BLOCK)
            .zip(offsets)
            .for_each(|(o, off)| {
                for x in o.iter_mut() {
                    *x = off.add(*x);
                }
            });
    }
    Ok(())
}

/// Scans one block from `acc` into `o`; returns the running total after it.
fn scan_block<T: ScanElem>(d: &[T], o: &mut [T], kind: ScanKind, acc: T) -> T {
    // 32- and 64-bit integers (wrapping sums, the same bits signed or not) take the SSE2
    // scan; floats keep the serial order within a block.
    #[cfg(target_arch = "x86_64")]
    {
        use crate::key::DType;
        match T::DTYPE {
            DType::U32 | DType::I32 => {
                if let (Ok(d32), Ok(o32), Ok(a)) = (
                    bytemuck::try_cast_slice::<T, u32>(d),
                    bytemuck::try_cast_slice_mut::<T, u32>(o),
                    bytemuck::try_cast::<T, u32>(acc),
                ) {
                    let r = simd::scan_u32(d32, o32, kind, a);
                    if let Ok(r) = bytemuck::try_cast::<u32, T>(r) {
                        return r;
                    }
                }
            }
            DType::U64 | DType::I64 => {
                if let (Ok(d64), Ok(o64), Ok(a)) = (
                    bytemuck::try_cast_slice::<T, u64>(d),
                    bytemuck::try_cast_slice_mut::<T, u64>(o),
                    bytemuck::try_cast::<T, u64>(acc),
                ) {
                    let r = simd::scan_u64(d64, o64, kind, a);
                    if let Ok(r) = bytemuck::try_cast::<u64, T>(r) {
                        return r;
                    }
                }
            }
            _ => {}
        }
    }
    scan_serial(d, o, kind, acc)
}

/// The serial scan of a block (floats, the SIMD scans' tails, other targets).
fn scan_serial<T: ScanElem>(d: &[T], o: &mut [T], kind: ScanKind, mut acc: T) -> T {
    match kind {
        ScanKind::Inclusive => {
            for (o, &x) in o.iter_mut().zip(d) {
                acc = acc.add(x);
                *o = acc;
            }
        }
        ScanKind::Exclusive => {
            for (o, &x) in o.iter_mut().zip(d) {
                *o = acc;
                acc = acc.add(x);
            }
        }
    }
    acc
}

/// SSE2 (x86_64 baseline) block scans of wrapping 32- and 64-bit integers: each step loads four
/// vectors, forms their in-register prefixes (log-step shifted adds) and the totals of the
/// vectors before each (independent of the carry), so the loop-carried chain is one add per
/// four vectors instead of one per element.
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    use crate::algorithm::ScanKind;

    // SAFETY (all helpers): SSE2 register operations, part of the x86_64 baseline.
    #[inline(always)]
    fn prefix32(a: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe {
            let p = _mm_add_epi32(a, _mm_slli_si128::<4>(a));
            _mm_add_epi32(p, _mm_slli_si128::<8>(p))
        }
    }
    #[inline(always)]
    fn last32(p: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_shuffle_epi32::<0xFF>(p) }
    }
    #[inline(always)]
    fn add32(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_add_epi32(a, b) }
    }
    #[inline(always)]
    fn sub32(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_sub_epi32(a, b) }
    }
    #[inline(always)]
    fn set32(a: u32) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_set1_epi32(a as i32) }
    }
    #[inline(always)]
    fn get32(c: __m128i) -> u32 {
        // SAFETY: see above.
        unsafe { _mm_cvtsi128_si32(c) as u32 }
    }
    #[inline(always)]
    fn prefix64(a: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_add_epi64(a, _mm_slli_si128::<8>(a)) }
    }
    #[inline(always)]
    fn last64(p: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_unpackhi_epi64(p, p) }
    }
    #[inline(always)]
    fn add64(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_add_epi64(a, b) }
    }
    #[inline(always)]
    fn sub64(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_sub_epi64(a, b) }
    }
    #[inline(always)]
    fn set64(a: u64) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_set1_epi64x(a as i64) }
    }
    #[inline(always)]
    fn get64(c: __m128i) -> u64 {
        // SAFETY: see above.
        unsafe { _mm_cvtsi128_si64(c) as u64 }
    }

    macro_rules! scan_fn {
        ($name:ident, $t:ty, $lanes:expr, $prefix:ident, $last:ident, $add:ident, $sub:ident,
         $set:ident, $get:ident) => {
            /// Scans `d` into `o` from `acc`; returns the running total after it.
            pub(super) fn $name(d: &[$t], o: &mut [$t], kind: ScanKind, acc: $t) -> $t {
                const STEP: usize = 4 * $lanes;
                let n = d.len().min(o.len());
                let steps = n / STEP;
                let excl = matches!(kind, ScanKind::Exclusive);
                let dp = d.as_ptr().cast::<__m128i>();
                let op = o.as_mut_ptr().cast::<__m128i>();
                let mut carry = $set(acc);
                for s in 0..steps {
                    // SAFETY: unaligned 16-byte loads of vectors `4s .. 4s + 3`, i.e. of
                    // elements below `steps * STEP <= n <= d.len()`.
                    let v = unsafe {
                        [
                            _mm_loadu_si128(dp.add(4 * s)),
                            _mm_loadu_si128(dp.add(4 * s + 1)),
                            _mm_loadu_si128(dp.add(4 * s + 2)),
                            _mm_loadu_si128(dp.add(4 * s + 3)),
                        ]
                    };
                    let x = [$prefix(v[0]), $prefix(v[1]), $prefix(v[2]), $prefix(v[3])];
                    let t0 = $last(x[0]);
                    let t1 = $add(t0, $last(x[1]));
                    let t2 = $add(t1, $last(x[2]));
                    let t3 = $add(t2, $last(x[3]));
                    let y = [
                        $add(x[0], carry),
                        $add(x[1], $add(carry, t0)),
                        $add(x[2], $add(carry, t1)),
                        $add(x[3], $add(carry, t2)),
                    ];
                    for k in 0..4 {
                        let out = if excl { $sub(y[k], v[k]) } else { y[k] };
                        // SAFETY: as the loads, in `o` (`n <= o.len()`).
                        unsafe { _mm_storeu_si128(op.add(4 * s + k), out) };
                    }
                    carry = $add(carry, t3);
                }
                let done = steps * STEP;
                super::scan_serial(&d[done..n], &mut o[done..n], kind, $get(carry))
            }
        };
    }

    scan_fn!(scan_u32, u32, 4, prefix32, last32, add32, sub32, set32, get32);
    scan_fn!(scan_u64, u64, 2, prefix64, last64, add64, sub64, set64, get64);
}
