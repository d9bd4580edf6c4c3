//! `histosort hist`: a table (or JSON) of bin counts.

use std::fmt::Display;
use std::path::PathBuf;
use std::str::FromStr;

use clap::Args;
use histosort::io::{Array, Element};
use histosort::{DType, Engine, HistogramAlgorithm, Sample};
use serde_json::{json, Value};

use super::{fmt_count, fmt_duration, fmt_rate, read_input, timed, CliResult, Failure, Global};

/// Bins when neither --bins nor --edges is given for data other than bytes.
const DEFAULT_BINS: usize = 16;
/// Width of the bar column.
const BAR: usize = 30;

#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  histosort hist bytes.npy                       256 bins, one per byte value
  histosort hist words.npy                       65536 bins for u16 data, one per value
  histosort hist image.rgba --dtype u8 --channels    RGBA pixels: 4 histograms of 256 bins
  histosort hist image.rgb --dtype u8 --channels 3   RGB pixels: 3 histograms
  histosort hist x.npy --bins 10 --range 0:1     10 even bins over [0, 1)
  histosort hist x.npy --edges=-1,0,0.5,1 --json range bins [-1,0) [0,0.5) [0.5,1)

Without --range, even bins span the data: [min, max] of its finite values. Tables of more
than 1024 bins list only the bins that are not empty; --json lists every bin.")]
pub struct HistArgs {
    /// The samples: a .npy file, or raw binary data with --dtype.
    pub input: PathBuf,
    /// Element type of a raw INPUT: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64.
    #[arg(long)]
    pub dtype: Option<DType>,
    /// Number of even bins (default: 256 for u8 data, else 16).
    #[arg(long, value_name = "N")]
    pub bins: Option<usize>,
    /// Even bins over [LO, HI) (default: the data's range). For integers HI may be one past the
    /// type's largest value (0:256 for u8 data).
    #[arg(
        long,
        value_name = "LO:HI",
        allow_hyphen_values = true,
        conflicts_with = "edges"
    )]
    pub range: Option<String>,
    /// Range bins between these increasing boundaries: bin i is [e_i, e_i+1).
    #[arg(
        long,
        value_name = "a,b,c",
        allow_hyphen_values = true,
        conflicts_with = "bins"
    )]
    pub edges: Option<String>,
    /// u8 data of interleaved pixels with C channels (1 to 4; 4 when given without a value):
    /// one 256-bin histogram per channel.
    #[arg(
        long,
        value_name = "C",
        num_args = 0..=1,
        default_missing_value = "4",
        conflicts_with_all = ["bins", "range", "edges"]
    )]
    pub channels: Option<usize>,
    /// Histogram variant: auto, cpu-private, global-atomic, shared, ...
    #[arg(long, default_value = "auto", value_name = "NAME")]
    pub algorithm: HistogramAlgorithm,
    /// Print JSON: {dtype, n, kind, bins: [{bin, lower, upper, count}], counted, outside, nan};
    /// with --channels each bin has `counts` (one per channel) instead of `count`.
    #[arg(long)]
    pub json: bool,
}

/// A bin edge for printing: integers exactly, floats as floats.
#[derive(Clone, Copy, Debug)]
enum Edge {
    Int(i128),
    Float(f64),
}

impl Edge {
    fn json(self) -> Value {
        match self {
            Edge::Int(i) => match (i64::try_from(i), u64::try_from(i)) {
                (Ok(v), _) => json!(v),
                (_, Ok(v)) => json!(v),
                _ => json!(i as f64),
            },
            Edge::Float(f) if f.is_finite() => json!(f),
            Edge::Float(f) => json!(f.to_string()),
        }
    }
}

impl Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Edge::Int(i) => write!(f, "{i}"),
            Edge::Float(x) => write!(f, "{x}"),
        }
    }
}

/// The exclusive end of even bins: a value of the sample type, or (integers only) one past the
/// type's largest value, which the type cannot hold (`--range 0:256` for u8 data).
#[derive(Clone, Copy, Debug, PartialEq)]
enum End<T> {
    At(T),
    PastMax,
}

