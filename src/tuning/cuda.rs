//! CUDA backend tunables. Each reaches the kernels as a `-D` define, once; the kernels
//! `static_assert` the combinations they accept.

/// Threads per block of the elementwise kernels (key transforms, iota).
pub const ELEMENTWISE_THREADS: u32 = 256;
/// Blocks per SM of grid-stride kernels: 8 x 256 threads fills an SM's 2048 thread slots.
pub const GRID_STRIDE_BLOCKS_PER_SM: u32 = 8;

/// Three-phase sort (seeds/000, seeds/001): threads per block.
pub const THREE_PHASE_THREADS: u32 = 256;
/// Three-phase sort: keys per thread. The seed uses one; four amortise each split's block scan
/// over more keys. Tile = THREADS * ITEMS.
pub const THREE_PHASE_ITEMS: u32 = 4;
/// Keys per tile of the three-phase sort.
pub const THREE_PHASE_TILE: u32 = THREE_PHASE_THREADS * THREE_PHASE_ITEMS;
/// Default digit width of the three-phase sort: the course page measured b = 4 fastest at
/// 16M keys on an RTX 3060 (8 passes), b = 8 only wins once launches dominate.
pub const THREE_PHASE_DIGIT_BITS: u32 = 4;
/// Digit widths the three-phase kernels accept (shared histogram of 2^8 counters at most).
pub const THREE_PHASE_DIGIT_WIDTHS: [u32; 4] = [1, 2, 4, 8];

/// Device-wide scan: threads per block and elements per thread (tile = 2048).
pub const SCAN_THREADS: u32 = 256;
pub const SCAN_ITEMS: u32 = 8;
pub const SCAN_TILE: u32 = SCAN_THREADS * SCAN_ITEMS;

/// Histogram kernels: threads per block.
pub const HIST_THREADS: u32 = 256;
/// The default byte histogram (`hist_bytes`): threads per block. Its grid is one wave of
/// resident blocks (each holds a 32 KiB lane-private table), so the block size sets how many
/// tables an SM holds and how many blocks merge at the end: 256 threads give 6 blocks per SM
/// on the H200, 512 give 4, 1024 give 2. `HISTOSORT_HIST_THREADS` (256, 512 or 1024)
/// overrides. H200, session 11, `bench peers --no-cub`, GB/s over the 8 inputs (uniform,
/// 8 and 1 distinct, the entropy presets), 64 MiB / 1 GiB: 256 threads 2013-2387 /
/// 3885-3978; 512 2556-2724 / 4196-4234 (first round) and 2337-2530 / 4149-4245 (last);
/// 1024 2422-2658 / 4175-4227. 512 and 1024 are level; 256 (6 tables per SM) is slower.
pub const HIST_BYTES_THREADS: u32 = 512;

/// The default byte histogram's threads per block: [`HIST_BYTES_THREADS`] or
/// `HISTOSORT_HIST_THREADS`.
pub fn hist_bytes_threads() -> u32 {
    static T: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    match *T.get_or_init(|| env_tuning("HISTOSORT_HIST_THREADS")) {
        Some(t @ (256 | 512 | 1024)) => t,
        _ => HIST_BYTES_THREADS,
    }
}

/// Even/range bins are privatised in shared memory while counters (and boundaries) fit in
/// this many bytes (the default 48 KiB a block gets without opting in).
pub const HIST_SHARED_BYTES: u32 = 48 * 1024;
/// Even/range bins: sub-histograms per block (up to 32, one per lane, which makes few distinct
/// values cost no more than many) while the copies fit in this many bytes; 32 KiB keeps every
/// block of the grid (2048 threads per SM) resident on the H200 with 32 copies of 256 bins.
pub const HIST_BINS_COPIES_BYTES: u32 = 32 * 1024;
/// Even/range bins: threads per block, and 2048 / this many blocks per SM. Each block merges
/// its counters into the global ones with one atomic per bin, so fewer, larger blocks mean
/// fewer atomics at the end of the launch (for few bins they all fall in the same few L2
/// lines). `HISTOSORT_BINS_THREADS` (256, 512 or 1024) overrides. H200, session 10, `bench
/// peers` (2^26 samples, GB/s, 256 / 512 / 1024 threads): f32 even 100 bins 3391-3411 / 3582
/// / 3802-3864, 4096 bins 3165-3195 / 3697 / 3984-4006; f32 range 4096 314 / 317 / 391; i32
/// and u32 even 100 bins 1727-1732 / 1794 / 1791-1833; 2^20 bins (global counters) unchanged.
pub const HIST_BINS_THREADS: u32 = 1024;

/// The bins kernels' threads per block: [`HIST_BINS_THREADS`] or `HISTOSORT_BINS_THREADS`.
pub fn hist_bins_threads() -> u32 {
    static T: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    match *T.get_or_init(|| env_tuning("HISTOSORT_BINS_THREADS")) {
        Some(t @ (256 | 512 | 1024)) => t,
        _ => HIST_BINS_THREADS,
    }
}

// Even/range bins: each thread loads its next two vectors before it counts the current two
// (kernels/histogram_bins.cu; the loop that loaded after counting is gone). H200, session 10,
// `bench peers`, 2^26 samples, 256-thread blocks, GB/s, ahead / after: f32 even 100 bins
// 3374 / 3418, 4096 bins 3135 / 2804, 2^20 bins 493 / 483; i32 even 100 1721 / 1649; u32
// range 4096 295 / 270; the other bins cases within 3%.
/// Samples per launch of the 32-bit-counter histogram kernels (counts cannot overflow).
pub const HIST_CHUNK: u64 = 1 << 31;

/// The up-front digit histogram of the onesweep sort (`onesweep_histogram_lanes`): one block of
/// this many threads per SM, with lane-private counters (32 KiB of shared memory per pass), at
/// most `ONESWEEP_HIST_LANES_PASSES` passes per block (128 KiB; fewer on devices with less
/// opt-in shared memory); more passes go to further sets of blocks in the same launch (see
/// [`hist_one_read`]). It replaced a kernel with 4 sub-histograms per
/// block that took 0.61 ms for 2^28 u32 keys on the H200 (1.75 TB/s; bank conflicts, like the
/// byte histogram before its lane-private version). Its loop loads the next two 16-byte vectors
/// before counting the current two: H200, session 7 (ncu), loading and counting in turn took
/// 395 / 105 us for 2^28 / 2^26 u32 keys, a step ahead 339 / 89.5 us.
/// More warps per SM with fewer passes per block (the groups of passes then read the keys from
/// the L2 once each) were slower: H200, session 20, ncu at base clocks, u32 keys 2^28, the
/// histogram, threads x passes x blocks per SM: 1024 x 4 x 1 444 us, 1024 x 2 x 2 519-525,
/// 512 x 2 x 3 524-525, 512 x 1 x 4 698-700.
pub const ONESWEEP_HIST_LANES_THREADS: u32 = 1024;
pub const ONESWEEP_HIST_LANES_PASSES: u32 = 4;
/// Blocks per SM the digit histogram's launch bounds ask for (registers per thread at most
/// 64K / (threads x blocks)).
pub const ONESWEEP_HIST_LANES_MIN_BLOCKS: u32 = 1;

/// The digit histogram's block: threads, passes counted per block (32 KiB of shared memory
/// each) and the blocks per SM its launch bounds ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistLanesShape {
    pub threads: u32,
    pub passes: u32,
    pub min_blocks: u32,
}

impl HistLanesShape {
    pub const DEFAULT: HistLanesShape = HistLanesShape {
        threads: ONESWEEP_HIST_LANES_THREADS,
        passes: ONESWEEP_HIST_LANES_PASSES,
        min_blocks: ONESWEEP_HIST_LANES_MIN_BLOCKS,
    };
}

impl std::str::FromStr for HistLanesShape {
    type Err = String;
    /// Parses `key=value` pairs (threads, passes, blocks) over the defaults.
    fn from_str(spec: &str) -> std::result::Result<Self, String> {
        let mut s = HistLanesShape::DEFAULT;
        parse_settings(
            spec,
            "a digit histogram shape setting (threads 64-1024 in multiples of 32, passes 1-4, blocks 1-8)",
            |k, v| {
                match k {
                    "threads" if v % 32 == 0 && (64..=1024).contains(&v) => s.threads = v,
                    "passes" if (1..=ONESWEEP_HIST_LANES_PASSES).contains(&v) => s.passes = v,
                    "blocks" if (1..=8).contains(&v) => s.min_blocks = v,
                    _ => return false,
                }
                true
            },
        )?;
        Ok(s)
    }
}

/// The digit histogram's shape: [`HistLanesShape::DEFAULT`], or `HISTOSORT_HIST_LANES` (e.g.
/// `threads=512,passes=2,blocks=3`) where it is set and valid.
pub fn onesweep_hist_shape() -> HistLanesShape {
    static SHAPE: std::sync::OnceLock<HistLanesShape> = std::sync::OnceLock::new();
    *SHAPE.get_or_init(|| env_tuning("HISTOSORT_HIST_LANES").unwrap_or(HistLanesShape::DEFAULT))
}

/// Whether the digit histogram counts more passes than one block holds in one launch, the SMs
/// split into sets that each count a group of passes over all the keys at the same time (one
/// read from memory, the L2 serving the other sets), rather than one launch and one read per
/// group. `HISTOSORT_HIST_ONE_READ=0` turns it off. H200, session 20: u64 keys 2^26, ncu, one
/// launch 304-306 us reading 537 MB from memory against two of 164-165 us reading 537 MB each;
/// whole sorts (two rounds, ms, on / off) 2^22 0.291-0.292 / 0.297-0.298, 2^24 0.911-0.914 /
/// 0.926-0.928, 2^26 3.297-3.306 / 3.323-3.328.
pub fn hist_one_read() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_tuning::<u32>("HISTOSORT_HIST_ONE_READ").is_none_or(|v| v != 0))
}

/// The shared memory an sm_90 block may opt in to (227 KiB; 228 KiB per SM): the limit the
/// kernel compile check holds the shared-memory-sized shapes to.
pub const SM90_SHARED_PER_BLOCK_OPTIN: u32 = 227 * 1024;
/// Shared memory per SM on an H200 (sm_90): what `compile-kernels` assumes where a module's
/// choice depends on the device.
pub const SM90_SHARED_PER_SM: u32 = 228 * 1024;

/// Onesweep sort: threads per block (one per digit for the look-back needs >= 2^RADIX_BITS).
pub const ONESWEEP_THREADS: u32 = 256;
/// Onesweep sort: bits per digit pass (8: 4 passes for 32-bit keys, 256 warp counters).
/// 11-bit digits (3 passes for 32-bit keys, 6 for 64-bit ones) were built and measured on the
/// H200 in session 9 (branch `wide-digits`, bench/NOTES.md): correct, but a pass of 2^26 u32
/// keys took 587-677 us against 275 us at 8 bits (u64: 1.12 ms against 427 us), because each
/// tile's look-back reads 8 KiB of status words for each of the ~50 tiles it walks back over.
pub const ONESWEEP_RADIX_BITS: u32 = 8;
/// Onesweep sort: keys per thread for keys-only 32-bit sorts (tile 3840, CUB's figure for
/// recent GPUs); other shapes keep the tile's keys and values within the byte budget below.
pub const ONESWEEP_ITEMS_MAX: u32 = 15;
/// Onesweep sort: shared memory for the staged tile's keys and values; with the warp
/// counters (8 KiB) and the digit tables (2 KiB) a block stays under the 48 KiB of static
/// shared memory.
pub const ONESWEEP_TILE_BYTES: u32 = 36 * 1024;
/// Onesweep sort: status words each look-back step reads at once. Blocks start in tile order
/// but progress unevenly, so the nearest tile that has published its inclusive prefix is often
/// many tiles back: with one word per step a tile took 15 steps on average (2^26 u32 keys,
/// H200, ncu, 2026-11-30), a quarter of the pass kernel's instructions.
/// A sleep after a step that stopped at an unpublished tile (the look-back scan's pacing) was
/// measured and not kept: H200, session 14 (`bench peers --no-cub`, medians, ms), 0 / 250 /
/// 1000 / 0 ns: u32 2^26 1.212 / 1.198 / 1.204 / 1.218, u32 2^28 4.573 / 4.568 / 4.577 /
/// 4.586, f32 2^28 4.688 / 4.698 / 4.678 / 4.675, pairs u32/u32 2^28 7.315 / 7.317 / 7.311 /
/// 7.312, u64 2^28 12.885 / 12.884 / 12.868 / 12.874: within the run-to-run spread.
pub const ONESWEEP_LOOKBACK: u32 = 8;
/// Onesweep sort: at the start of tile t the pass kernel asks L2 to prefetch the keys (and
/// values) of tile t + this many (sm_90's bulk prefetch; 0: none), so that a block's loads wait
/// on L2 instead of DRAM; `HISTOSORT_KERNEL_DEFINES=PREFETCH_AHEAD=N` overrides it. H200,
/// 2026-11-30 session 5 (ncu, sum of the 4 passes of a 2^28 u32 sort / of a 2^24 u32/u32 pair
/// sort, us): 0: 5500 / 616; 132: 5330 / 627; 264: 5330 / 630; 528: 5350 / 656; 1056: 5660 /
/// 654. Keys-only sorts of keys up to 4 bytes gain 3%, pairs lose 2-6%. The same prefetch in
/// the look-back scan changed nothing (u32 2^28: 745-757 us for 0 to 2112 tiles ahead).
/// 8-byte keys without values take 132: H200, session 13 (`bench peers --no-cub`, medians,
/// ms, measured on their former 256x15x3 tile), u64 keys 2^24 / 2^26: 0: 1.007 / 3.710 and
/// 1.000 / 3.702; 132: 0.992 / 3.587; 264: 1.001 / 3.608 and 0.998 / 3.611.
/// Tiles of at least [`ONESWEEP_LONG_SHAPE`]'s keys take 132 (keys of up to 4 bytes, no
/// values): H200, session 22 (run 4, medians, ms, rounds 132 / 264 / 132), 256x40x3, u32 keys
/// 2^26 / 2^27 / 2^28 1.082 / 2.071 / 4.093, 1.090 / 2.109 / 4.163, 1.081 / 2.068 / 4.093; f32
/// 1.115 / 2.116 / 4.204, 1.127 / 2.142 / 4.235, 1.120 / 2.117 / 4.207 (run 3: u32 1.080 /
/// 4.094 and 1.087 / 4.108 against 1.089 / 4.141 and 1.097 / 4.146). Pairs u32/u32 at 384x26x2
/// stay at 0 (run 3, 2^24 / 2^26 / 2^28: 0 0.498 / 1.849 / 7.413 and 0.502 / 1.850 / 7.398,
/// 132 0.547 / 2.084 / 8.399 and 0.549 / 2.094 / 8.404).
pub const fn onesweep_prefetch_ahead(key_bytes: u32, value_bytes: u32, tile: u32) -> u32 {
    if value_bytes == 0 && key_bytes <= 4 && tile >= ONESWEEP_LONG_SHAPE.tile() {
        132
    } else if value_bytes == 0 && key_bytes <= 4 {
        264
    } else if value_bytes == 0 && key_bytes == 8 {
        132
    } else {
        0
    }
}
/// Onesweep sort: the narrow tile's `__launch_bounds__` minimum of resident blocks per SM (the
/// wide tiles carry their own, in [`OnesweepShape`]), which caps its registers (3: no cap at 80
/// registers; 4: 64 registers, a few bytes spilled), per shape. H200, 2026-11-30, v4 kernels
/// (`bench peers --no-cub`, medians): keys of 4 bytes without values run faster at 4 (u32 2^26
/// 1.544 against 1.655 ms, f32 2^26 1.559 against 1.648, bits [0,16) 0.806 against 0.871; 2^24
/// level; the 2^28 pass 1.36 against 1.47 ms under ncu); pairs and 8-byte keys run slower
/// (u32/u32 2^24 0.752 against 0.690 ms, u64 2^24 1.328 against 1.093 ms), so they keep 3.
pub const fn onesweep_pass_min_blocks(key_bytes: u32, value_bytes: u32) -> u32 {
    if value_bytes == 0 && key_bytes <= 4 {
        4
    } else {
        3
    }
}
/// Onesweep sort, pairs: the pass kernel loads a tile's values after the look-back (2: no value
/// register lives through the look-back; the loads fly while the keys leave, each slot's
/// destination kept for its value) or before it (0: the look-back's wait hides the loads).
/// Variant 1 (the late values staged before the keys leave) was measured and removed.
/// Variants 3 and 4 (sm_90: a full tile's values brought into shared memory by one bulk copy
/// issued as the tile is taken; 3 then moved them as 2 does, 4 restaged them before the keys
/// left and held no destinations, no spills) were measured and removed: H200, session 13,
/// `bench peers --no-cub`, u32/u32 2^24 / 2^26, ms: 2 0.514 / 1.854 and 0.514 / 1.846, 3 0.516
/// / 1.837, 4 0.528 / 1.892 and 0.528 / 1.878 (4 at 384x30x2 0.543 / 1.908, 512x22x2 0.538 /
/// 1.901). `HISTOSORT_KERNEL_DEFINES=VALUES_LATE=N` overrides it. H200, session 6, pairs u32/u32 2^24 /
/// 2^26, ncu sum of the passes (us): 256x15x3: 0 604 / 2289, 1 636 / 2416, 2 605 / 2321;
/// 384x23x2: 0 527 / 2020, 1 541 / 2078, 2 513 / 1924.
pub const fn onesweep_values_late(key_bytes: u32, value_bytes: u32) -> u32 {
    if value_bytes > 0 && key_bytes <= 4 && value_bytes <= 4 {
        2
    } else {
        0
    }
}
// The onesweep pass counts a tile's digits with one shared atomic per key and publishes them
// before the ranking (CUB's "early counts"). H200, ncu sums of the pass kernels (session 7, two
// runs each), taking the counts from the ranking instead: u32 keys 2^28 4800 against 4525 us,
// u32/u32 pairs 2^26 1816 against 1783, u64 keys 2^26 3564 against 3426, u32 entropy-0.337 2^24
// 330 against 306. (Peers found by a shared-memory OR instead of the ballots: 25% fewer
// instructions, but no faster, and 1.5x slower on low-entropy keys.)
/// Onesweep sort: find a digit's peers in a warp by 8 ballots (1) or by
/// `__match_any_sync` (0).
pub const ONESWEEP_RANK_BALLOT: u32 = 1;
/// Onesweep sort: from this length on, the up-front histogram is read back so that passes
/// whose digit is the same for every key are skipped. Until session 5 the read-back left the
/// GPU idle for a host round trip (at 2^21 and 2^22 u32 keys, 0.13 and 0.19 ms on the H200, the
/// sorts ran at 0.82x and 0.89x CUB); it now overlaps the first pass, which always runs.
pub const ONESWEEP_SKIP_MIN: usize = 1 << 22;

