//! Names for every backend, variant and mode. Each implements `Display` and `FromStr` with the
//! same spelling, so the CLI, the tables, the JSON and the logs all name a variant the same way.

use std::fmt;
use std::str::FromStr;

macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The variant's name as the CLI and the benchmark tables spell it.
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                let t = s.trim().to_ascii_lowercase();
                $name::ALL.iter().copied().find(|v| v.name() == t).ok_or_else(|| {
                    let names: Vec<&str> = $name::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown {} '{}' (expected one of: {})", stringify!($name), s, names.join(", "))
                })
            }
        }
    };
}

named_enum! {
    /// Sort direction. Both directions are stable.
    pub enum Order {
        Ascending => "ascending",
        Descending => "descending",
    }
}

named_enum! {
    /// The kind of backend an [`crate::Engine`] runs on.
    pub enum BackendKind {
        Cpu => "cpu",
        Cuda => "cuda",
    }
}

named_enum! {
    /// Radix sort variants.
    pub enum SortAlgorithm {
        /// The backend's best sort for the input.
        Auto => "auto",
        /// CPU backend: rayon-parallel LSD radix sort (histogram, scan, stable scatter per digit).
        CpuLsd => "cpu-lsd",
        /// CUDA backend: the seeds' GPU-resident three-phase sort (local sort by one-bit splits,
        /// digit-major scan, scatter), `seeds/000` and `seeds/001`.
        ThreePhase => "three-phase",
        /// CUDA backend: one up-front histogram of every digit, then one kernel per digit that
        /// ranks, counts and scatters with a decoupled look-back (after Adinets & Merrill's
        /// onesweep). The CUDA default.
        Onesweep => "onesweep",
    }
}

named_enum! {
    /// Histogram variants.
    pub enum HistogramAlgorithm {
        /// The backend's best strategy for the sample type and bin count.
        Auto => "auto",
        /// CPU backend: per-thread private histograms merged at the end.
        CpuPrivate => "cpu-private",
        /// One global atomic per sample, byte loads (CUDA Handbook Listing 16-2).
        GlobalAtomic => "global-atomic",
        /// Global atomics with unrolled 32-bit loads (CUDA Handbook Listing 16-3).
        GlobalAtomicUnrolled => "global-atomic-u32",
        /// Block-private shared-memory histogram merged with global atomics (the histogram study).
        SharedPrivate => "shared",
        /// Per-warp replicated sub-histograms in shared memory: fast under contention.
        WarpPrivate => "warp-private",
        /// One counter column per lane in shared memory (`[bin][lane]`): a warp's atomics never
        /// share a bank, whatever the data (the CUDA default for bytes).
        LanePrivate => "lane-private",
    }
}

named_enum! {
    /// Prefix-scan variants.
    pub enum ScanAlgorithm {
        Auto => "auto",
        /// CPU backend: blocked scan in rounds of one block per thread (each block scanned from
        /// zero, then its offset added while it is still in cache).
        CpuBlocked => "cpu-blocked",
        /// CUDA backend: reduce-then-scan over tiles, the block sums scanned recursively.
        ReduceThenScan => "reduce-then-scan",
        /// CUDA backend: single pass (each element read and written once) with a decoupled
        /// look-back over the predecessors' tile statuses (Merrill & Garland 2016). The CUDA
        /// default before sm_90, and for data that is not 16-byte aligned.
        DecoupledLookback => "decoupled-lookback",
        /// CUDA backend, sm_90 and later, 16-byte aligned data: the same single pass in
        /// persistent blocks where one warp loads tiles by bulk copy into a ring of shared-memory
        /// stages, the scanning threads publish a tile's aggregate before they finish the tile
        /// before it, and one warp looks back. The CUDA default where it runs.
        Pipelined => "pipelined",
    }
}

named_enum! {
    /// Inclusive or exclusive prefix sum.
    pub enum ScanKind {
        Inclusive => "inclusive",
        Exclusive => "exclusive",
    }
}

named_enum! {
    /// How the CUDA backend issues a sort's fixed launch sequence.
    pub enum LaunchMode {
        /// Plain launches, except that a sort of one kernel (the small inputs' counting and
        /// cluster sorts) run again on the same buffers replays a graph captured on the second
        /// run: a graph launch costs ~2.7 us less than a plain one (H200, session 8).
        Auto => "auto",
        /// Plain launches on a stream.
        Stream => "stream",
        /// Captured once into a CUDA graph and replayed (CUDA Handbook, section 6.9).
        Graph => "graph",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in SortAlgorithm::ALL {
            assert_eq!(a.to_string().parse::<SortAlgorithm>().unwrap(), *a);
        }
        for a in HistogramAlgorithm::ALL {
            assert_eq!(a.to_string().parse::<HistogramAlgorithm>().unwrap(), *a);
        }
        assert!("bogus"
            .parse::<ScanKind>()
            .unwrap_err()
            .contains("inclusive"));
    }
}