/// What the histogram command needs of a sample type beyond [`Sample`].
trait HistSample: Sample + Element + FromStr {
    fn edge(self) -> Edge;
    /// The end of a `--range`: a value of the type, or for integers one past its largest.
    fn parse_end(s: &str) -> CliResult<End<Self>>;
    /// The edges of `bins` even bins over `[lo, hi)`: `bins + 1` values.
    fn even_edges(lo: Self, hi: End<Self>, bins: usize) -> Vec<Edge>;
    /// `[min, max]` of the data as an even-bin range `[lo, hi)` that holds them all, and a bin
    /// count that suits it; or why there is none.
    fn auto_range(data: &[Self], bins: usize) -> Result<(Self, End<Self>, usize), String>;
    /// The counts of `bins` even bins over `[lo, hi)`.
    fn even_counts(
        engine: &Engine,
        data: &[Self],
        lo: Self,
        hi: End<Self>,
        bins: usize,
        algorithm: HistogramAlgorithm,
    ) -> CliResult<Vec<u64>>;
}

/// The first value of each of `bins` even integer bins over `[lo, end)`: bin i starts at the
/// first x with floor((x - lo) * bins / (end - lo)) >= i (the library's exact integer binning).
fn int_bin_starts(lo: i128, end: i128, bins: usize) -> impl Iterator<Item = i128> {
    let (range, b) = (end - lo, bins as i128);
    (0..b).map(move |i| lo + (i * range + b - 1) / b)
}

/// Even bins that end one past the type's largest value `max`, whose first values are `starts`
/// (not decreasing, none above `max`, at least one): counted as range bins with `max` as the
/// last boundary, and the samples equal to `max` (which no boundary of the type can close;
/// counted here, on the host) added to the last bin. Where bins outnumber values, equal starts
/// make empty bins, all but the last of them.
fn counts_through_max<T: Sample>(
    engine: &Engine,
    data: &[T],
    starts: &[T],
    max: T,
    algorithm: HistogramAlgorithm,
) -> histosort::Result<Vec<u64>> {
    let bins = starts.len();
    let filled: Vec<usize> = (0..bins)
        .filter(|&i| i + 1 == bins || starts[i] != starts[i + 1])
        .collect();
    let mut bounds: Vec<T> = filled.iter().map(|&i| starts[i]).collect();
    // The last bin may hold `max` alone: then the range bins stop where it starts.
    let last_is_max = bounds.last() == Some(&max);
    if !last_is_max {
        bounds.push(max);
    }
    let mut counts = if bounds.len() >= 2 {
        engine.histogram_range(data, &bounds, algorithm)?
    } else {
        Vec::new()
    };
    let at_max = data.iter().filter(|&&x| x == max).count() as u64;
    match counts.last_mut() {
        Some(last) if !last_is_max => *last += at_max,
        _ => counts.push(at_max),
    }
    let mut all = vec![0; bins];
    for (&i, c) in filled.iter().zip(counts) {
        all[i] = c;
    }
    Ok(all)
}

macro_rules! int_hist {
    ($($t:ty),*) => {$(
        impl HistSample for $t {
            fn edge(self) -> Edge {
                Edge::Int(self as i128)
            }
            fn parse_end(s: &str) -> CliResult<End<Self>> {
                let past = <$t>::MAX as i128 + 1;
                match (s.trim().parse::<$t>(), s.trim().parse::<i128>()) {
                    (Ok(v), _) => Ok(End::At(v)),
                    (_, Ok(v)) if v == past => Ok(End::PastMax),
                    _ => Err(Failure::usage(format!(
                        "bad range end '{s}': not a {} value or {past} (one past the largest)",
                        <Self as Sample>::DTYPE
                    ))),
                }
            }
            fn even_edges(lo: Self, hi: End<Self>, bins: usize) -> Vec<Edge> {
                let end = match hi {
                    End::At(h) => h as i128,
                    End::PastMax => <$t>::MAX as i128 + 1,
                };
                int_bin_starts(lo as i128, end, bins)
                    .chain(std::iter::once(end))
                    .map(Edge::Int)
                    .collect()
            }
            fn auto_range(data: &[Self], bins: usize) -> Result<(Self, End<Self>, usize), String> {
                let (Some(&min), Some(&max)) = (data.iter().min(), data.iter().max()) else {
                    return Err("the input is empty".into());
                };
                // max + 1, or one past the type's largest value where max is that value.
                let hi = max.checked_add(1).map_or(End::PastMax, End::At);
                let span = (max as i128 - min as i128 + 1) as u128;
                Ok((min, hi, bins.min(span.min(usize::MAX as u128) as usize).max(1)))
            }
            fn even_counts(
                engine: &Engine,
                data: &[Self],
                lo: Self,
                hi: End<Self>,
                bins: usize,
                algorithm: HistogramAlgorithm,
            ) -> CliResult<Vec<u64>> {
                match hi {
                    End::At(hi) => Ok(engine.histogram_even(data, bins, lo, hi, algorithm)?),
                    End::PastMax => {
                        histosort::sample::check_bins(bins)?;
                        let (max, end) = (<$t>::MAX, <$t>::MAX as i128 + 1);
                        // Bins that start at the end itself (more bins than values) are empty.
                        let starts: Vec<$t> = int_bin_starts(lo as i128, end, bins)
                            .take_while(|&v| v < end)
                            .map(|v| v as $t)
                            .collect();
                        let mut counts = counts_through_max(engine, data, &starts, max, algorithm)?;
                        counts.resize(bins, 0);
                        Ok(counts)
                    }
                }
            }
        }
    )*};
}
int_hist!(u8, u16, u32, u64, i8, i16, i32, i64);

