//! CPU stable LSD radix sorts: keys, pairs and argsort, all on the engine of
//! `super::radix`.
//!
//! Keys are sorted as their radix images ([`RadixKey::to_radix`]), complemented for descending
//! order, restricted to the requested bits. Keys-only sorts transform the caller's slice in
//! place (the images have the key's width) during the up-front read and map back in the last
//! pass; pairs move `(image, value)` records, argsort `(image, index)` records, zipped in by
//! the first pass and unzipped by the last. Up to [`tuning::SMALL_SORT_MAX`] keys take std's
//! stable sort on the image instead.

use std::mem::{align_of, size_of};

use rayon::prelude::*;

use super::radix::{self, Buf, Chunks, Digit, Pair, Sink, Source};
use crate::algorithm::Order;
use crate::error::Result;
use crate::key::{range_mask, DType, RadixBits, RadixKey, SortIndex, Value};
use crate::options::SortOptions;
use crate::tuning::cpu as tuning;

// Descending order is a runtime flag, not a const generic: the branch is loop-invariant and
// predicted, and it halves the number of kernel instantiations (compile time).
#[inline(always)]
fn image<K: RadixKey>(k: K, desc: bool) -> K::Bits {
    let b = k.to_radix();
    if desc {
        b.complement()
    } else {
        b
    }
}

#[inline(always)]
fn unimage<K: RadixKey>(b: K::Bits, desc: bool) -> K {
    K::from_radix(if desc { b.complement() } else { b })
}

/// The bits a sort orders by, as one integer (the small-input path's comparison key).
#[inline(always)]
fn ordinal<K: RadixKey>(k: K, desc: bool, begin: u32, end: u32) -> u128 {
    let width = end - begin;
    let mask = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    (image(k, desc).to_u128() >> begin) & mask
}

fn chunks_for(n: usize) -> Chunks {
    let tasks = if n < tuning::PAR_MIN_LEN {
        1
    } else {
        (rayon::current_num_threads() * tuning::CHUNKS_PER_THREAD)
            .min(n / (tuning::PAR_MIN_LEN / 2))
            .max(1)
    };
    Chunks::new(n, tasks)
}

/// The digit the up-front read counts: the lowest one (LSD) or the top one (MSD-first),
/// assuming those bits vary.
fn first_digit(n: usize, elem: usize, msd: bool, begin: u32, end: u32, width: u32) -> Digit {
    if msd {
        let w = tuning::msd_digit_bits(n, elem).min(end - begin);
        Digit {
            shift: end - w,
            width: w,
        }
    } else {
        Digit {
            shift: begin,
            width: width.min(end - begin),
        }
    }
}

/// The MSD digit over the highest varying bits (`varying` is not zero).
fn top_digit(n: usize, elem: usize, varying: u128, begin: u32) -> Digit {
    let h = 128 - varying.leading_zeros();
    let shift = h.saturating_sub(tuning::msd_digit_bits(n, elem)).max(begin);
    Digit {
        shift,
        width: h - shift,
    }
}

/// The digit width of the one-bucket sort (`radix::sort_whole`) where a sort that one task
/// runs (`chunks`) takes it instead of the plain LSD's `lsd_passes`: where the caller set no digit
/// width and the one-bucket sort takes fewer passes, counting the copy that zips pairs into
/// the scratch first (`zip`; the LSD's first pass zips as it scatters). Zen 5, one task,
/// Mkeys/s, LSD / one bucket: u32 keys 2^8 102 / 128, 2^10 190 / 230, 2^12 252 / 295 (2
/// passes on the top 16 bits and the ties, against 4); u64 keys 2^8 54 / 123, 2^12 123 / 291,
/// 2^13 141 / 230, 2^14 151 / 174 (3 passes against 6-8); u32 keys at 2^13-2^14 ran 20%
/// slower so (3 passes and the ties against three 11-bit passes), which the rule leaves to the
/// LSD (bench/NOTES.md, session 43).
fn one_bucket<K: RadixKey>(
    n: usize,
    chunks: &Chunks,
    opts: &SortOptions,
    varying: u128,
    (begin, end): (u32, u32),
    lsd_passes: usize,
    zip: bool,
) -> Option<u32> {
    let width = tuning::max_digit_bits(K::Bits::BITS);
    (chunks.count() == 1
        && opts.digit_bits.is_none()
        && radix::whole_passes(varying, begin, end, n, width) + usize::from(zip) < lsd_passes)
        .then_some(width)
}

