//! CPU prefix sums in one pass over memory in which no thread waits on another.
//!
//! The data is cut into blocks of [`SCAN_BLOCK_BYTES`], claimed in order from an atomic counter
//! by one worker per rayon thread. A worker whose previous block's inclusive prefix is already
//! published scans its block in one pass (a read and a write, as a copy does); this is always
//! the case for a worker that runs alone while the others are descheduled. Otherwise it reduces
//! its block (the read from memory that brings it into L2), publishes the block's aggregate,
//! finds the block's prefix by looking back over the earlier blocks (adding aggregates until an
//! inclusive prefix), publishes its own inclusive prefix and then scans the block from L2 with
//! that prefix. A predecessor with nothing published yet (its owner descheduled, or still in
//! its one-pass scan or its reduction) is waited for only briefly ([`SCAN_LOOKBACK_SPIN`]);
//! after that the looking worker reduces that block's input itself (read-only, so it never
//! conflicts with the owner's writes). So a thread that loses its core stalls nobody: the
//! others pay at most one extra read of its block. Large outputs are written with
//! non-temporal stores (no read-for-ownership of the destination).
//!
//! Integers wrap and are exact. Floats are summed in a different association from the serial
//! order (in-register prefix trees, per-lane partial sums of the reductions), within the same
//! rounding bound, as before.

use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::algorithm::ScanKind;
use crate::error::{Error, Result};
use crate::sample::ScanElem;
use crate::tuning::cpu::{SCAN_BLOCK_BYTES, SCAN_LOOKBACK_SPIN, SCAN_NT_MIN_BYTES};

/// Scans `data` into `out` (same length).
pub fn scan_into<T: ScanElem>(data: &[T], out: &mut [T], kind: ScanKind) -> Result<()> {
    if data.len() != out.len() {
        return Err(Error::invalid(format!(
            "scan output has {} elements, input {}",
            out.len(),
            data.len()
        )));
    }
    let nt = std::mem::size_of_val(data) >= SCAN_NT_MIN_BYTES;
    scan_with(data, out, kind, block_len::<T>(), nt);
    Ok(())
}

/// Elements per block for `T`.
pub(crate) fn block_len<T>() -> usize {
    (SCAN_BLOCK_BYTES / size_of::<T>().max(1)).max(1)
}

/// A block's state in the look-back: nothing yet, its aggregate, or its inclusive prefix.
const EMPTY: u8 = 0;
const AGGREGATE: u8 = 1;
const INCLUSIVE: u8 = 2;

pub(crate) struct Status {
    state: AtomicU8,
    aggregate: AtomicU64,
    inclusive: AtomicU64,
}

fn to_bits<T: ScanElem>(x: T) -> u64 {
    let mut b = [0u8; 8];
    b[..size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&x));
    u64::from_le_bytes(b)
}

fn from_bits<T: ScanElem>(x: u64) -> T {
    let b = x.to_le_bytes();
    bytemuck::pod_read_unaligned(&b[..size_of::<T>()])
}

/// The output pointer, shared by the workers; each writes only the blocks it claimed.
struct Out<T>(*mut T);
// SAFETY: the workers write disjoint blocks (each block index is claimed exactly once).
unsafe impl<T: Send> Sync for Out<T> {}

