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
fn scan_block<T: ScanElem>(d: &[T], o: &mut [T], kind: ScanKind, mut acc: T) -> T {
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