/// Whether a sort of `n` elements with keys of type `K` goes MSD-first.
fn msd_first<K: RadixKey>(n: usize) -> bool {
    n >= tuning::msd_min_len(K::Bits::BITS)
}

/// The digit width: the caller's, else the MSD-first sort's in-bucket width or the plain LSD
/// sort's width for `n` elements of `elem` bytes.
fn width_for<K: RadixKey>(opts: &SortOptions, n: usize, elem: usize, msd: bool) -> u32 {
    opts.digit_bits
        .unwrap_or_else(|| {
            if msd {
                tuning::max_digit_bits(K::Bits::BITS)
            } else {
                tuning::lsd_digit_bits(n, elem, K::Bits::BITS)
            }
        })
        .clamp(1, 16)
}

/// Reads keys as radix images.
#[derive(Clone, Copy)]
struct Images<K>(*const K, bool);
// SAFETY: read-only access to positions the engine hands out.
unsafe impl<K: Sync> Sync for Images<K> {}

impl<K: RadixKey> Source<K::Bits> for Images<K> {
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> K::Bits {
        // SAFETY: the engine keeps `i` in bounds.
        image(unsafe { self.0.add(i).read() }, self.1)
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        radix::prefetch(self.0.wrapping_add(i).cast::<u8>());
    }
}

/// Writes images back as keys.
#[derive(Clone, Copy)]
struct Keys<K>(*mut K, bool);
// SAFETY: the engine gives each position to one task.
unsafe impl<K: Send> Sync for Keys<K> {}

impl<K: RadixKey> Sink<K::Bits> for Keys<K> {
    #[inline(always)]
    unsafe fn put(&self, i: usize, b: K::Bits) {
        // SAFETY: the engine keeps `i` in bounds and owned by the calling task.
        unsafe { self.0.add(i).write(unimage(b, self.1)) }
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        radix::prefetch(self.0.wrapping_add(i).cast::<u8>());
    }
    fn phase(&self, line: usize) -> usize {
        radix::phase_of(self.0, line)
    }
}

/// Reads keys and values as `(image, value)` records.
#[derive(Clone, Copy)]
struct Zip<K, V>(*const K, *const V, bool);
// SAFETY: read-only access to positions the engine hands out.
unsafe impl<K: Sync, V: Sync> Sync for Zip<K, V> {}

impl<K: RadixKey, V: Value> Source<Pair<K::Bits, V>> for Zip<K, V> {
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> Pair<K::Bits, V> {
        // SAFETY: the engine keeps `i` in bounds of both slices (same length).
        unsafe {
            Pair {
                key: image(self.0.add(i).read(), self.2),
                val: self.1.add(i).read(),
            }
        }
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        radix::prefetch(self.0.wrapping_add(i).cast::<u8>());
        radix::prefetch(self.1.wrapping_add(i).cast::<u8>());
    }
}

/// Writes `(image, value)` records back to keys and values.
#[derive(Clone, Copy)]
struct Unzip<K, V>(*mut K, *mut V, bool);
// SAFETY: the engine gives each position to one task.
unsafe impl<K: Send, V: Send> Sync for Unzip<K, V> {}

impl<K: RadixKey, V: Value> Sink<Pair<K::Bits, V>> for Unzip<K, V> {
    #[inline(always)]
    unsafe fn put(&self, i: usize, e: Pair<K::Bits, V>) {
        // SAFETY: the engine keeps `i` in bounds and owned by the calling task.
        unsafe {
            self.0.add(i).write(unimage(e.key, self.2));
            self.1.add(i).write(e.val);
        }
    }
    #[inline(always)]
    unsafe fn put_stream(&self, i: usize, run: &[Pair<K::Bits, V>]) {
        let desc = self.2;
        // SAFETY: the caller owns positions `i..i + run.len()` of both slices; `k` stays
        // below `run.len()`.
        unsafe {
            radix::stream_out(self.0.add(i), run.len(), |k| {
                unimage(run.get_unchecked(k).key, desc)
            });
            radix::stream_out(self.1.add(i), run.len(), |k| run.get_unchecked(k).val);
        }
        radix::sfence();
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        radix::prefetch(self.0.wrapping_add(i).cast::<u8>());
        radix::prefetch(self.1.wrapping_add(i).cast::<u8>());
    }
    fn phase(&self, line: usize) -> usize {
        radix::phase_of(self.0, line)
    }
}