macro_rules! float_hist {
    ($($t:ty),*) => {$(
        impl HistSample for $t {
            fn edge(self) -> Edge {
                Edge::Float(self as f64)
            }
            fn parse_end(s: &str) -> CliResult<End<Self>> {
                parse_value::<Self>(s, "range end").map(End::At)
            }
            fn even_edges(lo: Self, hi: End<Self>, bins: usize) -> Vec<Edge> {
                // Float ends are always values: the type's largest is finite, and inf is refused.
                let hi = match hi {
                    End::At(h) => h,
                    End::PastMax => <$t>::MAX,
                };
                let (lo, hi) = (lo as f64, hi as f64);
                (0..=bins)
                    .map(|i| Edge::Float(if i == bins { hi } else { lo + (hi - lo) * i as f64 / bins as f64 }))
                    .collect()
            }
            fn auto_range(data: &[Self], bins: usize) -> Result<(Self, End<Self>, usize), String> {
                let mut it = data.iter().copied().filter(|x| x.is_finite());
                let Some(first) = it.next() else {
                    return Err("the input has no finite samples".into());
                };
                let (min, max) = it.fold((first, first), |(a, b), x| (a.min(x), b.max(x)));
                // The next float above max, so that max falls inside [lo, hi).
                let up = |x: $t| -> $t {
                    if x == 0.0 {
                        <$t>::from_bits(1)
                    } else if x > 0.0 {
                        <$t>::from_bits(x.to_bits() + 1)
                    } else {
                        <$t>::from_bits(x.to_bits() - 1)
                    }
                };
                let hi = up(max);
                if !hi.is_finite() || !(hi - min).is_finite() {
                    return Err(format!(
                        "the data's range [{min:e}, {max:e}] is too wide for even bins in {}",
                        <Self as Sample>::DTYPE
                    ));
                }
                Ok((min, End::At(hi), bins))
            }
            fn even_counts(
                engine: &Engine,
                data: &[Self],
                lo: Self,
                hi: End<Self>,
                bins: usize,
                algorithm: HistogramAlgorithm,
            ) -> CliResult<Vec<u64>> {
                let hi = match hi {
                    End::At(h) => h,
                    End::PastMax => <$t>::MAX,
                };
                Ok(engine.histogram_even(data, bins, lo, hi, algorithm)?)
            }
        }
    )*};
}
float_hist!(f32, f64);

/// A computed histogram, ready to print.
struct Report {
    dtype: DType,
    n: usize,
    kind: &'static str,
    edges: Vec<Edge>,
    counts: Vec<u64>,
    nan: u64,
}

fn parse_value<T: HistSample>(s: &str, what: &str) -> CliResult<T> {
    s.trim().parse::<T>().map_err(|_| {
        Failure::usage(format!(
            "bad {what} '{s}': not a {} value",
            <T as Sample>::DTYPE
        ))
    })
}

