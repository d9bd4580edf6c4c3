//! `histosort scan`: inclusive or exclusive prefix sums.

use std::path::PathBuf;

use clap::Args;
use histosort::io::{self, Array, Element};
use histosort::{DType, Engine, ScanAlgorithm, ScanElem, ScanKind};

use super::{
    check_overwrite, fmt_count, fmt_duration, fmt_rate, output_format, read_input, timed,
    CliResult, Failure, Global,
};

#[derive(Args, Debug)]
#[command(after_help = "\
Integer sums wrap around on overflow; float sums are rounded, in the backend's (blocked) order.

Examples:
  histosort scan counts.npy -o offsets.npy --exclusive
  histosort scan x.bin --dtype f64 -o cumsum.bin")]
pub struct ScanArgs {
    /// The input: a .npy file, or raw binary data with --dtype (u32 u64 i32 i64 f32 f64).
    pub input: PathBuf,
    /// Where to write the prefix sums (same dtype as the input).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Element type of a raw INPUT.
    #[arg(long)]
    pub dtype: Option<DType>,
    /// out[i] = x[0] + ... + x[i] (the default).
    #[arg(long, conflicts_with = "exclusive")]
    pub inclusive: bool,
    /// out[i] = x[0] + ... + x[i-1], out[0] = 0.
    #[arg(long)]
    pub exclusive: bool,
    /// Scan variant: auto, cpu-blocked, reduce-then-scan.
    #[arg(long, default_value = "auto", value_name = "NAME")]
    pub algorithm: ScanAlgorithm,
    /// Allow OUTPUT to be INPUT.
    #[arg(long)]
    pub in_place: bool,
}

fn scan<T: ScanElem + Element>(
    engine: &Engine,
    data: &[T],
    kind: ScanKind,
    algorithm: ScanAlgorithm,
) -> CliResult<(Array, std::time::Duration)> {
    let mut out = vec![T::ZERO; data.len()];
    let (r, t) = timed(|| engine.scan_into(data, &mut out, kind, algorithm));
    r?;
    Ok((T::into_array(out), t))
}

pub fn run(args: ScanArgs, g: &Global) -> CliResult {
    check_overwrite(&args.output, &[&args.input], args.in_place)?;
    let kind = if args.exclusive {
        ScanKind::Exclusive
    } else {
        ScanKind::Inclusive
    };
    let spinner = g
        .progress()
        .spinner(format!("reading {}", args.input.display()));
    let data = read_input(&args.input, args.dtype)?;
    let format = output_format(&args.output, data.dtype())?;
    let engine = g.engine()?;
    spinner.set_message(format!("scanning {} elements", fmt_count(data.len())));
    let (out, t) = match &data {
        Array::U32(v) => scan(&engine, v, kind, args.algorithm)?,
        Array::U64(v) => scan(&engine, v, kind, args.algorithm)?,
        Array::I32(v) => scan(&engine, v, kind, args.algorithm)?,
        Array::I64(v) => scan(&engine, v, kind, args.algorithm)?,
        Array::F32(v) => scan(&engine, v, kind, args.algorithm)?,
        Array::F64(v) => scan(&engine, v, kind, args.algorithm)?,
        other => {
            return Err(Failure::new(format!(
            "{}: scans of {} are not supported (supported dtypes: u32, u64, i32, i64, f32, f64)",
            args.input.display(),
            other.dtype()
        )))
        }
    };
    spinner.set_message(format!("writing {}", args.output.display()));
    io::write(&args.output, &out, format)?;
    spinner.finish();
    g.note(format!(
        "{kind} scan of {} {} on {}: {}, {}",
        fmt_count(out.len()),
        out.dtype(),
        engine.describe(),
        fmt_duration(t),
        fmt_rate(out.len(), t, "elements")
    ));
    Ok(())
}