/// Reads keys as `(image, position)` records.
struct Iota<K, I>(*const K, bool, std::marker::PhantomData<I>);
impl<K, I> Clone for Iota<K, I> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K, I> Copy for Iota<K, I> {}
// SAFETY: read-only access to positions the engine hands out.
unsafe impl<K: Sync, I> Sync for Iota<K, I> {}

impl<K: RadixKey, I: SortIndex> Source<Pair<K::Bits, I>> for Iota<K, I> {
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> Pair<K::Bits, I> {
        Pair {
            // SAFETY: the engine keeps `i` in bounds.
            key: image(unsafe { self.0.add(i).read() }, self.1),
            val: I::from_usize(i),
        }
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        radix::prefetch(self.0.wrapping_add(i).cast::<u8>());
    }
}

/// Writes the index of `(image, index)` records.
#[derive(Clone, Copy)]
struct Indices<I>(*mut I);
// SAFETY: the engine gives each position to one task.
unsafe impl<I: Send> Sync for Indices<I> {}

impl<B: RadixBits, I: SortIndex> Sink<Pair<B, I>> for Indices<I> {
    #[inline(always)]
    unsafe fn put(&self, i: usize, e: Pair<B, I>) {
        // SAFETY: the engine keeps `i` in bounds and owned by the calling task.
        unsafe { self.0.add(i).write(e.val) }
    }
    #[inline(always)]
    unsafe fn put_stream(&self, i: usize, run: &[Pair<B, I>]) {
        // SAFETY: the caller owns positions `i..i + run.len()`; `k` stays below `run.len()`.
        unsafe { radix::stream_out(self.0.add(i), run.len(), |k| run.get_unchecked(k).val) };
        radix::sfence();
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        radix::prefetch(self.0.wrapping_add(i).cast::<u8>());
    }
    fn phase(&self, line: usize) -> usize {
        radix::phase_of(self.0, line)
    }
}

/// An uninitialised scratch buffer of `n` elements; pages are only touched when written.
/// Large buffers are aligned to 2 MiB and offered to the kernel as transparent huge pages:
/// with 4 KiB pages, faulting a fresh 64 MiB buffer in was ~15% of a 2^24 u32 sort here
/// (perf: `clear_page_erms` + `exc_page_fault`, bench/NOTES.md 2026-11-30 v2). Even as huge
/// pages the kernel zeroes every fresh page (~8% of a 2^24 u32 sort, session 12), so large
/// buffers are kept for the next sort ([`spare`]).
struct Scratch<E> {
    ptr: *mut E,
    layout: std::alloc::Layout,
}

impl<E> Scratch<E> {
    fn new(n: usize) -> Scratch<E> {
        use std::alloc::Layout;
        let bytes = n.saturating_mul(size_of::<E>()).max(1);
        // At least a cache line: the non-temporal scatter streams whole aligned lines.
        let align = if bytes >= tuning::HUGE_PAGE_MIN {
            tuning::HUGE_PAGE.max(align_of::<E>())
        } else {
            tuning::CACHE_LINE.max(align_of::<E>())
        };
        let layout = match Layout::from_size_align(bytes.next_multiple_of(align), align) {
            Ok(l) => l,
            Err(_) => std::alloc::handle_alloc_error(Layout::new::<E>()),
        };
        if let Some((ptr, layout)) = spare::take(layout) {
            return Scratch {
                ptr: ptr.cast::<E>(),
                layout,
            };
        }
        // SAFETY: the layout has a nonzero size.
        let ptr = unsafe { std::alloc::alloc(layout) }.cast::<E>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        #[cfg(target_os = "linux")]
        if align == tuning::HUGE_PAGE {
            // SAFETY: the range is this allocation, page-aligned; the advice only changes how
            // the kernel backs it, never its contents (an error leaves 4 KiB pages).
            unsafe { libc::madvise(ptr.cast(), layout.size(), libc::MADV_HUGEPAGE) };
        }
        Scratch { ptr, layout }
    }

