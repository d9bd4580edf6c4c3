//! The LSD radix engine behind every CPU sort (keys, pairs, argsort).
//!
//! # Characteristics
//! Stable, out of place (one or two scratch buffers the size of the input), parallel over a
//! few contiguous chunks (one per rayon thread). Each pass is the seeds' histogram, exclusive
//! scan and stable scatter (CUDA Handbook Listing 16-8), with per-chunk counts so that chunks
//! scatter independently and stably.
//!
//! # Optimizations
//! * **One up-front read** computes, per chunk, the counts of the first digit and the OR and AND
//!   of every radix image. Bits where OR and AND agree are equal in every key, so digits are
//!   placed only over the bits that vary: passes whose digit is the same for every key are
//!   skipped for free, and narrow data (small values in wide types) takes fewer passes.
//! * **Counts for the next pass come from the current scatter** (parallel passes): every
//!   element written is counted under (destination chunk, next digit), so each pass is one read
//!   and one write. Inside an MSD bucket ([`sort_bucket`]) one read counts every digit instead,
//!   and the scatters only move.
//! * **Buckets with many varying bits** (64-bit keys) sort on their top bits only and then sort
//!   the runs that tie there, instead of one LSD pass per digit.
//! * **Software write-combining**: each digit collects elements in a cache-line-sized staging
//!   buffer that is flushed as one aligned line, so the scatter touches 2^digit_bits lines of L1
//!   instead of as many open pages (Polychroniou & Ross, "A comprehensive study of main-memory
//!   partitioning", SIGMOD 2014). The next-digit counting runs in the flush, on hot data.
//! * The first pass reads the caller's data through a [`Source`] (images computed on the fly,
//!   payloads or indices zipped in) and the last pass writes through a [`Sink`] (images mapped
//!   back, pairs unzipped), so no separate pack or unpack pass exists where it can be avoided.

use std::mem::{size_of, MaybeUninit};

use rayon::prelude::*;

use crate::key::RadixBits;
use crate::tuning::cpu as tuning;

/// An element the engine moves: radix image plus whatever rides along.
pub(crate) trait Elem: Copy + Send + Sync + 'static {
    type B: RadixBits;
    /// The type has no padding bytes (every byte of a value is initialised), so it may be
    /// moved as plain 16-byte vectors ([`scatter_nt`]).
    const DENSE: bool;
    fn bits(&self) -> Self::B;
}

impl<B: RadixBits> Elem for B {
    type B = B;
    const DENSE: bool = true;
    #[inline(always)]
    fn bits(&self) -> B {
        *self
    }
}

/// A radix image with a payload (a value or an index).
#[derive(Clone, Copy)]
pub(crate) struct Pair<B, V> {
    pub key: B,
    pub val: V,
}

impl<B: RadixBits, V: Copy + Send + Sync + 'static> Elem for Pair<B, V> {
    type B = B;
    // Radix images are integers and payloads `Pod` or indices, none with padding of their own,
    // so the pair has none exactly when its size is the sum of its fields'.
    const DENSE: bool = size_of::<Pair<B, V>>() == size_of::<B>() + size_of::<V>();
    #[inline(always)]
    fn bits(&self) -> B {
        self.key
    }
}

/// Where a pass reads element `i`.
pub(crate) trait Source<E>: Sync + Copy {
    /// # Safety
    /// `i` is below the length the source was built for, and element `i` is initialised.
    unsafe fn get(&self, i: usize) -> E;
    /// A hint to bring the cache line(s) of element `i` into the cache; it never faults,
    /// whatever `i` is (streaming loops ask [`ahead`] elements on, past the end too).
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        let _ = i;
    }
}

/// How far ahead, in elements of `E`, a loop that streams its source from memory prefetches
/// it: [`tuning::PREFETCH_AHEAD_BYTES`].
#[inline(always)]
pub(crate) const fn ahead<E>() -> usize {
    tuning::PREFETCH_AHEAD_BYTES
        / if size_of::<E>() == 0 {
            1
        } else {
            size_of::<E>()
        }
}

/// Prefetches `src` [`ahead`] elements past `i` once per [`line_len`] elements, for a loop
/// that visits every `step`-th position (1 or 2, at most `line_len`) whatever its start: one
/// prefetch per cache line it reads.
#[inline(always)]
pub(crate) fn prefetch_ahead<E, S: Source<E>>(src: &S, i: usize, step: usize) {
    if i & (line_len::<E>() - 1) < step {
        src.prefetch(i.wrapping_add(ahead::<E>()));
    }
}

/// Where a pass writes element `i`.
pub(crate) trait Sink<E>: Sync + Copy {
    /// # Safety
    /// `i` is below the length the sink was built for, and no other thread writes or reads
    /// position `i` during the pass.
    unsafe fn put(&self, i: usize, e: E);
    /// Writes `run` to positions `i..i + run.len()` (a staged cache line).
    ///
    /// # Safety
    /// As [`Sink::put`] for every position of the run.
    #[inline(always)]
    unsafe fn put_run(&self, i: usize, run: &[E])
    where
        E: Copy,
    {
        for (k, &e) in run.iter().enumerate() {
            // SAFETY: forwarded from the caller.
            unsafe { self.put(i + k, e) };
        }
    }
    /// Writes `run` to positions `i..i + run.len()`, the last write of an output window. Sinks
    /// over the caller's memory may bypass the cache for whole lines ([`stream_out`]): no
    /// read-for-ownership of memory that is cold. Fenced before it returns.
    ///
    /// # Safety
    /// As [`Sink::put`] for every position of the run.
    #[inline(always)]
    unsafe fn put_stream(&self, i: usize, run: &[E])
    where
        E: Copy,
    {
        for (k, &e) in run.iter().enumerate() {
            // SAFETY: forwarded from the caller.
            unsafe { self.put(i + k, e) };
        }
    }
    /// A hint to bring the cache line(s) position `i` will be written to into the cache; it
    /// never faults, whatever `i` is.
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        let _ = i;
    }
    /// Address of element 0 in elements, modulo `line`: position `i` starts a cache line when
    /// `(i + phase) % line == 0`. Only a performance hint.
    fn phase(&self, line: usize) -> usize;
}

/// A raw buffer of elements, read and written by position.
pub(crate) struct Buf<E>(pub *mut E);

impl<E> Clone for Buf<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Buf<E> {}

impl<E> Buf<E> {
    /// The buffer from position `i` on.
    ///
    /// # Safety
    /// `i` is within the allocation.
    #[inline(always)]
    pub(crate) unsafe fn at(self, i: usize) -> Buf<E> {
        // SAFETY: forwarded from the caller.
        Buf(unsafe { self.0.add(i) })
    }
}

// SAFETY: the engine gives every position of a pass to exactly one task (the chunk offsets
// partition the output), so sharing the pointer between tasks creates no data race.
unsafe impl<E: Send> Sync for Buf<E> {}
// SAFETY: as above.
unsafe impl<E: Send> Send for Buf<E> {}

impl<E: Copy + Send> Source<E> for Buf<E> {
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> E {
        // SAFETY: the caller keeps `i` in bounds and initialised.
        unsafe { self.0.add(i).read() }
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        prefetch(self.0.wrapping_add(i).cast::<u8>());
    }
}

impl<E: Copy + Send> Sink<E> for Buf<E> {
    #[inline(always)]
    unsafe fn put(&self, i: usize, e: E) {
        // SAFETY: the caller keeps `i` in bounds and owned by this task.
        unsafe { self.0.add(i).write(e) }
    }
    #[inline(always)]
    unsafe fn put_run(&self, i: usize, run: &[E]) {
        // SAFETY: the caller keeps the run in bounds and owned by this task; the staging line
        // it comes from is a separate allocation.
        unsafe { std::ptr::copy_nonoverlapping(run.as_ptr(), self.0.add(i), run.len()) }
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        prefetch(self.0.wrapping_add(i).cast::<u8>());
    }
    fn phase(&self, line: usize) -> usize {
        phase_of(self.0, line)
    }
}

pub(crate) fn phase_of<T>(p: *const T, line: usize) -> usize {
    (p as usize / size_of::<T>().max(1)) % line
}