/// The scan with an explicit block length and store kind (the tests force both).
pub(crate) fn scan_with<T: ScanElem>(
    data: &[T],
    out: &mut [T],
    kind: ScanKind,
    block: usize,
    nt: bool,
) {
    let n = data.len().min(out.len());
    let block = block.max(1);
    let threads = rayon::current_num_threads().max(1);
    if threads == 1 || n <= block {
        scan_block(&data[..n], &mut out[..n], kind, T::ZERO, nt);
        fence(nt);
        return;
    }
    // Element 0 of each size fits in 8 bytes (ScanElem types are at most 64-bit).
    assert!(size_of::<T>() <= 8, "scan elements are at most 8 bytes");
    let blocks = n.div_ceil(block);
    let status: Vec<Status> = (0..blocks)
        .map(|_| Status {
            state: AtomicU8::new(EMPTY),
            aggregate: AtomicU64::new(0),
            inclusive: AtomicU64::new(0),
        })
        .collect();
    let next = AtomicUsize::new(0);
    let outp = Out(out.as_mut_ptr());
    let range = |b: usize| b * block..((b + 1) * block).min(n);
    let worker = || {
        let outp = &outp;
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= blocks {
                break;
            }
            let r = range(b);
            let d = &data[r.clone()];
            // SAFETY: block `b` was claimed by this worker alone (the counter hands out each
            // index once), and `r` lies inside `out` (`r.end <= n <= out.len()`).
            let o = unsafe { std::slice::from_raw_parts_mut(outp.0.add(r.start), r.len()) };
            let st = &status[b];
            // One pass when the prefix is already known (block 0, or the previous block done:
            // always so for a worker that runs alone while the others are descheduled).
            let known = match b {
                0 => Some(T::ZERO),
                _ => {
                    let p = &status[b - 1];
                    (p.state.load(Ordering::Acquire) == INCLUSIVE)
                        .then(|| from_bits(p.inclusive.load(Ordering::Relaxed)))
                }
            };
            if let Some(prefix) = known {
                let total = scan_block(d, o, kind, prefix, nt);
                st.inclusive.store(to_bits(total), Ordering::Relaxed);
                st.state.store(INCLUSIVE, Ordering::Release);
                continue;
            }
            // Otherwise reduce, publish the aggregate, look back, then scan from L2.
            let agg = reduce(d);
            st.aggregate.store(to_bits(agg), Ordering::Relaxed);
            st.state.fetch_max(AGGREGATE, Ordering::Release);
            let prefix = look_back(&status, b, |j| reduce(&data[range(j)]));
            st.inclusive
                .store(to_bits(prefix.add(agg)), Ordering::Relaxed);
            st.state.store(INCLUSIVE, Ordering::Release);
            scan_block(d, o, kind, prefix, nt);
        }
        fence(nt);
    };
    rayon::scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| worker());
        }
        worker();
    });
}

/// The exclusive prefix of block `b`: the earlier blocks' aggregates back to the nearest
/// inclusive prefix. A block with no aggregate after the spin is reduced here (`reduce_block`).
fn look_back<T: ScanElem>(status: &[Status], b: usize, reduce_block: impl Fn(usize) -> T) -> T {
    let mut acc = T::ZERO;
    let mut j = b;
    while j > 0 {
        j -= 1;
        let st = &status[j];
        let mut state = st.state.load(Ordering::Acquire);
        if state == EMPTY {
            let start = Instant::now();
            let mut spins = 0u32;
            while state == EMPTY {
                std::hint::spin_loop();
                spins += 1;
                if spins.is_multiple_of(64)
                    && start.elapsed() > Duration::from_nanos(SCAN_LOOKBACK_SPIN)
                {
                    break;
                }
                state = st.state.load(Ordering::Acquire);
            }
        }
        match state {
            INCLUSIVE => {
                let p: T = from_bits(st.inclusive.load(Ordering::Relaxed));
                return p.add(acc);
            }
            AGGREGATE => {
                let a: T = from_bits(st.aggregate.load(Ordering::Relaxed));
                acc = a.add(acc);
            }
            _ => {
                // The owner is late: reduce its block from the input and publish the result
                // for later look-backs (the owner computes the same bits, so racing stores
                // agree).
                let a = reduce_block(j);
                st.aggregate.store(to_bits(a), Ordering::Relaxed);
                let _ = st.state.compare_exchange(
                    EMPTY,
                    AGGREGATE,
                    Ordering::Release,
                    Ordering::Relaxed,
                );
                acc = a.add(acc);
            }
        }
    }
    acc
}

/// Test access: statuses in the given states (`0` empty, `1` aggregate, `2` inclusive).
#[cfg(test)]
pub(crate) fn test_status(
    states: &[u8],
    agg: impl Fn(usize) -> u64,
    incl: impl Fn(usize) -> u64,
) -> Vec<Status> {
    states
        .iter()
        .enumerate()
        .map(|(j, &s)| Status {
            state: AtomicU8::new(s),
            aggregate: AtomicU64::new(if s >= AGGREGATE { agg(j) } else { 0 }),
            inclusive: AtomicU64::new(if s == INCLUSIVE { incl(j) } else { 0 }),
        })
        .collect()
}

/// Test access to the look-back.
#[cfg(test)]
pub(crate) fn test_look_back(status: &[Status], b: usize, reduce: impl Fn(usize) -> u64) -> u64 {
    look_back(status, b, reduce)
}

