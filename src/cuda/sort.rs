//! Sort launch sequences: the seeds' three-phase LSD sort (kernels/radix_sort_three_phase.cu),
//! in plain stream launches or captured once into a CUDA graph and replayed.
//!
//! A [`SortPlan`] owns everything a sort of one shape needs (scratch buffers, staging buffers
//! for host data, the loaded kernels and the captured graph), so repeated sorts of the same
//! shape allocate nothing and, in graph mode, cost one `cuGraphLaunch`.

use cudarc::driver::{result as dres, sys as drv, CudaFunction, CudaGraph, CudaSlice};

use super::launch::{DeviceBuffer, KArg};
use super::scan::{scan_spec, ScanScratch};
use super::{allow_dynamic_shared, dptr, driver_err, CudaBackend, KernelFile, ModuleSpec};
use crate::algorithm::{LaunchMode, Order, SortAlgorithm};
use crate::error::{Error, Result};
use crate::key::{DType, RadixBits, RadixKey, SortIndex, Value};
use crate::options::SortOptions;
use crate::tuning::cuda::{
    cluster_merge_shape, cluster_sort_limit, cluster_sort_segment_limit, cluster_sort_shape,
    cluster_sort_threads, hist_one_read, hybrid_local_block, hybrid_prefetch_ahead,
    hybrid_top_extra, onesweep_default_shapes, onesweep_fused_items, onesweep_hist_shape,
    onesweep_items, onesweep_narrow_shape, onesweep_pass_shape, onesweep_prefetch_ahead,
    onesweep_shape_override, onesweep_values_late, packed_hybrid_block, packed_last_shape,
    packed_pass_shape, rank_sort_limit, rank_sort_max, ClusterShape, HybridLocalShape,
    OnesweepShape, CLUSTER_SORT_BLOCKS, CLUSTER_SORT_ITEMS, CLUSTER_SORT_THREADS,
    ELEMENTWISE_THREADS, HYBRID_BALANCE, HYBRID_STAGE, HYBRID_TIE_RUN_MAX, HYBRID_TOP_BITS,
    ONESWEEP_FREE_RANK_SKEW, ONESWEEP_FUSED_ITEMS, ONESWEEP_FUSED_MAX, ONESWEEP_HIST_LANES_PASSES,
    ONESWEEP_LOOKBACK, ONESWEEP_RADIX_BITS, ONESWEEP_RANK_BALLOT, ONESWEEP_SKIP_MIN,
    ONESWEEP_THREADS, PACKED_PASS_SHAPE_H100, RANK_SORT_THREADS, SM90_SHARED_PER_BLOCK_OPTIN,
    SM90_SHARED_PER_SM, THREE_PHASE_DIGIT_BITS, THREE_PHASE_DIGIT_WIDTHS, THREE_PHASE_ITEMS,
    THREE_PHASE_THREADS, THREE_PHASE_TILE,
};

/// KEY_BITS and KEY_KIND of a key type, or why the GPU cannot sort it.
fn key_defines(d: DType) -> Result<(u32, u32)> {
    let kind = if d.is_float() {
        2
    } else if d.is_signed_int() {
        1
    } else {
        0
    };
    match d.size() {
        1 | 2 | 4 | 8 | 16 => Ok((d.size() as u32 * 8, kind)),
        _ => Err(Error::Unsupported(format!(
            "the CUDA sorts take keys of 8 to 128 bits, not {d}"
        ))),
    }
}

fn keys_spec(key: DType) -> Result<ModuleSpec> {
    let (bits, kind) = key_defines(key)?;
    Ok(ModuleSpec::new(KernelFile::Keys)
        .define("THREADS", ELEMENTWISE_THREADS)
        .define("KEY_BITS", bits)
        .define("KEY_KIND", kind))
}

fn three_phase_spec(key: DType, value_bytes: u32) -> Result<ModuleSpec> {
    let (bits, _) = key_defines(key)?;
    // The sort itself only sees radix images, so KEY_KIND is always 0 here.
    Ok(ModuleSpec::new(KernelFile::ThreePhase)
        .define("THREADS", THREE_PHASE_THREADS)
        .define("ITEMS", THREE_PHASE_ITEMS)
        .define("KEY_BITS", bits)
        .define("KEY_KIND", 0)
        .define("VALUE_BYTES", value_bytes))
}

/// The counting sort (all-pairs ranks) of small inputs.
fn rank_sort_spec(key: DType, value_bytes: u32) -> Result<ModuleSpec> {
    let (bits, kind) = key_defines(key)?;
    Ok(ModuleSpec::new(KernelFile::RankSort)
        .define("THREADS", RANK_SORT_THREADS)
        .define("RANK_MAX", rank_sort_max(key.size()))
        .define("KEY_BITS", bits)
        .define("KEY_KIND", kind)
        .define("VALUE_BYTES", value_bytes))
}

/// The cluster sort of small inputs (one thread-block cluster, sm_90 and later).
fn cluster_spec(key: DType, value_bytes: u32, shape: ClusterShape) -> Result<ModuleSpec> {
    let (bits, kind) = key_defines(key)?;
    let merge = cluster_merge_shape();
    Ok(ModuleSpec::new(KernelFile::ClusterSort)
        .define("THREADS", shape.threads)
        .define("ITEMS", shape.items)
        .define("RADIX_BITS", ONESWEEP_RADIX_BITS)
        .define("RANK_BALLOT", ONESWEEP_RANK_BALLOT)
        .define("CLUSTER_MAX", CLUSTER_SORT_BLOCKS)
        .define("MERGE_THREADS", merge.threads)
        .define("MERGE_ITEMS", merge.items)
        .define(
            "CLUSTER_SMEM_BYTES",
            shape.shared_bytes(key.size() as u32, value_bytes),
        )
        .define("KEY_BITS", bits)
        .define("KEY_KIND", kind)
        .define("VALUE_BYTES", value_bytes))
}

/// Whether one digit holds all `n` keys, from a pass's exclusive digit offsets.
fn digit_is_shared(offsets: &[u32], n: u64) -> bool {
    offsets.iter().enumerate().any(|(d, &o)| {
        let next = offsets.get(d + 1).map_or(n, |&x| x as u64);
        next.wrapping_sub(o as u64) == n
    })
}

/// The onesweep modules with the pass kernel's default tiles for the shape, one per length
/// class (or the tile `HISTOSORT_ONESWEEP_SHAPE` names, so that `compile-kernels --resources`
/// shows its registers).
fn onesweep_specs(key: DType, value_bytes: u32, status_bits: u32) -> Result<Vec<ModuleSpec>> {
    let shapes = match onesweep_shape_override() {
        Some(s) => vec![s],
        None => onesweep_default_shapes(key.size() as u32, value_bytes),
    };
    let mut v = Vec::new();
    for shape in shapes {
        for n in HYBRID_SPEC_LENGTHS {
            v.push(onesweep_spec_shape(
                key,
                value_bytes,
                status_bits,
                shape,
                Some(n),
            )?);
        }
    }
    Ok(v)
}

/// Lengths whose hybrid modules the catalogue holds: one that takes the small in-bucket block
/// where a key has it (`tuning::cuda::HYBRID_SMALL_LOCAL`) and one past it (the same module
/// twice where a key has one block: `all_module_specs` drops repeats).
const HYBRID_SPEC_LENGTHS: [u64; 2] = [1 << 24, 1 << 28];

/// Lengths whose packed hybrid modules the catalogue holds: one for each of
/// [`packed_hybrid_block`]'s blocks (a unit test walks the lengths a sort can have and checks
/// that the catalogue holds every onesweep module they load, these two lists included).
const PACKED_HYBRID_SPEC_LENGTHS: [u64; 5] = [1 << 24, 1 << 26, 1 << 27, 1 << 28, 1 << 29];

/// Word offsets in the hybrid sort's meta buffer (kernels/radix_sort_onesweep.cu, `HYB_*`).
const HYB_TOP8: usize = 131_072;
const HYB_TILE_START: usize = 131_328;
const HYB_COUNTERS: usize = 131_586;
const HYB_MID8: usize = 131_588;
const HYB_WORDS: usize = 131_844;
/// Shared memory of the hybrid sort's bucket histogram (65536 16-bit counters).
const HYB_HIST_SHARED: u32 = 65_536 * 2;
const HYB_HIST_THREADS: u32 = 1024;
const HYB_SCAN_THREADS: u32 = 1024;

/// Whether the onesweep module of this key and status width holds the hybrid sort's kernels.
fn has_hybrid(key: DType, status_bits: u32) -> bool {
    matches!(key.size(), 4 | 8) && status_bits == 32
}

/// The hybrid sort's in-bucket kernel for `n` keys: its block ([`hybrid_local_block`]) and
/// shared memory (its `LocalStorage`).
fn hybrid_local_shape(key_bytes: u32, value_bytes: u32, n: u64) -> (HybridLocalShape, u32) {
    let b = hybrid_local_block(key_bytes, value_bytes, n);
    (b, hybrid_local_bytes(b, key_bytes, value_bytes))
}

/// The packed hybrid's in-bucket kernel for `n` pairs: its block ([`packed_hybrid_block`]) and
/// shared memory (8-byte elements).
fn packed_hybrid_shape(n: u64) -> (HybridLocalShape, u32) {
    let b = packed_hybrid_block(n);
    (b, hybrid_local_bytes(b, 8, 0))
}

/// The in-bucket kernel's shared memory (its `LocalStorage`) for block `b`.
fn hybrid_local_bytes(b: HybridLocalShape, key_bytes: u32, value_bytes: u32) -> u32 {
    let warps = b.threads / 32;
    // Keys and values, the warps' counters, the scan's words, and 8 words of chunk state.
    let bytes = b.cap() * (key_bytes + value_bytes)
        + warps * (1 << ONESWEEP_RADIX_BITS) * 4
        + warps * 4
        + 32;
    bytes.next_multiple_of(16)
}

/// log2 of the buckets per in-bucket block for `n` keys and blocks of `cap` keys: the most
/// (at most all 2^16) whose average chunk stays within `fill_16ths` sixteenths of `cap`.
fn hybrid_chunk_log2(n: u64, cap: u32, fill_16ths: u32) -> u32 {
    let target = cap as u64 * fill_16ths as u64 / 16;
    let mut log = 0;
    while log < 16 && (n << (log + 1)) >> 16 <= target {
        log += 1;
    }
    log
}

/// The onesweep module for the single-launch kernel's tile: `items` keys per thread of
/// `ONESWEEP_THREADS` (its tile stays in static shared memory).
fn onesweep_spec_items(
    key: DType,
    value_bytes: u32,
    status_bits: u32,
    items: u32,
) -> Result<ModuleSpec> {
    let shape = OnesweepShape {
        threads: ONESWEEP_THREADS,
        items,
        ..onesweep_narrow_shape(key.size() as u32, value_bytes)
    };
    onesweep_spec_shape(key, value_bytes, status_bits, shape, None)
}

/// The module of the single-launch sort at `items` keys per thread, for a sort whose pass kernel
/// runs `pass_shape` from `pass_spec`: the pass module itself where the two tiles are the same
/// (the hybrid's defines, the only difference then, add kernels after the single-launch one
/// and change nothing before them), so that such a sort compiles and loads one module, not two.
fn onesweep_fused_spec(
    key: DType,
    value_bytes: u32,
    items: u32,
    pass_shape: OnesweepShape,
    pass_spec: &ModuleSpec,
) -> Result<ModuleSpec> {
    let fused = onesweep_spec_items(key, value_bytes, 32, items)?;
    let plain = onesweep_spec_shape(key, value_bytes, 32, pass_shape, None)?;
    Ok(if plain == fused {
        pass_spec.clone()
    } else {
        fused
    })
}

/// `hybrid`: with the hybrid sort's kernels for sorts of that many keys (their in-bucket block
/// depends on it), where the key has them ([`has_hybrid`]).
fn onesweep_spec_shape(
    key: DType,
    value_bytes: u32,
    status_bits: u32,
    shape: OnesweepShape,
    hybrid: Option<u64>,
) -> Result<ModuleSpec> {
    let kb = key.size() as u32;
    let block = hybrid.map(|n| {
        let b = hybrid_local_block(kb, value_bytes, n);
        (b, hybrid_prefetch_ahead(kb, value_bytes, b))
    });
    onesweep_spec_block(key, value_bytes, status_bits, shape, block)
}