/// One digit: bits `[shift, shift + width)` of the radix image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Digit {
    pub shift: u32,
    pub width: u32,
}

impl Digit {
    #[inline(always)]
    fn mask(self) -> u32 {
        (1u32 << self.width) - 1
    }
    #[inline(always)]
    fn radix(self) -> usize {
        1usize << self.width
    }
    #[inline(always)]
    fn of<B: RadixBits>(self, b: B) -> usize {
        b.digit(self.shift, self.mask())
    }
}

/// Places digits of at most `max_width` bits over the varying bits of `varying` (bits outside
/// `[begin, end)` are already cleared), lowest first. A digit starts at the lowest varying bit
/// not yet covered, so runs of constant bits cost nothing. Among widths that give the same
/// number of passes the narrowest is taken (fewer counters, smaller staging buffers).
pub(crate) fn plan(varying: u128, end: u32, max_width: u32, balance: bool) -> Vec<Digit> {
    let place = |w: u32| {
        let mut out = Vec::new();
        let mut rest = varying;
        while rest != 0 {
            let shift = rest.trailing_zeros();
            let width = w.min(end - shift);
            out.push(Digit { shift, width });
            let top = shift + width;
            rest = if top >= 128 {
                0
            } else {
                rest & (u128::MAX << top)
            };
        }
        out
    };
    let best = place(max_width);
    if !balance {
        return best;
    }
    let mut w = max_width;
    while w > 1 && place(w - 1).len() == best.len() {
        w -= 1;
    }
    place(w)
}

/// Contiguous chunks of positions, one task each. The chunk of a position is a monotone
/// function (a multiply-high), so a scatter can name the destination chunk of what it writes
/// without a division.
pub(crate) struct Chunks {
    mul: u64,
    starts: Vec<usize>,
}

impl Chunks {
    /// `count` chunks over `n` positions; `count` is at least 1 and below `n` unless both are 1.
    pub(crate) fn new(n: usize, count: usize) -> Chunks {
        let count = count.clamp(1, n.max(1));
        if count == 1 || n <= count {
            return Chunks {
                mul: 0,
                starts: vec![0, n],
            };
        }
        // f(i) = floor(i * mul / 2^64) with mul = floor(count * 2^64 / n) < 2^64 (count < n),
        // so f(n - 1) <= count - 1.
        let mul = (((count as u128) << 64) / n as u128) as u64;
        let mut starts: Vec<usize> = (0..count)
            .map(|c| {
                // Smallest i with i * mul >= c * 2^64.
                let t = (c as u128) << 64;
                t.div_ceil(mul as u128).min(n as u128) as usize
            })
            .collect();
        starts.push(n);
        Chunks { mul, starts }
    }

    pub(crate) fn count(&self) -> usize {
        self.starts.len() - 1
    }

    fn range(&self, c: usize) -> (usize, usize) {
        (self.starts[c], self.starts[c + 1])
    }

    #[cfg(test)]
    pub(crate) fn of_for_tests(&self, i: usize) -> usize {
        chunk_of(self.mul, i)
    }

    #[cfg(test)]
    pub(crate) fn range_for_tests(&self, c: usize) -> (usize, usize) {
        self.range(c)
    }
}

/// Per-chunk digit counts: `counts[c * radix + d]`.
pub(crate) struct Counts {
    pub digit: Digit,
    pub counts: Vec<usize>,
}

/// What the up-front read found.
pub(crate) struct Survey {
    pub or: u128,
    pub and: u128,
    pub first: Counts,
}

/// The up-front read: OR and AND of all images, counts of `digit` per chunk. When `write` is
/// given, the images are also stored there (the in-place transform of keys).
///
/// # Safety
/// `src` and `write` are valid for `chunks`' positions.
pub(crate) unsafe fn survey<E: Elem, S: Source<E>>(
    src: &S,
    write: Option<&Buf<E>>,
    chunks: &Chunks,
    digit: Digit,
) -> Survey {
    let r = digit.radix();
    let task = |c: usize| {
        let (lo, hi) = chunks.range(c);
        let mut cnt = vec![0usize; 2 * r];
        // SAFETY: the chunk is inside the positions the caller guarantees; chunks are
        // disjoint, so only this task writes its positions of `write`.
        let (or, and) = unsafe { survey_range(*src, write.copied(), lo, hi, digit, &mut cnt) };
        let (a, b) = cnt.split_at(r);
        let cnt: Vec<usize> = a.iter().zip(b).map(|(x, y)| x + y).collect();
        (or.to_u128(), and.to_u128(), cnt)
    };
    let parts: Vec<(u128, u128, Vec<usize>)> = if chunks.count() == 1 {
        vec![task(0)]
    } else {
        (0..chunks.count()).into_par_iter().map(task).collect()
    };
    let mut s = Survey {
        or: 0,
        and: E::B::MAX.to_u128(),
        first: Counts {
            digit,
            counts: Vec::with_capacity(r * parts.len()),
        },
    };
    for (or, and, cnt) in parts {
        s.or |= or;
        s.and &= and;
        s.first.counts.extend_from_slice(&cnt);
    }
    s
}

/// One chunk of [`survey`]: OR and AND of the images of `[lo, hi)`, and the counts of `digit`
/// in two sets of `cnt` (alternating, so that equal digits in a row, as in sorted or
/// few-valued input, do not wait on each other's store). Everything the loop uses is a local
/// copy: with the closure's captured references, the compiler reloaded the source pointer and
/// the digit from memory on every element (it could not rule out the counter stores aliasing
/// them).
///
/// # Safety
/// `src` and `write` are valid for `[lo, hi)`, which no other thread writes; `cnt` has
/// `2 * digit.radix()` entries.
#[inline(always)]
unsafe fn survey_range<E: Elem, S: Source<E>>(
    src: S,
    write: Option<Buf<E>>,
    lo: usize,
    hi: usize,
    digit: Digit,
    cnt: &mut [usize],
) -> (E::B, E::B) {
    let (shift, mask) = (digit.shift, digit.mask());
    let (c0, c1) = cnt.split_at_mut(digit.radix());
    let (mut or, mut and) = (E::B::ZERO, E::B::MAX);
    let mut i = lo;
    while i + 2 <= hi {
        prefetch_ahead(&src, i, 2);
        // SAFETY: `i + 1 < hi`; digits are masked below the radix, the length of each set.
        unsafe {
            let (x, y) = (src.get(i), src.get(i + 1));
            if let Some(w) = write {
                w.put(i, x);
                w.put(i + 1, y);
            }
            let (a, b) = (x.bits(), y.bits());
            or = or.or(a).or(b);
            and = and.and(a).and(b);
            *c0.get_unchecked_mut(a.digit(shift, mask)) += 1;
            *c1.get_unchecked_mut(b.digit(shift, mask)) += 1;
        }
        i += 2;
    }
    if i < hi {
        // SAFETY: as above, for the last position.
        unsafe {
            let x = src.get(i);
            if let Some(w) = write {
                w.put(i, x);
            }
            let a = x.bits();
            or = or.or(a);
            and = and.and(a);
            *c0.get_unchecked_mut(a.digit(shift, mask)) += 1;
        }
    }
    (or, and)
}

/// The up-front read of one bucket (one chunk of `len`): OR, AND and the counts of every
/// digit in `guess` (at most [`MULTI_MAX`], each at most 8 bits wide), so that the LSD passes
/// after it only move elements.
///
/// # Safety
/// `src` is valid for `len` initialised positions.
pub(crate) unsafe fn survey_multi<E: Elem, S: Source<E>, W: Sink<E>>(
    src: &S,
    len: usize,
    guess: &[Digit],
    warm: Option<&W>,
) -> (u128, u128, Vec<Counts>) {
    #[cfg(target_arch = "x86_64")]
    if bmi2() {
        // SAFETY: the CPU has BMI2; the rest is forwarded from the caller.
        return unsafe { survey_multi_bmi2(src, len, guess, warm) };
    }
    // SAFETY: forwarded from the caller.
    unsafe { survey_multi_body(src, len, guess, warm) }
}