/// Keys per thread of the onesweep sort for keys of `key_bytes` and values of `value_bytes`.
pub const fn onesweep_items(key_bytes: u32, value_bytes: u32) -> u32 {
    let per = ONESWEEP_TILE_BYTES / (ONESWEEP_THREADS * (key_bytes + value_bytes));
    if per > ONESWEEP_ITEMS_MAX {
        ONESWEEP_ITEMS_MAX
    } else if per == 0 {
        1
    } else {
        per
    }
}

/// Reads a tuning override from the environment variable `name`: `None` when it is unset, or
/// when it does not parse (reported on stderr, then ignored). For experiments with one binary;
/// the callers read it once per process.
pub fn env_tuning<T>(name: &str) -> Option<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let v = std::env::var(name).ok()?;
    match v.trim().parse() {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("histosort: {name}={v:?} ignored: {e}");
            None
        }
    }
}

/// Bytes of a gap allocated before each of the CUDA backend's buffers and held as long as the
/// backend (`HISTOSORT_ALLOC_PAD`; 0, none, by default): an experiment on whether the buffers'
/// relative addresses in the stream's memory pool affect a sort's speed (session 41).
pub fn alloc_pad_bytes() -> usize {
    static PAD: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PAD.get_or_init(|| env_tuning("HISTOSORT_ALLOC_PAD").unwrap_or(0))
}

/// The tile of the onesweep pass kernel: threads per block, keys per thread, and the
/// `__launch_bounds__` minimum of resident blocks per SM (which caps the registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OnesweepShape {
    pub threads: u32,
    pub items: u32,
    pub min_blocks: u32,
}

impl OnesweepShape {
    /// Keys per tile.
    pub const fn tile(&self) -> u32 {
        self.threads * self.items
    }

    /// Dynamic shared memory of the pass kernel: the staged keys and values, the warp counters
    /// and the digit tables (an upper bound of the kernel's `TileStorage`, which it asserts).
    pub const fn shared_bytes(&self, key_bytes: u32, value_bytes: u32) -> u32 {
        let radix = 1 << ONESWEEP_RADIX_BITS;
        let warps = self.threads / 32;
        self.tile() * (key_bytes + value_bytes) + (warps + 2) * radix * 4 + warps * 4 + 64
    }

    /// Whether the pass kernel on this tile fits a device with `shared_optin` bytes of shared
    /// memory per block and `shared_per_sm` per SM: its shared memory within the block's limit,
    /// and `min_blocks` blocks of it on one SM (the tile's occupancy and register budget assume
    /// that many; each resident block also takes 1 KiB that the driver reserves).
    pub const fn fits(
        &self,
        key_bytes: u32,
        value_bytes: u32,
        shared_optin: u32,
        shared_per_sm: u32,
    ) -> bool {
        let bytes = self.shared_bytes(key_bytes, value_bytes);
        let blocks = if self.min_blocks == 0 {
            1
        } else {
            self.min_blocks
        };
        bytes <= shared_optin && blocks * (bytes + 1024) <= shared_per_sm
    }
}

/// The numbers of a shape written `AxBxC...`.
fn x_numbers(s: &str) -> std::result::Result<Vec<u32>, String> {
    s.split('x')
        .map(|t| t.trim().parse::<u32>().map_err(|e| e.to_string()))
        .collect()
}

/// Checks the threads of a block that has one thread per digit: a multiple of 32 from
/// 2^[`ONESWEEP_RADIX_BITS`] to 1024.
fn block_threads(threads: u32) -> std::result::Result<(), String> {
    let radix = 1 << ONESWEEP_RADIX_BITS;
    if !threads.is_multiple_of(32) || !(radix..=1024).contains(&threads) {
        return Err(format!(
            "{threads} threads: a multiple of 32 from {radix} to 1024"
        ));
    }
    Ok(())
}

impl std::str::FromStr for OnesweepShape {
    type Err = String;
    /// `THREADSxITEMS` or `THREADSxITEMSxMIN_BLOCKS` (min blocks 1 when left out).
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let v = x_numbers(s)?;
        let (threads, items, min_blocks) = match v[..] {
            [t, i] => (t, i, 1),
            [t, i, b] => (t, i, b),
            _ => return Err(format!("{s:?} is not THREADSxITEMS[xMIN_BLOCKS]")),
        };
        block_threads(threads)?;
        if !(1..=64).contains(&items) || !(1..=8).contains(&min_blocks) {
            return Err(format!("{items} items, {min_blocks} blocks: 1-64 and 1-8"));
        }
        Ok(OnesweepShape {
            threads,
            items,
            min_blocks,
        })
    }
}

/// The onesweep pass kernel's tile for keys of at most 4 bytes: 256 threads of 32 keys (8192 keys),
/// 3 blocks per SM. Session 21 made the pass stage each key as soon as it is ranked
/// (kernels/radix_sort_onesweep.cu), which frees its register for the rest of the ranking. On
/// 256x28x3 that alone took u32 keys 2^24 / 2^26 / 2^28 from 0.334 / 1.175 / 4.546 to 0.327 / 1.168
/// / 4.506 ms, f32 from 0.356 / 1.206 / 4.622 to 0.340 / 1.188 / 4.589, u64 keys 2^24 / 2^26
/// (256x22x3) from 0.907-0.911 / 3.295-3.296 to 0.891-0.894 / 3.248-3.249; pairs level. It also
/// freed the 256x32x3 tile of its spills (ptxas: 80 registers, 4 -> 0 B) and halved the hybrid's
/// segmented pass's at 256x28x3 (168 -> 76 B; 136 B at 256x32x3, where the hybrid is off for 32-bit
/// keys). H200, session 21 (`bench peers` medians, ms, two rounds), u32 keys 2^24 / 2^26 / 2^28:
/// 256x28x3 0.326-0.327 / 1.159-1.166 / 4.494-4.504, **256x32x3 0.327-0.328 / 1.141-1.145 /
/// 4.386-4.387**; f32 0.340-0.342 / 1.187-1.190 / 4.597-4.600 against 0.325-0.327 / 1.144 /
/// 4.404-4.406; 256x24x4 (32 warps per SM) level with 256x28x3. The cost, run 4 (one round): u32
/// 2^21 / 2^22 0.0755-0.0761 / 0.118-0.119 against 0.0718 / 0.116 on 256x28x3 (f32 level). Wider
/// tiles, run 4, u32 / f32 2^22 / 2^24 / 2^28: 256x36x3 0.118 / 0.324 / 4.287, 0.125 / 0.339 /
/// 4.303; 256x40x3 0.121 / 0.319 / 4.171, 0.137 / 0.346 / 4.259: faster at 2^28, slower below, so
/// long inputs take [`ONESWEEP_LONG_SHAPE`] (session 22, which also measured
/// [`onesweep_prefetch_ahead`] again on it). Session 7, with early counts (ncu, sum of the passes,
/// us; `HISTOSORT_ONESWEEP_SHAPE`), u32 keys 2^28: 384x23x2 (the tile of session 6) 4550 / 4540 /
/// 4560 (three runs), 384x20x2 4770, 512x16x2 4760, 384x16x3 4570, 256x19x4 4560, 256x23x3 4490,
/// 384x26x2 4430 / 4430, 384x28x2 4320 / 4320, 384x30x2 4280, 448x24x2 4280, **256x28x3 4230**.
/// Session 6, before early counts, u32 keys 2^24 / 2^28: 256x15x4 389 / 5320, 256x18x3 370 / 5160,
/// 256x20x3 362 / 5070, 512x15x2 360 / 5050, 384x20x2 352 / 4850, 384x23x2 349 / 4830; u64 keys
/// 2^26: 256x15x3 3600, 384x11x2 3966, 384x13x2 3696, 384x15x2 3491 (session 7, with early counts:
/// narrow 3424 / 3417, 384x15x2 3381 / 3384 / 3385, 384x13x2 3616, 384x11x2 3886, 256x11x4 3665,
/// 256x19x2 3675: the narrow tile stayed until session 13, see [`ONESWEEP_WIDE_U64_SHAPE`]); pairs
/// u32/u64 2^24: 256x15x3 (`VALUES_LATE` 0) 508, 384x15x2 542.
pub const ONESWEEP_WIDE_SHAPE: OnesweepShape = OnesweepShape {
    threads: 256,
    items: 32,
    min_blocks: 3,
};
/// The onesweep pass kernel's tile for keys of at most 4 bytes from [`ONESWEEP_LONG_MIN_KEYS`]
/// keys on ([`onesweep_long_min_keys`]): 256 threads of 40 keys (10,240 keys), 3 blocks per SM.
/// A wider tile takes fewer tiles, so fewer look-backs and longer runs per digit at the
/// scatter, but a coarser last round of resident blocks, which only long inputs absorb. H200,
/// session 22 (run 1, `bench peers --no-cub` medians, ms), 2^23 / 2^24 / 2^25 / 2^26 / 2^27 /
/// 2^28, u32 keys: 256x32x3 0.189 / 0.325 / 0.594 / 1.141 / 2.206 / 4.373, 256x36x3 0.196 /
/// 0.326 / 0.590 / 1.117 / 2.165 / 4.276, **256x40x3** 0.188 / 0.322 / 0.583 / **1.092 / 2.090 /
/// 4.146**, 256x44x3 (56 B of spills) 0.203 / 0.360 / 0.641 / 1.214 / 2.307 / 4.547; f32 keys:
/// 32 0.188 / 0.328 / 0.594 / 1.139 / 2.210 / 4.385, 36 0.204 / 0.336 / 0.602 / 1.136 / 2.165 /
/// 4.279, 40 0.211 / 0.344 / 0.609 / **1.127 / 2.143 / 4.241**, 44 0.229 / 0.387 / 0.670 /
/// 1.233 / 2.335 / 4.590; bits [0,16) of u32 2^28: 2.355 / 2.279 / 2.213 / 2.406. So 40 from
/// 2^26 on (u32 -4 to -5%, f32 -1 to -3%); below, f32 loses up to 12% on it. With CUB in the
/// same run (run 2): u32 2^26 / 2^27 / 2^28 1.49 / 1.52 / 1.52x, f32 1.31 / 1.35 / 1.36x (run 3
/// of session 21 on 256x32x3: u32 1.42 / - / 1.45x, f32 1.29 / - / 1.31x). ptxas (NVRTC 13.5):
/// 80 registers and no spills at 36 and 40 keys per thread, u32 and f32 alike. Its L2 prefetch
/// runs 132 tiles ahead, not 264 ([`onesweep_prefetch_ahead`], run 4: 1-2% faster; the CUB
/// ratios above were measured at 264).
pub const ONESWEEP_LONG_SHAPE: OnesweepShape = OnesweepShape {
    threads: 256,
    items: 40,
    min_blocks: 3,
};
/// From this many keys, keys of at most 4 bytes without values take [`ONESWEEP_LONG_SHAPE`].
pub const ONESWEEP_LONG_MIN_KEYS: u64 = 1 << 26;