/// [`onesweep_spec_shape`] with the hybrid's in-bucket block and its L2 prefetch distance
/// (`HYB_PREFETCH_AHEAD`) given.
fn onesweep_spec_block(
    key: DType,
    value_bytes: u32,
    status_bits: u32,
    shape: OnesweepShape,
    hybrid: Option<(HybridLocalShape, u32)>,
) -> Result<ModuleSpec> {
    let (bits, kind) = key_defines(key)?;
    let kb = key.size() as u32;
    let spec = ModuleSpec::new(KernelFile::Onesweep)
        .define("THREADS", shape.threads)
        .define("ITEMS", shape.items)
        .define("RADIX_BITS", ONESWEEP_RADIX_BITS)
        .define("LOOKBACK", ONESWEEP_LOOKBACK)
        .define(
            "PREFETCH_AHEAD",
            onesweep_prefetch_ahead(key.size() as u32, value_bytes, shape.tile()),
        )
        .define("RANK_BALLOT", ONESWEEP_RANK_BALLOT)
        .define("PASS_MIN_BLOCKS", shape.min_blocks)
        .define("PASS_SMEM_BYTES", shape.shared_bytes(kb, value_bytes))
        .define("VALUES_LATE", onesweep_values_late(kb, value_bytes))
        .define("FREE_RANK_SKEW", ONESWEEP_FREE_RANK_SKEW)
        .define("KEY_BITS", bits)
        .define("KEY_KIND", kind)
        .define("VALUE_BYTES", value_bytes)
        .define("STATUS_BITS", status_bits)
        .define("LANES_THREADS", onesweep_hist_shape().threads)
        .define("LANES_PASSES", ONESWEEP_HIST_LANES_PASSES)
        .define("LANES_MIN_BLOCKS", onesweep_hist_shape().min_blocks);
    Ok(
        if let Some((b, ahead)) = hybrid.filter(|_| has_hybrid(key, status_bits)) {
            let bytes = hybrid_local_bytes(b, kb, value_bytes);
            spec.define("HYBRID_LOCAL_THREADS", b.threads)
                .define("HYBRID_LOCAL_ITEMS", b.items)
                .define("HYBRID_LOCAL_MIN_BLOCKS", b.min_blocks)
                .define("HYBRID_LOCAL_SMEM_BYTES", bytes)
                .define("HYB_TOP_BITS", HYBRID_TOP_BITS)
                .define("HYB_BALANCE", HYBRID_BALANCE as u32)
                .define("HYB_STAGE", HYBRID_STAGE as u32)
                .define("HYB_TIE_RUN_MAX", HYBRID_TIE_RUN_MAX)
                .define("HYB_PREFETCH_AHEAD", ahead)
        } else {
            spec
        },
    )
}

/// The pass kernel of packed pairs for 4-byte keys of type `key` (kernels/radix_sort_onesweep.cu,
/// `PACKED`): the u64 keys-only module with the packed loads and stores; with `hybrid`, also the
/// hybrid sort's in-bucket kernel for packed elements of sorts of that many keys (32-bit
/// status words only).
fn packed_spec(
    key: DType,
    status_bits: u32,
    shape: OnesweepShape,
    hybrid: Option<u64>,
) -> Result<ModuleSpec> {
    let (bits, kind) = key_defines(key)?;
    if bits != 32 {
        return Err(Error::Unsupported(format!(
            "packed pairs take 4-byte keys, not {key}"
        )));
    }
    // (The packed elements are the u64 module's keys: 8 bytes, no values.)
    let block = hybrid.map(|n| (packed_hybrid_block(n), 0));
    Ok(
        onesweep_spec_block(DType::U64, 0, status_bits, shape, block)?
            .define("PACKED", 1)
            .define("PACKED_KIND", kind),
    )
}

/// Every module the sorts can use, for `histosort compile-kernels` (possibly with repeats:
/// `all_module_specs` drops them).
pub fn all_sort_specs() -> Vec<ModuleSpec> {
    let mut v = Vec::new();
    for d in DType::ALL {
        if let Ok(s) = keys_spec(d) {
            v.push(s);
        }
    }
    for bits in [DType::U8, DType::U16, DType::U32, DType::U64, DType::U128] {
        for vb in [0, 1, 2, 4, 8, 16] {
            if let Ok(s) = three_phase_spec(bits, vb) {
                v.push(s);
            }
        }
    }
    // Packed pairs: every 4-byte key type, the u64 keys' tiles and their narrow fallback.
    for d in [DType::U32, DType::I32, DType::F32] {
        for sb in [32, 64] {
            let mut shapes = match onesweep_shape_override() {
                Some(s) => vec![s],
                None => onesweep_default_shapes(8, 0),
            };
            // The u64 keys' narrow fallback and the H100's tile.
            for s in [onesweep_narrow_shape(8, 0), PACKED_PASS_SHAPE_H100] {
                if !shapes.contains(&s) {
                    shapes.push(s);
                }
            }
            // The last pass's wider tile, where sm_90's shared memory holds it.
            if let Some(ls) = packed_last_shape(SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM) {
                if !shapes.contains(&ls) {
                    shapes.push(ls);
                }
            }
            for shape in shapes {
                if let Ok(s) = packed_spec(d, sb, shape, None) {
                    v.push(s);
                }
                // The packed hybrid's passes and in-bucket kernel (not the last pass's tile).
                if sb == 32
                    && Some(shape)
                        != packed_last_shape(SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM)
                {
                    for n in PACKED_HYBRID_SPEC_LENGTHS {
                        if let Ok(s) = packed_spec(d, sb, shape, Some(n)) {
                            v.push(s);
                        }
                    }
                }
            }
        }
    }
    for d in DType::ALL {
        for vb in [0, 1, 2, 4, 8, 16] {
            if let Ok(s) = rank_sort_spec(d, vb) {
                v.push(s);
            }
            for sb in [32, 64] {
                if let Ok(s) = onesweep_specs(d, vb, sb) {
                    v.extend(s);
                }
                // The fallback of devices whose shared memory cannot hold the wide tile.
                let narrow = onesweep_narrow_shape(d.size() as u32, vb);
                if !onesweep_default_shapes(d.size() as u32, vb).contains(&narrow) {
                    for n in HYBRID_SPEC_LENGTHS {
                        if let Ok(s) = onesweep_spec_shape(d, vb, sb, narrow, Some(n)) {
                            v.push(s);
                        }
                    }
                }
            }
            // The cluster sort: every key type and value size with one key per thread, every
            // number of keys per thread for a few (ITEMS only changes the unrolled loops).
            if d.size() <= 8 {
                let all = matches!(
                    (d, vb),
                    (DType::U32, 0 | 4) | (DType::U64, 0) | (DType::F64, 16)
                );
                for items in CLUSTER_SORT_ITEMS {
                    if items == 1 || all {
                        let shape = ClusterShape {
                            threads: CLUSTER_SORT_THREADS,
                            items,
                            blocks: CLUSTER_SORT_BLOCKS,
                            clusters: 1,
                        };
                        // Only shapes that fit an sm_90 block's shared memory.
                        if shape.shared_bytes(d.size() as u32, vb) <= SM90_SHARED_PER_BLOCK_OPTIN {
                            if let Ok(s) = cluster_spec(d, vb, shape) {
                                v.push(s);
                            }
                        }
                    }
                }
            }
            // The single-launch kernel's tiles (32-bit status words, keys <= 64 bits): the
            // smaller ones and the pass kernel's own number of keys per thread (the pass module
            // where the tiles are the same).
            let kb = d.size() as u32;
            let max = onesweep_items(kb, vb);
            let n = ONESWEEP_FUSED_MAX as u64;
            let shape =
                onesweep_pass_shape(kb, vb, n, SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM);
            if let Ok(pass) = onesweep_spec_shape(d, vb, 32, shape, Some(n)) {
                for items in ONESWEEP_FUSED_ITEMS.into_iter().chain([max]) {
                    if items <= max && kb <= 8 {
                        if let Ok(s) = onesweep_fused_spec(d, vb, items, shape, &pass) {
                            v.push(s);
                        }
                    }
                }
            }
        }
    }
    v
}

/// The shape a plan was made for.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PlanKey {
    design: SortAlgorithm,
    key: DType,
    /// 0 for keys only.
    value_bytes: u32,
    /// Values are generated as indices (argsort) rather than copied from the input.
    iota: bool,
    n: usize,
    order: Order,
    begin: u32,
    end: u32,
    digit_bits: u32,
    launch: LaunchMode,
}

impl PlanKey {
    /// Whether the order among keys of equal digit in the first pass (or an MSD pass) is free:
    /// keys only, no permutation out, and the whole key sorted, so that keys of equal image are
    /// equal and nothing earlier fixed an order among them. Such passes rank without ballots
    /// (`unstable` in kernels/radix_sort_onesweep.cu).
    fn order_free(&self) -> bool {
        self.value_bytes == 0
            && !self.iota
            && self.begin == 0
            && self.end == self.key.size() as u32 * 8
    }
}

struct ThreePhaseKernels {
    to_radix: CudaFunction,
    from_radix: CudaFunction,
    iota: Option<CudaFunction>,
    local_sort: CudaFunction,
    scatter: CudaFunction,
    scan: ModuleSpec,
}

struct ThreePhase {
    k: ThreePhaseKernels,
    tiles: u64,
    a_keys: CudaSlice<u8>,
    t_keys: CudaSlice<u8>,
    a_vals: Option<CudaSlice<u8>>,
    t_vals: Option<CudaSlice<u8>>,
    hist: CudaSlice<u8>,
    scan: ScanScratch,
}

/// The onesweep sort's digit histogram kernel, the passes one block counts and the shared
/// memory that takes, its threads and how many of its blocks an SM holds.
struct DigitHistogram {
    f: CudaFunction,
    per_block: u32,
    shared: u32,
    threads: u32,
    /// Blocks an SM holds at once.
    per_sm: u32,
}

/// Packed pairs' last pass on its own, wider tile ([`crate::tuning::cuda::PACKED_LAST_SHAPE`]):
/// the pass kernel of the packed module built for that tile, and its grid.
struct LastPass {
    pass: CudaFunction,
    shape: OnesweepShape,
    shared: u32,
    tiles: u64,
}

struct Onesweep {
    /// The counting sort, when the input is small enough for it (taken before the others).
    rank: Option<CudaFunction>,
    /// The cluster sort, when the input fits its clusters (taken after the counting sort,
    /// before the single launch).
    cluster: Option<ClusterSort>,
    /// The single-launch kernel and its grid (one block per tile), when this shape fits one
    /// resident grid.
    fused: Option<(CudaFunction, u64)>,
    /// The digit histogram kernel (lane-private counters) and its passes per launch.
    histogram: DigitHistogram,
    /// Zeroes the counts, tile counters and first status words before a sort.
    clear: CudaFunction,
    scan_histogram: CudaFunction,
    pass: CudaFunction,
    /// Packed pairs: `pass` (and the digit scan and clear) come from the packed module, whose
    /// tile is `shape`, and `keys` hold 8-byte elements (no `vals`). The digit histogram reads
    /// the 4-byte keys as any pair sort's does.
    packed: bool,
    /// Packed pairs: the last pass's kernel when it takes a wider tile than the other passes
    /// (boxed: most plans have none).
    last: Option<Box<LastPass>>,
    /// The pass kernel's tile and its dynamic shared memory.
    shape: OnesweepShape,
    pass_shared: u32,
    /// For sorts where every pass is skipped: generates the indices of an argsort.
    iota: Option<CudaFunction>,
    tiles: u64,
    passes: u32,
    status_bytes: usize,
    /// Ping-pong buffers between passes.
    keys: [CudaSlice<u8>; 2],
    vals: Option<[CudaSlice<u8>; 2]>,
    /// Pass kernels: digit histograms then offsets, `passes * RADIX` u32, then one tile
    /// counter per pass (cleared before every sort). Single launch (`fused`): the barrier's
    /// counter and generation, the counts, then every pass's status words; zeroed when the plan
    /// is made and left zeroed by every launch.
    meta: CudaSlice<u8>,
    /// Look-back status words of two consecutive passes (with the hybrid sort, 256 tiles more:
    /// its segmented pass has up to one partial tile per top-8 bucket).
    status: [CudaSlice<u8>; 2],
    /// The hybrid sort, where it applies to this shape (boxed: most plans have none).
    hybrid: Option<Box<Hybrid>>,
}