/// # Safety
/// The CPU has BMI2; otherwise as [`survey_multi`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn survey_multi_bmi2<E: Elem, S: Source<E>, W: Sink<E>>(
    src: &S,
    len: usize,
    guess: &[Digit],
    warm: Option<&W>,
) -> (u128, u128, Vec<Counts>) {
    // SAFETY: forwarded from the caller.
    unsafe { survey_multi_body(src, len, guess, warm) }
}

/// The body of [`survey_multi`], inlined into both of its builds.
///
/// # Safety
/// As [`survey_multi`].
#[inline(always)]
unsafe fn survey_multi_body<E: Elem, S: Source<E>, W: Sink<E>>(
    src: &S,
    len: usize,
    guess: &[Digit],
    warm: Option<&W>,
) -> (u128, u128, Vec<Counts>) {
    // One prefetch per cache line of `warm` (the bucket's window of the output, which is
    // cold: the caller's memory, last read long before), so that the scatter that writes it
    // finds its lines in the cache instead of waiting on a read-for-ownership per line.
    let per_line = (tuning::CACHE_LINE / size_of::<E>().max(1)).max(1);
    let mut cnt = [[0u32; 256]; MULTI_MAX];
    let g = guess.len().min(MULTI_MAX);
    let d = |k: usize| {
        guess
            .get(k)
            .copied()
            .unwrap_or(Digit { shift: 0, width: 0 })
    };
    let (d0, d1, d2) = (d(0), d(1), d(2));
    let (mut or, mut and) = (E::B::ZERO, E::B::MAX);
    // Three digits side by side with the lower two 8 bits wide (u32 keys and pairs in the MSD
    // buckets): one variable shift per element, then constant byte extractions, instead of a
    // variable shift for each digit (the loop was ~22 instructions per element, 20% of a
    // 2^20 u32 sort; bench/NOTES.md 2026-11-30 session 4).
    let bytes = g == MULTI_MAX
        && d0.width == 8
        && d1.width == 8
        && d1.shift == d0.shift + 8
        && d2.shift == d0.shift + 16;
    let m2 = d2.mask() as usize;
    // Bucket lengths stay far below 2^32, so u32 counters cannot overflow.
    let mut i = 0;
    while i < len {
        let end = (i + per_line).min(len);
        if let Some(w) = warm {
            w.prefetch(i);
        }
        src.prefetch(i.wrapping_add(ahead::<E>()));
        if bytes {
            for j in i..end {
                // SAFETY: `j < len`; every index is masked to at most 8 bits (256 counters).
                unsafe {
                    let b = src.get(j).bits();
                    or = or.or(b);
                    and = and.and(b);
                    let x = b.digit(d0.shift, 0xff_ffff);
                    *cnt[0].get_unchecked_mut(x & 0xff) += 1;
                    *cnt[1].get_unchecked_mut((x >> 8) & 0xff) += 1;
                    *cnt[2].get_unchecked_mut((x >> 16) & m2) += 1;
                }
            }
        } else {
            for j in i..end {
                // SAFETY: `j < len`; digits of at most 8 bits index 256 counters.
                unsafe {
                    let b = src.get(j).bits();
                    or = or.or(b);
                    and = and.and(b);
                    *cnt[0].get_unchecked_mut(d0.of(b)) += 1;
                    if g > 1 {
                        *cnt[1].get_unchecked_mut(d1.of(b)) += 1;
                    }
                    if g > 2 {
                        *cnt[2].get_unchecked_mut(d2.of(b)) += 1;
                    }
                }
            }
        }
        i = end;
    }
    let counts = (0..g)
        .map(|k| Counts {
            digit: guess[k],
            counts: cnt[k][..guess[k].radix()]
                .iter()
                .map(|&c| c as usize)
                .collect(),
        })
        .collect();
    (or.to_u128(), and.to_u128(), counts)
}

/// [`prefetch`] of the line [`tuning::PREFETCH_AHEAD_BYTES`] past `p`: for loops that stream
/// their input from memory, once per line they read.
#[inline(always)]
pub(crate) fn prefetch_ahead_of<T>(p: *const T) {
    prefetch(p.cast::<u8>().wrapping_add(tuning::PREFETCH_AHEAD_BYTES));
}

/// A hint to bring the line at `p` into the cache; never faults, whatever `p` is.
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no architectural effect and does not fault on any address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Most digits [`survey_multi`] counts in one read.
pub(crate) const MULTI_MAX: usize = 3;

/// Counts `digit` per chunk (used when the survey's guess of the first digit was wrong).
///
/// # Safety
/// `src` is valid for `chunks`' positions.
pub(crate) unsafe fn count<E: Elem, S: Source<E>>(
    src: &S,
    chunks: &Chunks,
    digit: Digit,
) -> Counts {
    let r = digit.radix();
    let task = |c: usize| {
        let (lo, hi) = chunks.range(c);
        let mut cnt = vec![0usize; r];
        for i in lo..hi {
            prefetch_ahead(src, i, 1);
            // SAFETY: `i` is inside this chunk; the digit is masked below the radix.
            unsafe { *cnt.get_unchecked_mut(digit.of(src.get(i).bits())) += 1 };
        }
        cnt
    };
    let parts: Vec<Vec<usize>> = if chunks.count() == 1 {
        vec![task(0)]
    } else {
        (0..chunks.count()).into_par_iter().map(task).collect()
    };
    Counts {
        digit,
        counts: parts.concat(),
    }
}

/// Elements per staging line: the largest power of two whose elements fit in a cache line.
const fn line_len<E>() -> usize {
    let per = tuning::CACHE_LINE
        / if size_of::<E>() == 0 {
            1
        } else {
            size_of::<E>()
        };
    if per <= 1 {
        1
    } else {
        1 << (usize::BITS - 1 - per.leading_zeros())
    }
}

/// Whether the write-combining scatter pays for this element and digit.
fn use_wc<E>(digit: Digit, n: usize) -> bool {
    tuning::WRITE_COMBINING
        && line_len::<E>() >= 4
        && digit.radix() <= tuning::WC_MAX_RADIX
        && n >= tuning::WC_MIN_LEN
}

/// One stable scatter pass from `src` to `dst` by `counts.digit`, counting `next` on the way.
/// Returns the per-chunk counts of `next` over the output.
///
/// # Safety
/// `src` is valid for the `chunks`' positions, `dst` for as many, the two do not overlap, and
/// `counts` are the true per-chunk counts of `src`.
pub(crate) unsafe fn scatter<E: Elem, S: Source<E>, D: Sink<E>>(
    src: &S,
    dst: &D,
    chunks: &Chunks,
    counts: &Counts,
    next: Option<Digit>,
) -> Option<Counts> {
    let t = chunks.count();
    let n = chunks.starts[t];
    let digit = counts.digit;
    let r = digit.radix();
    let mut offsets = offsets_of(counts, t, r);
    let wc = use_wc::<E>(digit, n);
    let task = |(c, off): (usize, &mut [usize])| {
        let (lo, hi) = chunks.range(c);
        // SAFETY: forwarded from the caller; `off` is this chunk's slice of the scan.
        unsafe {
            if wc {
                scatter_wc(src, dst, lo, hi, digit, next, chunks, off)
            } else {
                scatter_plain(src, dst, lo, hi, digit, next, chunks, off)
            }
        }
    };
    let parts: Vec<Vec<usize>> = if t == 1 {
        vec![task((0, &mut offsets[..]))]
    } else {
        offsets.par_chunks_mut(r).enumerate().map(task).collect()
    };
    let nd = next?;
    let r2 = nd.radix();
    if t == 1 {
        // The one chunk's counts are the total.
        return parts
            .into_iter()
            .next()
            .map(|counts| Counts { digit: nd, counts });
    }
    let mut total = vec![0usize; t * r2];
    for p in parts {
        for (a, b) in total.iter_mut().zip(&p) {
            *a += b;
        }
    }
    Some(Counts {
        digit: nd,
        counts: total,
    })
}

