//! Sample statistics as the histogram study reports them: median, P10-P90 and min-max, with
//! type-7 quantiles (linear interpolation between order statistics, the default of R and
//! NumPy), no sample discarded.

/// The type-7 quantile `p` (0 to 1) of `sorted` (ascending, no NaN): with `h = (n - 1) p`, the
/// value `x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h])`. `None` for no samples.
pub fn quantile_type7(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let h = (n - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let (a, b) = (*sorted.get(lo)?, *sorted.get(hi)?);
    Some(a + (h - lo as f64) * (b - a))
}

/// Median, P10, P90, min, max and mean of a set of timings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

impl Summary {
    /// Summarises `samples` (any order). `None` when empty or when a sample is not finite.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        Some(Summary {
            n: s.len(),
            median: quantile_type7(&s, 0.5)?,
            p10: quantile_type7(&s, 0.1)?,
            p90: quantile_type7(&s, 0.9)?,
            min: *s.first()?,
            max: *s.last()?,
            mean: s.iter().sum::<f64>() / s.len() as f64,
        })
    }
}

/// Ratio of medians (`baseline / candidate`: above 1 means the candidate is faster).
pub fn speedup(baseline_median: f64, candidate_median: f64) -> f64 {
    if candidate_median > 0.0 {
        baseline_median / candidate_median
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn type7_matches_r_and_numpy() {
        // R: quantile(1:10, c(.1, .5, .9), type = 7) = 1.9 5.5 9.1
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        assert!(close(quantile_type7(&x, 0.1).unwrap(), 1.9));
        assert!(close(quantile_type7(&x, 0.5).unwrap(), 5.5));
        assert!(close(quantile_type7(&x, 0.9).unwrap(), 9.1));
        assert_eq!(quantile_type7(&x, 0.0), Some(1.0));
        assert_eq!(quantile_type7(&x, 1.0), Some(10.0));
        // numpy.quantile([0.5, 1.5, 2.0, 7.0, 10.0], [0.1, 0.25, 0.9]) = 0.9, 1.5, 8.8
        let y = [0.5, 1.5, 2.0, 7.0, 10.0];
        assert!(close(quantile_type7(&y, 0.1).unwrap(), 0.9));
        assert!(close(quantile_type7(&y, 0.25).unwrap(), 1.5));
        assert!(close(quantile_type7(&y, 0.9).unwrap(), 8.8));
        // 50 samples 0..49: P10 = 4.9, P90 = 44.1 (h = 49 p).
        let z: Vec<f64> = (0..50).map(f64::from).collect();
        assert!(close(quantile_type7(&z, 0.1).unwrap(), 4.9));
        assert!(close(quantile_type7(&z, 0.9).unwrap(), 44.1));
        assert!(close(quantile_type7(&z, 0.5).unwrap(), 24.5));
    }

    #[test]
    fn edge_cases() {
        assert_eq!(quantile_type7(&[], 0.5), None);
        assert_eq!(quantile_type7(&[3.0], 0.9), Some(3.0));
        assert_eq!(quantile_type7(&[1.0, 2.0], 1.5), None);
        assert!(close(quantile_type7(&[1.0, 2.0], 0.5).unwrap(), 1.5));
    }

    #[test]
    fn summary_of_unsorted_samples() {
        let s = Summary::of(&[5.0, 1.0, 4.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            (s.n, s.median, s.min, s.max, s.mean),
            (5, 3.0, 1.0, 5.0, 3.0)
        );
        assert!(close(s.p10, 1.4));
        assert!(close(s.p90, 4.6));
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
        assert!((speedup(12.321952, 0.392208) - 31.42).abs() < 0.005);
    }
}