/// The cluster sort's kernels and shape: the clusters' sort, and the merge of their sorted
/// segments where there is more than one.
struct ClusterSort {
    sort: CudaFunction,
    merge: CudaFunction,
    shape: ClusterShape,
}

/// The hybrid sort's kernels and buffer (MSD on the top 16 bits, then in-bucket sorts).
struct Hybrid {
    histogram: CudaFunction,
    scan: CudaFunction,
    /// The pass on bits 16-23 inside each top-8 bucket (none for packed pairs).
    segmented: Option<CudaFunction>,
    local: CudaFunction,
    /// Packed pairs (4-byte keys and values): the MSD passes are the packed module's passes on
    /// bits 16-23 and then 24-31, and `local` is that module's in-bucket kernel, which reads
    /// the packed elements and writes the two output arrays.
    packed: bool,
    /// The in-bucket kernel's block and shared memory.
    block: HybridLocalShape,
    local_shared: u32,
    /// `HYB_WORDS` u32: bucket counts (zeroed when made, left zeroed by every sort), offsets,
    /// the segmented pass's tiles, the largest chunk, tile counters.
    meta: CudaSlice<u8>,
}

/// A onesweep pass kernel and its launch shape.
struct PassKernel<'a> {
    function: &'a CudaFunction,
    tiles: u64,
    threads: u32,
    shared: u32,
}

impl LastPass {
    fn kernel(&self) -> PassKernel<'_> {
        PassKernel {
            function: &self.pass,
            tiles: self.tiles,
            threads: self.shape.threads,
            shared: self.shared,
        }
    }
}

impl Onesweep {
    /// The pass kernel of every pass (the last too, unless it has its own tile).
    fn pass_kernel(&self) -> PassKernel<'_> {
        PassKernel {
            function: &self.pass,
            tiles: self.tiles,
            threads: self.shape.threads,
            shared: self.pass_shared,
        }
    }
}

/// The arguments of one onesweep pass: (source, destination) key and value addresses (values
/// 0 where there are none), this pass's and the next pass's status words, its tile counter and
/// digit offsets, the digit's `shift` and width `bits`; `first` applies the input transform,
/// `last` the output transform, `iota` generates the values (an argsort's first pass), `free`
/// ranks without ballots.
struct PassArgs {
    keys: (u64, u64),
    vals: (u64, u64),
    status: (u64, u64),
    counter: u64,
    offsets: u64,
    n: u64,
    shift: u32,
    bits: u32,
    desc: u32,
    first: bool,
    last: bool,
    iota: bool,
    free: bool,
}

/// Boxed: both are a few hundred bytes, of different sizes.
enum Design {
    ThreePhase(Box<ThreePhase>),
    Onesweep(Box<Onesweep>),
}

/// Everything one sort shape needs on the device.
pub struct SortPlan {
    key: PlanKey,
    design: Design,
    /// Staging buffers for host-slice sorts (stable addresses, so a graph can be reused).
    keys_io: Option<CudaSlice<u8>>,
    vals_io: Option<CudaSlice<u8>>,
    /// The captured sequence and the (keys_in, vals_in, keys_out, vals_out) it was captured for.
    graph: Option<(CudaGraph, [u64; 4])>,
    /// Auto launch mode: the buffers of the previous run, so that a run on the same ones
    /// captures a graph.
    last_io: Option<[u64; 4]>,
}

// SAFETY: a plan's CUDA graph may not be used from two threads at once; a plan is only ever
// used through `&mut` (or after being taken out of the backend's mutex-guarded cache), so
// moving it between threads never makes such use concurrent.
unsafe impl Send for SortPlan {}

impl SortPlan {
    /// Number of digit passes the plan runs (before any skipping).
    pub fn passes(&self) -> u32 {
        (self.key.end - self.key.begin).div_ceil(self.key.digit_bits)
    }

    /// The sort variant the plan runs.
    pub fn algorithm(&self) -> SortAlgorithm {
        self.key.design
    }

    /// The kernels the plan runs for its length: `counting` (the all-pairs counting sort of
    /// small inputs), `cluster` (thread-block clusters, and merges where there are several),
    /// `single-launch` (the cooperative onesweep kernel), `passes` (the onesweep digit
    /// histogram and pass kernels), `packed passes` (the same, with 4-byte keys and values
    /// moved as one 8-byte element), `hybrid` (MSD passes, then in-bucket sorts; each sort whose
    /// buckets are too uneven runs the passes instead), `packed hybrid` (the same for packed
    /// pairs), `three-phase`, or `identity` (an empty bit range: a copy).
    pub fn path(&self) -> &'static str {
        match &self.design {
            Design::ThreePhase(_) => "three-phase",
            Design::Onesweep(os) if os.passes == 0 => "identity",
            Design::Onesweep(os) if os.rank.is_some() => "counting",
            Design::Onesweep(os) if os.cluster.is_some() => "cluster",
            Design::Onesweep(os) if os.fused.is_some() => "single-launch",
            Design::Onesweep(os) if os.hybrid.as_ref().is_some_and(|h| h.packed) => "packed hybrid",
            Design::Onesweep(os) if os.hybrid.is_some() => "hybrid",
            Design::Onesweep(os) if os.packed => "packed passes",
            Design::Onesweep(_) => "passes",
        }
    }

    /// Whether the plan holds a captured graph (graph mode, or auto mode once a one-kernel
    /// sort ran twice on the same buffers): its next run on those buffers replays it.
    pub fn has_graph(&self) -> bool {
        self.graph.is_some()
    }

    /// Number of keys the plan sorts.
    pub fn len(&self) -> usize {
        self.key.n
    }

    pub fn is_empty(&self) -> bool {
        self.key.n == 0
    }
}

impl CudaBackend {
    /// The design and digit width a sort request resolves to.
    fn resolve(&self, opts: &SortOptions) -> Result<(SortAlgorithm, u32)> {
        match opts.algorithm {
            SortAlgorithm::Auto | SortAlgorithm::Onesweep => {
                let b = opts.digit_bits.unwrap_or(ONESWEEP_RADIX_BITS);
                if b != ONESWEEP_RADIX_BITS {
                    if opts.algorithm == SortAlgorithm::Auto {
                        // An explicit digit width picks the seeds' design, which takes 1-8 bits.
                        return self.resolve(&opts.clone().algorithm(SortAlgorithm::ThreePhase));
                    }
                    return Err(Error::Unsupported(format!(
                        "the onesweep sort uses {ONESWEEP_RADIX_BITS}-bit digits, not {b}"
                    )));
                }
                Ok((SortAlgorithm::Onesweep, b))
            }
            SortAlgorithm::ThreePhase => {
                let b = opts.digit_bits.unwrap_or(THREE_PHASE_DIGIT_BITS);
                if !THREE_PHASE_DIGIT_WIDTHS.contains(&b) {
                    return Err(Error::Unsupported(format!(
                        "the three-phase sort takes digit widths of 1, 2, 4 or 8 bits, not {b}"
                    )));
                }
                Ok((SortAlgorithm::ThreePhase, b))
            }
            a => Err(Error::Unsupported(format!(
                "sort variant '{a}' does not run on the CUDA backend"
            ))),
        }
    }

