//! `histosort gen`: test data from [`histosort::gen`].

use std::path::PathBuf;

use clap::Args;
use histosort::gen::{generate, Distribution};
use histosort::io::{self, Array};
use histosort::DType;

use super::{fmt_count, fmt_duration, output_format, parse_count, timed, CliResult, Global};

#[derive(Args, Debug)]
#[command(after_help = "\
Distributions: uniform, entropy-{1.0,0.811,0.544,0.337,0.201,0} (the AND of k random words), \
sorted, reversed, equal, distinct-N (at most N distinct keys), specials (NaN, ±inf, ±0.0, \
subnormals, extremes).

Examples:
  histosort gen keys.npy --dtype u32 --n 2^24
  histosort gen floats.npy --dtype f32 --n 1M --dist specials --seed 7
  histosort gen wide.bin --dtype u128 --n 1000   (u128/i128: raw files only)")]
pub struct GenArgs {
    /// Output file: .npy, or raw little-endian data for any other extension.
    pub output: PathBuf,
    /// Element type: u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64.
    #[arg(long, default_value = "u32")]
    pub dtype: DType,
    /// Number of elements: 1000, 2^24, 16M (10^6), 16Mi (2^20).
    #[arg(long, short, value_parser = parse_count)]
    pub n: usize,
    /// Distribution (see below).
    #[arg(long, default_value = "uniform", value_name = "NAME")]
    pub dist: Distribution,
    /// Seed: the same seed gives the same data on every machine.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

fn gen_array(dtype: DType, dist: &Distribution, n: usize, seed: u64) -> Array {
    match dtype {
        DType::U8 => Array::U8(generate(dist, n, seed)),
        DType::U16 => Array::U16(generate(dist, n, seed)),
        DType::U32 => Array::U32(generate(dist, n, seed)),
        DType::U64 => Array::U64(generate(dist, n, seed)),
        DType::U128 => Array::U128(generate(dist, n, seed)),
        DType::I8 => Array::I8(generate(dist, n, seed)),
        DType::I16 => Array::I16(generate(dist, n, seed)),
        DType::I32 => Array::I32(generate(dist, n, seed)),
        DType::I64 => Array::I64(generate(dist, n, seed)),
        DType::I128 => Array::I128(generate(dist, n, seed)),
        DType::F32 => Array::F32(generate(dist, n, seed)),
        DType::F64 => Array::F64(generate(dist, n, seed)),
    }
}

pub fn run(args: GenArgs, g: &Global) -> CliResult {
    let format = output_format(&args.output, args.dtype)?;
    let spinner = g.progress().spinner(format!(
        "generating {} {} {}",
        fmt_count(args.n),
        args.dist,
        args.dtype
    ));
    let (data, t) = timed(|| gen_array(args.dtype, &args.dist, args.n, args.seed));
    spinner.set_message(format!("writing {}", args.output.display()));
    io::write(&args.output, &data, format)?;
    spinner.finish();
    g.note(format!(
        "generated {} {} {} (seed {}) in {} -> {}",
        fmt_count(args.n),
        args.dist,
        args.dtype,
        args.seed,
        fmt_duration(t),
        args.output.display()
    ));
    Ok(())
}