/// Exclusive scan of `t` chunks' counts of an `r`-value digit, digit-major then chunk-major:
/// chunk c's digit-d run starts after every smaller digit and after digit d of the chunks
/// before it (this keeps the pass stable). One chunk takes the plain scan, without zeroing
/// the table first (2048 offsets of an 11-bit digit are a quarter of a 2^13 sort's keys).
fn offsets_of(counts: &Counts, t: usize, r: usize) -> Vec<usize> {
    if t == 1 {
        let mut sum = 0usize;
        return counts.counts[..r]
            .iter()
            .map(|&c| {
                let o = sum;
                sum += c;
                o
            })
            .collect();
    }
    let mut offsets = vec![0usize; t * r];
    let mut sum = 0usize;
    for d in 0..r {
        for c in 0..t {
            offsets[c * r + d] = sum;
            sum += counts.counts[c * r + d];
        }
    }
    offsets
}

/// A scatter without counting into a raw buffer: [`scatter_nt`] when the data is too large
/// for the caches and the buffer is line-aligned, else the plain [`scatter`].
///
/// # Safety
/// As [`scatter`].
pub(crate) unsafe fn scatter_to_buf<E: Elem, S: Source<E>>(
    src: &S,
    dst: Buf<E>,
    chunks: &Chunks,
    counts: &Counts,
) {
    let t = chunks.count();
    let n = chunks.starts[t];
    if !use_nt::<E>(dst, n) {
        // SAFETY: forwarded from the caller.
        unsafe { scatter(src, &dst, chunks, counts, None) };
        return;
    }
    let r = counts.digit.radix();
    let mut offsets = offsets_of(counts, t, r);
    let digit = counts.digit;
    let task = |(c, off): (usize, &mut [usize])| {
        let (lo, hi) = chunks.range(c);
        // SAFETY: forwarded from the caller; `off` is this chunk's slice of the scan, whose
        // runs no other task writes.
        unsafe { scatter_nt(src, dst, lo, hi, digit, off) }
    };
    if t == 1 {
        task((0, &mut offsets[..]));
    } else {
        offsets.par_chunks_mut(r).enumerate().for_each(task);
    }
}

/// Whether [`scatter_nt`] applies: the element has no padding and its size divides a cache
/// line, the buffer starts on a line, and the data is large enough to go to memory anyway.
fn use_nt<E: Elem>(dst: Buf<E>, n: usize) -> bool {
    let size = size_of::<E>();
    tuning::NT_SCATTER
        && cfg!(target_arch = "x86_64")
        && E::DENSE
        && size > 0
        && size <= tuning::CACHE_LINE / 4
        && tuning::CACHE_LINE.is_multiple_of(size)
        && (dst.0 as usize).is_multiple_of(tuning::CACHE_LINE)
        && n.saturating_mul(size) >= nt_min_bytes()
}

/// [`tuning::NT_MIN_BYTES`], lowered under test so that the tests' sizes take both paths.
pub(crate) const fn nt_min_bytes() -> usize {
    if cfg!(test) {
        1 << 20
    } else {
        tuning::NT_MIN_BYTES
    }
}

#[cfg(test)]
pub(crate) fn use_nt_for_tests<E: Elem>(dst: *mut E, n: usize) -> bool {
    use_nt::<E>(Buf(dst), n)
}

/// The plain and the BMI2 builds of the scatter and of the in-bucket survey on the same input
/// (the sorts take one of them per CPU, so a test run exercises only one): both must give the
/// output, the next digit's counts and the survey of the plain build.
#[cfg(all(test, target_arch = "x86_64"))]
#[test]
fn bmi2_builds_match_the_plain_ones() {
    if !std::is_x86_feature_detected!("bmi2") {
        eprintln!("SKIP bmi2_builds_match_the_plain_ones: this CPU has no BMI2");
        return;
    }
    let n = 5000;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let src: Vec<Pair<u32, u16>> = (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Pair {
                key: (x >> 20) as u32,
                val: i as u16,
            }
        })
        .collect();
    let chunks = Chunks::new(n, 1);
    for (shift, width) in [(0, 8), (5, 7), (16, 8), (24, 8), (3, 1)] {
        let digit = Digit { shift, width };
        // The digit above, where the key has one (none above the top digit: a digit at bit 32
        // would shift a u32 by its width).
        let next = (shift + width < 32).then(|| Digit {
            shift: shift + width,
            width: 8.min(32 - (shift + width)),
        });
        let s = Buf(src.as_ptr().cast_mut());
        // SAFETY: `s` is valid for `n` initialised elements and only read.
        let counts = unsafe { count(&s, &chunks, digit) };
        let run = |bmi2: bool| {
            let mut out = vec![
                Pair {
                    key: 0u32,
                    val: 0u16
                };
                n
            ];
            let d = Buf(out.as_mut_ptr());
            let mut off = vec![0usize; digit.radix()];
            let mut sum = 0;
            for (o, c) in off.iter_mut().zip(&counts.counts) {
                *o = sum;
                sum += c;
            }
            // SAFETY: `s` and `d` are separate buffers of `n`; `off` is the scan of the true
            // counts; the CPU has BMI2 (checked above).
            let cnt = unsafe {
                if bmi2 {
                    scatter_direct_bmi2(&s, &d, 0, n, digit, next, &chunks, &mut off)
                } else {
                    scatter_direct(&s, &d, 0, n, digit, next, &chunks, &mut off)
                }
            };
            let guess: Vec<Digit> = std::iter::once(digit).chain(next).collect();
            // SAFETY: `d` holds `n` initialised elements; no output window is warmed.
            let (or, and, multi) = unsafe {
                if bmi2 {
                    survey_multi_bmi2(&d, n, &guess, None::<&Buf<Pair<u32, u16>>>)
                } else {
                    survey_multi_body(&d, n, &guess, None::<&Buf<Pair<u32, u16>>>)
                }
            };
            let keys: Vec<(u32, u16)> = out.iter().map(|p| (p.key, p.val)).collect();
            let multi: Vec<Vec<usize>> = multi.into_iter().map(|c| c.counts).collect();
            (keys, cnt, or, and, multi)
        };
        let plain = run(false);
        assert!(
            plain.0.windows(2).all(|w| {
                let (a, b) = (digit.of(w[0].0), digit.of(w[1].0));
                a < b || (a == b && w[0].1 < w[1].1)
            }),
            "plain scatter not stable by digit {digit:?}"
        );
        assert_eq!(run(true), plain, "digit {digit:?}");
    }
}

/// One cache line of staging, aligned like one.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// Writes one full, line-aligned cache line with non-temporal stores: the line goes to memory
/// through the write-combining buffers without being read first (no read-for-ownership).
///
/// # Safety
/// `to` is 64-byte aligned and valid for 64 bytes that no other thread accesses during the
/// pass; the caller issues a store fence before the data is read by another thread.
#[inline(always)]
unsafe fn stream_line(to: *mut u8, from: &Line) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86_64; `to` is 16-byte aligned (64 in fact) and valid for the
    // four 16-byte stores; `from` is a 64-byte value.
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let f = from.0.as_ptr().cast::<__m128i>();
        let t = to.cast::<__m128i>();
        _mm_stream_si128(t, _mm_loadu_si128(f));
        _mm_stream_si128(t.add(1), _mm_loadu_si128(f.add(1)));
        _mm_stream_si128(t.add(2), _mm_loadu_si128(f.add(2)));
        _mm_stream_si128(t.add(3), _mm_loadu_si128(f.add(3)));
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: as the caller promises.
    unsafe {
        std::ptr::copy_nonoverlapping(from.0.as_ptr(), to, 64)
    }
}

