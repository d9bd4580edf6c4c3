//! `histosort sort`: keys, key-value pairs (`--values`) or the permutation (`--argsort`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use histosort::io::{self, Array, FileFormat};
use histosort::{
    with_array, DType, Engine, LaunchMode, Order, Permutation, SortAlgorithm, SortOptions,
};

use super::{
    check_overwrite, fmt_count, fmt_duration, fmt_rate, output_format, read_input, same_file,
    timed, CliResult, Failure, Global,
};

#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  histosort sort keys.npy -o sorted.npy
  histosort sort keys.bin --dtype f32 -o sorted.bin --descending
  histosort sort keys.npy -o sorted.npy --values payload.npy --values-out payload-sorted.npy
  histosort sort keys.npy -o perm.npy --argsort
  histosort sort keys.npy --in-place

The format follows each file's extension: .npy files carry their dtype, anything else is raw \
little-endian data that needs --dtype (and --values-dtype for a raw values file, unless its \
element size follows from its length).")]
pub struct SortArgs {
    /// The keys: a .npy file, or raw binary data with --dtype.
    pub input: PathBuf,
    /// Where to write the sorted keys (or the permutation with --argsort).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Element type of a raw INPUT: u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64.
    #[arg(long)]
    pub dtype: Option<DType>,
    /// Sort in descending order (still stable).
    #[arg(long)]
    pub descending: bool,
    /// Sort on bits [BEGIN, END) of the key's order-preserving image only.
    #[arg(long, value_name = "BEGIN:END", value_parser = parse_bits)]
    pub bits: Option<(u32, u32)>,
    /// Bits per radix pass (1 to 16; default: the backend's choice).
    #[arg(long, value_name = "N")]
    pub digit_bits: Option<u32>,
    /// Sort variant: auto, cpu-lsd, three-phase, ...
    #[arg(long, default_value = "auto", value_name = "NAME")]
    pub algorithm: SortAlgorithm,
    /// CUDA only: plain stream launches, a captured graph, or auto (plain launches; repeated
    /// one-kernel sorts replay a graph).
    #[arg(long, default_value = "auto", value_name = "auto|stream|graph")]
    pub launch: LaunchMode,
    /// A payload sorted along with the keys (same length; any element type).
    #[arg(long, value_name = "FILE", conflicts_with = "argsort")]
    pub values: Option<PathBuf>,
    /// Where to write the sorted payload (needed with --values, unless --in-place).
    #[arg(long, value_name = "FILE", requires = "values")]
    pub values_out: Option<PathBuf>,
    /// Element type of a raw values file (default: from its size, 1/2/4/8/16-byte elements).
    #[arg(long, value_name = "DTYPE", requires = "values")]
    pub values_dtype: Option<DType>,
    /// Write the stable sorting permutation instead of the keys (u32, or u64 when needed).
    #[arg(long)]
    pub argsort: bool,
    /// Allow overwriting the inputs; without -o, the keys (and values) are sorted in their files.
    #[arg(long)]
    pub in_place: bool,
}

fn parse_bits(s: &str) -> Result<(u32, u32), String> {
    let (b, e) = s
        .split_once(':')
        .ok_or_else(|| format!("bad bit range '{s}' (expected BEGIN:END, e.g. 0:16)"))?;
    let num = |x: &str| {
        x.trim()
            .parse::<u32>()
            .map_err(|_| format!("bad bit range '{s}' (expected BEGIN:END, e.g. 0:16)"))
    };
    Ok((num(b)?, num(e)?))
}

/// Where each result goes, checked before anything is read or sorted.
struct Plan {
    output: PathBuf,
    values: Option<(PathBuf, PathBuf)>,
}

fn plan(args: &SortArgs) -> CliResult<Plan> {
    let output = match (&args.output, args.in_place) {
        (Some(o), _) => o.clone(),
        (None, true) if !args.argsort => args.input.clone(),
        (None, true) => {
            return Err(Failure::usage(
                "--argsort --in-place needs -o: the permutation would replace the keys; \
                 give -o INPUT to do that on purpose",
            ))
        }
        (None, false) => {
            return Err(Failure::usage(
                "missing -o OUTPUT (or --in-place to sort INPUT in its file)",
            ))
        }
    };
    let mut inputs: Vec<&Path> = vec![&args.input];
    let values = match &args.values {
        None => None,
        Some(v) => {
            inputs.push(v);
            let out =
                match (&args.values_out, args.in_place) {
                    (Some(o), _) => o.clone(),
                    (None, true) => v.clone(),
                    (None, false) => return Err(Failure::usage(
                        "--values needs --values-out FILE for the sorted payload (or --in-place)",
                    )),
                };
            if same_file(&out, &output) {
                return Err(Failure::usage(format!(
                    "the keys and the values would both be written to {}",
                    output.display()
                )));
            }
            Some((v.clone(), out))
        }
    };
    check_overwrite(&output, &inputs, args.in_place)?;
    if let Some((_, out)) = &values {
        check_overwrite(out, &inputs, args.in_place)?;
    }
    Ok(Plan { output, values })
}