    fn buf(&mut self) -> Buf<E> {
        Buf(self.ptr)
    }
}

impl<E> Drop for Scratch<E> {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout (in `new`, or by the sort that left it spare).
        unsafe { spare::give(self.ptr.cast(), self.layout) }
    }
}

/// Scratch buffers kept between sorts: up to [`tuning::SCRATCH_KEEP`] buffers of at least
/// [`tuning::SCRATCH_KEEP_MIN_BYTES`], together at most [`tuning::SCRATCH_KEEP_MAX_BYTES`].
/// A sort takes the smallest spare that holds its buffer; [`release_scratch`] frees them
/// all.
mod spare {
    use std::alloc::Layout;
    use std::sync::{Mutex, MutexGuard};

    use crate::tuning::cpu as tuning;

    /// Address and layout of a kept buffer (the address as an integer: a raw pointer is not
    /// `Send`; only this module dereferences it, through `dealloc`).
    pub(super) type Entry = (usize, Layout);

    static SPARE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

    fn spares() -> MutexGuard<'static, Vec<Entry>> {
        // The list stays consistent whatever a panicking holder did: it is only pushed to
        // and removed from.
        SPARE.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The policy of [`take`]: the smallest listed buffer of `want`'s alignment and at least
    /// its size, removed from `list`.
    pub(super) fn pick(list: &mut Vec<Entry>, want: Layout) -> Option<Entry> {
        if want.size() < tuning::SCRATCH_KEEP_MIN_BYTES {
            return None;
        }
        let i = (0..list.len())
            .filter(|&i| list[i].1.size() >= want.size() && list[i].1.align() == want.align())
            .min_by_key(|&i| list[i].1.size())?;
        Some(list.swap_remove(i))
    }

    /// The policy of [`give`]: `e` joins `list` when its size is in the kept range; returns
    /// what must be freed (`e` itself, or the oldest entries over the count or the bytes).
    pub(super) fn keep(list: &mut Vec<Entry>, e: Entry) -> Vec<Entry> {
        if !(tuning::SCRATCH_KEEP_MIN_BYTES..=tuning::SCRATCH_KEEP_MAX_BYTES).contains(&e.1.size())
        {
            return vec![e];
        }
        list.push(e);
        let mut evicted = Vec::new();
        while list.len() > tuning::SCRATCH_KEEP || bytes(list) > tuning::SCRATCH_KEEP_MAX_BYTES {
            evicted.push(list.remove(0));
        }
        evicted
    }

    /// A kept buffer for `want` (at least its size, the same alignment), with its own
    /// layout, or `None`.
    pub(super) fn take(want: Layout) -> Option<(*mut u8, Layout)> {
        pick(&mut spares(), want).map(|(addr, layout)| (addr as *mut u8, layout))
    }

    /// Keeps the buffer at `ptr` for a later sort, or frees it; over the count or the bytes,
    /// the oldest kept buffers are freed.
    ///
    /// # Safety
    /// `ptr` was allocated with `layout` by the global allocator and is not used afterwards.
    pub(super) unsafe fn give(ptr: *mut u8, layout: Layout) {
        let evicted = keep(&mut spares(), (ptr as usize, layout));
        // SAFETY: every entry came from the global allocator with its layout, and leaving the
        // list (or never entering it) it has no other owner.
        unsafe { free(evicted) };
    }

    /// # Safety
    /// As [`give`], for every entry.
    unsafe fn free(entries: Vec<Entry>) {
        for (addr, layout) in entries {
            // SAFETY: forwarded from the caller.
            unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
        }
    }