/// Writes `f(0), .., f(n - 1)` to `dst` in order; the whole cache lines among them are built
/// in a staging line and written with non-temporal stores (no read-for-ownership), the partial
/// lines at both ends with plain stores. The caller fences ([`sfence`]) before another thread
/// reads the data.
///
/// # Safety
/// `dst` is valid for `n` writes that no other thread accesses during the call.
#[inline(always)]
pub(crate) unsafe fn stream_out<T: Copy>(dst: *mut T, n: usize, f: impl Fn(usize) -> T) {
    let size = size_of::<T>();
    let line = tuning::CACHE_LINE;
    if !cfg!(target_arch = "x86_64")
        || size == 0
        || size > line / 4
        || !line.is_multiple_of(size)
        || !(dst as usize).is_multiple_of(size)
    {
        for k in 0..n {
            // SAFETY: `k < n`.
            unsafe { dst.add(k).write(f(k)) };
        }
        return;
    }
    let per = line / size;
    let head = ((line - (dst as usize) % line) % line / size).min(n);
    // SAFETY (whole body): every position written is below `n`; the staging line is 64-byte
    // aligned, so it holds `per` values of `T` (whose size divides 64) at their alignment.
    unsafe {
        for k in 0..head {
            dst.add(k).write(f(k));
        }
        let mut stage = Line([0; 64]);
        let mut k = head;
        while k + per <= n {
            let l = stage.0.as_mut_ptr().cast::<T>();
            for j in 0..per {
                l.add(j).write(f(k + j));
            }
            stream_line(dst.add(k).cast::<u8>(), &stage);
            k += per;
        }
        for k in k..n {
            dst.add(k).write(f(k));
        }
    }
}