/// Makes this thread's non-temporal stores visible before the join hands the output over.
#[inline(always)]
fn fence(nt: bool) {
    if nt {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a store fence has no preconditions.
        unsafe {
            std::arch::x86_64::_mm_sfence()
        };
    }
}

/// Lanes of [`Reducer`].
const REDUCE_LANES: usize = 32;

/// Sums of a sequence (wrapping for integers; for floats 32 per-lane partial sums, added
/// pairwise at the end: eight independent vector chains, so the float reduction keeps up
/// with memory). Deterministic: element `i` always goes to lane `i % 32` as long as every
/// piece but the last has a length that is a multiple of 32, so a block reduced by a helping
/// worker gives the same bits as its owner's.
struct Reducer<T> {
    acc: [T; REDUCE_LANES],
}

impl<T: ScanElem> Reducer<T> {
    fn new() -> Self {
        Reducer {
            acc: [T::ZERO; REDUCE_LANES],
        }
    }

    #[inline(always)]
    fn feed(&mut self, d: &[T]) {
        // The reduction streams a block from memory: one prefetch per line ahead (a chunk of
        // 32 lanes spans 2 or 4 lines).
        let lines = (REDUCE_LANES * std::mem::size_of::<T>()).div_ceil(64);
        let mut c = d.chunks_exact(REDUCE_LANES);
        for x in &mut c {
            let p = x.as_ptr().cast::<u8>();
            for l in 0..lines {
                super::radix::prefetch_ahead_of(p.wrapping_add(l * 64));
            }
            for (a, &x) in self.acc.iter_mut().zip(x) {
                *a = a.add(x);
            }
        }
        for (a, &x) in self.acc.iter_mut().zip(c.remainder()) {
            *a = a.add(x);
        }
    }

    fn finish(mut self) -> T {
        let mut w = REDUCE_LANES;
        while w > 1 {
            w /= 2;
            let (lo, hi) = self.acc.split_at_mut(w);
            for (a, &b) in lo.iter_mut().zip(hi.iter()) {
                *a = a.add(b);
            }
        }
        self.acc[0]
    }
}

/// The sum of `d` (see [`Reducer`]).
fn reduce<T: ScanElem>(d: &[T]) -> T {
    let mut r = Reducer::new();
    r.feed(d);
    r.finish()
}

/// Scans one block from `acc` into `o`; returns the running total after it. `nt`: whole
/// 16-byte vectors are written with non-temporal stores (the caller fences).
fn scan_block<T: ScanElem>(d: &[T], o: &mut [T], kind: ScanKind, acc: T, nt: bool) -> T {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::key::DType;
        macro_rules! via {
            ($t:ty, $f:path) => {
                if let (Ok(dd), Ok(oo), Ok(a)) = (
                    bytemuck::try_cast_slice::<T, $t>(d),
                    bytemuck::try_cast_slice_mut::<T, $t>(o),
                    bytemuck::try_cast::<T, $t>(acc),
                ) {
                    let r = $f(dd, oo, kind, a, nt);
                    if let Ok(r) = bytemuck::try_cast::<$t, T>(r) {
                        return r;
                    }
                }
            };
        }
        match T::DTYPE {
            DType::U32 | DType::I32 => via!(u32, simd::scan_u32),
            DType::U64 | DType::I64 => via!(u64, simd::scan_u64),
            DType::F32 => via!(f32, simd::scan_f32),
            DType::F64 => via!(f64, simd::scan_f64),
            _ => {}
        }
    }
    let _ = nt;
    scan_serial(d, o, kind, acc)
}

/// The serial scan of a block (the SIMD scans' heads and tails, other targets).
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