    fn check_sort<K: RadixKey>(
        &self,
        n: usize,
        value_bytes: u32,
        opts: &SortOptions,
    ) -> Result<(SortAlgorithm, u32)> {
        let r = self.resolve(opts)?;
        key_defines(K::DTYPE)?;
        if n as u64 > u32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "the CUDA sorts take at most 2^32 - 1 keys, got {n}"
            )));
        }
        if ![0, 1, 2, 4, 8, 16].contains(&value_bytes) {
            return Err(Error::Unsupported(format!("values of {value_bytes} bytes")));
        }
        Ok(r)
    }

    fn make_plan(&self, key: PlanKey, staging: bool) -> Result<SortPlan> {
        let n = key.n;
        let kb = key.key.size();
        let vb = key.value_bytes as usize;
        let design = match key.design {
            SortAlgorithm::Onesweep => Design::Onesweep(Box::new(self.make_onesweep(&key)?)),
            _ => Design::ThreePhase(Box::new(self.make_three_phase(&key)?)),
        };
        Ok(SortPlan {
            keys_io: if staging {
                Some(self.alloc::<u8>(n * kb, "key staging")?)
            } else {
                None
            },
            vals_io: if staging && vb > 0 && !key.iota {
                Some(self.alloc::<u8>(n * vb, "value staging")?)
            } else {
                None
            },
            graph: None,
            last_io: None,
            design,
            key,
        })
    }

    fn iota_kernel(&self, key: &PlanKey) -> Result<Option<CudaFunction>> {
        if !key.iota {
            return Ok(None);
        }
        let name = if key.value_bytes == 4 {
            "iota_u32"
        } else {
            "iota_u64"
        };
        self.function(&keys_spec(key.key)?, name).map(Some)
    }

    fn make_three_phase(&self, key: &PlanKey) -> Result<ThreePhase> {
        let ks = keys_spec(key.key)?;
        let ts = three_phase_spec(key.key, key.value_bytes)?;
        let k = ThreePhaseKernels {
            to_radix: self.function(&ks, "keys_to_radix")?,
            from_radix: self.function(&ks, "radix_to_keys")?,
            iota: self.iota_kernel(key)?,
            local_sort: self.function(&ts, "three_phase_local_sort")?,
            scatter: self.function(&ts, "three_phase_scatter")?,
            scan: scan_spec(DType::U32)?,
        };
        // Load the scan kernels now: nothing may be loaded while a graph is being captured.
        self.function(&k.scan, "scan_tiles")?;
        self.function(&k.scan, "scan_tile_sums")?;
        let n = key.n;
        let kb = key.key.size();
        let vb = key.value_bytes as usize;
        let tiles = (n as u64).div_ceil(THREE_PHASE_TILE as u64).max(1);
        let padded = (tiles * THREE_PHASE_TILE as u64) as usize;
        let hist_len = (tiles << key.digit_bits) as usize;
        let opt_alloc = |bytes: usize, what: &str| -> Result<Option<CudaSlice<u8>>> {
            if vb == 0 {
                Ok(None)
            } else {
                self.alloc::<u8>(bytes, what).map(Some)
            }
        };
        Ok(ThreePhase {
            k,
            tiles,
            a_keys: self.alloc::<u8>(n * kb, "sort keys")?,
            t_keys: self.alloc::<u8>(padded * kb, "sorted tiles")?,
            a_vals: opt_alloc(n * vb, "sort values")?,
            t_vals: opt_alloc(padded * vb, "sorted tile values")?,
            hist: self.alloc::<u8>(hist_len * 4, "tile digit histograms")?,
            scan: self.scan_scratch(hist_len as u64, 4)?,
        })
    }

    /// The pass kernel's tile on this device for `n` keys of `key` with `value_bytes` values.
    fn onesweep_shape(&self, key: DType, value_bytes: u32, n: u64) -> OnesweepShape {
        onesweep_pass_shape(
            key.size() as u32,
            value_bytes,
            n,
            self.info.shared_per_block_optin,
            self.info.shared_per_sm,
        )
    }

    /// The tile of packed pairs' passes (all but the last) on this device for `n` elements.
    pub fn packed_shape(&self, n: u64) -> OnesweepShape {
        packed_pass_shape(
            &self.info.name,
            n,
            self.info.shared_per_block_optin,
            self.info.shared_per_sm,
        )
    }

    fn make_onesweep(&self, key: &PlanKey) -> Result<Onesweep> {
        let n = key.n;
        // Counts of 30 bits fit the 32-bit status words below 2^30 keys.
        let status_bits = if (n as u64) < (1 << 30) { 32 } else { 64 };
        let shape = self.onesweep_shape(key.key, key.value_bytes, n as u64);
        let spec =
            onesweep_spec_shape(key.key, key.value_bytes, status_bits, shape, Some(n as u64))?;
        let pass_shared = shape.shared_bytes(key.key.size() as u32, key.value_bytes);
        let passes = (key.end - key.begin).div_ceil(ONESWEEP_RADIX_BITS);
        let radix = 1usize << ONESWEEP_RADIX_BITS;
        let kb = key.key.size();
        let vb = key.value_bytes as usize;
        let two = |bytes: usize, what: &str| -> Result<[CudaSlice<u8>; 2]> {
            Ok([
                self.alloc::<u8>(bytes, what)?,
                self.alloc::<u8>(bytes, what)?,
            ])
        };
        // One cooperative launch when every tile's block fits on the device at once.
        let fused = if key.launch != LaunchMode::Graph
            && n <= ONESWEEP_FUSED_MAX
            && status_bits == 32
            && (1..=8).contains(&passes)
            // The kernel exists only where a full key's digit counts fit its counters (<= 64 bits).
            && key.key.size() <= 8
        {
            // Small inputs take smaller tiles, so that more SMs share the work.
            let max = onesweep_items(kb as u32, key.value_bytes);
            let items = onesweep_fused_items(n, self.info.sm_count as usize, max);
            let fspec = onesweep_fused_spec(key.key, key.value_bytes, items, shape, &spec)?;
            let ftiles = (n as u64)
                .div_ceil((ONESWEEP_THREADS * items) as u64)
                .max(1);
            let f = self.function(&fspec, "onesweep_fused")?;
            let per_sm = f
                .occupancy_max_active_blocks_per_multiprocessor(ONESWEEP_THREADS, 0, None)
                .map_err(|e| driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
            (ftiles <= per_sm as u64 * self.info.sm_count as u64).then_some((f, ftiles))
        } else {
            None
        };
        let meta_words = if let Some((_, ftiles)) = &fused {
            2 + passes as usize * radix + passes as usize * *ftiles as usize * radix
        } else {
            passes as usize * radix + passes as usize
        };
        let rank = if n <= rank_sort_limit(kb) {
            Some(self.function(&rank_sort_spec(key.key, key.value_bytes)?, "rank_sort")?)
        } else {
            None
        };
        // Only where the counting sort does not take the input; a device that refuses the
        // cluster (its attributes or occupancy query fail) keeps the single launch.
        let cluster = if rank.is_none() && (1..=8).contains(&passes) {
            self.cluster_kernel(key).unwrap_or(None)
        } else {
            None
        };
        // The kernels below run only where no one-kernel sort takes the length.
        let one_kernel = rank.is_some() || cluster.is_some() || fused.is_some();
        // Packed pairs: their own module and tile (and the packed hybrid, where the hybrid
        // applies).
        let packed = kb == 4
            && vb == 4
            && passes >= 2
            && !one_kernel
            && self.packed_min().is_some_and(|m| n >= m);
        let hybrid = if one_kernel {
            None
        } else {
            self.make_hybrid(key, &spec, status_bits, pass_shared, packed)?
        };
        let packed_pass = if packed {
            let s = self.packed_shape(n as u64);
            Some((
                packed_spec(key.key, status_bits, s, hybrid.as_ref().map(|_| n as u64))?,
                s,
            ))
        } else {
            None
        };
        let (pass_spec, shape, pass_shared) = match &packed_pass {
            Some((ps, s)) => (ps, *s, s.shared_bytes(8, 0)),
            None => (&spec, shape, pass_shared),
        };
        let tiles = (n as u64).div_ceil(shape.tile() as u64).max(1);
        // Packed pairs' last pass on a wider tile, where the device holds it. Only wider: each
        // pass clears the next pass's status words of its own tiles, so the last pass may use
        // no more tiles than the pass before it.
        let last =
            match packed_last_shape(self.info.shared_per_block_optin, self.info.shared_per_sm) {
                Some(ls) if packed && ls.tile() > shape.tile() => {
                    let shared = ls.shared_bytes(8, 0);
                    let spec = packed_spec(key.key, status_bits, ls, None)?;
                    Some(Box::new(LastPass {
                        pass: self.onesweep_pass_function(&spec, ls, shared)?,
                        shape: ls,
                        shared,
                        tiles: (n as u64).div_ceil(ls.tile() as u64).max(1),
                    }))
                }
                _ => None,
            };
        let segmented = hybrid.as_ref().is_some_and(|h| h.segmented.is_some());
        let status_tiles = tiles as usize + if segmented { 256 } else { 0 };
        let status_bytes = status_tiles * radix * (status_bits / 8) as usize;
        let os = Onesweep {
            rank,
            cluster,
            fused,
            histogram: self.digit_histogram(&spec, passes, onesweep_hist_shape().passes)?,
            clear: self.function(pass_spec, "onesweep_clear")?,
            scan_histogram: self.function(pass_spec, "onesweep_scan_histogram")?,
            pass: self.onesweep_pass_function(pass_spec, shape, pass_shared)?,
            packed,
            last,
            shape,
            pass_shared,
            iota: self.iota_kernel(key)?,
            tiles,
            passes,
            status_bytes,
            keys: two(n * if packed { 8 } else { kb }, "sort keys")?,
            vals: if vb > 0 && !packed {
                Some(two(n * vb, "sort values")?)
            } else {
                None
            },
            meta: self.alloc::<u8>(meta_words * 4, "digit histograms")?,
            status: two(status_bytes, "look-back status")?,
            hybrid,
        };
        if os.fused.is_some() {
            // The single-launch kernel needs its barrier, counts and status words zeroed; it
            // leaves them zeroed, so this is the only clearing.
            self.memset0(dptr(&os.meta, &self.stream), meta_words * 4)?;
        }
        Ok(os)
    }

    /// The hybrid sort's kernels and buffer for `key`, or `None` where it does not apply: graph
    /// launches (it reads the largest chunk back before its passes), keys other than 32 and 64
    /// bits, a bit range short of the whole key, inputs shorter than the backend's hybrid
    /// minimum ([`crate::tuning::cuda::hybrid_min`]) or too long
    /// for 32-bit status words, devices whose blocks cannot have 128 KiB of shared memory.
    /// `packed`: the plan's passes run packed pairs, so the hybrid is the packed one. (Not
    /// called for lengths that a one-kernel sort takes: that sort would run first.)
    fn make_hybrid(
        &self,
        key: &PlanKey,
        spec: &ModuleSpec,
        status_bits: u32,
        pass_shared: u32,
        packed: bool,
    ) -> Result<Option<Box<Hybrid>>> {
        let kb = key.key.size() as u32;
        let (block, local_shared) = if packed {
            packed_hybrid_shape(key.n as u64)
        } else {
            hybrid_local_shape(kb, key.value_bytes, key.n as u64)
        };
        if key.launch == LaunchMode::Graph
            || !has_hybrid(key.key, status_bits)
            || key.begin != 0
            || key.end != kb * 8
            || self
                .hybrid_min_for(kb, key.value_bytes > 0)
                .is_none_or(|m| key.n < m.max(2))
            || self.info.shared_per_block_optin < HYB_HIST_SHARED.max(local_shared)
        {
            return Ok(None);
        }
        let histogram = self.function(spec, "hybrid_histogram16")?;
        allow_dynamic_shared(&histogram, HYB_HIST_SHARED, "hybrid_histogram16")?;
        // (The packed hybrid runs both MSD passes over all the keys: no segmented pass.)
        let segmented = if packed {
            None
        } else {
            let f = self.function(spec, "onesweep_pass_segmented")?;
            allow_dynamic_shared(&f, pass_shared, "onesweep_pass_segmented")?;
            Some(f)
        };
        let local = if packed {
            let shape = self.packed_shape(key.n as u64);
            self.function(
                &packed_spec(key.key, status_bits, shape, Some(key.n as u64))?,
                "hybrid_local_sort",
            )?
        } else {
            self.function(spec, "hybrid_local_sort")?
        };
        allow_dynamic_shared(&local, local_shared, "hybrid_local_sort")?;
        let meta = self.alloc::<u8>(HYB_WORDS * 4, "hybrid sort counts")?;
        // The bucket counts start zeroed; every sort's scan leaves them zeroed.
        self.memset0(dptr(&meta, &self.stream), HYB_WORDS * 4)?;
        Ok(Some(Box::new(Hybrid {
            histogram,
            scan: self.function(spec, "hybrid_scan16")?,
            segmented,
            local,
            packed,
            block,
            local_shared,
            meta,
        })))
    }

    /// The hybrid sort of `io` (see kernels/radix_sort_onesweep.cu): the bucket histogram and
    /// its scan, then, where every chunk of buckets fits an in-bucket block, the two MSD passes
    /// (for packed pairs the packed passes, in LSD order) and the in-bucket sorts. `Ok(false)`:
    /// a chunk is too large (skewed keys), nothing was written, and the caller runs the LSD
    /// sort.
    fn enqueue_hybrid(&self, k: &PlanKey, os: &Onesweep, h: &Hybrid, io: [u64; 4]) -> Result<bool> {
        let s = &self.stream;
        let n = k.n as u64;
        let desc = (k.order == Order::Descending) as u32;
        let radix = 1u64 << ONESWEEP_RADIX_BITS;
        let meta = dptr(&h.meta, s);
        let free = (k.order_free() && self.free_rank()) as u32;
        let status = [dptr(&os.status[0], s), dptr(&os.status[1], s)];
        let keys = [dptr(&os.keys[0], s), dptr(&os.keys[1], s)];
        let has_vals = k.value_bytes > 0;
        let vals = os
            .vals
            .as_ref()
            .map_or([0, 0], |v| [dptr(&v[0], s), dptr(&v[1], s)]);
        let v = |x: u64| if has_vals { x } else { 0 };
        let key_bits = k.key.size() as u32 * 8;
        let tile = os.shape.tile();
        // (The packed hybrid's blocks from 2^26 pairs make this one bucket a chunk.)
        let chunk_log2 = hybrid_chunk_log2(n, h.block.cap(), h.block.fill_16ths);
        // The first pass's status words, the tile counters, and the segmented pass's status
        // words past the first pass's tiles (that pass clears the others; the packed hybrid's
        // second pass has no more tiles than its first).
        let p1_words = os.tiles * radix;
        let seg_words = if h.segmented.is_some() {
            256 * radix
        } else {
            0
        };
        self.launch(
            &os.clear,
            "onesweep_clear",
            p1_words
                .div_ceil(256 * 4 * 4)
                .clamp(1, 4 * self.info.sm_count.max(1) as u64) as u32,
            256,
            0,
            &[
                KArg::U64(meta + HYB_COUNTERS as u64 * 4),
                KArg::U32(2),
                KArg::U64(status[0]),
                KArg::U64(p1_words),
                KArg::U64(status[1] + p1_words * 4),
                KArg::U64(seg_words),
            ],
        )?;
        self.launch_chained(
            &h.histogram,
            "hybrid_histogram16",
            self.info.sm_count.max(1),
            HYB_HIST_THREADS,
            HYB_HIST_SHARED,
            &[
                KArg::U64(io[0]),
                KArg::U64(n),
                KArg::U64(meta),
                KArg::U32(desc),
            ],
        )?;
        self.launch_chained(
            &h.scan,
            "hybrid_scan16",
            1,
            HYB_SCAN_THREADS,
            0,
            &[
                KArg::U64(meta),
                KArg::U64(n),
                KArg::U32(tile),
                KArg::U32(chunk_log2),
                KArg::U32(h.packed as u32),
            ],
        )?;
        // The segmented pass's tile count and the largest chunk.
        let mut w = [0u32; 2];
        s.memcpy_dtoh(
            &h.meta
                .slice((HYB_TILE_START + 256) * 4..(HYB_TILE_START + 258) * 4),
            bytemuck::cast_slice_mut::<u32, u8>(&mut w),
        )
        .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
        s.synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
        let [seg_tiles, largest] = w;
        if largest > h.block.cap() {
            return Ok(false);
        }
        if h.packed {
            // Packed pairs: the packed module's pass on bits 16-23 (it packs the input into
            // scratch 0), then on bits 24-31 (scratch 0 to scratch 1, still packed), in LSD
            // order with their offsets from the bucket scan; then the in-bucket sorts of the
            // packed elements write the keys and values (the value argument is unused).
            let counters = meta + HYB_COUNTERS as u64 * 4;
            // Pass `i` (0: it packs, and generates an argsort's indices) from `src` (keys,
            // values) to `dst` by the digit at `shift`, with the offsets at word `offsets`.
            let pass = |i: usize, src: (u64, u64), dst: u64, offsets: usize, shift: u32| PassArgs {
                keys: (src.0, dst),
                vals: (src.1, 0),
                status: (status[i], status[1 - i]),
                counter: counters + 4 * i as u64,
                offsets: meta + offsets as u64 * 4,
                n,
                shift,
                bits: ONESWEEP_RADIX_BITS,
                desc,
                first: i == 0,
                last: false,
                iota: i == 0 && k.iota,
                free: false,
            };
            let vin = if k.iota { 0 } else { io[1] };
            self.launch_pass(
                &os.pass_kernel(),
                &pass(0, (io[0], vin), keys[0], HYB_MID8, 16),
            )?;
            self.launch_pass(
                &os.pass_kernel(),
                &pass(1, (keys[0], 0), keys[1], HYB_TOP8, 24),
            )?;
            let bufs = [keys[1], io[2], 0, io[3]];
            self.enqueue_hybrid_local(h, bufs, n, chunk_log2, 16, desc, 0)?;
            return Ok(true);
        }
        if free != 0 {
            self.note_free_rank();
        }
        // The top 8 bits, from the input into scratch 0 (with the input transform).
        self.launch_pass(
            &os.pass_kernel(),
            &PassArgs {
                keys: (io[0], keys[0]),
                vals: (if k.iota { 0 } else { v(io[1]) }, v(vals[0])),
                status: (status[0], status[1]),
                counter: meta + HYB_COUNTERS as u64 * 4,
                offsets: meta + HYB_TOP8 as u64 * 4,
                n,
                shift: key_bits - ONESWEEP_RADIX_BITS,
                bits: ONESWEEP_RADIX_BITS,
                desc,
                first: true,
                last: false,
                iota: k.iota,
                free: free != 0,
            },
        )?;
        // The next 8 bits inside each top-8 bucket, scratch 0 to scratch 1.
        if let Some(segmented) = h.segmented.as_ref().filter(|_| seg_tiles > 0) {
            self.launch_chained(
                segmented,
                "onesweep_pass_segmented",
                seg_tiles,
                os.shape.threads,
                os.pass_shared,
                &[
                    KArg::U64(keys[0]),
                    KArg::U64(keys[1]),
                    KArg::U64(v(vals[0])),
                    KArg::U64(v(vals[1])),
                    KArg::U64(status[1]),
                    KArg::U64(meta),
                    KArg::U64(meta + (HYB_COUNTERS as u64 + 1) * 4),
                    KArg::U64(n),
                    KArg::U32(key_bits - 2 * ONESWEEP_RADIX_BITS),
                    KArg::U32(free),
                ],
            )?;
        }
        // Each chunk of 16-bit buckets by its low bits, scratch 1 to the output.
        let bufs = [keys[1], io[2], v(vals[1]), v(io[3])];
        self.enqueue_hybrid_local(h, bufs, n, chunk_log2, key_bits - 16, desc, free)?;
        Ok(true)
    }

    /// The hybrid's in-bucket sorts: each chunk of 2^`chunk_log2` 16-bit buckets of
    /// `bufs` = [keys in, keys out, values in, values out] (the kernel's order, not `io`'s)
    /// sorted by its low `low_bits + chunk_log2` bits (`free`: its first pass may rank freely).
    #[allow(clippy::too_many_arguments)]
    fn enqueue_hybrid_local(
        &self,
        h: &Hybrid,
        bufs: [u64; 4],
        n: u64,
        chunk_log2: u32,
        low_bits: u32,
        desc: u32,
        free: u32,
    ) -> Result<()> {
        self.launch_chained(
            &h.local,
            "hybrid_local_sort",
            65_536 >> chunk_log2,
            h.block.threads,
            h.local_shared,
            &[
                KArg::U64(bufs[0]),
                KArg::U64(bufs[1]),
                KArg::U64(bufs[2]),
                KArg::U64(bufs[3]),
                KArg::U64(dptr(&h.meta, &self.stream)),
                KArg::U64(n),
                KArg::U32(chunk_log2),
                KArg::U32(low_bits + chunk_log2),
                KArg::U32(desc),
                KArg::U32(free),
                KArg::U32(hybrid_top_extra()),
            ],
        )
    }

    /// The cluster sort's kernels and shape for `key`, or `None` where it does not apply: a
    /// device before sm_90, more keys than the cluster sort takes, or a cluster the device
    /// cannot place (its occupancy query says none fits). By default an input is split between
    /// clusters only where the device holds all of them at once (clusters that wait for a turn
    /// cost a whole cluster sort each); otherwise one cluster takes it, if it can.
    fn cluster_kernel(&self, key: &PlanKey) -> Result<Option<ClusterSort>> {
        if self.info.compute_capability.0 < 9 || !self.info.target.starts_with("sm_") {
            return Ok(None);
        }
        let (kb, vb) = (key.key.size() as u32, key.value_bytes);
        let passes = (key.end - key.begin).div_ceil(ONESWEEP_RADIX_BITS);
        // Split as the segment asks, else (segment 0) in one cluster.
        let (split, asked) = cluster_sort_segment_limit(kb, vb, passes);
        for segment in [split, 0] {
            let Some(shape) = cluster_sort_shape(
                key.n,
                kb,
                vb,
                self.info.shared_per_block_optin,
                cluster_sort_limit(),
                cluster_sort_threads(),
                segment,
            ) else {
                return Ok(None);
            };
            let spec = cluster_spec(key.key, vb, shape)?;
            let f = self.function(&spec, "cluster_sort")?;
            let bytes = shape.shared_bytes(kb, vb);
            use cudarc::driver::sys::CUfunction_attribute as A;
            allow_dynamic_shared(&f, bytes, "cluster_sort")?;
            if shape.blocks > 8 {
                f.set_attribute(A::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
                    .map_err(|e| driver_err("cuFuncSetAttribute(cluster_sort, cluster size)", e))?;
            }
            let fits = self.max_active_clusters(&f, shape.blocks, shape.threads, bytes)?;
            if fits >= 1 && (asked || fits >= shape.clusters) {
                return Ok(Some(ClusterSort {
                    sort: f,
                    merge: self.function(&spec, "cluster_merge")?,
                    shape,
                }));
            }
            if shape.clusters <= 1 {
                break;
            }
        }
        Ok(None)
    }

    /// Enqueues the whole sort: keys (and values) from `io[0]`/`io[1]` to `io[2]`/`io[3]`.
    /// The inputs are only read; the outputs may equal the inputs.
    fn enqueue_sort(&self, p: &SortPlan, io: [u64; 4]) -> Result<()> {
        match &p.design {
            Design::ThreePhase(tp) => self.enqueue_three_phase(&p.key, tp, io),
            Design::Onesweep(os) => self.enqueue_onesweep(&p.key, os, io),
        }
    }

    fn dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 || dst == src {
            return Ok(());
        }
        // SAFETY: callers pass live device allocations of at least `bytes` bytes each.
        unsafe { dres::memcpy_dtod_async(dst, src, bytes, self.stream.cu_stream()) }
            .map_err(|e| driver_err("cuMemcpyDtoDAsync", e))
    }

    pub(crate) fn memset0(&self, dst: u64, bytes: usize) -> Result<()> {
        // SAFETY: callers pass a live device allocation of at least `bytes` bytes.
        unsafe { dres::memset_d8_async(dst, 0, bytes, self.stream.cu_stream()) }
            .map_err(|e| driver_err("cuMemsetD8Async", e))
    }

    /// The pass kernel of `spec` for tiles of `shape`, allowed their `bytes` of dynamic shared
    /// memory.
    fn onesweep_pass_function(
        &self,
        spec: &ModuleSpec,
        shape: OnesweepShape,
        bytes: u32,
    ) -> Result<CudaFunction> {
        if bytes > self.info.shared_per_block_optin {
            return Err(Error::Unsupported(format!(
                "a onesweep tile of {} x {} needs {bytes} bytes of shared memory; the device \
                 gives a block at most {}",
                shape.threads, shape.items, self.info.shared_per_block_optin
            )));
        }
        let f = self.function(spec, "onesweep_pass")?;
        allow_dynamic_shared(&f, bytes, "onesweep_pass")?;
        Ok(f)
    }

    /// The digit histogram kernel of `spec` for `passes` passes, counting at most `most` of them
    /// per block (fewer where the device's opt-in shared memory holds fewer 32 KiB tables).
    fn digit_histogram(&self, spec: &ModuleSpec, passes: u32, most: u32) -> Result<DigitHistogram> {
        let table = (1u32 << ONESWEEP_RADIX_BITS) * 32 * 4;
        let per_block = passes
            .min(most)
            .min(ONESWEEP_HIST_LANES_PASSES)
            .min(self.info.shared_per_block_optin / table)
            .max(1);
        let threads = onesweep_hist_shape().threads;
        let f = self.function(spec, "onesweep_histogram_lanes")?;
        allow_dynamic_shared(&f, per_block * table, "onesweep_histogram_lanes")?;
        // Asked for each plan: the shared memory depends on the passes counted.
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(
                threads,
                (per_block * table) as usize,
                None,
            )
            .map_err(|e| driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?
            .max(1);
        Ok(DigitHistogram {
            f,
            per_block,
            shared: per_block * table,
            threads,
            per_sm,
        })
    }

    /// Adds the digit counts of every pass of the `n` keys at `keys` (radix images taken with
    /// `desc`) to `hist[pass][digit]` (zeroed by the caller).
    #[allow(clippy::too_many_arguments)]
    fn enqueue_digit_histograms(
        &self,
        h: &DigitHistogram,
        passes: u32,
        keys: u64,
        n: u64,
        hist: u64,
        (begin, end): (u32, u32),
        desc: u32,
        chained: bool,
    ) -> Result<()> {
        // One wave of resident blocks (their counters take most of the shared memory), fewer
        // for small inputs. Passes in groups of `per_block`, all groups in one launch: the
        // blocks split into as many sets as groups, each set reads all the keys and counts one
        // group, and the sets read the same keys at about the same time, so memory sees one
        // read (the L2 serves the others).
        let wave = self.info.sm_count.max(1) * h.per_sm.max(1);
        let most_groups = if hist_one_read() { wave } else { 1 };
        let mut pass0 = 0;
        while pass0 < passes {
            let groups = (passes - pass0).div_ceil(h.per_block).min(most_groups);
            let np = (passes - pass0).min(groups * h.per_block);
            let slices = n
                .div_ceil(h.threads as u64 * 16)
                .clamp(1, (wave / groups) as u64) as u32;
            let grid = slices * groups;
            let args = [
                KArg::U64(keys),
                KArg::U64(n),
                KArg::U64(hist),
                KArg::U32(begin),
                KArg::U32(end),
                KArg::U32(pass0),
                KArg::U32(np),
                KArg::U32(desc),
                KArg::U32(1),
                KArg::U32(groups),
                KArg::U32(h.per_block),
            ];
            let (f, name, t) = (&h.f, "onesweep_histogram_lanes", h.threads);
            if chained {
                self.launch_chained(f, name, grid, t, h.shared, &args)?;
            } else {
                self.launch(f, name, grid, t, h.shared, &args)?;
            }
            pass0 += np;
        }
        Ok(())
    }

    /// The onesweep sort's up-front digit histograms of the `n` keys of type `K` at the device
    /// address `keys` (any element alignment), for `opts`' bit range and order:
    /// `[pass][digit]` counts of 8-bit digits, counting at most `per_block` passes per block
    /// (the groups of passes in one launch, or one launch per group with
    /// `HISTOSORT_HIST_ONE_READ=0`). For tests.
    #[doc(hidden)]
    pub fn onesweep_digit_histograms<K: RadixKey>(
        &self,
        keys: u64,
        n: usize,
        opts: &SortOptions,
        per_block: u32,
    ) -> Result<Vec<u32>> {
        let (begin, end) = opts.bit_range(K::Bits::BITS);
        let passes = (end - begin).div_ceil(ONESWEEP_RADIX_BITS);
        let status_bits = if (n as u64) < (1 << 30) { 32 } else { 64 };
        let shape = self.onesweep_shape(K::DTYPE, 0, n as u64);
        let spec = onesweep_spec_shape(K::DTYPE, 0, status_bits, shape, Some(n as u64))?;
        let h = self.digit_histogram(&spec, passes, per_block)?;
        let words = (passes << ONESWEEP_RADIX_BITS) as usize;
        let _guard = self.lock();
        let hist = self.alloc::<u32>(words, "digit histograms")?;
        let hp = super::dptr(&hist, &self.stream);
        self.memset0(hp, words * 4)?;
        let desc = (opts.order == crate::algorithm::Order::Descending) as u32;
        self.enqueue_digit_histograms(&h, passes, keys, n as u64, hp, (begin, end), desc, false)?;
        let mut out = vec![0u32; words];
        self.stream
            .memcpy_dtoh(&hist, &mut out)
            .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        self.sync()?;
        Ok(out)
    }

    /// The cluster sort: the clusters' sort, then (with more than one cluster) the merges of
    /// their sorted segments, through the plan's scratch buffers `keys` and `vals`.
    fn enqueue_cluster(
        &self,
        k: &PlanKey,
        c: &ClusterSort,
        io: [u64; 4],
        keys: [u64; 2],
        vals: [u64; 2],
    ) -> Result<()> {
        let shape = c.shape;
        let merges = shape.merges();
        let has_vals = k.value_bytes > 0;
        let desc = (k.order == Order::Descending) as u32;
        // The clusters write radix images to scratch where merges follow: merge m reads buffer
        // m % 2 and the last one writes the output.
        let (kout, vout) = if merges == 0 {
            (io[2], io[3])
        } else {
            (keys[0], vals[0])
        };
        // Every cluster reads its whole segment before it writes any of it: in place needs no
        // copy.
        self.launch_cluster(
            &c.sort,
            "cluster_sort",
            shape.clusters,
            shape.blocks,
            shape.threads,
            shape.shared_bytes(k.key.size() as u32, k.value_bytes),
            &[
                KArg::U64(io[0]),
                KArg::U64(kout),
                KArg::U64(if has_vals { io[1] } else { 0 }),
                KArg::U64(if has_vals { vout } else { 0 }),
                KArg::U32(k.n as u32),
                KArg::U32(k.begin),
                KArg::U32(k.end),
                KArg::U32(desc),
                KArg::U32(k.iota as u32),
                KArg::U32((merges > 0) as u32),
            ],
        )?;
        // The sort's bits [begin, end) of the radix image (keys of at most 64 bits): what the
        // merge compares.
        let bits = crate::key::range_mask(k.begin, k.end) as u64;
        let n = k.n as u32;
        let merge = cluster_merge_shape();
        let mut run = shape.segment();
        for m in 0..merges {
            let last = m + 1 == merges;
            let src = (m % 2) as usize;
            let (kd, vd) = if last {
                (io[2], io[3])
            } else {
                (keys[1 - src], vals[1 - src])
            };
            self.launch_chained(
                &c.merge,
                "cluster_merge",
                n.div_ceil(merge.tile()),
                merge.threads,
                0,
                &[
                    KArg::U64(keys[src]),
                    KArg::U64(kd),
                    KArg::U64(if has_vals { vals[src] } else { 0 }),
                    KArg::U64(if has_vals { vd } else { 0 }),
                    KArg::U32(n),
                    KArg::U32(run),
                    KArg::U64(bits),
                    KArg::U32(last as u32),
                    KArg::U32(desc),
                ],
            )?;
            run *= 2;
        }
        Ok(())
    }

    fn enqueue_onesweep(&self, k: &PlanKey, os: &Onesweep, io: [u64; 4]) -> Result<()> {
        let s = &self.stream;
        let n = k.n as u64;
        let desc = (k.order == Order::Descending) as u32;
        let radix = 1u64 << ONESWEEP_RADIX_BITS;
        let meta = dptr(&os.meta, s);
        let counters = meta + os.passes as u64 * radix * 4;
        let status = [dptr(&os.status[0], s), dptr(&os.status[1], s)];
        let keys = [dptr(&os.keys[0], s), dptr(&os.keys[1], s)];
        let vals = os
            .vals
            .as_ref()
            .map_or([0, 0], |v| [dptr(&v[0], s), dptr(&v[1], s)]);
        let has_vals = k.value_bytes > 0;
        // The first pass of a sort whose order among equal digits is free ranks without ballots.
        let free = k.order_free() && self.free_rank();

        if os.passes == 0 {
            // An empty bit range: every key compares equal, the stable sort is the identity.
            return self.identity_sort(k, os.iota.as_ref(), io);
        }
        // The small inputs' one-kernel sorts (counting, cluster) take the same arguments.
        let small_args = |kin: u64, vin: u64| {
            [
                KArg::U64(kin),
                KArg::U64(io[2]),
                KArg::U64(if has_vals { vin } else { 0 }),
                KArg::U64(if has_vals { io[3] } else { 0 }),
                KArg::U32(n as u32),
                KArg::U32(k.begin),
                KArg::U32(k.end),
                KArg::U32(desc),
                KArg::U32(k.iota as u32),
            ]
        };
        // Small inputs: one launch of the counting sort.
        if let Some(f) = &os.rank {
            let (mut kin, mut vin) = (io[0], io[1]);
            // Every block of the counting sort reads all the keys while other blocks write
            // theirs: in place, the input is first copied to the plan's scratch.
            if io[0] == io[2] || (has_vals && !k.iota && io[1] == io[3]) {
                self.dtod(keys[0], io[0], k.n * k.key.size())?;
                kin = keys[0];
                if has_vals && !k.iota {
                    self.dtod(vals[0], io[1], k.n * k.value_bytes as usize)?;
                    vin = vals[0];
                }
            }
            return self.launch(
                f,
                "rank_sort",
                n.div_ceil(32) as u32,
                RANK_SORT_THREADS,
                0,
                &small_args(kin, vin),
            );
        }
        if let Some(c) = &os.cluster {
            return self.enqueue_cluster(k, c, io, keys, vals);
        }
        if let Some((fused, ftiles)) = &os.fused {
            // No clearing: the kernel leaves `meta` as zeroed as make_onesweep allocated it.
            return self.launch_cooperative(
                fused,
                "onesweep_fused",
                *ftiles as u32,
                ONESWEEP_THREADS,
                &[
                    KArg::U64(io[0]),
                    KArg::U64(io[2]),
                    KArg::U64(if has_vals { io[1] } else { 0 }),
                    KArg::U64(if has_vals { io[3] } else { 0 }),
                    KArg::U64(keys[0]),
                    KArg::U64(keys[1]),
                    KArg::U64(vals[0]),
                    KArg::U64(vals[1]),
                    KArg::U64(meta),
                    KArg::U64(n),
                    KArg::U32(k.begin),
                    KArg::U32(k.end),
                    KArg::U32(desc),
                    KArg::U32(k.iota as u32),
                    KArg::U32((io[0] == io[2]) as u32),
                ],
            );
        }
        if let Some(h) = &os.hybrid {
            let took = self.enqueue_hybrid(k, os, h, io)?;
            self.hybrid_runs[!took as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if took && h.packed {
                self.hybrid_runs[2].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            if took {
                return Ok(());
            }
        }
        if os.packed {
            self.packed_runs
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        // The chain: clear, digit histograms, digit scan, passes. The clear is a plain launch
        // (it waits for whatever came before in the stream); every later kernel is chained to
        // the one before it (`launch_chained`).
        let meta_words = os.passes * radix as u32 + os.passes;
        let status_words = (os.status_bytes / 4) as u64;
        let clear_grid = status_words
            .max(meta_words as u64)
            .div_ceil(256 * 4 * 4)
            .clamp(1, 4 * self.info.sm_count.max(1) as u64) as u32;
        self.launch(
            &os.clear,
            "onesweep_clear",
            clear_grid,
            256,
            0,
            &[
                KArg::U64(meta),
                KArg::U32(meta_words),
                KArg::U64(status[0]),
                KArg::U64(status_words),
                KArg::U64(0),
                KArg::U64(0),
            ],
        )?;
        self.enqueue_digit_histograms(
            &os.histogram,
            os.passes,
            io[0],
            n,
            meta,
            (k.begin, k.end),
            desc,
            true,
        )?;
        self.launch_chained(
            &os.scan_histogram,
            "onesweep_scan_histogram",
            os.passes,
            os.shape.threads,
            0,
            &[KArg::U64(meta)],
        )?;
        // Pass number `i` of the launch sequence sorts by digit `p` from `src` to `dst`
        // ((keys, values) device addresses).
        let pass = |i: usize, p: u32, src: (u64, u64), dst: (u64, u64), first: bool, last: bool| {
            let shift = k.begin + p * ONESWEEP_RADIX_BITS;
            let w = ONESWEEP_RADIX_BITS.min(k.end - shift);
            if first && free {
                self.note_free_rank();
            }
            let f = match &os.last {
                Some(l) if last => l.kernel(),
                _ => os.pass_kernel(),
            };
            let v = |x: u64| if has_vals { x } else { 0 };
            self.launch_pass(
                &f,
                &PassArgs {
                    keys: (src.0, dst.0),
                    vals: (v(src.1), v(dst.1)),
                    status: (status[i % 2], status[(i + 1) % 2]),
                    counter: counters + 4 * i as u64,
                    offsets: meta + p as u64 * radix * 4,
                    n,
                    shift,
                    bits: w,
                    desc,
                    first,
                    last,
                    iota: first && k.iota,
                    free: first && free,
                },
            )
        };
        let (inp, out) = ((io[0], io[1]), (io[2], io[3]));
        let scratch = |i: usize| (keys[i % 2], vals[i % 2]);
        // Passes whose digit is the same for every key are skipped. The digit offsets are read
        // back on the side stream while the first pass runs, so the GPU never waits for the
        // host; the first pass therefore always runs (into scratch), and when no later pass is
        // needed it runs once more as the last pass (the stable sort by a digit the keys are
        // already sorted by is the identity), which applies the output transform.
        if k.launch != LaunchMode::Graph && k.n >= ONESWEEP_SKIP_MIN && os.passes >= 2 {
            let ready = s
                .record_event(None)
                .map_err(|e| driver_err("cuEventRecord", e))?;
            pass(0, 0, inp, scratch(0), true, false)?;
            let mut h = vec![0u32; (os.passes as u64 * radix) as usize];
            self.side
                .wait(&ready)
                .map_err(|e| driver_err("cuStreamWaitEvent", e))?;
            self.side
                .memcpy_dtoh(
                    &os.meta.slice(0..h.len() * 4),
                    bytemuck::cast_slice_mut::<u32, u8>(&mut h),
                )
                .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
            self.side
                .synchronize()
                .map_err(|e| driver_err("cuStreamSynchronize", e))?;
            let r = radix as usize;
            let later: Vec<u32> = (1..os.passes)
                .filter(|&p| !digit_is_shared(&h[p as usize * r..(p as usize + 1) * r], n))
                .collect();
            if later.is_empty() {
                return pass(1, 0, scratch(0), out, false, true);
            }
            for (j, &p) in later.iter().enumerate() {
                let i = j + 1;
                let last = j + 1 == later.len();
                pass(
                    i,
                    p,
                    scratch(i - 1),
                    if last { out } else { scratch(i) },
                    false,
                    last,
                )?;
            }
            return Ok(());
        }
        let in_place = io[0] == io[2];
        let mut src = inp;
        for i in 0..os.passes as usize {
            let last = i + 1 == os.passes as usize;
            // The last pass writes the output, unless that would overwrite the input it reads.
            let direct = last && !(in_place && i == 0);
            let dst = if direct { out } else { scratch(i) };
            pass(i, i as u32, src, dst, i == 0, last)?;
            if last && !direct {
                self.dtod(io[2], dst.0, k.n * k.key.size())?;
                if has_vals {
                    self.dtod(io[3], dst.1, k.n * k.value_bytes as usize)?;
                }
            }
            src = dst;
        }
        Ok(())
    }

    /// One launch of a onesweep pass kernel (kernels/radix_sort_onesweep.cu, `onesweep_pass`)
    /// on its grid of `tiles` tiles.
    fn launch_pass(&self, f: &PassKernel<'_>, a: &PassArgs) -> Result<()> {
        self.launch_chained(
            f.function,
            "onesweep_pass",
            f.tiles as u32,
            f.threads,
            f.shared,
            &[
                KArg::U64(a.keys.0),
                KArg::U64(a.keys.1),
                KArg::U64(a.vals.0),
                KArg::U64(a.vals.1),
                KArg::U64(a.status.0),
                KArg::U64(a.status.1),
                KArg::U64(a.counter),
                KArg::U64(a.offsets),
                KArg::U64(a.n),
                KArg::U32(a.shift),
                KArg::U32(a.bits),
                KArg::U32(f.tiles as u32),
                KArg::U32(a.desc),
                KArg::U32(a.first as u32),
                KArg::U32(a.last as u32),
                KArg::U32(a.iota as u32),
                KArg::U32(a.free as u32),
            ],
        )
    }

    /// The sort of keys that all compare equal: a copy (and the identity permutation).
    fn identity_sort(&self, k: &PlanKey, iota: Option<&CudaFunction>, io: [u64; 4]) -> Result<()> {
        self.dtod(io[2], io[0], k.n * k.key.size())?;
        if let Some(iota) = iota {
            let n = k.n as u64;
            let g = self.grid_stride_blocks(n, ELEMENTWISE_THREADS);
            return self.launch(
                iota,
                "iota",
                g,
                ELEMENTWISE_THREADS,
                0,
                &[KArg::U64(io[3]), KArg::U64(n)],
            );
        }
        self.dtod(io[3], io[1], k.n * k.value_bytes as usize)
    }

    fn enqueue_three_phase(&self, k: &PlanKey, p: &ThreePhase, io: [u64; 4]) -> Result<()> {
        let s = &self.stream;
        let n = k.n as u64;
        let desc = (k.order == Order::Descending) as u32;
        let grid = self.grid_stride_blocks(n, ELEMENTWISE_THREADS);
        let a_keys = dptr(&p.a_keys, s);
        let t_keys = dptr(&p.t_keys, s);
        let a_vals = p.a_vals.as_ref().map_or(0, |b| dptr(b, s));
        let t_vals = p.t_vals.as_ref().map_or(0, |b| dptr(b, s));
        let hist = dptr(&p.hist, s);
        let vbytes = k.n * k.value_bytes as usize;

        self.launch(
            &p.k.to_radix,
            "keys_to_radix",
            grid,
            ELEMENTWISE_THREADS,
            0,
            &[
                KArg::U64(io[0]),
                KArg::U64(a_keys),
                KArg::U64(n),
                KArg::U32(desc),
            ],
        )?;
        if let Some(iota) = &p.k.iota {
            self.launch(
                iota,
                "iota",
                grid,
                ELEMENTWISE_THREADS,
                0,
                &[KArg::U64(a_vals), KArg::U64(n)],
            )?;
        } else {
            self.dtod(a_vals, io[1], vbytes)?;
        }
        let mut shift = k.begin;
        while shift < k.end {
            let w = k.digit_bits.min(k.end - shift);
            let tiles = p.tiles as u32;
            let args = [
                KArg::U64(a_keys),
                KArg::U64(a_vals),
                KArg::U64(t_keys),
                KArg::U64(t_vals),
                KArg::U64(hist),
                KArg::U64(n),
                KArg::U32(shift),
                KArg::U32(w),
                KArg::U32(tiles),
            ];
            self.launch(
                &p.k.local_sort,
                "three_phase_local_sort",
                tiles,
                THREE_PHASE_THREADS,
                0,
                &args,
            )?;
            self.enqueue_scan(&p.k.scan, hist, hist, p.tiles << w, false, &p.scan, 0)?;
            let args = [
                KArg::U64(t_keys),
                KArg::U64(t_vals),
                KArg::U64(a_keys),
                KArg::U64(a_vals),
                KArg::U64(hist),
                KArg::U64(n),
                KArg::U32(shift),
                KArg::U32(w),
                KArg::U32(tiles),
            ];
            self.launch(
                &p.k.scatter,
                "three_phase_scatter",
                tiles,
                THREE_PHASE_THREADS,
                0,
                &args,
            )?;
            shift += w;
        }
        self.launch(
            &p.k.from_radix,
            "radix_to_keys",
            grid,
            ELEMENTWISE_THREADS,
            0,
            &[
                KArg::U64(a_keys),
                KArg::U64(io[2]),
                KArg::U64(n),
                KArg::U32(desc),
            ],
        )?;
        self.dtod(io[3], a_vals, vbytes)
    }

    /// Runs the plan on `io`: plain launches, or the graph (captured on first use for `io`).
    fn run_plan(&self, p: &mut SortPlan, io: [u64; 4]) -> Result<()> {
        if p.key.n == 0 {
            // Nothing to do (and nothing to capture: a launch of no blocks is an error).
            return Ok(());
        }
        if p.key.launch == LaunchMode::Stream {
            return self.enqueue_sort(p, io);
        }
        if p.key.launch == LaunchMode::Auto {
            // A graph only for one-kernel sorts (where the launch is a large part of the time)
            // and only once the same buffers come twice in a row: captures are not free.
            let one_kernel = matches!(&p.design, Design::Onesweep(os)
                if os.passes > 0 && (os.rank.is_some() || os.cluster.is_some()));
            let captured = matches!(&p.graph, Some((_, c)) if *c == io);
            let repeat = p.last_io == Some(io);
            p.last_io = Some(io);
            if !one_kernel || !(captured || repeat) {
                return self.enqueue_sort(p, io);
            }
        }
        let reuse = matches!(&p.graph, Some((_, captured)) if *captured == io);
        if !reuse {
            p.graph = None;
            self.stream
                .begin_capture(drv::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
                .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
            let enq = self.enqueue_sort(p, io);
            let graph = self
                .stream
                .end_capture(drv::CUgraphInstantiate_flags(0))
                .map_err(|e| driver_err("cuStreamEndCapture/cuGraphInstantiate", e));
            enq?;
            let graph = graph?.ok_or_else(|| Error::Cuda {
                call: "cuStreamEndCapture".into(),
                message: "the capture produced no graph".into(),
            })?;
            p.graph = Some((graph, io));
        }
        match &p.graph {
            Some((g, _)) => g.launch().map_err(|e| driver_err("cuGraphLaunch", e)),
            None => Ok(()),
        }
    }

    /// Takes a cached plan of this shape, or makes one.
    fn take_plan(&self, key: PlanKey, staging: bool) -> Result<SortPlan> {
        {
            let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = plans
                .iter()
                .position(|p| p.key == key && (p.keys_io.is_some() == staging))
            {
                return Ok(plans.swap_remove(i));
            }
        }
        self.make_plan(key, staging)
    }

    /// Keeps `p` for the next sort of its shape, unless its run failed (`ok` false): a
    /// single-launch kernel stopped part-way may have left its barrier, counts or status words
    /// set, which the plan must find zeroed (they are cleared only when it is made).
    fn return_plan(&self, p: SortPlan, ok: bool) {
        if !ok {
            return;
        }
        let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        // A few recent shapes: enough for benchmarks and repeated calls, bounded memory.
        if plans.len() >= 4 {
            plans.remove(0);
        }
        plans.push(p);
    }

    fn plan_key<K: RadixKey>(
        &self,
        n: usize,
        value_bytes: u32,
        iota: bool,
        opts: &SortOptions,
    ) -> Result<PlanKey> {
        let (design, digit_bits) = self.check_sort::<K>(n, value_bytes, opts)?;
        let (begin, end) = opts.bit_range(K::Bits::BITS);
        Ok(PlanKey {
            design,
            key: K::DTYPE,
            value_bytes,
            iota,
            n,
            order: opts.order,
            begin,
            end,
            digit_bits,
            launch: opts.launch,
        })
    }

    /// Host-slice sort of keys and, optionally, values of 1, 2, 4, 8 or 16 bytes (as bytes).
    fn sort_host(&self, key_bytes: &mut [u8], vals: Option<&mut [u8]>, key: PlanKey) -> Result<()> {
        let _guard = self.lock();
        let mut p = self.take_plan(key, true)?;
        let s = &self.stream;
        let result = (|| {
            let (Some(kio), vio) = (p.keys_io.as_mut(), p.vals_io.as_mut()) else {
                return Err(Error::invalid("internal: plan without staging buffers"));
            };
            s.memcpy_htod(&*key_bytes, &mut kio.slice_mut(0..key_bytes.len()))
                .map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
            if let (Some(v), Some(vio)) = (vals.as_deref(), vio) {
                s.memcpy_htod(v, &mut vio.slice_mut(0..v.len()))
                    .map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
            }
            let kptr = p.keys_io.as_ref().map_or(0, |b| dptr(b, s));
            let vptr = p.vals_io.as_ref().map_or(0, |b| dptr(b, s));
            // Outputs go back into the staging buffers (the sequence reads its inputs first).
            self.run_plan(&mut p, [kptr, vptr, kptr, vptr])?;
            if let Some(kio) = p.keys_io.as_ref() {
                s.memcpy_dtoh(&kio.slice(0..key_bytes.len()), key_bytes)
                    .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
            }
            if let (Some(v), Some(vio)) = (vals, p.vals_io.as_ref()) {
                let len = v.len();
                s.memcpy_dtoh(&vio.slice(0..len), v)
                    .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
            }
            self.sync()
        })();
        self.return_plan(p, result.is_ok());
        result
    }

    pub fn sort_keys<K: RadixKey>(&self, keys: &mut [K], opts: &SortOptions) -> Result<()> {
        let key = self.plan_key::<K>(keys.len(), 0, false, opts)?;
        if keys.len() <= 1 {
            return Ok(());
        }
        self.sort_host(bytemuck::cast_slice_mut(keys), None, key)
    }

    pub fn sort_pairs<K: RadixKey, V: Value>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        opts: &SortOptions,
    ) -> Result<()> {
        let vb = std::mem::size_of::<V>() as u32;
        if [1, 2, 4, 8, 16].contains(&vb) {
            let key = self.plan_key::<K>(keys.len(), vb, false, opts)?;
            if keys.len() <= 1 {
                return Ok(());
            }
            return self.sort_host(
                bytemuck::cast_slice_mut(keys),
                Some(bytemuck::cast_slice_mut(values)),
                key,
            );
        }
        // Other value sizes: sort (key, index) pairs on the GPU, then gather on the host.
        let perm: Vec<u32> = self.argsort(keys, opts)?;
        let k: Vec<K> = perm.iter().map(|&i| keys[i as usize]).collect();
        let v: Vec<V> = perm.iter().map(|&i| values[i as usize]).collect();
        keys.copy_from_slice(&k);
        values.copy_from_slice(&v);
        Ok(())
    }

    pub fn argsort<K: RadixKey, I: SortIndex>(
        &self,
        keys: &[K],
        opts: &SortOptions,
    ) -> Result<Vec<I>> {
        let ib = std::mem::size_of::<I>() as u32;
        let key = self.plan_key::<K>(keys.len(), ib, true, opts)?;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut k = keys.to_vec();
        let mut idx = vec![I::from_usize(0); keys.len()];
        self.sort_host_iota(
            bytemuck::cast_slice_mut(&mut k),
            bytemuck::cast_slice_mut(&mut idx),
            key,
        )?;
        Ok(idx)
    }

    /// Like `sort_host`, with the values generated on the device as indices 0..n.
    fn sort_host_iota(&self, key_bytes: &mut [u8], idx_out: &mut [u8], key: PlanKey) -> Result<()> {
        let _guard = self.lock();
        let mut p = self.take_plan(key, true)?;
        let s = &self.stream;
        let result = (|| {
            let Some(kio) = p.keys_io.as_mut() else {
                return Err(Error::invalid("internal: plan without staging buffers"));
            };
            s.memcpy_htod(&*key_bytes, &mut kio.slice_mut(0..key_bytes.len()))
                .map_err(|e| driver_err("cuMemcpyHtoDAsync", e))?;
            let kptr = p.keys_io.as_ref().map_or(0, |b| dptr(b, s));
            let out = self.alloc::<u8>(idx_out.len(), "argsort indices")?;
            let optr = dptr(&out, s);
            self.run_plan(&mut p, [kptr, 0, kptr, optr])?;
            s.memcpy_dtoh(&out.slice(0..idx_out.len()), idx_out)
                .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
            self.sync()
        })();
        // A graph captured for a temporary output pointer cannot be replayed.
        p.graph = None;
        p.last_io = None;
        self.return_plan(p, result.is_ok());
        result
    }

    /// Device-resident sort: `keys_out` gets `keys_in` sorted; `keys_in` is not modified
    /// (pass the same buffer twice to sort in place... not allowed by Rust's borrows, so use
    /// [`CudaBackend::sort_device_in_place`]).
    pub fn sort_device<K: RadixKey>(
        &self,
        keys_in: &DeviceBuffer<K>,
        keys_out: &mut DeviceBuffer<K>,
        opts: &SortOptions,
    ) -> Result<()> {
        if keys_in.len() != keys_out.len() {
            return Err(Error::invalid("input and output buffers differ in length"));
        }
        let key = self.plan_key::<K>(keys_in.len(), 0, false, opts)?;
        let io = [keys_in.device_ptr(self), 0, keys_out.device_ptr(self), 0];
        self.run_device(key, io)
    }

    /// Device-resident sort in place.
    pub fn sort_device_in_place<K: RadixKey>(
        &self,
        keys: &mut DeviceBuffer<K>,
        opts: &SortOptions,
    ) -> Result<()> {
        let key = self.plan_key::<K>(keys.len(), 0, false, opts)?;
        let p = keys.device_ptr(self);
        self.run_device(key, [p, 0, p, 0])
    }

    /// Device-resident pair sort (values of 1, 2, 4, 8 or 16 bytes); inputs are not modified.
    pub fn sort_pairs_device<K: RadixKey, V: Value>(
        &self,
        keys_in: &DeviceBuffer<K>,
        values_in: &DeviceBuffer<V>,
        keys_out: &mut DeviceBuffer<K>,
        values_out: &mut DeviceBuffer<V>,
        opts: &SortOptions,
    ) -> Result<()> {
        let n = keys_in.len();
        if values_in.len() != n || keys_out.len() != n || values_out.len() != n {
            return Err(Error::invalid("key and value buffers differ in length"));
        }
        let key = self.plan_key::<K>(n, std::mem::size_of::<V>() as u32, false, opts)?;
        let io = [
            keys_in.device_ptr(self),
            values_in.device_ptr(self),
            keys_out.device_ptr(self),
            values_out.device_ptr(self),
        ];
        self.run_device(key, io)
    }

    fn run_device(&self, key: PlanKey, io: [u64; 4]) -> Result<()> {
        if key.n <= 1 {
            // Nothing to sort; out-of-place still copies.
            if key.n == 1 && io[0] != io[2] {
                // SAFETY: both buffers hold at least one key.
                unsafe {
                    dres::memcpy_dtod_async(io[2], io[0], key.key.size(), self.stream.cu_stream())
                }
                .map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
                if key.value_bytes > 0 {
                    // SAFETY: as above, one value.
                    unsafe {
                        dres::memcpy_dtod_async(
                            io[3],
                            io[1],
                            key.value_bytes as usize,
                            self.stream.cu_stream(),
                        )
                    }
                    .map_err(|e| driver_err("cuMemcpyDtoDAsync", e))?;
                }
            }
            return self.sync();
        }
        let _guard = self.lock();
        let mut p = self.take_plan(key, false)?;
        let r = self.run_plan(&mut p, io).and_then(|_| self.sync());
        self.return_plan(p, r.is_ok());
        r
    }

    /// A plan for repeated device-resident sorts of one shape (benchmarks, graph replay):
    /// `run` sorts `keys_in` into `keys_out` with no allocation.
    pub fn sort_plan<K: RadixKey>(
        &self,
        n: usize,
        value_bytes: u32,
        opts: &SortOptions,
    ) -> Result<SortPlan> {
        let key = self.plan_key::<K>(n, value_bytes, false, opts)?;
        self.make_plan(key, false)
    }

    /// Enqueues one sort with `plan` (no synchronisation: time it with events).
    pub fn run_sort_plan(
        &self,
        plan: &mut SortPlan,
        keys_in: u64,
        vals_in: u64,
        keys_out: u64,
        vals_out: u64,
    ) -> Result<()> {
        self.run_plan(plan, [keys_in, vals_in, keys_out, vals_out])
    }
}

#[cfg(test)]
mod tests {
    use super::{
        all_sort_specs, digit_is_shared, hybrid_chunk_log2, hybrid_local_shape,
        onesweep_fused_spec, onesweep_spec_shape, packed_hybrid_block, packed_spec, ModuleSpec,
    };
    use crate::key::DType;
    use crate::tuning::cuda::{
        onesweep_fused_items, onesweep_items, onesweep_pass_shape, packed_last_shape,
        packed_pass_shape, ONESWEEP_FUSED_MAX, PACKED_ONE_BUCKET_FILL_16THS, PACKED_ONE_BUCKET_MIN,
        SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM,
    };

    #[test]
    fn every_onesweep_module_a_sort_loads_is_in_the_catalogue() {
        // The onesweep plans' modules depend on the length (the pass tile, the hybrid's
        // in-bucket block and its prefetch, the single-launch tile, the packed passes' tiles on
        // an H100); the catalogue (`compile-kernels`, CI's NVRTC test) lists them for a few
        // lengths only (`HYBRID_SPEC_LENGTHS`, `PACKED_HYBRID_SPEC_LENGTHS`). Walk the lengths
        // from 2^12 to 2^33, 16 steps a doubling, and build the modules as `make_onesweep` does
        // on an sm_90 device of 78 to 144 SMs (the count sets the single-launch tile).
        let overrides = [
            "HISTOSORT_HYBRID_LOCAL",
            "HISTOSORT_ONESWEEP_SHAPE",
            "HISTOSORT_ONESWEEP_LONG_MIN",
            "HISTOSORT_PACKED_LAST_SHAPE",
        ];
        if overrides.iter().any(|v| std::env::var_os(v).is_some()) {
            return;
        }
        let catalogue: std::collections::HashSet<_> = all_sort_specs().into_iter().collect();
        let (optin, per_sm) = (SM90_SHARED_PER_BLOCK_OPTIN, SM90_SHARED_PER_SM);
        let lengths = (12..33)
            .flat_map(|k| (0..16).map(move |j| (1u64 << k) + (j << k) / 16))
            .chain([1u64 << 33]);
        let mut checked = 0;
        let mut check = |spec: ModuleSpec, what: &str| {
            assert!(catalogue.contains(&spec), "{what}: {}", spec.label());
            checked += 1;
        };
        for n in lengths {
            let status = if n < 1 << 30 { 32 } else { 64 };
            for key in DType::ALL {
                for vb in [0, 1, 2, 4, 8, 16] {
                    let kb = key.size() as u32;
                    let shape = onesweep_pass_shape(kb, vb, n, optin, per_sm);
                    let Ok(spec) = onesweep_spec_shape(key, vb, status, shape, Some(n)) else {
                        continue;
                    };
                    check(spec.clone(), &format!("{key} {vb} n {n}"));
                    if n as usize <= ONESWEEP_FUSED_MAX && kb <= 8 {
                        for sms in [78, 114, 132, 144] {
                            let items =
                                onesweep_fused_items(n as usize, sms, onesweep_items(kb, vb));
                            let fused = onesweep_fused_spec(key, vb, items, shape, &spec).unwrap();
                            check(fused, &format!("{key} {vb} n {n} single launch, {sms} SMs"));
                        }
                    }
                }
            }
            for device in ["NVIDIA H100 80GB HBM3", "NVIDIA H200"] {
                let shape = packed_pass_shape(device, n, optin, per_sm);
                let last = packed_last_shape(optin, per_sm);
                for key in [DType::U32, DType::I32, DType::F32] {
                    for hybrid in [None, Some(n)] {
                        let spec = packed_spec(key, status, shape, hybrid).unwrap();
                        check(spec, &format!("{device} {key} n {n}"));
                    }
                    if let Some(ls) = last.filter(|ls| ls.tile() > shape.tile()) {
                        let spec = packed_spec(key, status, ls, None).unwrap();
                        check(spec, &format!("{device} {key} n {n} last pass"));
                    }
                }
            }
        }
        assert!(checked > 50_000, "{checked} modules checked");
    }

    #[test]
    fn hybrid_chunks_fill_half_a_block() {
        // 2^28 keys: 4096 per bucket on average, half of 8192: one bucket per block.
        assert_eq!(hybrid_chunk_log2(1 << 28, 8192, 8), 0);
        // 2^27: 2048 per bucket, two buckets per block; 2^24: 256 per bucket, 16 buckets.
        assert_eq!(hybrid_chunk_log2(1 << 27, 8192, 8), 1);
        assert_eq!(hybrid_chunk_log2(1 << 24, 8192, 8), 4);
        // Past the point where 16 buckets average more than half a block: 8 buckets.
        assert_eq!(hybrid_chunk_log2((1 << 24) + (1 << 16), 8192, 8), 3);
        // Few keys: every bucket in one block, at most 2^16 of them.
        assert_eq!(hybrid_chunk_log2(100, 8192, 8), 16);
        assert_eq!(hybrid_chunk_log2(1 << 30, 8192, 8), 0);
        // A block of 256 x 12 = 3072 keys filled to 12/16 (2304): 2^26 keys (1024 a bucket)
        // take two buckets a block.
        assert_eq!(hybrid_chunk_log2(1 << 26, 3072, 12), 1);
    }

    #[test]
    fn packed_hybrid_takes_one_bucket_a_chunk_from_its_minimum() {
        if std::env::var_os("HISTOSORT_HYBRID_LOCAL").is_some() {
            return;
        }
        // Lengths from 2^26 pairs (1024 a bucket) to 2^29, 64 steps a doubling: the chunk
        // rule takes one bucket a chunk on the block chosen for it, and an average bucket fits
        // that block with a quarter to spare (past 2^28 the 512-thread block of 16 need only
        // hold the largest bucket: the host checks it).
        let first = PACKED_ONE_BUCKET_MIN << 16;
        for n in (0..3).flat_map(|k| (0..64).map(move |j| (first << k) + (first << k) / 64 * j)) {
            let b = packed_hybrid_block(n);
            assert_eq!(hybrid_chunk_log2(n, b.cap(), b.fill_16ths), 0, "n {n}");
            assert!(
                (n >> 16) * 5 / 4 <= b.cap() as u64 || b.items == 16,
                "n {n}"
            );
        }
        // Just below the minimum, chunks of several buckets.
        let b = packed_hybrid_block(first - (1 << 16));
        assert!(hybrid_chunk_log2(first - (1 << 16), b.cap(), b.fill_16ths) > 0);
        assert_ne!(b.fill_16ths, PACKED_ONE_BUCKET_FILL_16THS);
    }

    #[test]
    fn hybrid_block_holds_its_keys_and_counters() {
        // u32 keys and u32/u32 pairs: 8192 keys per block of 512 threads; then the 16 warps'
        // counters, their scan words, and 8 words of chunk state.
        // (Unless HISTOSORT_HYBRID_LOCAL names another block.)
        if std::env::var_os("HISTOSORT_HYBRID_LOCAL").is_some() {
            return;
        }
        let shape = |k, v| {
            let (b, bytes) = hybrid_local_shape(k, v, 1 << 24);
            (b.cap(), bytes)
        };
        assert_eq!(shape(4, 0), (8192, 8192 * 4 + 16 * 256 * 4 + 64 + 32));
        assert_eq!(shape(4, 4), (8192, 8192 * 8 + 16 * 256 * 4 + 64 + 32));
        // 16-byte values: fewer keys per thread, within 64 KiB of staged keys and values.
        let (cap, bytes) = shape(4, 16);
        assert_eq!(cap, 512 * 6);
        assert!(cap * 20 <= 64 * 1024 && bytes % 16 == 0);
    }

    #[test]
    fn shared_digits_from_offsets() {
        // Counts 0, 5, 0, 0 (n = 5): digit 1 holds every key.
        assert!(digit_is_shared(&[0, 0, 5, 5], 5));
        // Counts 0, 0, 0, 5: the last digit, whose end is n.
        assert!(digit_is_shared(&[0, 0, 0, 0], 5));
        // Counts 5, 0, 0, 0.
        assert!(digit_is_shared(&[0, 5, 5, 5], 5));
        // Counts 2, 3, 0, 0 and 1, 1, 1, 2.
        assert!(!digit_is_shared(&[0, 2, 5, 5], 5));
        assert!(!digit_is_shared(&[0, 1, 2, 3], 5));
    }
}
