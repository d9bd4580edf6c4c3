//! CPU LSD radix sort: per digit, histogram, exclusive scan and stable scatter (CUDA Handbook
//! Listing 16-8), on the keys' radix images, skipping digits that are equal for every key.

use crate::algorithm::Order;
use crate::error::Result;
use crate::key::{RadixBits, RadixKey, SortIndex, Value};
use crate::options::SortOptions;
use crate::tuning::cpu::DIGIT_BITS;

/// Radix images, complemented for descending order.
fn images<K: RadixKey>(keys: &[K], order: Order) -> Vec<K::Bits> {
    match order {
        Order::Ascending => keys.iter().map(|k| k.to_radix()).collect(),
        Order::Descending => keys.iter().map(|k| k.to_radix().complement()).collect(),
    }
}

/// Stable LSD sort of `bits` with `payload` carried along.
fn lsd<B: RadixBits, P: Copy + Default>(
    bits: &mut Vec<B>,
    payload: &mut Vec<P>,
    opts: &SortOptions,
) {
    let (begin, end) = opts.bit_range(B::BITS);
    let d = opts.digit_bits.unwrap_or(DIGIT_BITS);
    let n = bits.len();
    let mut tb = vec![B::ZERO; n];
    let mut tp = vec![P::default(); n];
    let mut shift = begin;
    while shift < end {
        let w = d.min(end - shift);
        let mask = (1u32 << w) - 1;
        let mut counts = vec![0usize; 1 << w];
        for &k in bits.iter() {
            counts[k.digit(shift, mask)] += 1;
        }
        if counts.iter().any(|&c| c == n) {
            shift += w;
            continue;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let t = *c;
            *c = sum;
            sum += t;
        }
        for i in 0..n {
            let k = bits[i];
            let dg = k.digit(shift, mask);
            tb[counts[dg]] = k;
            tp[counts[dg]] = payload[i];
            counts[dg] += 1;
        }
        std::mem::swap(bits, &mut tb);
        std::mem::swap(payload, &mut tp);
        shift += w;
    }
}

fn unimage<K: RadixKey>(bits: &[K::Bits], out: &mut [K], order: Order) {
    for (o, &b) in out.iter_mut().zip(bits) {
        *o = K::from_radix(match order {
            Order::Ascending => b,
            Order::Descending => b.complement(),
        });
    }
}

pub fn sort_keys<K: RadixKey>(keys: &mut [K], opts: &SortOptions) -> Result<()> {
    let mut bits = images(keys, opts.order);
    let mut none: Vec<()> = vec![(); keys.len()];
    lsd(&mut bits, &mut none, opts);
    unimage(&bits, keys, opts.order);
    Ok(())
}

pub fn sort_pairs<K: RadixKey, V: Value>(
    keys: &mut [K],
    values: &mut [V],
    opts: &SortOptions,
) -> Result<()> {
    let perm: Vec<u64> = argsort(keys, opts)?;
    let v: Vec<V> = perm.iter().map(|&i| values[i as usize]).collect();
    let k: Vec<K> = perm.iter().map(|&i| keys[i as usize]).collect();
    keys.copy_from_slice(&k);
    values.copy_from_slice(&v);
    Ok(())
}

pub fn argsort<K: RadixKey, I: SortIndex>(keys: &[K], opts: &SortOptions) -> Result<Vec<I>> {
    let mut bits = images(keys, opts.order);
    let mut idx: Vec<I> = (0..keys.len()).map(I::from_usize).collect();
    lsd_index(&mut bits, &mut idx, opts);
    Ok(idx)
}

fn lsd_index<B: RadixBits, I: SortIndex>(bits: &mut Vec<B>, idx: &mut Vec<I>, opts: &SortOptions) {
    let mut p: Vec<u64> = idx.iter().map(|i| i.to_usize() as u64).collect();
    lsd(bits, &mut p, opts);
    for (o, i) in idx.iter_mut().zip(p) {
        *o = I::from_usize(i as usize);
    }
}