/// [`ONESWEEP_LONG_MIN_KEYS`], or the number `HISTOSORT_ONESWEEP_LONG_MIN` gives (0 sends every
/// such sort to the long tile: tests and A/B runs with one binary).
pub fn onesweep_long_min_keys() -> u64 {
    static MIN: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    MIN.get_or_init(|| env_tuning("HISTOSORT_ONESWEEP_LONG_MIN"))
        .unwrap_or(ONESWEEP_LONG_MIN_KEYS)
}

/// The pass kernel's tile for pairs of keys and values of up to 4 bytes each: 384 threads of 26
/// pairs, 2 blocks per SM, at every length. H200, session 22 (run 1, medians, ms), pairs u32/u32
/// 2^24 / 2^26 / 2^28: **384x26x2 0.507 / 1.860 / 7.416**, 384x28x2 0.533 / 1.963 / 7.709, 384x30x2
/// 0.549 / 2.032 / 8.004, 384x32x2 0.560 / 2.037 / 8.069 (ptxas, NVRTC 13.5, spill stores 28 / 72 /
/// 92 / 116 B). H200, pairs u32/u32 2^26 (ncu, sum of the passes, us), session 7 with early counts:
/// 384x20x2 (the tile of session 6) 1796 / 1794 / 1790, 384x17x2 1895, 256x20x3 2055, 256x23x3
/// 1981, 384x16x3 2077, 384x23x2 1743 / 1737 / 1733, 384x24x2 1712, **384x26x2 1703 / 1702**.
/// Session 6, before early counts: 384x23x2 1950, 384x20x2 1832, 448x20x2 1900, 512x17x2 1979,
/// 320x23x2 1940; 2^24 / 2^26 with `VALUES_LATE` 2: 256x15x3 605 / 2321, 256x20x3 548 / 2066,
/// 384x23x2 513 / 1924 (the old tile and order: 604 / 2289).
pub const ONESWEEP_WIDE_PAIRS_SHAPE: OnesweepShape = OnesweepShape {
    threads: 384,
    items: 26,
    min_blocks: 2,
};

/// The pass kernel's tile for 8-byte keys without values: 256 threads of 22 keys (5632 keys,
/// 55 KiB of shared memory), 3 blocks per SM. H200, session 13 (`bench peers --no-cub`,
/// medians, ms; with the 132-tile L2 prefetch), u64 keys 2^22 / 2^24 / 2^26: the narrow tile
/// (256x15x3) 0.316 / 0.991 / 3.604 (and 1.003 / 3.603, 0.997 / 3.588 at 2^24 / 2^26),
/// **256x22x3 0.322 / 0.952 / 3.333 and 0.320 / 0.944 / 3.320** (2^24 / 2^26 alone: 0.944 /
/// 3.309), 256x20x3 0.948 / 3.387 and 0.947 / 3.407, 256x18x3 0.958 / 3.436, 256x24x3 0.341 /
/// 1.021 / 3.628, 256x26x3 0.348 / 1.042 / 3.668, 256x28x3 0.380 / 1.215 / 4.209, 512x16x2
/// 0.980 / 3.432, 512x14x2 0.975 / 3.466, 384x16x2 0.993 / 3.609. With CUB in the same run:
/// 1.23x at 2^24 and 1.26x at 2^26 (the narrow tile: 1.14x and 1.13x in session 11). Again in
/// session 22, after keys were staged as ranked (run 1, 2^24 / 2^26 / 2^27): **256x22x3 0.895
/// / 3.223 / 6.500**, 256x24x3 0.935 / 3.414 / 6.869, 256x26x3 0.978 / 3.542 / 7.133.
pub const ONESWEEP_WIDE_U64_SHAPE: OnesweepShape = OnesweepShape {
    threads: 256,
    items: 22,
    min_blocks: 3,
};

/// The onesweep pass kernel's default tile for `n` keys of `key_bytes` and values of
/// `value_bytes`: for keys of up to 4 bytes without values, [`ONESWEEP_LONG_SHAPE`] from
/// `long_min` keys on and [`ONESWEEP_WIDE_SHAPE`] below; [`ONESWEEP_WIDE_PAIRS_SHAPE`] for keys
/// and values of up to 4 bytes, [`ONESWEEP_WIDE_U64_SHAPE`] for 8-byte keys only, else 256
/// threads of [`onesweep_items`].
pub const fn onesweep_default_shape(
    key_bytes: u32,
    value_bytes: u32,
    n: u64,
    long_min: u64,
) -> OnesweepShape {
    if key_bytes <= 4 && value_bytes == 0 && n >= long_min {
        ONESWEEP_LONG_SHAPE
    } else if key_bytes <= 4 && value_bytes == 0 {
        ONESWEEP_WIDE_SHAPE
    } else if key_bytes <= 4 && value_bytes <= 4 {
        ONESWEEP_WIDE_PAIRS_SHAPE
    } else if key_bytes == 8 && value_bytes == 0 {
        ONESWEEP_WIDE_U64_SHAPE
    } else {
        onesweep_narrow_shape(key_bytes, value_bytes)
    }
}

/// The 256-thread tile of [`onesweep_items`] keys: the default for keys or values of more than
/// 4 bytes, and the fallback where a device's shared memory cannot hold a wider tile (it stays
/// within the 48 KiB every CUDA device gives a block).
pub const fn onesweep_narrow_shape(key_bytes: u32, value_bytes: u32) -> OnesweepShape {
    OnesweepShape {
        threads: ONESWEEP_THREADS,
        items: onesweep_items(key_bytes, value_bytes),
        min_blocks: onesweep_pass_min_blocks(key_bytes, value_bytes),
    }
}

/// The onesweep pass kernel's tile in this process: [`onesweep_default_shape`], or the shape
/// the environment variable `HISTOSORT_ONESWEEP_SHAPE` names (`THREADSxITEMS[xMIN_BLOCKS]`,
/// for every key and value size: tuning experiments with one binary).
/// Smaller tiles for mid-sized inputs (fewer tiles per round of resident blocks) did not pay:
/// H200, session 5, ncu sum of the passes, u32 keys 2^21 / 2^22 / 2^23, us: 15 keys per thread
/// 92.3 / 143.7 / 227.5; 12: 99.4 / 146.2 / 235.1; 10: 91.8 / 144.2 / 244.8; 8: 91.0 / 151.0 /
/// 268.2; 6: 122.2 / 189.9 / 331.4 (pairs u32/u32 2^21 / 2^22: 15 114.4 / 183.3, 12 109.9 /
/// 188.9, 8 123.3 / 216.1).
/// A default tile that does not fit the device falls back to [`onesweep_narrow_shape`]: one
/// that needs more than `shared_optin` bytes of shared memory (the opt-in limit per block; 64
/// KiB on sm_75), or whose `min_blocks` blocks do not fit the `shared_per_sm` bytes of one SM
/// (the tile's occupancy and register budget assume that many; pairs at 384x26 hold 2 per SM
/// on an H200's 228 KiB, 1 on an A100's 164 KiB).
/// A long input's tile that does not fit falls back to the shorter inputs' default first.
pub fn onesweep_pass_shape(
    key_bytes: u32,
    value_bytes: u32,
    n: u64,
    shared_optin: u32,
    shared_per_sm: u32,
) -> OnesweepShape {
    if let Some(s) = onesweep_shape_override() {
        return s;
    }
    let fits = |s: OnesweepShape| s.fits(key_bytes, value_bytes, shared_optin, shared_per_sm);
    [
        onesweep_default_shape(key_bytes, value_bytes, n, onesweep_long_min_keys()),
        onesweep_default_shape(key_bytes, value_bytes, 0, u64::MAX),
    ]
    .into_iter()
    .find(|&s| fits(s))
    .unwrap_or_else(|| onesweep_narrow_shape(key_bytes, value_bytes))
}

/// The default tiles of the pass kernel for keys of `key_bytes` and values of `value_bytes`,
/// whatever the length: one, or two where long inputs take a wider tile.
pub fn onesweep_default_shapes(key_bytes: u32, value_bytes: u32) -> Vec<OnesweepShape> {
    let short = onesweep_default_shape(key_bytes, value_bytes, 0, u64::MAX);
    let long = onesweep_default_shape(key_bytes, value_bytes, u64::MAX, 0);
    if long == short {
        vec![short]
    } else {
        vec![short, long]
    }
}

/// The tile `HISTOSORT_ONESWEEP_SHAPE` names, if it is set (and parses).
pub fn onesweep_shape_override() -> Option<OnesweepShape> {
    static SHAPE: std::sync::OnceLock<Option<OnesweepShape>> = std::sync::OnceLock::new();
    *SHAPE.get_or_init(|| env_tuning("HISTOSORT_ONESWEEP_SHAPE"))
}

/// Multi-kernel sorts (the onesweep sort's clear, digit histogram, digit scan and passes) chain
/// their launches on sm_90 and later: each kernel is launched with programmatic stream
/// serialization, so its blocks become resident while the kernel before it drains and wait
/// for it on the device (`griddepcontrol`), instead of a launch gap and a ramp at every kernel
/// boundary. `HISTOSORT_CHAINED=0` turns it off (A/B runs with one binary).
pub fn chained_launches() -> bool {
    static ON: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    ON.get_or_init(|| env_tuning("HISTOSORT_CHAINED"))
        .map_or(CHAINED_LAUNCHES, |v| v != 0)
}
/// The default of [`chained_launches`].
pub const CHAINED_LAUNCHES: bool = true;

/// The hybrid sort (MSD on the top 16 bits in two onesweep passes, then each chunk of buckets
/// sorted in one block's shared memory; kernels/radix_sort_onesweep.cu): threads of the
/// in-bucket sort's block.
pub const HYBRID_LOCAL_THREADS: u32 = 512;
/// The in-bucket sort's minimum resident blocks per SM (its register budget).
pub const HYBRID_LOCAL_MIN_BLOCKS: u32 = 2;
/// Shared memory the in-bucket sort's staged keys and values may take per block.
pub const HYBRID_LOCAL_BYTES: u32 = 64 * 1024;

/// The in-bucket sort's block: threads, keys per thread, the `__launch_bounds__` minimum of
/// resident blocks per SM, and how full an average chunk of buckets makes it (16ths of its
/// keys, see [`HYBRID_FILL_16THS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HybridLocalShape {
    pub threads: u32,
    pub items: u32,
    pub min_blocks: u32,
    pub fill_16ths: u32,
}

impl HybridLocalShape {
    /// Keys per block.
    pub const fn cap(&self) -> u32 {
        self.threads * self.items
    }
}

impl std::str::FromStr for HybridLocalShape {
    type Err = String;
    /// `THREADSxITEMSxMIN_BLOCKS` or `THREADSxITEMSxMIN_BLOCKSxFILL_16THS` (the fill
    /// [`HYBRID_FILL_16THS`] when left out).
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let v = x_numbers(s)?;
        let (threads, items, min_blocks, fill_16ths) = match v[..] {
            [t, i, b] => (t, i, b, HYBRID_FILL_16THS),
            [t, i, b, f] => (t, i, b, f),
            _ => {
                return Err(format!(
                    "{s:?} is not THREADSxITEMSxMIN_BLOCKS[xFILL_16THS]"
                ))
            }
        };
        block_threads(threads)?;
        if !(1..=16).contains(&items) || !(1..=8).contains(&min_blocks) {
            return Err(format!("{items} items, {min_blocks} blocks: 1-16 and 1-8"));
        }
        if !(1..=16).contains(&fill_16ths) {
            return Err(format!("fill {fill_16ths}/16: 1-16"));
        }
        Ok(HybridLocalShape {
            threads,
            items,
            min_blocks,
            fill_16ths,
        })
    }
}

/// The in-bucket sort's block for `n` keys of `key_bytes` and values of `value_bytes` (packed
/// pairs: 8 and 0): [`HYBRID_SMALL_LOCAL`] for 8-byte keys with values of at most 4 bytes
/// while an average bucket (n / 2^16) fits its fill ([`hybrid_small_fits`]); otherwise
/// [`HYBRID_LOCAL_THREADS`] threads of [`hybrid_local_items`] keys, [`HYBRID_LOCAL_MIN_BLOCKS`],
/// [`HYBRID_FILL_16THS`]; or, for every hybrid and length, the block that
/// `HISTOSORT_HYBRID_LOCAL` names (`THREADSxITEMSxMIN_BLOCKS[xFILL_16THS]`, tuning experiments
/// with one binary).
pub fn hybrid_local_block(key_bytes: u32, value_bytes: u32, n: u64) -> HybridLocalShape {
    if let Some(s) = hybrid_local_override() {
        return s;
    }
    if key_bytes == 8 && value_bytes <= 4 && hybrid_small_fits(n) {
        return HYBRID_SMALL_LOCAL;
    }
    HybridLocalShape {
        threads: HYBRID_LOCAL_THREADS,
        items: hybrid_local_items(key_bytes, value_bytes),
        min_blocks: HYBRID_LOCAL_MIN_BLOCKS,
        fill_16ths: HYBRID_FILL_16THS,
    }
}

/// The block `HISTOSORT_HYBRID_LOCAL` names, if it is set (and parses).
fn hybrid_local_override() -> Option<HybridLocalShape> {
    static SHAPE: std::sync::OnceLock<Option<HybridLocalShape>> = std::sync::OnceLock::new();
    *SHAPE.get_or_init(|| env_tuning("HISTOSORT_HYBRID_LOCAL"))
}

/// The in-bucket block of the packed hybrid (u32/u32 pairs packed into 8-byte elements, 32-bit
/// keys) for `n` pairs. From [`PACKED_ONE_BUCKET_MIN`] pairs a bucket on its chunks are single
/// buckets (its fill, [`PACKED_ONE_BUCKET_FILL_16THS`], makes the hybrids' chunk rule so):
/// the 16 bits left to sort are then exactly two 8-bit digits, and no tie walk runs (a chunk
/// of two buckets has 17 bits, the top sort takes 16 of them and the walk the last,
/// 16% of the kernel on its own, session 37). There the smallest of three blocks of 5 pairs a
/// thread, each at 32 registers without spills (ptxas, NVRTC 13, session 40), so 2048 threads
/// an SM, whose slots hold an average bucket (n / 2^16) with a quarter to spare for the
/// largest: 256 threads (8 blocks an SM) up to 2^26 pairs, 512 (4) up to 2^27, 1024 (2) up to
/// 2^28; past that [`HYBRID_LOCAL_THREADS`] threads of 16. Below it [`HYBRID_SMALL_LOCAL`]
/// (chunks of several buckets). `HISTOSORT_HYBRID_LOCAL` overrides it, as every hybrid's block.
/// H100, session 40 (run 2, the library's packed hybrid forced on, two rounds each), ms at
/// 2^24 / 2^25 / 2^26 / 2^27 / 2^28, one bucket a chunk on these blocks from 2^24: 0.962 /
/// 1.325 / **2.106** / **4.163** / 8.726, against session 37's 256x10x4 chunks of several
/// buckets at 2^26 2.255 and 2^24 0.671; the packed LSD sort in the same run 0.581 / 1.115 /
/// 2.213 / 4.303 / 8.559 (so at 2^26-2^27 the hybrid is now 3-5% ahead of it, and behind
/// below and above).
pub fn packed_hybrid_block(n: u64) -> HybridLocalShape {
    if let Some(s) = hybrid_local_override() {
        return s;
    }
    let bucket = n >> 16;
    if bucket < PACKED_ONE_BUCKET_MIN {
        return HYBRID_SMALL_LOCAL;
    }
    for (threads, min_blocks) in [(256, 8), (512, 4), (1024, 2)] {
        if bucket * 5 / 4 <= threads as u64 * 5 {
            return HybridLocalShape {
                threads,
                items: 5,
                min_blocks,
                fill_16ths: PACKED_ONE_BUCKET_FILL_16THS,
            };
        }
    }
    HybridLocalShape {
        threads: HYBRID_LOCAL_THREADS,
        items: 16,
        min_blocks: HYBRID_LOCAL_MIN_BLOCKS,
        fill_16ths: HYBRID_FILL_16THS,
    }
}