/// Orders earlier non-temporal stores before later stores (then the join that hands the data to
/// another thread).
#[inline(always)]
pub(crate) fn sfence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a store fence has no preconditions.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// The software write-combining scatter for passes that go to memory (Polychroniou & Ross,
/// SIGMOD 2014): each digit fills a staging cache line (in L1) at the slot its destination has
/// in its line; a completed line that lies wholly inside this task's run is streamed out with
/// non-temporal stores (no read-for-ownership of the destination, which made the plain
/// scatter into 256+ cold streams ~5x slower than a copy here), and the partial lines at the
/// ends of each run are written element-wise.
///
/// # Safety
/// As [`scatter_direct`], with `dst` 64-byte aligned and `size_of::<E>()` dividing 64.
#[inline(always)]
unsafe fn scatter_nt<E: Elem, S: Source<E>>(
    src: &S,
    dst: Buf<E>,
    lo: usize,
    hi: usize,
    digit: Digit,
    off: &mut [usize],
) {
    let src = *src;
    let l = tuning::CACHE_LINE / size_of::<E>();
    let lm = l - 1;
    let r = digit.radix();
    let start: Vec<usize> = off.to_vec();
    let mut lines = vec![Line([0; 64]); r];
    let stage = lines.as_mut_ptr().cast::<E>();
    for i in lo..hi {
        prefetch_ahead(&src, i, 1);
        // SAFETY: `i` is in this chunk; the digit is masked below `r`, so the staging slot
        // `d * l + s` is inside `lines` (`r` lines of `l` elements); `p` stays inside this
        // task's run of digit `d`; a streamed line `[p + 1 - l, p + 1)` starts at or after
        // the run's start and is line-aligned (`dst` is), so it is wholly this task's.
        unsafe {
            let e = src.get(i);
            let d = digit.of(e.bits());
            let slot = off.get_unchecked_mut(d);
            let p = *slot;
            *slot = p + 1;
            let s = p & lm;
            stage.add(d * l + s).write(e);
            if s == lm {
                let a = p + 1 - l;
                let line = &*lines.as_ptr().add(d);
                if a >= *start.get_unchecked(d) {
                    stream_line(dst.0.add(a).cast::<u8>(), line);
                } else {
                    let first = *start.get_unchecked(d);
                    std::ptr::copy_nonoverlapping(
                        stage.add(d * l + (first & lm)),
                        dst.0.add(first),
                        p + 1 - first,
                    );
                }
            }
        }
    }
    // The partial line at the end of each run (the whole run when it is shorter than a line
    // and does not reach a line's end).
    for d in 0..r {
        let end = off[d];
        let a = (end & !lm).max(start[d]);
        if a < end {
            // SAFETY: staging slots `a & lm .. end & lm` (or to `l`) hold the elements of
            // positions `[a, end)`, which belong to this task's run.
            unsafe {
                std::ptr::copy_nonoverlapping(stage.add(d * l + (a & lm)), dst.0.add(a), end - a);
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a store fence has no preconditions; it orders the streamed lines before the
    // join that hands the buffer to other threads.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Whether the hot loops run their BMI2 builds: SHRX shifts by a register in one micro-op
/// and leaves the flags alone, where baseline x86-64's SHR by CL takes several, and every
/// element of every pass extracts its digit with a shift by a run-time amount.
#[inline(always)]
fn bmi2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        tuning::bmi2() && std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`scatter_direct`], compiled for BMI2 where the CPU has it.
///
/// # Safety
/// As [`scatter_direct`].
#[allow(clippy::too_many_arguments)]
unsafe fn scatter_plain<E: Elem, S: Source<E>, D: Sink<E>>(
    src: &S,
    dst: &D,
    lo: usize,
    hi: usize,
    digit: Digit,
    next: Option<Digit>,
    chunks: &Chunks,
    off: &mut [usize],
) -> Vec<usize> {
    #[cfg(target_arch = "x86_64")]
    if bmi2() {
        // SAFETY: the CPU has BMI2; the rest is forwarded from the caller.
        return unsafe { scatter_direct_bmi2(src, dst, lo, hi, digit, next, chunks, off) };
    }
    // SAFETY: forwarded from the caller.
    unsafe { scatter_direct(src, dst, lo, hi, digit, next, chunks, off) }
}

/// # Safety
/// The CPU has BMI2; otherwise as [`scatter_direct`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[allow(clippy::too_many_arguments)]
unsafe fn scatter_direct_bmi2<E: Elem, S: Source<E>, D: Sink<E>>(
    src: &S,
    dst: &D,
    lo: usize,
    hi: usize,
    digit: Digit,
    next: Option<Digit>,
    chunks: &Chunks,
    off: &mut [usize],
) -> Vec<usize> {
    // SAFETY: forwarded from the caller.
    unsafe { scatter_direct(src, dst, lo, hi, digit, next, chunks, off) }
}

/// The plain scatter: one store per element straight to its place.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn scatter_direct<E: Elem, S: Source<E>, D: Sink<E>>(
    src: &S,
    dst: &D,
    lo: usize,
    hi: usize,
    digit: Digit,
    next: Option<Digit>,
    chunks: &Chunks,
    off: &mut [usize],
) -> Vec<usize> {
    // Locals, not references: stores through raw pointers would otherwise force reloads of
    // every field on every element.
    let (src, dst) = (*src, *dst);
    let count = next.is_some();
    let next = next.unwrap_or(digit);
    let r2 = next.radix();
    let mul = chunks.mul;
    let mut cnt = vec![0usize; if count { chunks.count() * r2 } else { 0 }];
    // No source prefetch: these passes read what is in the caches (bucket passes, small
    // inputs, MSD scatters of data the survey just read); with one, a u32 2^20 sort took 3.73
    // instead of 3.33 ms (session 12).
    let mut lo = lo;
    if !count && size_of::<E>() <= 4 {
        // Elements of up to 4 bytes (keys, or pairs of 2-byte keys and values), four at a
        // time, loaded before the first of their stores (u32 2^20, one thread: ~2-3% faster,
        // session 42; 8-byte pairs were slower so). The stores keep the scalar loop's order.
        while lo + 4 <= hi {
            // SAFETY: as below; the four positions are in this chunk.
            unsafe {
                let es: [E; 4] = std::array::from_fn(|j| src.get(lo + j));
                for e in es {
                    place(&dst, off, digit, e);
                }
            }
            lo += 4;
        }
    }
    for i in lo..hi {
        // SAFETY: `i` is in this chunk; the digit is masked below `off.len()`; the offsets of
        // this chunk and digit stay inside the run the scan gave them, which no other task
        // writes; the destination chunk times `r2` plus a masked digit is below `cnt.len()`.
        unsafe {
            let e = src.get(i);
            let b = e.bits();
            let p = place(&dst, off, digit, e);
            if count {
                *cnt.get_unchecked_mut(chunk_of(mul, p) * r2 + next.of(b)) += 1;
            }
        }
    }
    cnt
}

/// One element of a scatter to its place: its digit's offset, read and bumped, then the store;
/// returns the position.
///
/// # Safety
/// The digit of `e` is below `off.len()`, and its offset is a position of `dst` that this task
/// alone writes.
#[inline(always)]
unsafe fn place<E: Elem, D: Sink<E>>(dst: &D, off: &mut [usize], digit: Digit, e: E) -> usize {
    // SAFETY: forwarded from the caller.
    unsafe {
        let slot = off.get_unchecked_mut(digit.of(e.bits()));
        let p = *slot;
        *slot = p + 1;
        dst.put(p, e);
        p
    }
}

#[inline(always)]
fn chunk_of(mul: u64, i: usize) -> usize {
    ((i as u128 * mul as u128) >> 64) as usize
}

/// The write-combining scatter: each digit fills a cache-line-sized staging line indexed by
/// the destination's position within its cache line; a full line goes out in one piece.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn scatter_wc<E: Elem, S: Source<E>, D: Sink<E>>(
    src: &S,
    dst: &D,
    lo: usize,
    hi: usize,
    digit: Digit,
    next: Option<Digit>,
    chunks: &Chunks,
    off: &mut [usize],
) -> Vec<usize> {
    let (src, dst) = (*src, *dst);
    let l = line_len::<E>();
    let lm = l - 1;
    let r = digit.radix();
    let count = next.is_some();
    let next = next.unwrap_or(digit);
    let r2 = next.radix();
    let phase = dst.phase(l);
    let mul = chunks.mul;
    let mut cnt = vec![0usize; if count { chunks.count() * r2 } else { 0 }];
    // The first position of each digit's run: a line's slots below it belong to another task.
    let start: Vec<usize> = off.to_vec();
    let mut lines: Vec<MaybeUninit<E>> = Vec::with_capacity(r * l);
    // SAFETY: MaybeUninit needs no initialisation.
    unsafe { lines.set_len(r * l) };
    let lines = lines.as_mut_ptr();

    for i in lo..hi {
        // SAFETY: `i` is in this chunk; the digit is masked below `r` = `off.len()`, and the
        // staging index below `r * l`.
        unsafe {
            let e = src.get(i);
            let d = digit.of(e.bits());
            let slot = off.get_unchecked_mut(d);
            let p = *slot;
            *slot = p + 1;
            let s = (p + phase) & lm;
            (*lines.add(d * l + s)).write(e);
            if s == lm {
                let a = (p + 1).saturating_sub(l).max(*start.get_unchecked(d));
                let line = lines.add(d * l).cast::<E>();
                flush(
                    dst,
                    line,
                    a,
                    p + 1,
                    phase,
                    lm,
                    count,
                    next,
                    mul,
                    r2,
                    &mut cnt,
                );
            }
        }
    }
    // Partial lines left at the end of each digit's run.
    for d in 0..r {
        let end = off[d];
        let filled = (end + phase) & lm;
        let a = end.saturating_sub(filled).max(start[d]);
        if a < end {
            // SAFETY: as in the loop.
            unsafe {
                let line = lines.add(d * l).cast::<E>();
                flush(dst, line, a, end, phase, lm, count, next, mul, r2, &mut cnt);
            }
        }
    }
    cnt
}

/// Writes the staged positions `[a, b)` (all in one line) and counts their next digit.
///
/// # Safety
/// The line's slots for `[a, b)` are initialised; `[a, b)` belongs to the calling task;
/// `cnt` has `chunks * r2` entries when `count`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn flush<E: Elem, D: Sink<E>>(
    dst: D,
    line: *const E,
    a: usize,
    b: usize,
    phase: usize,
    lm: usize,
    count: bool,
    next: Digit,
    mul: u64,
    r2: usize,
    cnt: &mut [usize],
) {
    let first = (a + phase) & lm;
    // SAFETY: slots `first .. first + (b - a)` are the staged positions `[a, b)`.
    let run = unsafe { std::slice::from_raw_parts(line.add(first), b - a) };
    if count {
        let c0 = chunk_of(mul, a);
        if c0 == chunk_of(mul, b - 1) {
            let c = c0 * r2;
            for e in run {
                // SAFETY: chunk index times `r2` plus a masked digit is below `cnt.len()`.
                unsafe { *cnt.get_unchecked_mut(c + next.of(e.bits())) += 1 };
            }
        } else {
            for (q, e) in (a..b).zip(run) {
                // SAFETY: as above.
                unsafe { *cnt.get_unchecked_mut(chunk_of(mul, q) * r2 + next.of(e.bits())) += 1 };
            }
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { dst.put_run(a, run) };
}

/// Copies `n` elements from `src` to `dst` in parallel (the odd-pass copy-back).
///
/// # Safety
/// `src` and `dst` are valid for `n` positions and do not overlap.
pub(crate) unsafe fn copy<E: Elem, S: Source<E>, D: Sink<E>>(src: &S, dst: &D, n: usize) {
    let block = tuning::COPY_BLOCK;
    let task = |b: usize| {
        for i in b * block..((b + 1) * block).min(n) {
            prefetch_ahead(src, i, 1);
            // SAFETY: `i < n`; blocks are disjoint.
            unsafe { dst.put(i, src.get(i)) };
        }
    };
    let blocks = n.div_ceil(block);
    if blocks <= 1 {
        (0..blocks).for_each(task);
    } else {
        (0..blocks).into_par_iter().for_each(task);
    }
}

/// Runs the passes of `digits` (the first one's counts already known).
///
/// Pass `k` reads `first` (k = 0) or `bufs[(k - 1) % 2]` and writes `bufs[k % 2]`, except that
/// a last pass after the first writes `last` directly when its source does not alias `last`;
/// otherwise the result is copied to `last` at the end. `alias` says which of `bufs[0]` and
/// `bufs[1]` share memory with `last`.
///
/// # Safety
/// Every source, buffer and sink is valid for `n = chunks`' positions; `bufs[0]` and `bufs[1]`
/// do not overlap each other or `first`; `counts` are the true counts of `first`.
pub(crate) unsafe fn run<E: Elem, S0: Source<E>, Dn: Sink<E>>(
    first: &S0,
    bufs: [&Buf<E>; 2],
    last: &Dn,
    alias: [bool; 2],
    chunks: &Chunks,
    digits: &[Digit],
    counts: Counts,
) {
    // SAFETY: forwarded.
    unsafe { run_counted(first, bufs, last, alias, chunks, digits, vec![counts]) }
}

/// [`run`] with the counts of the first pass (the others are counted in each scatter) or of
/// every pass (`counts.len() == digits.len()`; the scatters then only move).
///
/// # Safety
/// As [`run`].
pub(crate) unsafe fn run_counted<E: Elem, S0: Source<E>, Dn: Sink<E>>(
    first: &S0,
    bufs: [&Buf<E>; 2],
    last: &Dn,
    alias: [bool; 2],
    chunks: &Chunks,
    digits: &[Digit],
    counts: Vec<Counts>,
) {
    let n = chunks.starts[chunks.count()];
    let passes = digits.len();
    let all = counts.len() == passes;
    let mut counts = counts.into_iter();
    let mut carried = None;
    for k in 0..passes {
        let Some(cur) = carried.take().or_else(|| counts.next()) else {
            return;
        };
        let next = if all {
            None
        } else {
            digits.get(k + 1).copied()
        };
        // The first pass always goes to a buffer: one fewer instantiation of the kernels, and
        // `first` often aliases `last` anyway.
        let to_last = k > 0 && k + 1 == passes && !alias[(k - 1) % 2];
        // SAFETY: forwarded from the caller; source and destination never overlap (a pass
        // writes `last` only when its source does not alias it).
        unsafe {
            carried = match (k, to_last) {
                (0, _) => scatter(first, bufs[0], chunks, &cur, next),
                (_, true) => scatter(bufs[(k - 1) % 2], last, chunks, &cur, next),
                (_, false) => scatter(bufs[(k - 1) % 2], bufs[k % 2], chunks, &cur, next),
            };
            if k + 1 == passes && !to_last {
                copy(bufs[k % 2], last, n);
            }
        }
    }
}

/// A sink shifted by `off` positions: one bucket's window of the caller's output.
#[derive(Clone, Copy)]
pub(crate) struct Offset<D>(pub D, pub usize);

impl<E: Copy, D: Sink<E>> Sink<E> for Offset<D> {
    #[inline(always)]
    unsafe fn put(&self, i: usize, e: E) {
        // SAFETY: forwarded; the window lies inside the sink.
        unsafe { self.0.put(self.1 + i, e) }
    }
    #[inline(always)]
    unsafe fn put_run(&self, i: usize, run: &[E]) {
        // SAFETY: forwarded; the window lies inside the sink.
        unsafe { self.0.put_run(self.1 + i, run) }
    }
    #[inline(always)]
    unsafe fn put_stream(&self, i: usize, run: &[E]) {
        // SAFETY: forwarded; the window lies inside the sink.
        unsafe { self.0.put_stream(self.1 + i, run) }
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        self.0.prefetch(self.1.wrapping_add(i))
    }
    fn phase(&self, line: usize) -> usize {
        (self.0.phase(line) + self.1) % line
    }
}

/// The MSD-first hybrid for large inputs: one parallel stable scatter on the top digit
/// (`top`, its per-chunk counts known) from `first` into `dst`, then every bucket is sorted
/// on its own by a serial LSD over the bits `[begin, top.shift)` that vary inside it, in its
/// window of `dst` with a scratch window, and written to its window of `last`. The scratch is
/// `spare` (`n` positions the caller can give, e.g. the keys' own memory; `alias0` says whether
/// it is `last`'s memory) or, when `None`, one buffer of the largest bucket's length per task,
/// reused from bucket to bucket: it stays in L2, and `n` fresh positions are never faulted in
/// (the kernel zeroing 128 MiB of fresh pages was ~15% of a 2^24 u32/u32 pair sort,
/// bench/NOTES.md 2026-11-30 session 4).
///
/// Why: on few cores a pass over memory costs about as much as the compute, and every
/// parallel pass ends in a barrier that a descheduled thread holds up. Buckets of ~64K elements
/// sort inside L2 with no barrier (rayon balances them by work stealing), so the input crosses
/// memory about twice instead of once per digit. Small buckets take std's stable sort.
///
/// # Safety
/// As [`run`]: `first`, `dst`, `spare` and `last` are valid for `n = chunks`' positions, `dst`
/// overlaps neither `first` nor `spare`, and `spare` is `last`'s memory exactly when `alias0`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn msd_then_lsd<E: Elem, S0: Source<E>, Dn: Sink<E>>(
    first: &S0,
    dst: &Buf<E>,
    spare: Option<&Buf<E>>,
    last: &Dn,
    alias0: bool,
    chunks: &Chunks,
    top: Counts,
    begin: u32,
    width: u32,
) {
    let n = chunks.starts[chunks.count()];
    let low = top.digit.shift;
    let r = top.digit.radix();
    let t = chunks.count();
    let mut bounds = Vec::with_capacity(r + 1);
    let mut sum = 0usize;
    for d in 0..r {
        bounds.push(sum);
        sum += (0..t).map(|c| top.counts[c * r + d]).sum::<usize>();
    }
    bounds.push(sum);
    debug_assert_eq!(sum, n);
    let a = *dst;
    let last = *last;
    // With per-task scratch the last in-bucket pass goes to the scratch and is streamed out to
    // `last` (the caller's memory, cold and, from this size on, too large for the caches).
    let stream = tuning::NT_OUTPUT && spare.is_none() && n * size_of::<E>() >= nt_min_bytes();
    // SAFETY: forwarded from the caller; `a` does not overlap `first`.
    unsafe { scatter_to_buf(first, a, chunks, &top) };
    let bucket = |other: Buf<E>, alias: bool, d: usize| {
        let (lo, hi) = (bounds[d], bounds[d + 1]);
        // SAFETY: buckets are disjoint windows of `a` and `last`, each owned by this task;
        // `other` is this bucket's window of `spare` or the task's own scratch, valid for
        // `hi - lo` positions, and `last`'s memory exactly when `alias`.
        unsafe {
            sort_bucket(
                a.at(lo),
                other,
                last,
                lo,
                [alias, false],
                hi - lo,
                begin,
                low,
                width,
                stream,
            )
        };
    };
    match spare {
        Some(b) => {
            let b = *b;
            (0..r).into_par_iter().for_each(|d| {
                // SAFETY: the bucket's start is within the `n` positions of `spare`.
                bucket(unsafe { b.at(bounds[d]) }, alias0, d)
            })
        }
        None => {
            let most = (0..r).map(|d| bounds[d + 1] - bounds[d]).max().unwrap_or(0);
            (0..r).into_par_iter().for_each_init(
                || Vec::<E>::with_capacity(most),
                |s, d| bucket(Buf(s.as_mut_ptr()), false, d),
            );
        }
    }
}

/// Passes [`sort_whole`] takes over `len` elements whose varying bits are `varying`, sorted
/// by `[begin, end)` in digits of `width` bits: 0 for a bucket that std's sort takes, else
/// those of [`bucket_plan`], which [`sort_bucket`] follows.
pub(crate) fn whole_passes(varying: u128, begin: u32, end: u32, len: usize, width: u32) -> usize {
    if len <= tuning::BUCKET_STD_SORT_MAX {
        return 0;
    }
    let v = varying & crate::key::range_mask(begin, end);
    match bucket_plan(v, end, len, width) {
        BucketPlan::Copy => 0,
        BucketPlan::Lsd(digits) | BucketPlan::Top(_, digits) => digits.len(),
    }
}

/// How [`sort_bucket`] sorts a bucket of `len` elements (more than
/// [`tuning::BUCKET_STD_SORT_MAX`]) whose varying bits, below `low`, are `varying`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BucketPlan {
    /// Nothing varies: the bucket is copied as it is.
    Copy,
    /// The plain LSD over these digits.
    Lsd(Vec<Digit>),
    /// The top sort from bit `t` over these digits, then each run tied on bits `[t, low)`
    /// sorted on the bits below.
    Top(u32, Vec<Digit>),
}