/// SSE2 (x86_64 baseline) block scans of 32- and 64-bit integers and floats: each step loads
/// four vectors, forms their in-register prefixes (log-step shifted adds) and the totals of the
/// vectors before each (independent of the carry), so the loop-carried chain is one add per
/// four vectors instead of one per element. Exclusive results are the inclusive ones shifted by
/// one lane (no subtraction, so floats stay what the additions gave).
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    use crate::algorithm::ScanKind;

    /// One element type's vector operations (SSE2 only, the x86_64 baseline).
    trait Lanes: Copy {
        type V: Copy;
        const LANES: usize;
        /// # Safety
        /// `p` is valid for reading 16 bytes.
        unsafe fn load(p: *const Self) -> Self::V;
        /// # Safety
        /// `p` is valid for writing 16 bytes, and 16-byte aligned when `nt`.
        unsafe fn store(p: *mut Self, v: Self::V, nt: bool);
        /// In-register inclusive prefix.
        fn prefix(a: Self::V) -> Self::V;
        /// The last lane broadcast to all.
        fn last(p: Self::V) -> Self::V;
        fn vadd(a: Self::V, b: Self::V) -> Self::V;
        fn set(a: Self) -> Self::V;
        fn get(c: Self::V) -> Self;
        /// `[prev's last lane, y[0], .., y[LANES - 2]]`.
        fn shift_in(y: Self::V, prev: Self::V) -> Self::V;
    }

    impl Lanes for u32 {
        type V = __m128i;
        const LANES: usize = 4;
        #[inline(always)]
        unsafe fn load(p: *const Self) -> __m128i {
            // SAFETY: the caller's promise.
            unsafe { _mm_loadu_si128(p.cast()) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut Self, v: __m128i, nt: bool) {
            // SAFETY: the caller's promise.
            unsafe { store_si(p.cast(), v, nt) }
        }
        #[inline(always)]
        fn prefix(a: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe {
                let p = _mm_add_epi32(a, _mm_slli_si128::<4>(a));
                _mm_add_epi32(p, _mm_slli_si128::<8>(p))
            }
        }
        #[inline(always)]
        fn last(p: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_shuffle_epi32::<0xFF>(p) }
        }
        #[inline(always)]
        fn vadd(a: __m128i, b: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_add_epi32(a, b) }
        }
        #[inline(always)]
        fn set(a: Self) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_set1_epi32(a as i32) }
        }
        #[inline(always)]
        fn get(c: __m128i) -> Self {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_cvtsi128_si32(c) as u32 }
        }
        #[inline(always)]
        fn shift_in(y: __m128i, prev: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_or_si128(_mm_slli_si128::<4>(y), _mm_srli_si128::<12>(prev)) }
        }
    }

    impl Lanes for u64 {
        type V = __m128i;
        const LANES: usize = 2;
        #[inline(always)]
        unsafe fn load(p: *const Self) -> __m128i {
            // SAFETY: the caller's promise.
            unsafe { _mm_loadu_si128(p.cast()) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut Self, v: __m128i, nt: bool) {
            // SAFETY: the caller's promise.
            unsafe { store_si(p.cast(), v, nt) }
        }
        #[inline(always)]
        fn prefix(a: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_add_epi64(a, _mm_slli_si128::<8>(a)) }
        }
        #[inline(always)]
        fn last(p: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_unpackhi_epi64(p, p) }
        }
        #[inline(always)]
        fn vadd(a: __m128i, b: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_add_epi64(a, b) }
        }
        #[inline(always)]
        fn set(a: Self) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_set1_epi64x(a as i64) }
        }
        #[inline(always)]
        fn get(c: __m128i) -> Self {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_cvtsi128_si64(c) as u64 }
        }
        #[inline(always)]
        fn shift_in(y: __m128i, prev: __m128i) -> __m128i {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_or_si128(_mm_slli_si128::<8>(y), _mm_srli_si128::<8>(prev)) }
        }
    }

    impl Lanes for f32 {
        type V = __m128;
        const LANES: usize = 4;
        #[inline(always)]
        unsafe fn load(p: *const Self) -> __m128 {
            // SAFETY: the caller's promise.
            unsafe { _mm_loadu_ps(p) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut Self, v: __m128, nt: bool) {
            // SAFETY: the caller's promise.
            unsafe { store_si(p.cast(), _mm_castps_si128(v), nt) }
        }
        #[inline(always)]
        fn prefix(a: __m128) -> __m128 {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe {
                let a1 = _mm_castsi128_ps(_mm_slli_si128::<4>(_mm_castps_si128(a)));
                let p = _mm_add_ps(a, a1);
                let p2 = _mm_castsi128_ps(_mm_slli_si128::<8>(_mm_castps_si128(p)));
                _mm_add_ps(p, p2)
            }
        }
        #[inline(always)]
        fn last(p: __m128) -> __m128 {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_shuffle_ps::<0xFF>(p, p) }
        }
        #[inline(always)]
        fn vadd(a: __m128, b: __m128) -> __m128 {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_add_ps(a, b) }
        }
        #[inline(always)]
        fn set(a: Self) -> __m128 {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_set1_ps(a) }
        }
        #[inline(always)]
        fn get(c: __m128) -> Self {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_cvtss_f32(c) }
        }
        #[inline(always)]
        fn shift_in(y: __m128, prev: __m128) -> __m128 {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe {
                let (y, p) = (_mm_castps_si128(y), _mm_castps_si128(prev));
                _mm_castsi128_ps(_mm_or_si128(
                    _mm_slli_si128::<4>(y),
                    _mm_srli_si128::<12>(p),
                ))
            }
        }
    }

    impl Lanes for f64 {
        type V = __m128d;
        const LANES: usize = 2;
        #[inline(always)]
        unsafe fn load(p: *const Self) -> __m128d {
            // SAFETY: the caller's promise.
            unsafe { _mm_loadu_pd(p) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut Self, v: __m128d, nt: bool) {
            // SAFETY: the caller's promise.
            unsafe { store_si(p.cast(), _mm_castpd_si128(v), nt) }
        }
        #[inline(always)]
        fn prefix(a: __m128d) -> __m128d {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe {
                _mm_add_pd(
                    a,
                    _mm_castsi128_pd(_mm_slli_si128::<8>(_mm_castpd_si128(a))),
                )
            }
        }
        #[inline(always)]
        fn last(p: __m128d) -> __m128d {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_unpackhi_pd(p, p) }
        }
        #[inline(always)]
        fn vadd(a: __m128d, b: __m128d) -> __m128d {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_add_pd(a, b) }
        }
        #[inline(always)]
        fn set(a: Self) -> __m128d {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_set1_pd(a) }
        }
        #[inline(always)]
        fn get(c: __m128d) -> Self {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe { _mm_cvtsd_f64(c) }
        }
        #[inline(always)]
        fn shift_in(y: __m128d, prev: __m128d) -> __m128d {
            // SAFETY: SSE2 register operations (the x86_64 baseline).
            unsafe {
                // [prev[1], y[0]]
                _mm_shuffle_pd::<0b01>(prev, y)
            }
        }
    }

    /// A 16-byte store, streamed (non-temporal) when `nt`.
    ///
    /// # Safety
    /// `p` is valid for writing 16 bytes, and 16-byte aligned when `nt`.
    #[inline(always)]
    unsafe fn store_si(p: *mut __m128i, v: __m128i, nt: bool) {
        // SAFETY: the caller's promise.
        unsafe {
            if nt {
                _mm_stream_si128(p, v)
            } else {
                _mm_storeu_si128(p, v)
            }
        }
    }

    /// Scans `d` into `o` from `acc`; returns the running total after it. With `nt`, the
    /// vectors from the first 16-byte aligned output position on are streamed.
    #[inline(always)]
    fn scan<T: Lanes + crate::sample::ScanElem>(
        d: &[T],
        o: &mut [T],
        kind: ScanKind,
        acc: T,
        nt: bool,
    ) -> T {
        match (kind, nt) {
            (ScanKind::Inclusive, false) => scan_k::<T, false, false>(d, o, kind, acc),
            (ScanKind::Inclusive, true) => scan_k::<T, false, true>(d, o, kind, acc),
            (ScanKind::Exclusive, false) => scan_k::<T, true, false>(d, o, kind, acc),
            (ScanKind::Exclusive, true) => scan_k::<T, true, true>(d, o, kind, acc),
        }
    }

    /// [`scan`] for one kind (`EXCL`) and store type (`NT`).
    #[inline(always)]
    fn scan_k<T: Lanes + crate::sample::ScanElem, const EXCL: bool, const NT: bool>(
        d: &[T],
        o: &mut [T],
        kind: ScanKind,
        acc: T,
    ) -> T {
        let nt = NT;
        let l = T::LANES;
        let step = 4 * l;
        let n = d.len().min(o.len());
        // With `nt` the stores must be 16-byte aligned: a serial head up to that point (the
        // output is element-aligned, and every element size divides 16).
        let head = if nt {
            (((16 - (o.as_ptr() as usize) % 16) % 16) / size_of::<T>()).min(n)
        } else {
            0
        };
        let acc = super::scan_serial(&d[..head], &mut o[..head], kind, acc);
        let steps = (n - head) / step;
        let (dp, op) = (d[head..].as_ptr(), o[head..].as_mut_ptr());
        let mut carry = T::set(acc);
        // A block scanned in one pass streams from memory: one prefetch per step (64 bytes).
        for s in 0..steps {
            let at = s * step;
            crate::cpu::radix::prefetch_ahead_of(dp.wrapping_add(at));
            // SAFETY: elements `head + at .. head + at + step` are below `n <= d.len()`.
            let v = unsafe {
                [
                    T::load(dp.add(at)),
                    T::load(dp.add(at + l)),
                    T::load(dp.add(at + 2 * l)),
                    T::load(dp.add(at + 3 * l)),
                ]
            };
            let x = [
                T::prefix(v[0]),
                T::prefix(v[1]),
                T::prefix(v[2]),
                T::prefix(v[3]),
            ];
            let t0 = T::last(x[0]);
            let t1 = T::vadd(t0, T::last(x[1]));
            let t2 = T::vadd(t1, T::last(x[2]));
            let t3 = T::vadd(t2, T::last(x[3]));
            let y = [
                T::vadd(x[0], carry),
                T::vadd(x[1], T::vadd(carry, t0)),
                T::vadd(x[2], T::vadd(carry, t1)),
                T::vadd(x[3], T::vadd(carry, t2)),
            ];
            let w = if EXCL {
                [
                    T::shift_in(y[0], carry),
                    T::shift_in(y[1], y[0]),
                    T::shift_in(y[2], y[1]),
                    T::shift_in(y[3], y[2]),
                ]
            } else {
                y
            };
            for (k, w) in w.into_iter().enumerate() {
                // SAFETY: as the loads, in `o` (`n <= o.len()`); with `nt`, `op` is 16-byte
                // aligned (`head`) and so is every vector after it.
                unsafe { T::store(op.add(at + k * l), w, nt) };
            }
            carry = T::vadd(carry, t3);
        }
        let done = head + steps * step;
        super::scan_serial(&d[done..n], &mut o[done..n], kind, T::get(carry))
    }

    pub(super) fn scan_u32(d: &[u32], o: &mut [u32], kind: ScanKind, acc: u32, nt: bool) -> u32 {
        scan(d, o, kind, acc, nt)
    }
    pub(super) fn scan_u64(d: &[u64], o: &mut [u64], kind: ScanKind, acc: u64, nt: bool) -> u64 {
        scan(d, o, kind, acc, nt)
    }
    pub(super) fn scan_f32(d: &[f32], o: &mut [f32], kind: ScanKind, acc: f32, nt: bool) -> f32 {
        if wide() {
            // SAFETY: AVX2 is present (checked at run time).
            let (done, acc) = unsafe { avx2::scan_f32(d, o, kind, acc, nt) };
            return scan(&d[done..], &mut o[done..], kind, acc, nt);
        }
        scan(d, o, kind, acc, nt)
    }

    pub(super) fn scan_f64(d: &[f64], o: &mut [f64], kind: ScanKind, acc: f64, nt: bool) -> f64 {
        scan(d, o, kind, acc, nt)
    }

    /// Whether the 8-lane scans may run (AVX2, detected once by std).
    #[inline(always)]
    fn wide() -> bool {
        crate::tuning::cpu::SCAN_AVX2 && std::is_x86_feature_detected!("avx2")
    }

    /// AVX2 scan of f32: eight lanes per vector, four vectors (128 bytes) per
    /// step, the scheme of the SSE2 loop (in-register prefixes, the carry chain one add per
    /// step). A vector's prefix is the two 128-bit halves' prefixes (byte shifts) plus the low
    /// half's total carried into the high half; exclusive results rotate each vector by one
    /// lane and blend in the previous vector's last. About half the SSE2 loop's shuffles per
    /// byte: f32 one-pass scans +20-30% (FP adds have two pipes), u32 no faster (measured, so
    /// u32 keeps SSE2). AVX-512 intrinsics would need Rust 1.89, above the crate's MSRV.
    mod avx2 {
        use std::arch::x86_64::*;

        use crate::algorithm::ScanKind;

        macro_rules! scan32 {
            ($name:ident, $t:ty, $add:ident, $to:expr, $from:expr, $set:expr, $get:expr) => {
                /// Scans the longest prefix of `d` into `o` that whole steps cover, from `acc`
                /// (with `nt`: after a serial head up to a 32-byte aligned output position);
                /// returns the elements done and the running total.
                ///
                /// # Safety
                /// AVX2 is available.
                #[target_feature(enable = "avx2")]
                pub(in super::super) unsafe fn $name(
                    d: &[$t],
                    o: &mut [$t],
                    kind: ScanKind,
                    acc: $t,
                    nt: bool,
                ) -> (usize, $t) {
                    const L: usize = 8;
                    const STEP: usize = 4 * L;
                    let n = d.len().min(o.len());
                    let head = if nt {
                        (((32 - (o.as_ptr() as usize) % 32) % 32) / 4).min(n)
                    } else {
                        0
                    };
                    let acc = super::super::scan_serial(&d[..head], &mut o[..head], kind, acc);
                    let steps = (n - head) / STEP;
                    let excl = matches!(kind, ScanKind::Exclusive);
                    let (dp, op) = (d[head..].as_ptr(), o[head..].as_mut_ptr());
                    let to = $to;
                    let from = $from;
                    let add = |a: __m256i, b: __m256i| to($add(from(a), from(b)));
                    let last = _mm256_set1_epi32(7);
                    let rot = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
                    let prefix = |a: __m256i| {
                        let a = add(a, _mm256_slli_si256::<4>(a));
                        let a = add(a, _mm256_slli_si256::<8>(a));
                        // The low half's total (its lane 3) into every lane of the high half.
                        let t = _mm256_shuffle_epi32::<0xFF>(a);
                        add(a, _mm256_permute2x128_si256::<0x08>(t, t))
                    };
                    let mut carry = $set(acc);
                    // One prefetch per 64 bytes of a step (128 bytes), as the SSE2 loop.
                    for s in 0..steps {
                        let at = s * STEP;
                        crate::cpu::radix::prefetch_ahead_of(dp.wrapping_add(at));
                        crate::cpu::radix::prefetch_ahead_of(dp.wrapping_add(at + 16));
                        // SAFETY: elements `head + at .. head + at + STEP` are below
                        // `n <= d.len(), o.len()`; with `nt` the stores are 32-byte aligned
                        // (`head`, and steps of 128 bytes).
                        unsafe {
                            let v = [
                                _mm256_loadu_si256(dp.add(at).cast()),
                                _mm256_loadu_si256(dp.add(at + L).cast()),
                                _mm256_loadu_si256(dp.add(at + 2 * L).cast()),
                                _mm256_loadu_si256(dp.add(at + 3 * L).cast()),
                            ];
                            let x = [prefix(v[0]), prefix(v[1]), prefix(v[2]), prefix(v[3])];
                            let t0 = _mm256_permutevar8x32_epi32(x[0], last);
                            let t1 = add(t0, _mm256_permutevar8x32_epi32(x[1], last));
                            let t2 = add(t1, _mm256_permutevar8x32_epi32(x[2], last));
                            let t3 = add(t2, _mm256_permutevar8x32_epi32(x[3], last));
                            let y = [
                                add(x[0], carry),
                                add(x[1], add(carry, t0)),
                                add(x[2], add(carry, t1)),
                                add(x[3], add(carry, t2)),
                            ];
                            let w = if excl {
                                // Each vector rotated up by one lane, lane 0 from the
                                // previous vector's lane 7 (the carry for the first).
                                let r = [
                                    _mm256_permutevar8x32_epi32(y[0], rot),
                                    _mm256_permutevar8x32_epi32(y[1], rot),
                                    _mm256_permutevar8x32_epi32(y[2], rot),
                                    _mm256_permutevar8x32_epi32(y[3], rot),
                                ];
                                [
                                    _mm256_blend_epi32::<1>(r[0], carry),
                                    _mm256_blend_epi32::<1>(r[1], r[0]),
                                    _mm256_blend_epi32::<1>(r[2], r[1]),
                                    _mm256_blend_epi32::<1>(r[3], r[2]),
                                ]
                            } else {
                                y
                            };
                            for (k, w) in w.into_iter().enumerate() {
                                let p = op.add(at + k * L).cast::<__m256i>();
                                if nt {
                                    _mm256_stream_si256(p, w);
                                } else {
                                    _mm256_storeu_si256(p, w);
                                }
                            }
                            carry = add(carry, t3);
                        }
                    }
                    (head + steps * STEP, $get(carry))
                }
            };
        }

        scan32!(
            scan_f32,
            f32,
            _mm256_add_ps,
            |a: __m256| _mm256_castps_si256(a),
            |a: __m256i| _mm256_castsi256_ps(a),
            |a: f32| _mm256_castps_si256(_mm256_set1_ps(a)),
            |c: __m256i| _mm_cvtss_f32(_mm256_castps256_ps128(_mm256_castsi256_ps(c)))
        );
    }
}