/// The fill of [`packed_hybrid_block`]'s blocks of 5 pairs a thread: with it the hybrids'
/// chunk rule (as many buckets a chunk as keep the average chunk within this share of the
/// block) takes one bucket a chunk wherever such a block is chosen. A block is the smallest
/// that holds 5/4 of a bucket, so it holds less than 5/2 of one, and 12/16 of it is less than
/// two buckets (13/16 would not be, for buckets just past 1024 pairs on the 2560-pair block).
pub const PACKED_ONE_BUCKET_FILL_16THS: u32 = 12;

/// Average pairs a bucket (n / 2^16) from which the packed hybrid sorts one bucket a chunk
/// ([`packed_hybrid_block`]): 2^26 pairs. Below it a chunk of one bucket leaves most of a
/// block's work to its fixed costs (H100, session 40: 2^24 0.962 ms on 256-pair chunks against
/// 0.671 on chunks of eight buckets, session 37).
pub const PACKED_ONE_BUCKET_MIN: u64 = 1024;

/// The in-bucket block of 64-bit keys (alone, with values of up to 4 bytes, and packed u32/u32
/// pairs) where an average bucket fits it: 256 threads of 10 keys, 4 blocks per SM, chunks
/// filled to 13/16 of its 2560 keys. Four small blocks per SM keep more of the chunk's keys
/// in flight than two of 512 threads, whose chunks of half a block leave half the warps idle.
/// H100, session 38 (run 1, warps balanced, [`HYBRID_BALANCE`]), ms at 2^24 / 2^26 / 2^28 against
/// 512 threads: u64 keys 0.671 / 2.261 / 17.739 against 0.758 / 2.583 / 9.879; u64/u32 pairs
/// 0.973 / 3.465 / 35.293 against 1.124 / 4.113 / 14.125. At 2^28 an average bucket (4096
/// keys) overflows 2560, so the sort falls back to the LSD passes, hence [`hybrid_small_fits`].
/// The packed in-bucket kernel alone (session 37, u32/u32 pairs 2^26): 1.005 ms against 1.280.
pub const HYBRID_SMALL_LOCAL: HybridLocalShape = HybridLocalShape {
    threads: 256,
    items: 10,
    min_blocks: 4,
    fill_16ths: 13,
};

/// Whether `n` keys take [`HYBRID_SMALL_LOCAL`]: their average bucket (n / 2^16, the top 16 bits'
/// buckets) is within its fill (2080 keys), so a chunk of one bucket fits (up to 2^27 keys).
pub const fn hybrid_small_fits(n: u64) -> bool {
    let b = HYBRID_SMALL_LOCAL;
    n >> 16 <= (b.threads * b.items * b.fill_16ths / 16) as u64
}

/// Keys per thread of the in-bucket sort: as many as [`HYBRID_LOCAL_BYTES`] holds, 1 to 16.
pub const fn hybrid_local_items(key_bytes: u32, value_bytes: u32) -> u32 {
    let per = HYBRID_LOCAL_BYTES / (HYBRID_LOCAL_THREADS * (key_bytes + value_bytes));
    if per > 16 {
        16
    } else if per == 0 {
        1
    } else {
        per
    }
}

/// The in-bucket sort's top sort (kernels/radix_sort_onesweep.cu, `hybrid_local_sort`): a chunk
/// is sorted first by its highest varying digits only, as many as hold log2(keys) + this many
/// varying bits, and then the few runs of keys tied on those bits are sorted by the rest, one
/// thread per run. Uniform 64-bit keys take 3 in-bucket passes instead of 6 (2^28) or 7 (a
/// chunk of several buckets). `HISTOSORT_HYBRID_TOP` overrides it (0: every varying digit).
/// 3 over 4, u64 keys 2^24 / 2^26 / 2^28, same run: H200 (session 27) -4% / -6% / -5% of the
/// time; H100 (session 31) 20.35 -> 21.06, 23.57 -> 24.63, 24.63 -> 25.77 Gkeys/s (+3.5% to
/// +4.6%; 4 repeated within 0.5%), u64/u32 pairs unchanged. Fewer extra bits leave longer tied
/// runs for the threads to finish; past [`HYBRID_TIE_RUN_MAX`] a chunk ranks every digit.
pub const HYBRID_TOP_EXTRA_BITS: u32 = 3;

/// The in-bucket sort spreads a chunk's keys over every warp of its block (`HYB_BALANCE` 1)
/// rather than filling warps in order (0): a chunk averages half a block
/// ([`HYBRID_FILL_16THS`]), so in order the upper half of the warps hold no keys. The packed
/// in-bucket kernel alone (H100, session 37, u32/u32 pairs 2^26): 1.542 -> 1.280 ms. The
/// library's 64-bit hybrids (H100, session 38, run 1, 512-thread blocks), ms at 2^24 / 2^26 /
/// 2^28: u64 keys 0.801 / 2.751 / 10.521 -> 0.758 / 2.583 / 9.879 (-5% to -6%), u64/u32 pairs
/// 1.218 / 4.473 / 14.230 -> 1.124 / 4.113 / 14.125 (-8% / -8% / -1%); the defaults again at
/// the end of the run within 0.5% of the first; the hybrid test passed with it.
pub const HYBRID_BALANCE: bool = true;
/// The in-bucket sort of keys without values (and of packed pairs) stages each key in shared
/// memory as soon as it is ranked (`HYB_STAGE` 1), as the pass kernel does, instead of keeping
/// every key's position in a register until the round ends (0), meant to relieve the kernel's
/// 64-register cap (its 16 items spill 16-32 bytes); ptxas (NVRTC 13, session 35) reports the
/// same spills with it for the packed module, so the spills come from elsewhere. Not measured.
pub const HYBRID_STAGE: bool = false;

/// How many blocks ahead each in-bucket block asks L2 for a later block's chunk
/// (kernels/radix_sort_onesweep.cu, `HYB_PREFETCH_AHEAD`; 0: none), so that the block that takes
/// it loads from L2 instead of DRAM (the kernel on its own is latency-bound, session 37): for
/// 64-bit keys without values on [`HYBRID_SMALL_LOCAL`] blocks, one wave of them on 132 SMs
/// (4 x 132); every other hybrid 0. H100, session 40 (run 2, 528 against 0 in the same run,
/// p10-p90 within 1.5%), ms at 2^24 / 2^26 / 2^28: u64 keys 0.665 / 2.254 -> 0.647 / 2.164
/// (-2.8% / -4.0%; 2^28's 512-thread block 9.857 -> 10.142, +2.9%), u64/u32 pairs +2.7 to
/// +3.3% (0.965 / 3.444 / 14.062 -> 0.991 / 3.539 / 14.520), the packed hybrid of u32/u32 pairs
/// within 0.5% at 528 and 1056 (2^28 +1.3%). `HISTOSORT_KERNEL_DEFINES=HYB_PREFETCH_AHEAD=N`
/// sets it for every hybrid module (0 turns it off).
pub const HYBRID_PREFETCH_AHEAD_U64_KEYS: u32 = 4 * 132;

/// The in-bucket kernel's `HYB_PREFETCH_AHEAD` for keys of `key_bytes` with values of
/// `value_bytes` on `block` ([`HYBRID_PREFETCH_AHEAD_U64_KEYS`] or 0; the packed hybrid takes 0).
pub fn hybrid_prefetch_ahead(key_bytes: u32, value_bytes: u32, block: HybridLocalShape) -> u32 {
    if key_bytes == 8 && value_bytes == 0 && block == HYBRID_SMALL_LOCAL {
        HYBRID_PREFETCH_AHEAD_U64_KEYS
    } else {
        0
    }
}
/// A fixed number of varying bits for the in-bucket top sort (kernels/radix_sort_onesweep.cu,
/// `HYB_TOP_BITS`) whatever the chunk's size, in place of log2(keys) + [`HYBRID_TOP_EXTRA_BITS`];
/// 0: the latter. A tuning hook (`HISTOSORT_KERNEL_DEFINES=HYB_TOP_BITS=8`) for 32-bit keys,
/// whose chunks hold only 16-22 bits to sort. 8 lost both times it ran (H100): session 31, the
/// library's u32/u32 hybrid at 2^26 4.61 ms (the packed LSD sort 2.27); session 37, the packed
/// in-bucket kernel alone at 2^26 2.83 ms against 1.28 with the default top sort.
pub const HYBRID_TOP_BITS: u32 = 0;
/// The longest run of keys tied on the top sort's digits that one thread sorts by insertion
/// (`HYB_TIE_RUN_MAX`, below 64); a chunk with a longer run is ranked by every digit instead.
pub const HYBRID_TIE_RUN_MAX: u32 = 32;

/// [`HYBRID_TOP_EXTRA_BITS`], or the number `HISTOSORT_HYBRID_TOP` gives (0: off).
pub fn hybrid_top_extra() -> u32 {
    static V: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    V.get_or_init(|| env_tuning("HISTOSORT_HYBRID_TOP"))
        .unwrap_or(HYBRID_TOP_EXTRA_BITS)
}

/// Chunks of buckets are sized so that an average chunk fills this share of a block's capacity
/// (numerator over 16): the largest chunk of uniform keys stays well below the capacity. One
/// bucket per block instead (64-bit keys below 2^28: six in-bucket passes instead of seven)
/// was far slower: H200, session 20, u64 keys 2^24 / 2^26 / 2^27, ms: 5.51 / 7.53 / 8.76
/// against 0.98 / 3.43 / 6.72 (65,536 blocks each paying the kernel's fixed cost per pass).
pub const HYBRID_FILL_16THS: u32 = 8;

/// A tile of a freely ranked pass (see [`free_rank`]) ranks with a shared atomic per key only
/// where no digit holds more than 1/`ONESWEEP_FREE_RANK_SKEW` of its keys; elsewhere the lanes'
/// atomics on one counter serialize and the ballot ranking is faster. H200, session 19, u32 /
/// u64 keys at 2^26 ranked freely in every full tile, against ballots (ms): uniform 1.174 /
/// 3.332 vs 1.216 / 3.327, entropy 0.811 (largest digit ~10% of the keys) 1.195 / 3.263 vs 1.224
/// / 3.273, 0.544 (~34%) 1.205 / 3.151 vs 1.178 / 3.103, 0.201 (~78%) 1.212 / 3.021 vs 1.105 /
/// 2.907, all equal 0.732 / 1.028 vs 0.588 / 0.897, 64 distinct values 1.051 / 2.824 vs 1.087 /
/// 2.856, 2 distinct 1.094 / 2.793 vs 1.065 / 2.759. `HISTOSORT_KERNEL_DEFINES=FREE_RANK_SKEW=N`
/// overrides it.
pub const ONESWEEP_FREE_RANK_SKEW: u32 = 8;

/// Whether the onesweep sort ranks the first pass of a keys-only sort of whole keys (and the
/// hybrid sort's MSD passes and first in-bucket pass) without ballots: keys of equal image are
/// equal, so their order within a digit is free, and a shared atomic on the digit's seeded
/// counter returns each key's position (in tiles whose digits are not skewed, see
/// [`ONESWEEP_FREE_RANK_SKEW`]). `HISTOSORT_FREE_RANK=0` turns it off. H200, session 19, two
/// rounds, ms, off / on: u32 keys 2^24 0.340-0.345 / 0.331-0.333, 2^28 4.607-4.625 /
/// 4.505-4.510; f32 2^28 4.646-4.659 / 4.526-4.531; u64 2^24 and 2^26 within 1%, 2^28 (hybrid)
/// 12.434-12.438 / 11.750-11.755; with the fallback for skewed tiles (run 3): u32 2^28 4.667 /
/// 4.541, f32 4.728 / 4.601, u64 12.491 / 11.940, skewed keys within 1% (bench/NOTES.md).
pub fn free_rank() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_tuning::<u32>("HISTOSORT_FREE_RANK").is_none_or(|v| v != 0))
}