/// [`BucketPlan`] for a bucket of `len` elements: the plain LSD over every varying digit where
/// those are at most [`tuning::BUCKET_LSD_MAX_PASSES`] or where [`top_plan`] gives no top sort,
/// else the top sort.
pub(crate) fn bucket_plan(varying: u128, low: u32, len: usize, width: u32) -> BucketPlan {
    let digits = plan(varying, low, width, true);
    let Some(d0) = digits.first() else {
        return BucketPlan::Copy;
    };
    if digits.len() > tuning::BUCKET_LSD_MAX_PASSES {
        if let Some((t, top)) = top_plan(varying, low, len, width, d0.shift) {
            return BucketPlan::Top(t, top);
        }
    }
    BucketPlan::Lsd(digits)
}

/// The in-bucket top sort for `len` elements whose varying bits are `varying` (below `end`,
/// the lowest at `floor`): its lowest bit and its digits, over the highest
/// `ceil(log2(len)) + BUCKET_TOP_EXTRA_BITS` bits rounded up to whole digits, or down to
/// `floor` ([`top_shift`]). `None` where the top sort does not pay: its bits make a single
/// digit, or fewer of them vary than `ceil(log2(len)) +`
/// [`tuning::BUCKET_TOP_TIE_GUARD_BITS`] (a few distinct values in the high bits: its ties
/// would be long runs, each sorted again).
pub(crate) fn top_plan(
    varying: u128,
    end: u32,
    len: usize,
    width: u32,
    floor: u32,
) -> Option<(u32, Vec<Digit>)> {
    let lg = usize::BITS - len.saturating_sub(1).leading_zeros();
    let t = top_shift(128 - varying.leading_zeros(), lg, width, floor);
    let top_bits = varying & (u128::MAX << t);
    if top_bits.count_ones() < lg + tuning::BUCKET_TOP_TIE_GUARD_BITS {
        return None;
    }
    let top = plan(top_bits, end, width, true);
    (top.len() >= 2).then_some((t, top))
}

/// Sorts `len` elements of `src` by bits `[begin, end)` into `out` as one bucket
/// ([`sort_bucket`]) with `other` as scratch: for inputs that one task sorts, where its top
/// sort takes fewer passes than the plain LSD ([`whole_passes`]).
///
/// # Safety
/// As [`sort_bucket`] with `at = 0`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn sort_whole<E: Elem, D: Sink<E>>(
    src: Buf<E>,
    other: Buf<E>,
    out: D,
    alias: [bool; 2],
    len: usize,
    begin: u32,
    end: u32,
    width: u32,
) {
    // SAFETY: forwarded from the caller.
    unsafe { sort_bucket(src, other, out, 0, alias, len, begin, end, width, false) }
}