fn options(args: &SortArgs) -> SortOptions {
    let mut o = SortOptions::new()
        .order(if args.descending {
            Order::Descending
        } else {
            Order::Ascending
        })
        .algorithm(args.algorithm)
        .launch(args.launch);
    o.bits = args.bits;
    o.digit_bits = args.digit_bits;
    o
}

/// Reads a values file: `.npy`, or raw with `--values-dtype` or an element size inferred from
/// its length.
fn read_values(path: &Path, dtype: Option<DType>, n: usize) -> CliResult<Array> {
    if io::is_npy_path(path) || dtype.is_some() {
        return read_input(path, dtype);
    }
    let size = std::fs::metadata(path)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?
        .len();
    let width = if n == 0 { 0 } else { size / n as u64 };
    let dtype = match (n, size, width) {
        (0, 0, _) => DType::U8,
        (_, _, 1) => DType::U8,
        (_, _, 2) => DType::U16,
        (_, _, 4) => DType::U32,
        (_, _, 8) => DType::U64,
        (_, _, 16) => DType::U128,
        _ => {
            return Err(Failure::new(format!(
                "{}: values length mismatch: {size} bytes is not 1, 2, 4, 8 or 16 bytes for each \
                 of the {n} keys (give --values-dtype if the element type is known)",
                path.display()
            )))
        }
    };
    if width * n as u64 != size {
        return Err(Failure::new(format!(
            "{}: values length mismatch: {size} bytes is not a whole number of elements for {n} \
             keys",
            path.display()
        )));
    }
    Ok(io::read_raw(path, dtype)?)
}

/// Pair sorts through the permutation: one argsort per key type and one gather per element
/// type, rather than a sort instance for every (key, value) combination, which would multiply the
/// binary's compile time. The result is the same stable order.
fn sort_pairs(
    engine: &Engine,
    keys: &Array,
    values: &Array,
    opts: &SortOptions,
) -> histosort::Result<(Array, Array)> {
    let perm = with_array!(keys, k => engine.argsort(k, opts))?;
    let keys = with_array!(keys, k => Array::from(perm.apply(k)));
    let values = with_array!(values, v => Array::from(perm.apply(v)));
    Ok((keys, values))
}

pub fn run(args: SortArgs, g: &Global) -> CliResult {
    let plan = plan(&args)?;
    let opts = options(&args);
    let spinner = g
        .progress()
        .spinner(format!("reading {}", args.input.display()));
    let mut keys = read_input(&args.input, args.dtype)?;
    let n = keys.len();
    let key_dtype = keys.dtype();
    let out_dtype = if args.argsort {
        if n as u64 <= u32::MAX as u64 + 1 {
            DType::U32
        } else {
            DType::U64
        }
    } else {
        key_dtype
    };
    let out_format = output_format(&plan.output, out_dtype)?;
    let values = match &plan.values {
        Some((path, out)) => {
            spinner.set_message(format!("reading {}", path.display()));
            let v = read_values(path, args.values_dtype, n)?;
            if v.len() != n {
                return Err(Failure::new(format!(
                    "values length mismatch: {} has {} keys but {} has {} values",
                    args.input.display(),
                    n,
                    path.display(),
                    v.len()
                )));
            }
            let format = output_format(out, v.dtype())?;
            Some((v, out, format))
        }
        None => None,
    };
    let engine = g.engine()?;
    spinner.set_message(format!("sorting {} {key_dtype} keys", fmt_count(n)));

    let (what, elapsed): (&str, Duration) = if args.argsort {
        let (perm, t) = timed(|| with_array!(&keys, k => engine.argsort(k.as_slice(), &opts)));
        let perm = match perm? {
            Permutation::U32(p) => Array::U32(p),
            Permutation::U64(p) => Array::U64(p),
        };
        spinner.set_message(format!("writing {}", plan.output.display()));
        io::write(&plan.output, &perm, out_format)?;
        ("argsorted", t)
    } else if let Some((v, out, format)) = &values {
        let (r, t) = timed(|| sort_pairs(&engine, &keys, v, &opts));
        let (k, v) = r?;
        spinner.set_message(format!("writing {}", plan.output.display()));
        // Both or neither: a values file that cannot be written leaves the keys as they were.
        io::write_together(&[
            (plan.output.as_path(), &k, out_format),
            (out.as_path(), &v, *format),
        ])?;
        ("sorted pairs of", t)
    } else {
        let (r, t) = timed(|| with_array!(&mut keys, k => engine.sort(k.as_mut_slice(), &opts)));
        r?;
        spinner.set_message(format!("writing {}", plan.output.display()));
        io::write(&plan.output, &keys, out_format)?;
        ("sorted", t)
    };
    spinner.finish();
    let order = if args.descending { ", descending" } else { "" };
    let written = match out_format {
        FileFormat::Npy => String::new(),
        FileFormat::Raw(d) => format!(" (raw {d})"),
    };
    g.note(format!(
        "{what} {} {key_dtype} keys{order} on {}: {}, {} -> {}{written}",
        fmt_count(n),
        engine.describe(),
        fmt_duration(elapsed),
        fmt_rate(n, elapsed, "keys"),
        plan.output.display()
    ));
    Ok(())
}