/// The shortest input the hybrid sort takes, for keys of `key_bytes` bytes, keys only or with
/// values (`pairs`, argsorts too) (`None`: never). `HISTOSORT_HYBRID_MIN` overrides it for every
/// key size, with or without values (0 turns the hybrid off). Pairs of 4-byte keys and 4-byte
/// values (u32 argsorts too) that run packed take the packed hybrid (two packed MSD passes,
/// then in-bucket sorts of the 8-byte elements: 52 bytes a pair against the packed LSD sort's
/// 68); it is off by default like every 32-bit hybrid: correct on the H100 (sessions 35 and 37,
/// the hybrid test), and slower than the packed LSD sort there at every block tried (session
/// 37, u32/u32 pairs 2^24 / 2^26 / 2^28, ms: packed LSD 0.584 / 2.219 / 8.591; hybrid with
/// balanced warps 0.751 / 2.581 / 8.894, at a 256x10x4x13 block 0.671 / 2.255 / 9.087, the
/// last falling back to the LSD sort): its in-bucket kernel (at 2^26 1.0 ms at the best block;
/// at the default one its load and write alone take 0.58 of 1.28) costs about what the two LSD
/// passes it replaces do. With one bucket a chunk from 2^26 pairs ([`packed_hybrid_block`],
/// session 40) it is 3-5% ahead of the packed LSD sort on the H100 at 2^26-2^27 (2.106 / 4.163
/// ms against 2.213 / 4.303; CUB 2.245 / 4.376) and behind it below 2^26 and at 2^28, and
/// between the powers of two from 1% ahead to 12% behind (session 41: 1.25-1.75 x 2^26 and x
/// 2^27, where a bucket fills less of its block); it stays off, also since its in-bucket kernel is
/// bound by instructions, not memory, so the H200's faster memory speeds the LSD passes it
/// competes with and not it.
pub fn hybrid_min(key_bytes: u32, pairs: bool) -> Option<usize> {
    static MIN: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    match *MIN.get_or_init(|| env_tuning("HISTOSORT_HYBRID_MIN")) {
        Some(0) => None,
        Some(m) => Some(m),
        None if key_bytes == 8 && pairs => Some(HYBRID_MIN_U64_PAIRS),
        None => (key_bytes == 8).then_some(HYBRID_MIN_U64),
    }
}
/// The default of [`hybrid_min`] for 64-bit keys without values. 32-bit keys: off, because its
/// in-bucket passes cost what a global pass costs (both are bound by the ranking, not by DRAM),
/// and their chunks have only 16-22 bits left to sort, so the in-bucket top sort saves no pass:
/// two MSD passes and two in-bucket passes do not beat four LSD passes (H200, session 17, u32
/// keys 2^24 / 2^26 / 2^28: LSD 0.34 / 1.20 / 4.58 ms, hybrid 0.57 / 1.81 / 5.67). For 64-bit
/// keys the in-bucket top sort (3 passes instead of 6-7, [`HYBRID_TOP_EXTRA_BITS`]) makes the
/// hybrid faster than eight LSD passes: from 2^23 on with session 25's 512-thread in-bucket
/// block (H200, run 4, medians, ms, 2^21 / 2^22 / 2^23 / 2^24 / 2^26 / 2^27 / 2^28: LSD 0.153 /
/// 0.281 / 0.499 / 0.898 / 3.210 / 6.472 / 12.58, hybrid 0.185 / 0.291 / **0.458 / 0.773 / 2.663
/// / 5.242 / 9.664**), and from a crossover at ~2.36 x 2^20 keys with session 38's small block
/// ([`HYBRID_SMALL_LOCAL`]; H100, session 39, runs 2-4, hybrid forced on / off, ms: 2^21
/// 0.172-0.173 / 0.165-0.170, 2,359,296 0.202 / 0.201-0.202, 2,621,440 **0.210-0.213** /
/// 0.220-0.221, 3,145,728 **0.226-0.229** / 0.252-0.253, 2^22 **0.262** / 0.322, 2^23
/// **0.396** / 0.590).
pub const HYBRID_MIN_U64: usize = 5 << 19;
/// The default of [`hybrid_min`] for 64-bit keys with values (argsorts too): the hybrid wins
/// from the smallest size measured, by more than for keys alone, since each of the LSD sort's
/// eight passes moves the values too. H200, session 26, run 2 (u64/u32 pairs, medians, ms,
/// 2^21 / 2^22 / 2^23 / 2^24 / 2^26 / 2^28): LSD 0.263 / 0.480 / 0.899 / 1.734 / 6.683 / 26.84,
/// hybrid **0.247 / 0.394 / 0.651 / 1.166 / 4.228 / 12.41**, CUB `SortPairs<u64, u32>` 0.309 /
/// 0.479 / 0.787 / 1.419 / 5.157 / 20.26. Wider values (run 6, `examples/gpu_wide_pairs.rs`):
/// the hybrid 17-54% faster with 8-byte and 22-60% with 16-byte values, 2^21-2^27. With session
/// 38's small in-bucket block it wins from just past the fused one-kernel sort's longest input
/// (2^20 on the H100; up to there the fused sort takes the input before the hybrid is
/// considered: 2^18-2^20 forced on and off gave the same times): H100, session 39, run 7,
/// u64/u32 pairs, hybrid forced on / off, ms: 2^20 + 1 0.154-0.158 / 0.161-0.162, 1,310,720
/// 0.174-0.175 / 0.185-0.188, 1,572,864 0.190-0.194 / 0.208-0.212, 1,835,008 0.203-0.204 /
/// 0.274-0.277 (CUB 0.197 / 0.217 / 0.241 / 0.294); run 2, 2^21 0.222 / 0.307.
pub const HYBRID_MIN_U64_PAIRS: usize = 1 << 20;

/// The shortest pair sort of 4-byte keys and 4-byte values that runs as packed pairs (the key's
/// image and the value as one 64-bit element through the u64 keys' pass kernel, see
/// kernels/radix_sort_onesweep.cu, `PACKED`), or `None`: never. Only the multi-kernel passes
/// take it, so lengths that the counting, cluster or single-launch sorts take are unaffected.
/// `HISTOSORT_PACKED_MIN` overrides it (0 turns packing off).
pub fn packed_pairs_min() -> Option<usize> {
    static MIN: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    match *MIN.get_or_init(|| env_tuning("HISTOSORT_PACKED_MIN")) {
        Some(0) => None,
        Some(m) => Some(m),
        None => Some(PACKED_PAIRS_MIN),
    }
}
/// The default of [`packed_pairs_min`]: every length the passes take (the single launch takes
/// up to [`ONESWEEP_FUSED_MAX`]). H200, session 24, run 3, u32/u32 pairs, packed against the
/// pair passes, ms: 2^21 0.092 / 0.095, 2^22 0.166 / 0.180, 2^24 0.490 / 0.500, 2^26 1.77 /
/// 1.85, 2^28 6.92 / 7.40 (faster at every length from 2^21 to 2^28).
pub const PACKED_PAIRS_MIN: usize = (1 << 20) + 1;

/// The tile of packed pairs' last pass, which unpacks each 8-byte element into a key and a
/// value: its two 4-byte output arrays leave in runs per digit half as long as the pass's
/// 8-byte ones, so a wider tile than the u64 keys' [`ONESWEEP_WIDE_U64_SHAPE`] (5632 elements)
/// lengthens them. 384 threads of 24 elements (9216), 2 blocks per SM. H200, session 24 (ncu,
/// u32/u32 pairs 2^26, run 5): the last pass took 534 us on the u64 tile against 380 for a
/// middle pass; every pass on 384x20x2 (run 6): the last pass 460 us, the others 15-20 us
/// slower each, so only the last pass takes it. Session 25 (`bench peers --no-cub`, medians,
/// ms, 2^21 / 2^24 / 2^26 / 2^28): last pass on the u64 tile 0.091-0.094 / 0.488-0.490 /
/// 1.775-1.787 / 6.93; 384x20x2 0.096-0.097 / 0.477-0.483 / 1.713 / 6.68 (slower at 2^21: 273
/// tiles on 264 resident blocks); **384x24x2 0.090-0.092 / 0.476-0.479 / 1.698-1.702 /
/// 6.615-6.617**; 384x22x2 0.092 / 0.478 / 1.709 / 6.64; 384x26x2 0.090 / 0.477 / 1.707 / 6.64;
/// 384x28x2 0.093 / 0.503 / 1.808 / 6.99; 512x16x2 0.091 / 0.484 / 1.728 / 6.74.
pub const PACKED_LAST_SHAPE: OnesweepShape = OnesweepShape {
    threads: 384,
    items: 24,
    min_blocks: 2,
};

/// The tile of packed pairs' passes (all but the last) on an H100: 384 threads of 18 elements
/// (6912), 2 blocks per SM, where the H200 keeps the u64 keys' [`ONESWEEP_WIDE_U64_SHAPE`]
/// (5632). With ~70% of the H200's DRAM bandwidth and the same SMs, the H100's passes favour a
/// wider tile (fewer look-back steps and longer runs per digit on the way out); the H200 did
/// not (session 24, run 6: 384x20x2 cost each middle pass 15-20 us more than the u64 tile).
/// H100 80GB HBM3, session 33 (`bench peers --no-cub`, medians, ms, u32/u32 pairs 2^24 / 2^26
/// / 2^28; the u64 tile run first and last of each run, six rows within 0.5%): **256x22x3
/// 0.591-0.596 / 2.267-2.280 / 8.753-8.764**, 384x16x2 0.584 / 2.221 / 8.611, **384x18x2 0.579
/// / 2.195 / 8.482**, 384x20x2 0.581-0.585 / 2.206-2.225 / 8.505-8.520, 384x22x2 0.587-0.590 /
/// 2.227-2.230 / 8.574-8.578, 384x24x2 0.599 / 2.248 / 8.696, 384x28x2 0.758 / 2.806 /
/// 10.904, 256x20x3 0.596 / 2.294 / 8.820, 384x16x3 0.724 / 2.803 / 10.941.
/// Session 34 (run 1, with CUB in the same run; medians, ms, 2^21 / 2^22 / 2^23 / 2^24 / 2^26 /
/// 2^28): 384x18x2 0.111-0.113 / 0.181-0.187 / 0.318-0.320 / 0.578-0.585 / 2.202-2.211 /
/// 8.473-8.498, 256x22x3 **0.0997** / 0.186 / 0.318 / 0.592 / 2.257 / 8.730: 12% slower at
/// 2^21 (304 tiles on 264 resident blocks against 373 on 396), level at 2^22 and 2^23, so it
/// starts at [`PACKED_H100_MIN`]. Run 2, from 2^22 on: 2^24 / 2^26 / 2^28 0.581 / 2.218 /
/// 8.572 against 0.597 / 2.293 / 8.869 on the u64 tile (CUB 0.617 / 2.209 / 8.687).
pub const PACKED_PASS_SHAPE_H100: OnesweepShape = OnesweepShape {
    threads: 384,
    items: 18,
    min_blocks: 2,
};
/// The shortest packed pair sort that takes [`PACKED_PASS_SHAPE_H100`] on an H100.
pub const PACKED_H100_MIN: u64 = 1 << 22;

/// Whether the device named `device_name` takes the H100's tiles ([`PACKED_PASS_SHAPE_H100`]):
/// every H100 (SXM, PCIe, NVL: the same chip with at most the SXM's bandwidth), not the H200
/// or the GH200, whose tiles were tuned on the H200.
pub fn is_h100(device_name: &str) -> bool {
    device_name.contains("H100")
}

/// The tile of packed pairs' passes for `n` elements on the device named `device_name`:
/// `HISTOSORT_ONESWEEP_SHAPE` where it is set, [`PACKED_PASS_SHAPE_H100`] on an H100 that holds
/// it from [`PACKED_H100_MIN`] elements on, else the u64 keys' tile ([`onesweep_pass_shape`] for
/// 8-byte keys).
pub fn packed_pass_shape(
    device_name: &str,
    n: u64,
    shared_optin: u32,
    shared_per_sm: u32,
) -> OnesweepShape {
    let h100 = PACKED_PASS_SHAPE_H100;
    match onesweep_shape_override() {
        Some(s) => s,
        None if is_h100(device_name)
            && n >= PACKED_H100_MIN
            && h100.fits(8, 0, shared_optin, shared_per_sm) =>
        {
            h100
        }
        None => onesweep_pass_shape(8, 0, n, shared_optin, shared_per_sm),
    }
}

/// The tile of packed pairs' last pass on a device with `shared_optin` bytes of shared memory
/// per block and `shared_per_sm` per SM: `HISTOSORT_PACKED_LAST_SHAPE` if set, else
/// [`PACKED_LAST_SHAPE`] where its blocks fit, else `None` (the last pass keeps the other
/// passes' tile).
pub fn packed_last_shape(shared_optin: u32, shared_per_sm: u32) -> Option<OnesweepShape> {
    static SHAPE: std::sync::OnceLock<Option<OnesweepShape>> = std::sync::OnceLock::new();
    if let Some(s) = *SHAPE.get_or_init(|| env_tuning("HISTOSORT_PACKED_LAST_SHAPE")) {
        return Some(s);
    }
    PACKED_LAST_SHAPE
        .fits(8, 0, shared_optin, shared_per_sm)
        .then_some(PACKED_LAST_SHAPE)
}

/// Onesweep sort: up to this many keys the whole sort runs as one cooperative launch (grid
/// barriers instead of kernel boundaries), when every tile's block can be resident at once.
pub const ONESWEEP_FUSED_MAX: usize = 1 << 20;

/// Keys per thread the single-launch sort may use below the pass kernel's figure: a small input
/// in full-size tiles leaves most SMs idle (2^12 keys were two blocks of 3840, 46 us).
pub const ONESWEEP_FUSED_ITEMS: [u32; 4] = [1, 2, 4, 8];

/// Keys per thread of the single-launch sort of `n` keys: the fewest that keep the tiles within
/// one per SM, or `max` (the pass kernel's figure) when none does.
pub const fn onesweep_fused_items(n: usize, sm_count: usize, max: u32) -> u32 {
    let mut i = 0;
    while i < ONESWEEP_FUSED_ITEMS.len() {
        let items = ONESWEEP_FUSED_ITEMS[i];
        if items < max && n.div_ceil((ONESWEEP_THREADS * items) as usize) <= sm_count {
            return items;
        }
        i += 1;
    }
    max
}

/// Counting sort of small inputs (kernels/sort_rank.cu: each key's position is the number of
/// keys that sort before it, n^2 comparisons over the whole GPU in one launch): threads per
/// block; each block ranks 32 keys, its warps splitting the comparisons.
pub const RANK_SORT_THREADS: u32 = 256;
/// Counting sort: the most keys it takes. Prediction (session 5, before the H200 run): 2^12
/// u32 keys 16 us (single-block radix sort) -> ~5-6 us, 2^13 ~25 us (single launch) -> ~9 us.
pub const RANK_SORT_MAX: usize = 1 << 13;
/// Counting sort: the key images of the whole input sit in this much shared memory.
pub const RANK_SORT_SHARED_BYTES: usize = 32 * 1024;

/// The most keys of `key_bytes` bytes the counting sort takes.
pub const fn rank_sort_max(key_bytes: usize) -> usize {
    let fit = RANK_SORT_SHARED_BYTES / key_bytes;
    if fit < RANK_SORT_MAX {
        fit
    } else {
        RANK_SORT_MAX
    }
}

/// The most keys of `key_bytes` bytes the counting sort takes in this process: [`rank_sort_max`],
/// or less where the environment variable `HISTOSORT_RANK_SORT_MAX` asks for less (0 turns the
/// counting sort off: A/B measurements against the radix paths with one binary).
pub fn rank_sort_limit(key_bytes: usize) -> usize {
    static LIMIT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let want = *LIMIT.get_or_init(|| env_tuning("HISTOSORT_RANK_SORT_MAX"));
    let max = rank_sort_max(key_bytes);
    want.map_or(max, |w| w.min(max))
}

/// Cluster sort (kernels/radix_sort_cluster.cu, sm_90 and later): the whole sort of a small
/// input in one thread-block cluster, the keys kept in distributed shared memory for every
/// pass. Threads per block: fewer warps make the block's barriers, scans and per-warp counter
/// walks shorter, more keys per thread lengthen the ranking. H200, session 8 (ncu kernel
/// time, u32 keys, us, 1024 / 512 / 256 threads): 2^12 14.8 / 12.4 / 14.2, 2^14 18.3 / 16.3 /
/// 16.7, 2^15 21.2 / 19.2 / 20.6, 2^16 26.3 / 24.9 / 28.3.
/// Measured and not kept (session 15, bench/NOTES.md; us at 2^16, committed kernel first):
/// ranking before the counts exchange instead of counting with atomics, u64 keys 54.7 -> 55.4,
/// u32 25.7 -> 26.6; scattering straight from registers to the owner block without staging
/// the chunk by digit, u64 54.7 -> 62.0, u32 25.7 -> 31.4, pairs 33.2 -> 43.0; each block's
/// counts pushed into every block's table before the first cluster barrier instead of pulled
/// after it, u64 54.7 -> 55.6, u32 25.7 -> 26.0, pairs 33.2 -> 34.9.
pub const CLUSTER_SORT_THREADS: u32 = 512;
/// Cluster sort: the most blocks of a cluster (16 is beyond the portable 8: the kernel opts in
/// to the non-portable size).
pub const CLUSTER_SORT_BLOCKS: u32 = 16;
/// Cluster sort: keys per thread it may take, the fewest that fit being chosen.
pub const CLUSTER_SORT_ITEMS: [u32; 5] = [1, 2, 4, 8, 16];
/// Cluster sort: the most keys it takes by default (between the counting sort and the
/// single-launch onesweep sort). Prediction (session 8, from the launch/cluster
/// microbenchmark, bench/micro/launch_cluster.cu: cluster.sync 0.32 us at 1024 threads, a
/// random DSMEM scatter of 2^14 keys 1.9 us per pass): u32 2^14 30.5 -> ~15 us, 2^16 33.4 ->
/// ~20 us.
pub const CLUSTER_SORT_MAX: usize = 1 << 16;

