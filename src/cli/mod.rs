//! The `histosort` commands, one module each, and what they share: global options, errors that
//! become exit codes, file checks, number formatting.

pub mod bench;
/// `println!` that ends the program quietly when stdout is closed (`histosort ... | head`)
/// instead of panicking.
macro_rules! outln {
    () => { $crate::cli::write_stdout(format_args!("")) };
    ($($arg:tt)*) => { $crate::cli::write_stdout(format_args!($($arg)*)) };
}

pub mod compile;
pub mod demo;
pub mod gen;
pub mod hist;
pub mod info;
pub mod progress;
pub mod scan;
pub mod sort;
pub mod validate;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use histosort::io::{self, Array, FileFormat};
use histosort::{Backend, DType, Engine};

/// Options every command takes.
#[derive(Args, Clone, Debug)]
pub struct Global {
    /// Where to run: auto (CUDA if usable, else CPU), cpu, cuda or cuda:N.
    #[arg(
        long,
        global = true,
        default_value = "auto",
        value_name = "auto|cpu|cuda"
    )]
    pub backend: Backend,
    /// No progress bars and no summary lines on stderr.
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

impl Global {
    pub fn engine(&self) -> CliResult<Engine> {
        Ok(Engine::new(self.backend)?)
    }

    pub fn progress(&self) -> progress::Progress {
        progress::Progress::new(self.quiet)
    }

    /// Prints a summary line on stderr unless `--quiet`.
    pub fn note(&self, line: impl AsRef<str>) {
        if !self.quiet {
            eprintln!("{}", line.as_ref());
        }
    }
}

/// A command's failure: the message printed after `error: ` and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: u8,
}

pub type CliResult<T = ()> = Result<T, Failure>;

impl Failure {
    /// A runtime failure (exit code 1).
    pub fn new(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
        }
    }

    /// A bad combination of arguments (exit code 2, as clap's own usage errors).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 2,
        }
    }
}

impl From<histosort::Error> for Failure {
    fn from(e: histosort::Error) -> Failure {
        Failure::new(e.to_string())
    }
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::new(s)
    }
}

/// Writes one line to stdout (see `outln!`).
pub fn write_stdout(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

/// The canonical form of a path that may not exist yet (its folder must).
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    parent.canonicalize().ok().map(|p| p.join(name))
}

/// Whether two paths name the same file (after resolving links and `..`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (canonical(a), canonical(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Refuses to write `output` over any of `inputs` unless `in_place`.
pub fn check_overwrite(output: &Path, inputs: &[&Path], in_place: bool) -> CliResult {
    if in_place {
        return Ok(());
    }
    for input in inputs {
        if same_file(output, input) {
            return Err(Failure::usage(format!(
                "the output {} is the input file {}: pass --in-place to overwrite it",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Reads an input array; a `.npy` file's dtype must agree with `--dtype` when both are given.
pub fn read_input(path: &Path, dtype: Option<DType>) -> CliResult<Array> {
    let array = io::read(path, dtype)?;
    if let Some(d) = dtype {
        if d != array.dtype() {
            return Err(Failure::usage(format!(
                "{} holds {} data but --dtype says {d}",
                path.display(),
                array.dtype()
            )));
        }
    }
    Ok(array)
}

/// The format an output path implies for data of `dtype`: `.npy`, else raw. Checked before any
/// work is done, so that a u128 result bound for `.npy` fails early.
pub fn output_format(path: &Path, dtype: DType) -> CliResult<FileFormat> {
    let format = FileFormat::for_path(path, Some(dtype))?;
    if format == FileFormat::Npy && io::npy::typestr(dtype).is_none() {
        return Err(Failure::usage(format!(
            "{}: {dtype} has no NumPy dtype; write a raw file (any extension but .npy)",
            path.display()
        )));
    }
    Ok(format)
}

/// Runs `f` and times it.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

/// `12.3 ms`, `1.23 s`, `45 µs`.
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// Millions of `unit` per second, e.g. `812.4 Mkeys/s`.
pub fn fmt_rate(n: usize, d: Duration, unit: &str) -> String {
    let s = d.as_secs_f64();
    if s <= 0.0 {
        return format!("- M{unit}/s");
    }
    let r = n as f64 / s;
    if r >= 1e9 {
        format!("{:.2} G{unit}/s", r / 1e9)
    } else {
        format!("{:.1} M{unit}/s", r / 1e6)
    }
}

/// Parses a length: `1000`, `2^24`, `1<<24`, `16M` (10^6), `16Mi` (2^20), `1k`, `1Ki`, `1G`, `1Gi`.
pub fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim().replace('_', "");
    let bad = || format!("bad count '{s}' (expected e.g. 1000, 2^24, 1<<24, 16M, 16Mi)");
    let pow2 = t.split_once('^').or_else(|| t.split_once("<<"));
    if let Some((base, exp)) = pow2 {
        let exp: u32 = exp.trim().parse().map_err(|_| bad())?;
        let base: usize = base.trim().parse().map_err(|_| bad())?;
        return match t.contains('^') {
            true => base.checked_pow(exp),
            false => base.checked_shl(exp).filter(|_| exp < usize::BITS),
        }
        .ok_or_else(|| format!("count '{s}' is too large"));
    }
    let (digits, mult) = [
        ("Ki", 1usize << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("k", 1000),
        ("K", 1000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
    ]
    .iter()
    .find_map(|(suffix, m)| t.strip_suffix(suffix).map(|d| (d, *m)))
    .unwrap_or((t.as_str(), 1));
    let n: usize = digits.trim().parse().map_err(|_| bad())?;
    n.checked_mul(mult)
        .ok_or_else(|| format!("count '{s}' is too large"))
}

/// `1,234,567`.
pub fn fmt_count(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("2^24"), Ok(1 << 24));
        assert_eq!(parse_count("1<<10"), Ok(1024));
        assert_eq!(parse_count("16M"), Ok(16_000_000));
        assert_eq!(parse_count("16Mi"), Ok(16 << 20));
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert!(parse_count("x").is_err());
        assert!(parse_count("2^99").is_err());
        assert_eq!(fmt_count(1234567), "1,234,567");
        assert_eq!(fmt_count(12), "12");
    }
}