    /// Frees every kept buffer.
    pub(super) fn release() {
        let all = std::mem::take(&mut *spares());
        // SAFETY: as in `give`.
        unsafe { free(all) };
    }

    fn bytes(list: &[Entry]) -> usize {
        list.iter().map(|(_, l)| l.size()).sum()
    }

    /// Bytes held in kept buffers.
    pub(super) fn held() -> usize {
        bytes(&spares())
    }
}

/// Frees the scratch buffers the CPU sorts keep between calls (at most
/// [`tuning::SCRATCH_KEEP`] buffers, [`tuning::SCRATCH_KEEP_MAX_BYTES`] together, the size of
/// recent inputs): for a long-running process that is done sorting.
pub fn release_scratch() {
    spare::release();
}

/// Bytes the CPU sorts hold in scratch buffers kept between calls.
pub fn scratch_held() -> usize {
    spare::held()
}

/// Stable sort of `keys` in place.
pub fn sort_keys<K: RadixKey>(keys: &mut [K], opts: &SortOptions) -> Result<()> {
    keys_impl(keys, opts);
    Ok(())
}

fn keys_impl<K: RadixKey>(keys: &mut [K], opts: &SortOptions) {
    let desc = opts.order == Order::Descending;
    let n = keys.len();
    let (begin, end) = opts.bit_range(K::Bits::BITS);
    if n < 2 || begin >= end {
        return;
    }
    let same_layout =
        size_of::<K>() == size_of::<K::Bits>() && align_of::<K>() == align_of::<K::Bits>();
    if n <= tuning::SMALL_SORT_MAX || !same_layout {
        keys.sort_by_key(|&k| ordinal(k, desc, begin, end));
        return;
    }
    let msd = msd_first::<K>(n);
    let width = width_for::<K>(opts, n, size_of::<K>(), msd);
    let chunks = chunks_for(n);
    let guess = first_digit(n, size_of::<K>(), msd, begin, end, width);
    let kp = keys.as_mut_ptr();
    // The images live in the keys' own memory (same size and alignment, checked above).
    let bits = Buf(kp.cast::<K::Bits>());
    let identity = !desc
        && matches!(
            K::DTYPE,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 | DType::U128
        );
    // SAFETY: `kp` is valid for `n` keys, and for `n` images (same layout); the survey reads
    // key `i` before writing image `i`.
    let survey = unsafe {
        if identity {
            radix::survey(&bits, None, &chunks, guess)
        } else {
            radix::survey(&Images(kp, desc), Some(&bits), &chunks, guess)
        }
    };
    let varying = (survey.or ^ survey.and) & range_mask(begin, end);
    let digits = radix::plan(varying, end, width, opts.digit_bits.is_none());
    let last = Keys(kp, desc);
    let Some(&d0) = digits.first() else {
        // Every key is equal on the sorted bits: the order stays; undo the transform.
        if !identity {
            // SAFETY: element-wise in place: position `i` is read, then written, by one task.
            unsafe { radix::copy(&bits, &last, n) };
        }
        return;
    };
    let mut tmp = Scratch::<K::Bits>::new(n);
    let tb = tmp.buf();
    if msd {
        let top = top_digit(n, size_of::<K>(), varying, begin);
        // SAFETY: the images are initialised by the survey; `tb` is a separate buffer of `n`,
        // the keys' memory (`bufs[0]`) is `last`'s, which `alias0` says.
        unsafe {
            let counts = if top == guess {
                survey.first
            } else {
                radix::count(&bits, &chunks, top)
            };
            radix::msd_then_lsd(
                &bits,
                &tb,
                Some(&bits),
                &last,
                true,
                &chunks,
                counts,
                begin,
                width,
            );
        }
        return;
    }
    if let Some(width) =
        one_bucket::<K>(n, &chunks, opts, varying, (begin, end), digits.len(), false)
    {
        // SAFETY: the images are initialised by the survey; `tb` is a separate buffer of `n`;
        // `bits` is `last`'s memory, which `alias` says.
        unsafe { radix::sort_whole(bits, tb, last, [false, true], n, begin, end, width) };
        return;
    }
    // SAFETY: the images are initialised by the survey.
    let counts = if d0 == guess {
        survey.first
    } else {
        unsafe { radix::count(&bits, &chunks, d0) }
    };
    // SAFETY: `bits` and `last` are the keys' memory, `tb` a separate buffer of `n`; `alias`
    // says that `bufs[1]` is the keys themselves.
    unsafe {
        radix::run(
            &bits,
            [&tb, &bits],
            &last,
            [false, true],
            &chunks,
            &digits,
            counts,
        )
    };
}