/// Cluster sort: the most keys one cluster sorts, by the bytes a key moves through the
/// cluster (`passes` digit passes of `key_bytes + value_bytes` each). A longer input is split
/// into segments of this many keys, one cluster each (the clusters run side by side on their
/// own SMs), and the sorted segments are merged (`cluster_merge`, one launch per doubling of
/// the run's length). A pass costs more the more keys each thread holds; a merge level costs
/// about 4-5 us at 2^16 keys whatever the passes. H200, session 23 run 1 (`bench peers`, us at
/// 2^16, one cluster / segments of 2^15 / 2^14): u64 keys (8 passes of 8 bytes) 54.7 / 47.6 /
/// **43.7**, u32/u32 pairs (4 x 8) 33.8 / 30.8 / **30.1**, u32 keys (4 x 4) **25.8** / 25.4 / 26.4,
/// u32 bits [0,16) (2 x 4) **14.4** / 16.7 / 19.2; u64 2^15 42.3 -> 38.9 in segments of 2^14;
/// segments of 2^13 (eight 16-block clusters, more than the device holds at once) lose again,
/// so the plan splits by default only where the device holds every cluster at once.
pub const fn cluster_sort_segment(key_bytes: u32, value_bytes: u32, passes: u32) -> usize {
    if passes * (key_bytes + value_bytes) >= 32 {
        1 << 14
    } else {
        CLUSTER_SORT_MAX
    }
}

/// The merge of the clusters' sorted segments: threads per block and keys per thread (a
/// block writes one tile of the output). The merge is latency-bound (two global round trips
/// to split a tile, then the tile's own loads): smaller tiles spread it over more SMs. H200,
/// session 23 run 2, u64 keys / u32/u32 pairs at 2^16, us (`bench peers`): 256x8 43.8-43.9 /
/// 30.0-30.5, 128x8 42.7 / 29.5, 64x8 42.9 / 29.6, 256x4 41.6 / 27.5, **128x4** 41.4 / 27.6;
/// ncu, one merge of 2^16 u64 keys: 256x8 7.2 us, 128x4 5.6-5.9 us.
pub const CLUSTER_MERGE_SHAPE: MergeShape = MergeShape {
    threads: 128,
    items: 4,
};
/// The most keys of the output one merge block writes (the segments' pairing assumes it).
pub const CLUSTER_MERGE_TILE: u32 = 2048;
const _: () = assert!(CLUSTER_MERGE_SHAPE.tile() <= CLUSTER_MERGE_TILE);

/// A block of the clusters' merge: threads and keys per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeShape {
    pub threads: u32,
    pub items: u32,
}

impl MergeShape {
    /// Keys of the output one block writes.
    pub const fn tile(&self) -> u32 {
        self.threads * self.items
    }
}

impl std::str::FromStr for MergeShape {
    type Err = String;
    /// `THREADSxITEMS`: powers of two, 32 to 1024 threads, at most [`CLUSTER_MERGE_TILE`] keys.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || format!("{s:?} is not THREADSxITEMS");
        let (t, i) = s.split_once('x').ok_or_else(bad)?;
        let (threads, items): (u32, u32) = (
            t.trim().parse().map_err(|_| bad())?,
            i.trim().parse().map_err(|_| bad())?,
        );
        let shape = MergeShape { threads, items };
        if !threads.is_power_of_two()
            || !items.is_power_of_two()
            || !(32..=1024).contains(&threads)
            || shape.tile() > CLUSTER_MERGE_TILE
        {
            return Err(format!(
                "{threads}x{items}: powers of two, 32-1024 threads, at most {CLUSTER_MERGE_TILE} keys"
            ));
        }
        Ok(shape)
    }
}

/// The merge's block in this process: [`CLUSTER_MERGE_SHAPE`], or what the environment
/// variable `HISTOSORT_CLUSTER_MERGE` asks for (`THREADSxITEMS`; A/B measurements with one
/// binary).
pub fn cluster_merge_shape() -> MergeShape {
    static SHAPE: std::sync::OnceLock<Option<MergeShape>> = std::sync::OnceLock::new();
    SHAPE
        .get_or_init(|| env_tuning("HISTOSORT_CLUSTER_MERGE"))
        .unwrap_or(CLUSTER_MERGE_SHAPE)
}

/// The cluster sort's shape for `n` keys: `clusters` clusters of `blocks` blocks of `threads`
/// threads with `items` keys each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterShape {
    pub threads: u32,
    pub items: u32,
    pub blocks: u32,
    pub clusters: u32,
}

impl ClusterShape {
    /// Keys one block holds.
    pub const fn chunk(&self) -> u32 {
        self.threads * self.items
    }

    /// Keys one cluster sorts (the last cluster may have fewer).
    pub const fn segment(&self) -> u32 {
        self.chunk() * self.blocks
    }

    /// Merge launches after the clusters' sort: one per doubling of the sorted run's length.
    pub const fn merges(&self) -> u32 {
        if self.clusters <= 1 {
            0
        } else {
            32 - (self.clusters - 1).leading_zeros()
        }
    }

    /// Dynamic shared memory per block: two buffers of the chunk's keys and values, the
    /// warps' digit counters, two copies of the block's counts, the table of every block's
    /// counts, the digit bases and the scan's scratch (kernels/radix_sort_cluster.cu's
    /// `ClusterStorage`, which the kernel checks against this figure), plus alignment slack.
    pub const fn shared_bytes(&self, key_bytes: u32, value_bytes: u32) -> u32 {
        let warps = self.threads / 32;
        2 * self.chunk() * (key_bytes + value_bytes)
            + (warps * 256 + 2 * 256 + CLUSTER_SORT_BLOCKS * 256 + 256) * 4
            + warps * 8
            + 64
    }
}

/// The cluster sort's shape for `n` keys of `key_bytes` (values of `value_bytes`), or `None`
/// when it does not take them: more keys than `max`, or than the clusters hold within the
/// shared memory a block may have (`shared_optin`). Inputs of more than `segment` keys are
/// split between clusters of the shape that `segment` keys take, whose segments the merge
/// can pair (twice a segment is a whole number of merge tiles); one cluster takes the input
/// where the segments cannot be paired so.
pub const fn cluster_sort_shape(
    n: usize,
    key_bytes: u32,
    value_bytes: u32,
    shared_optin: u32,
    max: usize,
    threads: u32,
    segment: usize,
) -> Option<ClusterShape> {
    if n > max || key_bytes > 8 {
        return None;
    }
    if n > segment && segment > 0 {
        if let Some(mut s) = cluster_sort_shape(
            segment,
            key_bytes,
            value_bytes,
            shared_optin,
            max,
            threads,
            0,
        ) {
            if (2 * s.segment()) % CLUSTER_MERGE_TILE == 0 {
                s.clusters = n.div_ceil(s.segment() as usize) as u32;
                return Some(s);
            }
        }
    }
    let mut i = 0;
    while i < CLUSTER_SORT_ITEMS.len() {
        let items = CLUSTER_SORT_ITEMS[i];
        let chunk = (threads * items) as usize;
        if n <= chunk * CLUSTER_SORT_BLOCKS as usize {
            let s = ClusterShape {
                threads,
                items,
                blocks: if n == 0 { 1 } else { n.div_ceil(chunk) as u32 },
                clusters: 1,
            };
            if s.shared_bytes(key_bytes, value_bytes) <= shared_optin {
                return Some(s);
            }
            return None;
        }
        i += 1;
    }
    None
}

/// The most keys one cluster sorts in this process, and whether it was asked for:
/// [`cluster_sort_segment`], or what the environment variable `HISTOSORT_CLUSTER_SEGMENT` asks
/// for (A/B measurements and tests of the merge with one binary; at least one merge tile). An
/// asked-for segment splits the input even where the device cannot hold all the clusters at
/// once; the default one only where it can.
pub fn cluster_sort_segment_limit(key_bytes: u32, value_bytes: u32, passes: u32) -> (usize, bool) {
    static SEGMENT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let want = *SEGMENT.get_or_init(|| env_tuning("HISTOSORT_CLUSTER_SEGMENT"));
    match want {
        Some(w) => (w.max(CLUSTER_MERGE_TILE as usize), true),
        None => (cluster_sort_segment(key_bytes, value_bytes, passes), false),
    }
}

/// Threads per block of the cluster sort in this process: [`CLUSTER_SORT_THREADS`], or 256,
/// 512 or 1024 where the environment variable `HISTOSORT_CLUSTER_THREADS` asks for them (A/B
/// measurements with one binary).
pub fn cluster_sort_threads() -> u32 {
    static THREADS: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    let want = *THREADS.get_or_init(|| env_tuning("HISTOSORT_CLUSTER_THREADS"));
    match want {
        Some(t @ (256 | 512 | 1024)) => t,
        _ => CLUSTER_SORT_THREADS,
    }
}

/// The most keys the cluster sort takes in this process: [`CLUSTER_SORT_MAX`], or what the
/// environment variable `HISTOSORT_CLUSTER_SORT_MAX` asks for (0 turns it off: A/B
/// measurements against the single-launch sort with one binary).
pub fn cluster_sort_limit() -> usize {
    static LIMIT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let want = *LIMIT.get_or_init(|| env_tuning("HISTOSORT_CLUSTER_SORT_MAX"));
    want.map_or(CLUSTER_SORT_MAX, |w| {
        // The most any shape holds (1024 threads of 16 keys); the shape decides what fits.
        w.min(CLUSTER_SORT_BLOCKS as usize * 1024 * 16)
    })
}

// ------------------------------------------------------------------------------------------
// Single-pass scan, 16-bit and multi-channel histograms (issue 6). bench/NOTES.md records how
// each value was measured.

/// Decoupled look-back scan: threads per block and 16-byte vectors per thread (32 u32 or 16
/// u64 items; tile 24 KiB, staged in shared memory). Swept on the H200 (ncu, 2^28 u32 + 2^27
/// u64, us): session 4, 128x8 741+764, 256x8 769+745, 256x8 at 6 blocks/SM 746+849, 256x6
/// 886+827, 128x6 826+845, 256x4 953+961, 512x4 1040+891; session 9, with the paced look-back
/// (two runs): 128x8 640 / 641 / 640 / 639 + 670 / 673 / 670 / 668, 160x8 623 + 613, **192x8
/// 629 / 638 / 636 + 608 / 608 / 611**, 224x8 696 + 662, 256x8 696 + 659, 288x8 710 + 601,
/// 320x8 682 + 594. 192 is the best shared shape: u64 -9%, u32 unchanged.
pub const SCAN_LB_THREADS: u32 = 192;
pub const SCAN_LB_VECS: u32 = 8;
/// Decoupled look-back scan: windows of 32 predecessors each lane of the look-back warp loads
/// per step (all in flight at once). With the paced look-back below one window pays best
/// (session 6: 4 windows 677 / 710 us, 1 window 640 / 675, u32 2^28 / u64 2^27).
pub const SCAN_LB_WINDOWS: u32 = 1;
/// Decoupled look-back scan: the minimum resident blocks per SM asked of the compiler (0: no
/// register cap beyond the thread count's).
pub const SCAN_LB_MIN_BLOCKS: u32 = 0;

/// Look-back scan pacing, in ns: the sleep between a tile's aggregate and its first status read
/// (in grids of at least 500 tiles), and between reads that found a predecessor not ready.
/// `HISTOSORT_KERNEL_DEFINES=LB_DELAY_FIRST=N,LB_DELAY_RETRY=N` overrides them.
/// CUB paces its look-back this way (sm_90: ~1.2 us, then ~650 ns). H200, session 6, ncu,
/// u32 2^28 / u64 2^27 exclusive scans, us: 4 windows, 0 / 32 ns (until then) 739 / 757; 4
/// windows, 0 / 650 740 / 757; 4 windows, 1200 / 650 677 / 710; 4 windows, 600 / 300 702 /
/// 735; 1 window, 1200 / 650 640 / 675.
pub const SCAN_LB_DELAY_FIRST: u32 = 1200;
pub const SCAN_LB_DELAY_RETRY: u32 = 650;
/// Look-back scan: the output leaves with evict-first (streaming) stores (1) or plain ones (0).
pub const SCAN_LB_STORE_STREAMING: u32 = 1;

/// The shape of the decoupled look-back scan. The host's tile arithmetic and the kernel's
/// defines both come from [`scan_lb_shape`], so a tuning run can change the shape with the
/// environment variable `HISTOSORT_SCAN_SHAPE` (e.g. `threads=512,vecs=8,windows=4,blocks=2`;
/// keys left out keep their defaults) without a rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanLbShape {
    pub threads: u32,
    pub vecs: u32,
    pub windows: u32,
    pub min_blocks: u32,
}

impl ScanLbShape {
    pub const DEFAULT: ScanLbShape = ScanLbShape {
        threads: SCAN_LB_THREADS,
        vecs: SCAN_LB_VECS,
        windows: SCAN_LB_WINDOWS,
        min_blocks: SCAN_LB_MIN_BLOCKS,
    };

    /// Elements per tile for elements of `elem_bytes` (4 or 8).
    pub const fn tile(&self, elem_bytes: u32) -> u32 {
        self.threads * self.vecs * (16 / elem_bytes)
    }
}

/// The look-back scan's shape: [`ScanLbShape::DEFAULT`], or `HISTOSORT_SCAN_SHAPE` where it is
/// set and valid (an invalid value is reported once on stderr and ignored).
pub fn scan_lb_shape() -> ScanLbShape {
    static SHAPE: std::sync::OnceLock<ScanLbShape> = std::sync::OnceLock::new();
    *SHAPE.get_or_init(|| env_tuning("HISTOSORT_SCAN_SHAPE").unwrap_or(ScanLbShape::DEFAULT))
}