fn histogram<T: HistSample>(
    engine: &Engine,
    data: &[T],
    args: &HistArgs,
) -> CliResult<(Report, std::time::Duration)> {
    let nan = data.iter().filter(|x| x.is_nan()).count() as u64;
    let report = |kind, edges, counts| Report {
        dtype: <T as Sample>::DTYPE,
        n: data.len(),
        kind,
        edges,
        counts,
        nan,
    };
    if let Some(edges) = &args.edges {
        let bounds = edges
            .split(',')
            .map(|e| parse_value::<T>(e, "edge"))
            .collect::<CliResult<Vec<T>>>()?;
        let (counts, t) = timed(|| engine.histogram_range(data, &bounds, args.algorithm));
        let edges = bounds.iter().map(|b| b.edge()).collect();
        return Ok((report("range", edges, counts?), t));
    }
    let (lo, hi, bins) = match &args.range {
        Some(r) => {
            let (lo, hi) = r.split_once(':').ok_or_else(|| {
                Failure::usage(format!("bad range '{r}' (expected LO:HI, e.g. 0:1)"))
            })?;
            let lo = parse_value::<T>(lo, "range start")?;
            let hi = T::parse_end(hi)?;
            (lo, hi, args.bins.unwrap_or(DEFAULT_BINS))
        }
        None => {
            let bins = args.bins.unwrap_or(DEFAULT_BINS);
            T::auto_range(data, bins).map_err(|why| {
                Failure::usage(format!(
                    "{}: no default range for even bins: {why}; give --range LO:HI or --edges",
                    args.input.display()
                ))
            })?
        }
    };
    let (counts, t) = timed(|| T::even_counts(engine, data, lo, hi, bins, args.algorithm));
    let counts = counts?;
    Ok((report("even", T::even_edges(lo, hi, bins), counts), t))
}

fn words_histogram(
    engine: &Engine,
    data: &[u16],
    args: &HistArgs,
) -> CliResult<(Report, std::time::Duration)> {
    let (counts, t) = timed(|| engine.histogram_u16(data, args.algorithm));
    let report = Report {
        dtype: DType::U16,
        n: data.len(),
        kind: "words",
        edges: (0..=1 << 16).map(Edge::Int).collect(),
        counts: counts?,
        nan: 0,
    };
    Ok((report, t))
}

fn bytes_histogram(
    engine: &Engine,
    data: &[u8],
    args: &HistArgs,
) -> CliResult<(Report, std::time::Duration)> {
    let (counts, t) = timed(|| engine.histogram_u8(data, args.algorithm));
    let report = Report {
        dtype: DType::U8,
        n: data.len(),
        kind: "bytes",
        edges: (0..=256).map(Edge::Int).collect(),
        counts: counts?,
        nan: 0,
    };
    Ok((report, t))
}

pub fn run(args: HistArgs, g: &Global) -> CliResult {
    // Before the input is read: a bad bin count is the user's to fix, not worth a read.
    if let Some(bins) = args.bins {
        histosort::sample::check_bins(bins).map_err(|e| Failure::usage(format!("--bins: {e}")))?;
    }
    let spinner = g
        .progress()
        .spinner(format!("reading {}", args.input.display()));
    let data = read_input(&args.input, args.dtype)?;
    let engine = g.engine()?;
    spinner.set_message(format!("histogram of {} samples", fmt_count(data.len())));
    let byte_bins = args.bins.is_none() && args.range.is_none() && args.edges.is_none();
    if let Some(c) = args.channels {
        let Array::U8(v) = &data else {
            return Err(Failure::usage(format!(
                "--channels takes u8 data (interleaved pixels), not {}",
                data.dtype()
            )));
        };
        return channels(&engine, v, c, &args, g);
    }
    let (report, elapsed) = match &data {
        Array::U8(v) if byte_bins => bytes_histogram(&engine, v, &args)?,
        Array::U16(v) if byte_bins => words_histogram(&engine, v, &args)?,
        Array::U8(v) => histogram(&engine, v, &args)?,
        Array::U16(v) => histogram(&engine, v, &args)?,
        Array::U32(v) => histogram(&engine, v, &args)?,
        Array::U64(v) => histogram(&engine, v, &args)?,
        Array::I8(v) => histogram(&engine, v, &args)?,
        Array::I16(v) => histogram(&engine, v, &args)?,
        Array::I32(v) => histogram(&engine, v, &args)?,
        Array::I64(v) => histogram(&engine, v, &args)?,
        Array::F32(v) => histogram(&engine, v, &args)?,
        Array::F64(v) => histogram(&engine, v, &args)?,
        Array::U128(_) | Array::I128(_) => {
            return Err(Failure::new(format!(
                "histograms of {} samples are not supported (supported: u8 u16 u32 u64 i8 i16 \
                 i32 i64 f32 f64)",
                data.dtype()
            )))
        }
    };
    spinner.finish();
    if args.json {
        print_json(&report, &args, &engine);
    } else {
        print_table(&report);
    }
    g.note(format!(
        "histogram of {} {} samples into {} bins on {}: {}, {}",
        fmt_count(report.n),
        report.dtype,
        report.counts.len(),
        engine.describe(),
        fmt_duration(elapsed),
        fmt_rate(report.n, elapsed, "samples")
    ));
    Ok(())
}

