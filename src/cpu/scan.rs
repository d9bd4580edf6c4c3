//! CPU prefix sums: reduce each block, scan the block sums, then rescan each block from its
//! offset (two reads and one write of the data).

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
    let sums: Vec<T> = data
        .par_chunks(SCAN_BLOCK)
        .map(|c| c.iter().fold(T::ZERO, |a, &x| a.add(x)))
        .collect();
    let mut offsets = Vec::with_capacity(sums.len());
    let mut acc = T::ZERO;
    for s in sums {
        offsets.push(acc);
        acc = acc.add(s);
    }
    out.par_chunks_mut(SCAN_BLOCK)
        .zip(data.par_chunks(SCAN_BLOCK))
        .zip(offsets)
        .for_each(|((o, d), mut acc)| match kind {
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
        });
    Ok(())
}