/// Stable sort of `keys` with `values` carried along.
pub fn sort_pairs<K: RadixKey, V: Value>(
    keys: &mut [K],
    values: &mut [V],
    opts: &SortOptions,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(crate::error::Error::invalid(format!(
            "keys and values differ in length: {} keys, {} values",
            keys.len(),
            values.len()
        )));
    }
    if size_of::<V>() > tuning::PAIR_MAX_VALUE {
        return pairs_by_index(keys, values, opts);
    }
    pairs_impl(keys, values, opts);
    Ok(())
}

/// Large values: sort indices, then gather keys and values once.
fn pairs_by_index<K: RadixKey, V: Value>(
    keys: &mut [K],
    values: &mut [V],
    opts: &SortOptions,
) -> Result<()> {
    fn apply<I: SortIndex, K: RadixKey, V: Value>(perm: &[I], keys: &mut [K], values: &mut [V]) {
        let k: Vec<K> = perm.par_iter().map(|&i| keys[i.to_usize()]).collect();
        let v: Vec<V> = perm.par_iter().map(|&i| values[i.to_usize()]).collect();
        keys.copy_from_slice(&k);
        values.copy_from_slice(&v);
    }
    if keys.len() as u64 <= u32::MAX_LEN {
        let perm: Vec<u32> = argsort(keys, opts)?;
        apply(&perm, keys, values);
    } else {
        let perm: Vec<u64> = argsort(keys, opts)?;
        apply(&perm, keys, values);
    }
    Ok(())
}

fn pairs_impl<K: RadixKey, V: Value>(keys: &mut [K], values: &mut [V], opts: &SortOptions) {
    let desc = opts.order == Order::Descending;
    let n = keys.len();
    let (begin, end) = opts.bit_range(K::Bits::BITS);
    if n < 2 || begin >= end {
        return;
    }
    if n <= tuning::SMALL_SORT_MAX {
        let mut v: Vec<(u128, K, V)> = keys
            .iter()
            .zip(values.iter())
            .map(|(&k, &v)| (ordinal(k, desc, begin, end), k, v))
            .collect();
        v.sort_by_key(|e| e.0);
        for ((k, x), e) in keys.iter_mut().zip(values.iter_mut()).zip(v) {
            *k = e.1;
            *x = e.2;
        }
        return;
    }
    let msd = msd_first::<K>(n);
    let width = width_for::<K>(opts, n, size_of::<Pair<K::Bits, V>>(), msd);
    let chunks = chunks_for(n);
    let guess = first_digit(n, size_of::<Pair<K::Bits, V>>(), msd, begin, end, width);
    let (kp, vp) = (keys.as_mut_ptr(), values.as_mut_ptr());
    let images = Images(kp, desc);
    // SAFETY: `kp` is valid for `n` keys.
    let survey = unsafe { radix::survey(&images, None, &chunks, guess) };
    let varying = (survey.or ^ survey.and) & range_mask(begin, end);
    let digits = radix::plan(varying, end, width, opts.digit_bits.is_none());
    let Some(&d0) = digits.first() else { return };
    let mut a = Scratch::<Pair<K::Bits, V>>::new(n);
    let ab = a.buf();
    if msd {
        let top = top_digit(n, size_of::<Pair<K::Bits, V>>(), varying, begin);
        // SAFETY: keys and values have `n` elements; the scratch buffers are separate.
        unsafe {
            let counts = if top == guess {
                survey.first
            } else {
                radix::count(&images, &chunks, top)
            };
            let zip = Zip(kp, vp, desc);
            let unzip = Unzip(kp, vp, desc);
            radix::msd_then_lsd(
                &zip, &ab, None, &unzip, false, &chunks, counts, begin, width,
            );
        }
        return;
    }
    // Untouched when there is one pass: its pages are never faulted in.
    let mut b = Scratch::<Pair<K::Bits, V>>::new(n);
    let bb = b.buf();
    if let Some(width) =
        one_bucket::<K>(n, &chunks, opts, varying, (begin, end), digits.len(), true)
    {
        // SAFETY: keys and values have `n` elements; the pairs are zipped into `ab` first;
        // `ab` and `bb` are separate buffers of `n`, neither the output's memory.
        unsafe {
            radix::copy(&Zip(kp, vp, desc), &ab, n);
            radix::sort_whole(
                ab,
                bb,
                Unzip(kp, vp, desc),
                [false, false],
                n,
                begin,
                end,
                width,
            );
        }
        return;
    }
    // SAFETY: as above.
    let counts = if d0 == guess {
        survey.first
    } else {
        unsafe { radix::count(&images, &chunks, d0) }
    };
    // SAFETY: keys and values have `n` elements (checked by the caller); the scratch buffers
    // are separate; `first` aliases `last`, which `run` never writes from the first pass.
    unsafe {
        radix::run(
            &Zip(kp, vp, desc),
            [&ab, &bb],
            &Unzip(kp, vp, desc),
            [false, false],
            &chunks,
            &digits,
            counts,
        )
    };
}