/// Sorts one bucket of `len` elements in `src` by bits `[begin, low)` (its higher bits are
/// all equal) into `out` from position `at` on, with `other` as scratch. `alias[0]` says
/// whether `other`, and `alias[1]` whether `src`, is the very memory `out` writes there.
///
/// Few remaining digits (at most [`tuning::BUCKET_LSD_MAX_PASSES`]): one read counts OR, AND
/// and every digit, then a serial LSD in cache that only moves elements. Many (64-bit keys):
/// an LSD over the top `ceil(log2(len)) + BUCKET_TOP_EXTRA_BITS` bits only, then one pass
/// that finds runs tied on those bits (almost all of length 1 for a large uniform bucket) and
/// sorts each on the rest, recursively. For uniform 64-bit keys that is 3 passes over the
/// bucket instead of 7 (the idea of voracious' DLSD, made safe for any distribution: ties are
/// sorted, never left to an unbounded insertion sort). Many digits whose top bits hold too few
/// varying bits (long ties) take the plain LSD instead; [`bucket_plan`] decides.
///
/// # Safety
/// `src`, `other` and `out` (from `at`) are valid for `len` positions and owned by the calling
/// task; `src` and `other` do not overlap; `src` holds initialised elements.
#[allow(clippy::too_many_arguments)]
unsafe fn sort_bucket<E: Elem, D: Sink<E>>(
    src: Buf<E>,
    other: Buf<E>,
    out: D,
    at: usize,
    alias: [bool; 2],
    len: usize,
    begin: u32,
    low: u32,
    width: u32,
    stream: bool,
) {
    if len == 0 {
        return;
    }
    let sink = Offset(out, at);
    let mask = crate::key::range_mask(begin, low);
    // SAFETY (whole body): forwarded from the caller; windows stay inside `len`.
    unsafe {
        if len <= tuning::BUCKET_STD_SORT_MAX {
            let v = std::slice::from_raw_parts_mut(src.0, len);
            if low > begin {
                // Bits at and above `low` are equal in the bucket: masking below `begin` is
                // enough, in the image's own width.
                let m = E::B::from_u128(mask);
                if len <= tuning::INSERTION_SORT_MAX {
                    insertion_sort(v, m);
                } else {
                    v.sort_by_key(|e| e.bits().and(m));
                }
            }
            // Element-wise: `src` may be `sink`'s own memory (then each position is read and
            // written back by this task alone).
            copy_serial(&src, &sink, len);
            return;
        }
        if low <= begin {
            copy_serial(&src, &sink, len);
            return;
        }
        let one = Chunks::new(len, 1);
        // Guess that every bit varies and count all of those digits in the one read: the
        // digits the plan below takes for such a bucket (the plain LSD's or the top sort's).
        let mut guess = match bucket_plan(mask, low, len, width) {
            BucketPlan::Lsd(d) | BucketPlan::Top(_, d) => d,
            BucketPlan::Copy => {
                // No bit of [begin, low) at all (not reached: `low > begin` above).
                copy_serial(&src, &sink, len);
                return;
            }
        };
        if guess.len() > MULTI_MAX || width > 8 {
            guess.truncate(1);
            guess[0].width = guess[0].width.min(8);
        }
        let (or, and, mut first) = survey_multi(&src, len, &guess, (!stream).then_some(&sink));
        let varying = (or ^ and) & mask;
        let digits = match bucket_plan(varying, low, len, width) {
            BucketPlan::Copy => {
                copy_serial(&src, &sink, len);
                return;
            }
            BucketPlan::Lsd(digits) => digits,
            BucketPlan::Top(t, td) => {
                let top_mask = u128::MAX << t;
                // Counted in the survey when the guess was right (the scatters then only
                // move); otherwise the first digit is counted and the scatters count the rest.
                let counts = if td == guess {
                    first
                } else if td[0] == guess[0] {
                    vec![first.swap_remove(0)]
                } else {
                    vec![count(&src, &one, td[0])]
                };
                // The ping-pong ends in `other` after an odd number of passes, else in `src`.
                let (res, spare) = if td.len() % 2 == 1 {
                    (other, src)
                } else {
                    (src, other)
                };
                let res_alias = if td.len() % 2 == 1 {
                    [true, false]
                } else {
                    [false, true]
                };
                run_counted(&src, [&other, &src], &res, res_alias, &one, &td, counts);
                // Keys are now ordered by bits [t, low); runs that tie there are sorted on
                // [begin, t) (for a large uniform bucket almost every run is one element).
                let mt = E::B::from_u128(mask & top_mask);
                let mut i = 0usize;
                while i < len {
                    let k = res.get(i).bits().and(mt);
                    let mut j = i + 1;
                    while j < len && res.get(j).bits().and(mt) == k {
                        j += 1;
                    }
                    if j - i == 1 {
                        sink.put(i, res.get(i));
                    } else {
                        let (ra, sa) = if td.len() % 2 == 1 {
                            (alias[0], alias[1])
                        } else {
                            (alias[1], alias[0])
                        };
                        sort_bucket(
                            res.at(i),
                            spare.at(i),
                            out,
                            at + i,
                            [sa, ra],
                            j - i,
                            begin,
                            t,
                            width,
                            false,
                        );
                    }
                    i = j;
                }
                return;
            }
        };
        let d0 = digits[0];
        // Where the guess was the top sort's digits and the plan is the plain LSD (few varying
        // bits under the top sort), the first digit is counted here in a second read.
        let counts = if digits == guess {
            first
        } else if d0 == guess[0] {
            vec![first.swap_remove(0)]
        } else {
            vec![count(&src, &one, d0)]
        };
        if stream && alias == [false, false] && digits.len() >= 2 {
            // The passes end in the scratch (`other`, odd count) or in `src`; then one
            // sequential write of the window with non-temporal stores.
            let (res, res_alias) = if digits.len() % 2 == 1 {
                (other, [true, false])
            } else {
                (src, [false, true])
            };
            run_counted(&src, [&other, &src], &res, res_alias, &one, &digits, counts);
            sink.put_stream(0, std::slice::from_raw_parts(res.0, len));
            return;
        }
        run_counted(&src, [&other, &src], &sink, alias, &one, &digits, counts);
    }
}

/// Lowest bit of the in-bucket top sort for a bucket of about `2^lg` elements whose varying
/// bits end below `h`: at least `lg + BUCKET_TOP_EXTRA_BITS` bits, rounded up to whole digits
/// of `width` (the extra bits cost no pass and make ties rarer), not below `floor`.
pub(crate) fn top_shift(h: u32, lg: u32, width: u32, floor: u32) -> u32 {
    let w = width.max(1);
    let bits = (lg + tuning::BUCKET_TOP_EXTRA_BITS).div_ceil(w) * w;
    h.saturating_sub(bits).max(floor)
}

/// Stable insertion sort by `bits() & m` (leaves of a few dozen elements).
fn insertion_sort<E: Elem>(v: &mut [E], m: E::B) {
    for i in 1..v.len() {
        // SAFETY: `j - 1 < j <= i < v.len()` throughout.
        unsafe {
            let x = *v.get_unchecked(i);
            let k = x.bits().and(m);
            let mut j = i;
            while j > 0 && v.get_unchecked(j - 1).bits().and(m) > k {
                *v.get_unchecked_mut(j) = *v.get_unchecked(j - 1);
                j -= 1;
            }
            *v.get_unchecked_mut(j) = x;
        }
    }
}

/// Serial element-wise copy (a bucket's window; `src` may be `dst`'s own memory).
///
/// # Safety
/// `src` and `dst` are valid for `n` positions; if they share memory, position `i` of one is
/// position `i` of the other.
unsafe fn copy_serial<E: Elem, S: Source<E>, D: Sink<E>>(src: &S, dst: &D, n: usize) {
    for i in 0..n {
        // SAFETY: forwarded from the caller; position `i` is read before it is written.
        unsafe { dst.put(i, src.get(i)) };
    }
}