/// `--channels`: one 256-bin histogram per channel, printed side by side.
fn channels(engine: &Engine, data: &[u8], c: usize, args: &HistArgs, g: &Global) -> CliResult {
    let (counts, elapsed) = timed(|| engine.histogram_channels_u8(data, c, args.algorithm));
    let counts = counts?;
    if args.json {
        let bins: Vec<Value> = (0..256)
            .map(|b| {
                let per: Vec<u64> = counts.iter().map(|h| h[b]).collect();
                json!({"bin": b, "lower": b, "upper": b + 1, "counts": per})
            })
            .collect();
        let counted: Vec<u64> = counts.iter().map(|h| h.iter().sum()).collect();
        let doc = json!({
            "input": args.input.display().to_string(),
            "dtype": "u8",
            "n": data.len(),
            "pixels": data.len() / c,
            "channels": c,
            "kind": "channels",
            "algorithm": args.algorithm.name(),
            "backend": engine.kind().name(),
            "bins": bins,
            "counted": counted,
        });
        outln!("{doc:#}");
    } else {
        let mut header = format!("{:>3}", "bin");
        for ch in 0..c {
            header.push_str(&format!("  {:>12}", format!("channel {ch}")));
        }
        outln!("{header}");
        for b in 0..256 {
            let mut row = format!("{b:>3}");
            for h in &counts {
                row.push_str(&format!("  {:>12}", h[b]));
            }
            outln!("{row}");
        }
        outln!(
            "{} pixels of {c} channels ({} bytes)",
            data.len() / c,
            data.len()
        );
    }
    g.note(format!(
        "{c}-channel histogram of {} pixels on {}: {}, {}",
        fmt_count(data.len() / c),
        engine.describe(),
        fmt_duration(elapsed),
        fmt_rate(data.len(), elapsed, "bytes")
    ));
    Ok(())
}

/// Tables with more bins than this list only the bins that are not empty.
const TABLE_ALL_BINS_MAX: usize = 1024;

fn print_table(r: &Report) {
    let max = r.counts.iter().copied().max().unwrap_or(0).max(1);
    let sparse = r.counts.len() > TABLE_ALL_BINS_MAX;
    let ranges: Vec<String> = (0..r.counts.len())
        .map(|i| format!("[{}, {})", r.edges[i], r.edges[i + 1]))
        .collect();
    let rw = ranges
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let cw = r
        .counts
        .iter()
        .map(|c| c.to_string().len())
        .max()
        .unwrap_or(5)
        .max(5);
    let bw = r.counts.len().saturating_sub(1).to_string().len().max(3);
    outln!("{:>bw$}  {:<rw$}  {:>cw$}", "bin", "range", "count");
    for (i, (&c, range)) in r.counts.iter().zip(&ranges).enumerate() {
        if sparse && c == 0 {
            continue;
        }
        // Round up so that any nonzero count shows at least a sliver.
        let len = ((c as u128 * BAR as u128).div_ceil(max as u128)) as usize;
        outln!("{i:>bw$}  {range:<rw$}  {c:>cw$}  {}", "█".repeat(len));
    }
    let counted: u64 = r.counts.iter().sum();
    let outside = r.n as u64 - counted;
    let nan = if r.dtype.is_float() {
        format!(" (NaN: {})", r.nan)
    } else {
        String::new()
    };
    outln!(
        "{} samples ({}), {} in bins, {} outside{nan}",
        r.n,
        r.dtype,
        counted,
        outside
    );
    if sparse {
        let empty = r.counts.iter().filter(|&&c| c == 0).count();
        outln!(
            "{} bins, {empty} of them empty and not listed (--json lists every bin)",
            r.counts.len()
        );
    }
}

fn print_json(r: &Report, args: &HistArgs, engine: &Engine) {
    let counted: u64 = r.counts.iter().sum();
    let bins: Vec<Value> = r
        .counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            json!({
                "bin": i,
                "lower": r.edges[i].json(),
                "upper": r.edges[i + 1].json(),
                "count": c,
            })
        })
        .collect();
    let doc = json!({
        "input": args.input.display().to_string(),
        "dtype": r.dtype.name(),
        "n": r.n,
        "kind": r.kind,
        "algorithm": args.algorithm.name(),
        "backend": engine.kind().name(),
        "bins": bins,
        "counted": counted,
        "outside": r.n as u64 - counted,
        "nan": r.nan,
    });
    outln!("{doc:#}");
}