/// Parses comma-separated `key=number` settings, handing each to `set`, which takes it and
/// returns true, or returns false for a key or value it does not accept (the error then
/// names the setting and says it is not `what`).
fn parse_settings(
    spec: &str,
    what: &str,
    mut set: impl FnMut(&str, u32) -> bool,
) -> std::result::Result<(), String> {
    for kv in spec.split(',').filter(|kv| !kv.trim().is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("'{kv}' is not key=value"))?;
        let v: u32 = v
            .trim()
            .parse()
            .map_err(|_| format!("'{}' is not a number", v.trim()))?;
        let k = k.trim();
        if !set(k, v) {
            return Err(format!("'{k}={v}' is not {what}"));
        }
    }
    Ok(())
}

impl std::str::FromStr for ScanLbShape {
    type Err = String;
    /// Parses `key=value` pairs (threads, vecs, windows, blocks) over the defaults.
    fn from_str(spec: &str) -> std::result::Result<Self, String> {
        let mut s = ScanLbShape::DEFAULT;
        parse_settings(
            spec,
            "a scan shape setting (threads 64-1024 in multiples of 32, vecs 1-16, windows 1-8, blocks 0-32)",
            |k, v| {
                match k {
                    "threads" if v % 32 == 0 && (64..=1024).contains(&v) => s.threads = v,
                    "vecs" if (1..=16).contains(&v) => s.vecs = v,
                    "windows" if (1..=8).contains(&v) => s.windows = v,
                    "blocks" if v <= 32 => s.min_blocks = v,
                    _ => return false,
                }
                true
            },
        )?;
        // The kernel stages its tile in static shared memory (48 KiB at most, with its few
        // other shared variables: up to 32 warp sums and a tile id, under 512 bytes).
        if 16 * s.threads * s.vecs + 512 > 48 * 1024 {
            return Err(format!(
                "threads x vecs = {} x {}: a tile of 16-byte vectors exceeds 47.5 KiB",
                s.threads, s.vecs
            ));
        }
        Ok(s)
    }
}

/// Pipelined look-back scan (sm_90 and later; kernels/scan_lookback.cu, `scan_pipelined`):
/// persistent blocks of `consumers` scanning threads plus a look-back warp and a load warp;
/// tiles of `consumers x vecs` 16-byte vectors arrive by bulk copy in a ring of `stages`
/// shared-memory stages. H200, session 10, ncu, exclusive scans, u32 2^28 + u64 2^27, us
/// (two runs): **256x8x3 587 / 592 / 585 + 560 / 567 / 566** (32 KiB tiles, 2 blocks per
/// SM), 384x6x3 582 + 567, 512x4x3 591 + 580, 256x6x4 643 + 609, 256x7x4 635 + 598, 224x8x4
/// 626 + 590, 256x4x6 677 + 657, 384x4x4 643 + 606, 128x8x4 (3 blocks) 645 + 627, 256x8x6
/// (1 block) 630 + 653; the classic kernel 634 + 600 in the same run. Without the first
/// look-back sleep (`LB_DELAY_FIRST=0`) 633 for u32.
pub const SCAN_PIPE_CONSUMERS: u32 = 256;
pub const SCAN_PIPE_VECS: u32 = 8;
pub const SCAN_PIPE_STAGES: u32 = 3;
/// Pipelined scan: minimum resident blocks per SM asked of the compiler (0: none).
pub const SCAN_PIPE_MIN_BLOCKS: u32 = 2;
/// Whether `auto` takes the pipelined scan where it runs (sm_90+, 16-byte aligned input and
/// output). H200, session 10, `bench scan` (warm, medians), GB/s, pipelined / classic: u32
/// exclusive 2^20 543 / 537, 2^24 2617 / 2123, 2^26 3338 / 3005, 2^28 3568 / 3308; u32
/// inclusive 2^28 3446 / 3280; u64 exclusive 2^28 3749 / 3470; f32 inclusive 2^28 3548 /
/// 3303. With CUB in the same run (`bench peers`, 2^28): u32 1.15-1.16x, u64 1.10x, f32 1.15x.
pub const SCAN_PIPE_AUTO: bool = true;
/// The most dynamic shared memory the pipelined scan's stages may take (the H200 gives a block
/// 227 KiB; the kernel's static part is under 1 KiB).
pub const SCAN_PIPE_MAX_STAGE_BYTES: u32 = 224 * 1024;
/// Pipelined scan: grids of at least this many tiles sleep [`SCAN_PIPE_PACE_NS`] before their
/// first look-back read instead of [`SCAN_LB_DELAY_FIRST`] (a kernel argument, chosen per
/// launch). H200, session 10, run 5 (2400 / 1000 ns against 1200 / 650 for every grid): `bench
/// peers` 2^28 u32 exclusive 3768 / 3607 GB/s, f32 3770 / 3618, u64 3811 / 3801; `bench scan`
/// u32 2^22 1518 / 1678 (-10%), 2^24 2599 / 2745 (-5%), 2^26 3501 / 3377 (+4%); ncu u32 2^28
/// / u64 2^27, us: 2400 / 650 559 / 558, 1200 / 650 572 / 565. A u32 tile holds 8192
/// elements, so 8192 tiles is 2^26 u32 elements (2^25 u64).
pub const SCAN_PIPE_PACE_TILES: u32 = 8192;
pub const SCAN_PIPE_PACE_NS: u32 = 2400;
/// Look-back scans: grids of fewer tiles than this do not sleep before their first read.
pub const SCAN_LB_PACE_MIN_TILES: u32 = 500;

/// The shape of the pipelined look-back scan; `HISTOSORT_SCAN_PIPE` (e.g.
/// `consumers=256,vecs=8,stages=3,blocks=2,auto=1`; keys left out keep their defaults) changes
/// it without a rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanPipeShape {
    pub consumers: u32,
    pub vecs: u32,
    pub stages: u32,
    pub min_blocks: u32,
    /// Whether `auto` takes the pipelined scan where it fits ([`SCAN_PIPE_AUTO`]).
    pub auto: bool,
    /// Grids of at least `pace_tiles` tiles sleep `pace_ns` before their first look-back read.
    pub pace_tiles: u32,
    pub pace_ns: u32,
}

impl ScanPipeShape {
    pub const DEFAULT: ScanPipeShape = ScanPipeShape {
        consumers: SCAN_PIPE_CONSUMERS,
        vecs: SCAN_PIPE_VECS,
        stages: SCAN_PIPE_STAGES,
        min_blocks: SCAN_PIPE_MIN_BLOCKS,
        auto: SCAN_PIPE_AUTO,
        pace_tiles: SCAN_PIPE_PACE_TILES,
        pace_ns: SCAN_PIPE_PACE_NS,
    };

    /// The sleep in ns before a tile's first look-back read in a grid of `tiles` tiles:
    /// `pace_ns` from `pace_tiles` tiles up, [`SCAN_LB_DELAY_FIRST`] from
    /// [`SCAN_LB_PACE_MIN_TILES`], none below (predecessors are published almost at once).
    pub const fn first_delay(&self, tiles: u64) -> u32 {
        if tiles >= self.pace_tiles as u64 {
            self.pace_ns
        } else if tiles >= SCAN_LB_PACE_MIN_TILES as u64 {
            SCAN_LB_DELAY_FIRST
        } else {
            0
        }
    }

    /// Threads per block: the consumers, the look-back warp and the load warp.
    pub const fn threads(&self) -> u32 {
        self.consumers + 64
    }

    /// Elements per tile for elements of `elem_bytes` (4 or 8).
    pub const fn tile(&self, elem_bytes: u32) -> u32 {
        self.consumers * self.vecs * (16 / elem_bytes)
    }

    /// Dynamic shared memory of a block: the stages.
    pub const fn stage_bytes(&self) -> u32 {
        self.stages * self.consumers * self.vecs * 16
    }
}

impl std::str::FromStr for ScanPipeShape {
    type Err = String;
    /// Parses `key=value` pairs (consumers, vecs, stages, blocks) over the defaults.
    fn from_str(spec: &str) -> std::result::Result<Self, String> {
        let mut s = ScanPipeShape::DEFAULT;
        parse_settings(
            spec,
            "a pipelined scan setting (consumers 32-960 in multiples of 32, vecs 1-16, stages 2-16, blocks 0-8, auto 0-1, pace_tiles, pace_ns 0-100000)",
            |k, v| {
                match k {
                    "consumers" if v % 32 == 0 && (32..=960).contains(&v) => s.consumers = v,
                    "vecs" if (1..=16).contains(&v) => s.vecs = v,
                    "stages" if (2..=16).contains(&v) => s.stages = v,
                    "blocks" if v <= 8 => s.min_blocks = v,
                    "auto" if v <= 1 => s.auto = v == 1,
                    "pace_tiles" => s.pace_tiles = v,
                    "pace_ns" if v <= 100_000 => s.pace_ns = v,
                    _ => return false,
                }
                true
            },
        )?;
        if s.stage_bytes() > SCAN_PIPE_MAX_STAGE_BYTES {
            return Err(format!(
                "{} stages of {} x {} vectors take {} bytes of shared memory, more than {}",
                s.stages,
                s.consumers,
                s.vecs,
                s.stage_bytes(),
                SCAN_PIPE_MAX_STAGE_BYTES
            ));
        }
        Ok(s)
    }
}

/// The pipelined scan's shape: [`ScanPipeShape::DEFAULT`], or `HISTOSORT_SCAN_PIPE` where it
/// is set and valid (an invalid value is reported once on stderr and ignored).
pub fn scan_pipe_shape() -> ScanPipeShape {
    static SHAPE: std::sync::OnceLock<ScanPipeShape> = std::sync::OnceLock::new();
    *SHAPE.get_or_init(|| env_tuning("HISTOSORT_SCAN_PIPE").unwrap_or(ScanPipeShape::DEFAULT))
}

/// Elements per tile of the look-back scan for elements of `elem_bytes` (4 or 8).
pub fn scan_lb_tile(elem_bytes: u32) -> u32 {
    scan_lb_shape().tile(elem_bytes)
}

/// 16-bit histogram (65536 bins): threads per block; one block per SM holds the whole
/// histogram as 16-bit counters (128 KiB of opt-in shared memory).
pub const HIST16_THREADS: u32 = 1024;
/// 16-bit histogram: 16-byte vectors each thread loads before counting them (loads in flight).
pub const HIST16_VECS: u32 = 4;
/// 16-bit histogram: a block is given at least this many samples, so that clearing and
/// merging its 65536 counters stays a small part of its work.
pub const HIST16_MIN_SAMPLES_PER_BLOCK: u64 = 1 << 18;