/// The stable sorting permutation.
pub fn argsort<K: RadixKey, I: SortIndex>(keys: &[K], opts: &SortOptions) -> Result<Vec<I>> {
    if keys.len() as u64 > I::MAX_LEN {
        return Err(crate::error::Error::invalid(format!(
            "{} keys do not fit {} indices",
            keys.len(),
            I::DTYPE
        )));
    }
    Ok(argsort_impl(keys, opts))
}

fn argsort_impl<K: RadixKey, I: SortIndex>(keys: &[K], opts: &SortOptions) -> Vec<I> {
    let desc = opts.order == Order::Descending;
    let n = keys.len();
    let (begin, end) = opts.bit_range(K::Bits::BITS);
    let iota = || (0..n).map(I::from_usize).collect::<Vec<I>>();
    if n < 2 || begin >= end {
        return iota();
    }
    if n <= tuning::SMALL_SORT_MAX {
        let mut idx = iota();
        idx.sort_by_key(|&i| ordinal(keys[i.to_usize()], desc, begin, end));
        return idx;
    }
    let msd = msd_first::<K>(n);
    let width = width_for::<K>(opts, n, size_of::<Pair<K::Bits, I>>(), msd);
    let chunks = chunks_for(n);
    let guess = first_digit(n, size_of::<Pair<K::Bits, I>>(), msd, begin, end, width);
    let kp = keys.as_ptr();
    let images = Images(kp, desc);
    // SAFETY: `kp` is valid for `n` keys.
    let survey = unsafe { radix::survey(&images, None, &chunks, guess) };
    let varying = (survey.or ^ survey.and) & range_mask(begin, end);
    let digits = radix::plan(varying, end, width, opts.digit_bits.is_none());
    let Some(&d0) = digits.first() else {
        return iota();
    };
    let mut out: Vec<I> = Vec::with_capacity(n);
    let mut a = Scratch::<Pair<K::Bits, I>>::new(n);
    let ab = a.buf();
    if msd {
        let top = top_digit(n, size_of::<Pair<K::Bits, I>>(), varying, begin);
        // SAFETY: `kp` is valid for `n` keys and only read; `out` and the scratch buffers are
        // separate allocations of `n`.
        unsafe {
            let counts = if top == guess {
                survey.first
            } else {
                radix::count(&images, &chunks, top)
            };
            let iota = Iota(kp, desc, std::marker::PhantomData);
            let sink = Indices(out.as_mut_ptr());
            radix::msd_then_lsd(
                &iota, &ab, None, &sink, false, &chunks, counts, begin, width,
            );
            // SAFETY: every bucket wrote its window of `out`.
            out.set_len(n);
        }
        return out;
    }
    let mut b = Scratch::<Pair<K::Bits, I>>::new(n);
    let bb = b.buf();
    if let Some(width) =
        one_bucket::<K>(n, &chunks, opts, varying, (begin, end), digits.len(), true)
    {
        // SAFETY: `kp` is valid for `n` keys and only read; the (image, index) pairs are
        // written into `ab` first; `ab`, `bb` and `out` are separate allocations of `n`.
        unsafe {
            radix::copy(&Iota(kp, desc, std::marker::PhantomData), &ab, n);
            radix::sort_whole(
                ab,
                bb,
                Indices(out.as_mut_ptr().cast::<I>()),
                [false, false],
                n,
                begin,
                end,
                width,
            );
            // SAFETY: the one-bucket sort wrote every one of the `n` positions.
            out.set_len(n);
        }
        return out;
    }
    // SAFETY: as above.
    let counts = if d0 == guess {
        survey.first
    } else {
        unsafe { radix::count(&images, &chunks, d0) }
    };
    // SAFETY: `kp` is valid for `n` keys and only read; `out` and the scratch buffers are
    // separate allocations of `n`.
    unsafe {
        radix::run(
            &Iota(kp, desc, std::marker::PhantomData),
            [&ab, &bb],
            &Indices(out.as_mut_ptr().cast::<I>()),
            [false, false],
            &chunks,
            &digits,
            counts,
        )
    };
    // SAFETY: the last pass (or the copy after it) wrote every one of the `n` positions.
    unsafe { out.set_len(n) };
    out
}