/// Multi-channel byte histograms (interleaved pixels of 1 to 4 channels): threads per block.
pub const HIST_CHANNELS_THREADS: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_shapes_parse() {
        let ok: MergeShape = "256x8".parse().unwrap();
        assert_eq!((ok.threads, ok.items, ok.tile()), (256, 8, 2048));
        assert_eq!(
            " 128 x 4 ".trim().parse::<MergeShape>(),
            Ok(CLUSTER_MERGE_SHAPE)
        );
        for bad in [
            "128", "128x", "x4", "96x4", "128x3", "16x8", "512x8", "2048x1",
        ] {
            assert!(bad.parse::<MergeShape>().is_err(), "{bad}");
        }
    }

    #[test]
    fn cluster_shapes_split_long_inputs_into_mergeable_segments() {
        let optin = 227 * 1024;
        let max = 1 << 16;
        // Within one segment: one cluster, no merge.
        let one = cluster_sort_shape(1 << 14, 8, 0, optin, max, 512, 1 << 14).unwrap();
        assert_eq!(
            (one.items, one.blocks, one.clusters, one.merges()),
            (2, 16, 1, 0)
        );
        // Four segments of 2^14: two merges; one key more takes a fifth cluster, three merges.
        let four = cluster_sort_shape(1 << 16, 8, 0, optin, max, 512, 1 << 14).unwrap();
        assert_eq!(
            (four.items, four.blocks, four.clusters, four.merges()),
            (2, 16, 4, 2)
        );
        assert_eq!(four.segment(), 1 << 14);
        let five = cluster_sort_shape((1 << 16) - 1, 8, 0, optin, max, 512, 12_000).unwrap();
        assert_eq!(
            (five.segment(), five.clusters, five.merges()),
            (12_288, 6, 3)
        );
        // Every split segment pairs into whole merge tiles.
        for seg in [2048, 3000, 5000, 8192, 12_345, 1 << 15] {
            for n in [seg + 1, 3 * seg, 1 << 16]
                .into_iter()
                .filter(|&n| n <= max)
            {
                let s = cluster_sort_shape(n, 4, 4, optin, max, 512, seg).unwrap();
                assert_eq!((2 * s.segment()) % CLUSTER_MERGE_TILE, 0, "seg {seg} n {n}");
                assert!(
                    s.segment() as usize * s.clusters as usize >= n,
                    "seg {seg} n {n}"
                );
                assert!(
                    s.segment() as usize * (s.clusters as usize - 1) < n,
                    "seg {seg} n {n}"
                );
            }
        }
        // A segment of 256 keys (one block of 256 threads) cannot pair into 2048-key tiles:
        // one cluster takes the input.
        let whole = cluster_sort_shape(4096, 4, 0, optin, max, 256, 256).unwrap();
        assert_eq!((whole.clusters, whole.blocks), (1, 16));
        // The default segment by the bytes a key moves through the cluster (run 1's split):
        // u64 keys and u32/u32 pairs split, u32 keys and u32 bits [0,16) do not.
        assert_eq!(cluster_sort_segment(8, 0, 8), 1 << 14);
        assert_eq!(cluster_sort_segment(4, 4, 4), 1 << 14);
        assert_eq!(cluster_sort_segment(4, 0, 4), CLUSTER_SORT_MAX);
        assert_eq!(cluster_sort_segment(4, 0, 2), CLUSTER_SORT_MAX);
        // Past `max`, or past what a block's shared memory holds: none.
        assert_eq!(
            cluster_sort_shape(max + 1, 8, 0, optin, max, 512, 1 << 14),
            None
        );
        assert_eq!(
            cluster_sort_shape(1 << 16, 8, 16, 64 * 1024, max, 512, 1 << 14),
            None
        );
    }

    #[test]
    fn pass_tunables_by_shape() {
        assert_eq!(onesweep_pass_min_blocks(4, 0), 4);
        assert_eq!(onesweep_pass_min_blocks(4, 4), 3);
        assert_eq!(onesweep_pass_min_blocks(8, 0), 3);
        let (short, long) = (ONESWEEP_WIDE_SHAPE.tile(), ONESWEEP_LONG_SHAPE.tile());
        assert_eq!(onesweep_prefetch_ahead(4, 0, short), 264);
        assert_eq!(onesweep_prefetch_ahead(4, 0, long), 132);
        assert_eq!(onesweep_prefetch_ahead(4, 4, long), 0);
        assert_eq!(onesweep_prefetch_ahead(8, 0, short), 132);
        assert_eq!(onesweep_prefetch_ahead(8, 4, short), 0);
        assert_eq!(onesweep_values_late(4, 4), 2);
        assert_eq!(onesweep_values_late(4, 8), 0);
        assert_eq!(onesweep_values_late(4, 0), 0);
    }

    #[test]
    fn hist_lanes_shapes_parse_over_the_defaults() {
        let d = HistLanesShape::DEFAULT;
        assert_eq!("".parse::<HistLanesShape>(), Ok(d));
        let s = "threads=512, blocks=4".parse::<HistLanesShape>().unwrap();
        assert_eq!((s.threads, s.passes, s.min_blocks), (512, d.passes, 4));
        let s = "passes=1".parse::<HistLanesShape>().unwrap();
        assert_eq!((s.threads, s.passes), (d.threads, 1));
        for bad in [
            "threads=1056",
            "threads=48",
            "passes=0",
            "passes=5",
            "blocks=0",
            "blocks=9",
            "vecs=2",
            "threads",
        ] {
            assert!(bad.parse::<HistLanesShape>().is_err(), "{bad}");
        }
    }

    #[test]
    fn small_hybrid_blocks_where_a_bucket_fits() {
        if std::env::var_os("HISTOSORT_HYBRID_LOCAL").is_some() {
            return;
        }
        // 64-bit keys alone and with 4-byte values (and packed pairs, 8 and 0) up to 2^27 keys
        // (2048 a bucket, within 13/16 of 2560: up to 2080 a bucket); past that, and for other
        // widths, 512 threads.
        for (k, v) in [(8, 0), (8, 4)] {
            for n in [1 << 21, 1 << 24, 1 << 26, 1 << 27] {
                assert_eq!(
                    hybrid_local_block(k, v, n),
                    HYBRID_SMALL_LOCAL,
                    "{k} {v} {n}"
                );
            }
            for n in [2081 << 16, 1 << 28] {
                assert_eq!(hybrid_local_block(k, v, n).threads, 512, "{k} {v} {n}");
            }
        }
        assert!(hybrid_small_fits(2080 << 16) && !hybrid_small_fits(2081 << 16));
        for (k, v) in [(8, 8), (8, 16), (4, 0), (4, 4)] {
            assert_eq!(hybrid_local_block(k, v, 1 << 24).threads, 512, "{k} {v}");
        }
        assert_eq!(hybrid_local_block(8, 4, 1 << 28).cap(), 512 * 10);
    }

    #[test]
    fn packed_hybrid_blocks_hold_a_bucket_with_room() {
        if std::env::var_os("HISTOSORT_HYBRID_LOCAL").is_some() {
            return;
        }
        // Below 2^26 pairs the small block of the other hybrids.
        for lg in [22, 24, 25] {
            assert_eq!(packed_hybrid_block(1 << lg), HYBRID_SMALL_LOCAL);
        }
        // One bucket a chunk from 2^26 pairs: the block holds an average bucket and a quarter
        // more, at 5 pairs a thread and 2048 threads an SM, up to 2^28.
        for (lg, threads) in [(26, 256), (27, 512), (28, 1024)] {
            let b = packed_hybrid_block(1 << lg);
            assert_eq!(
                (b.threads, b.items, b.threads * b.min_blocks),
                (threads, 5, 2048)
            );
            assert!((((1u64 << lg) >> 16) * 5 / 4) <= b.cap() as u64, "2^{lg}");
        }
        // Past 2^28, the 512-thread block of 16.
        assert_eq!(packed_hybrid_block((1 << 28) + (1 << 20)).cap(), 512 * 16);
    }

    #[test]
    fn hybrid_local_blocks_parse() {
        let b: HybridLocalShape = "256x12x4x12".parse().unwrap();
        assert_eq!(
            (b.threads, b.items, b.min_blocks, b.fill_16ths, b.cap()),
            (256, 12, 4, 12, 3072)
        );
        let b: HybridLocalShape = "512x16x2".parse().unwrap();
        assert_eq!((b.cap(), b.fill_16ths), (8192, HYBRID_FILL_16THS));
        // Fewer threads than digits, too many items, no minimum of blocks, no fill, a width
        // that is no multiple of 32, not numbers.
        for bad in [
            "128x16x2",
            "512x17x2",
            "512x16",
            "512x16x2x0",
            "500x16x2",
            "axbxc",
        ] {
            assert!(bad.parse::<HybridLocalShape>().is_err(), "{bad}");
        }
    }

    #[test]
    fn scan_shapes_parse_over_the_defaults() {
        let d = ScanLbShape::DEFAULT;
        assert_eq!("".parse::<ScanLbShape>(), Ok(d));
        let s = "threads=256, vecs=8".parse::<ScanLbShape>().unwrap();
        assert_eq!(
            (s.threads, s.vecs, s.windows, s.min_blocks),
            (256, 8, d.windows, d.min_blocks)
        );
        assert_eq!(s.tile(4), 256 * 8 * 4);
        assert_eq!(s.tile(8), 256 * 8 * 2);
        // A 64 KiB tile does not fit the kernel's static shared memory.
        assert!("threads=512,vecs=8".parse::<ScanLbShape>().is_err());
        let s = "threads=128,vecs=16".parse::<ScanLbShape>().unwrap();
        assert_eq!(s.tile(4), 128 * 16 * 4);
        assert!("threads=192,vecs=15".parse::<ScanLbShape>().is_ok());
        assert!("threads=192,vecs=16".parse::<ScanLbShape>().is_err());
        let s = "windows=2,blocks=6".parse::<ScanLbShape>().unwrap();
        assert_eq!((s.threads, s.windows, s.min_blocks), (d.threads, 2, 6));
        for bad in [
            "threads=300",
            "threads=48",
            "vecs=0",
            "vecs=17",
            "windows=9",
            "blocks=33",
            "items=4",
            "vecs",
            "vecs=x",
        ] {
            assert!(bad.parse::<ScanLbShape>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn scan_pipe_shapes_parse_over_the_defaults() {
        let d = ScanPipeShape::DEFAULT;
        assert_eq!("".parse::<ScanPipeShape>(), Ok(d));
        assert!(d.stage_bytes() <= SCAN_PIPE_MAX_STAGE_BYTES);
        let s = "consumers=128, stages=6".parse::<ScanPipeShape>().unwrap();
        assert_eq!(
            (s.consumers, s.vecs, s.stages, s.min_blocks),
            (128, d.vecs, 6, d.min_blocks)
        );
        assert_eq!(s.threads(), 192);
        assert_eq!(s.tile(4), 128 * d.vecs * 4);
        assert_eq!(s.tile(8), 128 * d.vecs * 2);
        assert_eq!(s.stage_bytes(), 6 * 128 * d.vecs * 16);
        assert!("auto=1".parse::<ScanPipeShape>().unwrap().auto);
        assert!(!"auto=0".parse::<ScanPipeShape>().unwrap().auto);
        let p = "pace_tiles=100,pace_ns=3000"
            .parse::<ScanPipeShape>()
            .unwrap();
        assert_eq!((p.pace_tiles, p.pace_ns), (100, 3000));
        // The first look-back sleep by grid size: none, the classic one, the long one.
        assert_eq!(d.first_delay(SCAN_LB_PACE_MIN_TILES as u64 - 1), 0);
        assert_eq!(
            d.first_delay(SCAN_LB_PACE_MIN_TILES as u64),
            SCAN_LB_DELAY_FIRST
        );
        assert_eq!(d.first_delay(d.pace_tiles as u64 - 1), SCAN_LB_DELAY_FIRST);
        assert_eq!(d.first_delay(d.pace_tiles as u64), d.pace_ns);
        assert_eq!(d.first_delay(1 << 40), d.pace_ns);
        // 8 stages of 32 KiB do not fit.
        assert!("consumers=256,vecs=8,stages=8"
            .parse::<ScanPipeShape>()
            .is_err());
        for bad in [
            "consumers=100",
            "consumers=992",
            "vecs=0",
            "vecs=17",
            "stages=1",
            "blocks=9",
            "auto=2",
            "pace_ns=100001",
            "threads=256",
            "stages",
        ] {
            assert!(bad.parse::<ScanPipeShape>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn onesweep_shapes_parse_and_fall_back() {
        let s: OnesweepShape = "256x32x3".parse().unwrap();
        assert_eq!(s, ONESWEEP_WIDE_SHAPE);
        let s: OnesweepShape = "384x26x2".parse().unwrap();
        assert_eq!(s, ONESWEEP_WIDE_PAIRS_SHAPE);
        let s: OnesweepShape = " 512 x 15 ".parse().unwrap();
        assert_eq!((s.threads, s.items, s.min_blocks), (512, 15, 1));
        for bad in [
            "", "384", "384x", "100x15", "128x15", "2048x4", "384x0", "384x80", "384x23x9",
        ] {
            assert!(bad.parse::<OnesweepShape>().is_err(), "{bad:?} parsed");
        }
        // Every narrow tile fits the 48 KiB every device gives a block; the wide pairs tile needs
        // the opt-in shared memory of an H200.
        for kb in [1, 2, 4, 8, 16] {
            for vb in [0, 1, 2, 4, 8, 16] {
                assert!(onesweep_narrow_shape(kb, vb).shared_bytes(kb, vb) <= 48 * 1024);
                for d in onesweep_default_shapes(kb, vb) {
                    assert!(d.threads >= 1 << ONESWEEP_RADIX_BITS && d.threads % 32 == 0);
                    assert!(
                        d.shared_bytes(kb, vb) <= SM90_SHARED_PER_BLOCK_OPTIN,
                        "{kb}/{vb}: {d:?}"
                    );
                }
            }
        }
        // Pairs of 4 + 4 bytes: the wide tile on an H200 (227 KiB per block, 228 KiB per SM),
        // the narrow one on a device with 64 KiB per block (sm_75) and on an A100 (163 KiB per
        // block, but 164 KiB per SM: one block of the wide tile per SM, not two). Keys: the
        // wide tile on an H200, the narrow one where 3 blocks do not fit an SM (sm_86: 100 KiB).
        assert_eq!(onesweep_default_shapes(4, 4), [ONESWEEP_WIDE_PAIRS_SHAPE]);
        assert_eq!(
            onesweep_default_shapes(4, 0),
            [ONESWEEP_WIDE_SHAPE, ONESWEEP_LONG_SHAPE]
        );
        let long = ONESWEEP_LONG_MIN_KEYS;
        assert!(long > 1 && long <= 1 << 28);
        if std::env::var_os("HISTOSORT_ONESWEEP_SHAPE").is_none()
            && std::env::var_os("HISTOSORT_ONESWEEP_LONG_MIN").is_none()
        {
            let h200 = (SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM);
            let sm86 = (99 * 1024, 100 * 1024);
            let (sm75, a100) = ((64 * 1024, 64 * 1024), (163 * 1024, 164 * 1024));
            // A long tile whose 3 blocks do not fit an SM, but the short one's do.
            let between = ONESWEEP_WIDE_SHAPE.shared_bytes(4, 0) + 1024;
            let between = (between * 2, between * 3);
            for (kb, vb, n, (optin, per_sm), want) in [
                (4, 4, long, h200, ONESWEEP_WIDE_PAIRS_SHAPE),
                (4, 4, 1000, sm75, onesweep_narrow_shape(4, 4)),
                (4, 4, long, a100, onesweep_narrow_shape(4, 4)),
                (4, 0, long - 1, h200, ONESWEEP_WIDE_SHAPE),
                (4, 0, long, h200, ONESWEEP_LONG_SHAPE),
                (2, 0, u32::MAX as u64, h200, ONESWEEP_LONG_SHAPE),
                (4, 0, long, between, ONESWEEP_WIDE_SHAPE),
                (4, 0, long, sm86, onesweep_narrow_shape(4, 0)),
                (8, 0, long, h200, ONESWEEP_WIDE_U64_SHAPE),
                (8, 0, long, sm86, onesweep_narrow_shape(8, 0)),
                (8, 4, long, h200, onesweep_narrow_shape(8, 4)),
            ] {
                assert_eq!(
                    onesweep_pass_shape(kb, vb, n, optin, per_sm),
                    want,
                    "{kb}/{vb} bytes, {n} keys, {optin} per block, {per_sm} per SM"
                );
            }
        }
    }

    #[test]
    fn packed_passes_take_the_h100_tile_on_an_h100_only() {
        if std::env::var_os("HISTOSORT_ONESWEEP_SHAPE").is_some() {
            return;
        }
        let h200 = (SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM);
        let a100 = (163 * 1024, 164 * 1024);
        let n = 1 << 24;
        // Narrower than the last pass's tile (the last pass may take no more tiles than the
        // passes before it), and 2 blocks fit an SM of either sm_90 card.
        assert!(PACKED_PASS_SHAPE_H100.tile() < PACKED_LAST_SHAPE.tile());
        for (name, (optin, per_sm), want) in [
            ("NVIDIA H100 80GB HBM3", h200, PACKED_PASS_SHAPE_H100),
            ("NVIDIA H100 PCIe", h200, PACKED_PASS_SHAPE_H100),
            ("NVIDIA H200", h200, ONESWEEP_WIDE_U64_SHAPE),
            ("NVIDIA GH200 480GB", h200, ONESWEEP_WIDE_U64_SHAPE),
            (
                "NVIDIA A100-SXM4-80GB",
                a100,
                onesweep_pass_shape(8, 0, n, a100.0, a100.1),
            ),
            // An H100 whose shared memory could not hold it: the u64 keys' choice.
            (
                "NVIDIA H100 80GB HBM3",
                (99 * 1024, 100 * 1024),
                onesweep_narrow_shape(8, 0),
            ),
        ] {
            assert_eq!(packed_pass_shape(name, n, optin, per_sm), want, "{name}");
        }
        // Shorter inputs keep the u64 tile on an H100 too.
        let h100 = "NVIDIA H100 80GB HBM3";
        assert_eq!(
            packed_pass_shape(h100, PACKED_H100_MIN - 1, h200.0, h200.1),
            ONESWEEP_WIDE_U64_SHAPE
        );
        assert_eq!(
            packed_pass_shape(h100, PACKED_H100_MIN, h200.0, h200.1),
            PACKED_PASS_SHAPE_H100
        );
    }

    #[test]
    fn packed_last_pass_takes_its_tile_where_it_fits() {
        if std::env::var_os("HISTOSORT_PACKED_LAST_SHAPE").is_some() {
            return;
        }
        let bytes = PACKED_LAST_SHAPE.shared_bytes(8, 0);
        // Wider than the u64 keys' tile, and 2 blocks of it fit an H200's SM.
        assert!(PACKED_LAST_SHAPE.tile() > ONESWEEP_WIDE_U64_SHAPE.tile());
        let h200 = (SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM);
        assert_eq!(packed_last_shape(h200.0, h200.1), Some(PACKED_LAST_SHAPE));
        // 64 KiB per block (sm_75) cannot hold it; nor can an SM that holds one block only.
        assert!(bytes > 64 * 1024);
        assert_eq!(packed_last_shape(64 * 1024, 64 * 1024), None);
        assert_eq!(packed_last_shape(h200.0, bytes + 1024), None);
        assert_eq!(
            packed_last_shape(bytes, 2 * (bytes + 1024)),
            Some(PACKED_LAST_SHAPE)
        );
    }
}