#[cfg(test)]
mod spare_tests {
    use std::alloc::Layout;

    use super::spare::{keep, pick, Entry};
    use crate::tuning::cpu as tuning;

    fn entry(addr: usize, bytes: usize, align: usize) -> Entry {
        (addr, Layout::from_size_align(bytes, align).unwrap())
    }

    #[test]
    fn spare_list_keeps_reuses_and_evicts() {
        const MIN: usize = tuning::SCRATCH_KEEP_MIN_BYTES;
        const HUGE: usize = tuning::HUGE_PAGE;
        let mut list = Vec::new();
        // Too small or too large: freed at once, never listed.
        let small = entry(1, MIN - 64, 64);
        assert_eq!(keep(&mut list, small), vec![small]);
        let huge = entry(2, tuning::SCRATCH_KEEP_MAX_BYTES + HUGE, HUGE);
        assert_eq!(keep(&mut list, huge), vec![huge]);
        assert!(list.is_empty());
        // Kept, then taken by a request it can hold (smallest first, same alignment only).
        assert!(keep(&mut list, entry(3, 4 * MIN, HUGE)).is_empty());
        assert!(keep(&mut list, entry(4, 2 * MIN, 64)).is_empty());
        let want = |bytes, align| Layout::from_size_align(bytes, align).unwrap();
        assert_eq!(
            pick(&mut list, want(3 * MIN, 64)),
            None,
            "no 64-aligned buffer that big"
        );
        assert_eq!(pick(&mut list, want(MIN, 64)), Some(entry(4, 2 * MIN, 64)));
        assert_eq!(
            pick(&mut list, want(MIN, HUGE)),
            Some(entry(3, 4 * MIN, HUGE))
        );
        assert!(list.is_empty());
        // Requests below the kept range never take a listed buffer.
        assert!(keep(&mut list, entry(5, MIN, HUGE)).is_empty());
        assert_eq!(pick(&mut list, want(MIN / 2, HUGE)), None);
        // Over the count, the oldest goes.
        assert!(keep(&mut list, entry(6, MIN, HUGE)).is_empty());
        assert_eq!(tuning::SCRATCH_KEEP, 2);
        assert_eq!(
            keep(&mut list, entry(7, MIN, HUGE)),
            vec![entry(5, MIN, HUGE)]
        );
        // Over the bytes, the oldest go until the rest fit.
        let big = tuning::SCRATCH_KEEP_MAX_BYTES - MIN / 2;
        assert_eq!(
            keep(&mut list, entry(8, big, HUGE)),
            vec![entry(6, MIN, HUGE), entry(7, MIN, HUGE)]
        );
        assert_eq!(list, vec![entry(8, big, HUGE)]);
    }
}
