//! `histosort`: histograms, prefix scans and radix sorts of `.npy` and raw binary files, on the
//! GPU (CUDA) or the CPU. `histosort --help` lists the commands; the README has examples.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cli::Global;

#[derive(Parser)]
#[command(name = "histosort", version, about, long_about = None)]
#[command(
    after_help = "Start with `histosort demo`; `histosort info` says which backends are usable here."
)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Sort a .npy or raw binary file (keys, key-value pairs, or the sorting permutation).
    Sort(cli::sort::SortArgs),
    /// Histogram of a file: 256 bins for bytes, even bins (--bins, --range) or explicit edges.
    Hist(cli::hist::HistArgs),
    /// Inclusive or exclusive prefix sum of a file.
    Scan(cli::scan::ScanArgs),
    /// Generate test data (the distributions of the GPU sorting literature) into a file.
    Gen(cli::gen::GenArgs),
    /// The backends found here: CPU threads; CUDA device, SMs, driver and NVRTC, or why not.
    Info,
    /// Check every sort, histogram and scan of a backend against the serial reference.
    Validate(cli::validate::ValidateArgs),
    /// Generate data, sort and histogram it on the best backend, validate, and time it.
    Demo(cli::demo::DemoArgs),
    /// Benchmarks: the seeds' measurements (hist-study, contention, sort, graph, scan, peers).
    Bench(cli::bench::BenchArgs),
    /// Compile every CUDA kernel with NVRTC (no GPU needed): a build check for CI.
    CompileKernels(cli::compile::CompileArgs),
}

/// Exit status of a run interrupted by Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells do).
const INTERRUPTED: i32 = 130;

fn main() -> ExitCode {
    // An interrupted run leaves its outputs as they were and no temporary file beside them.
    // Best effort: without the handler the signal's default action still stops the process.
    let _ = ctrlc::set_handler(|| {
        let removed = histosort::io::remove_staged();
        if removed > 0 {
            eprintln!("interrupted: removed {removed} temporary file(s) of unfinished outputs");
        } else {
            eprintln!("interrupted");
        }
        std::process::exit(INTERRUPTED);
    });
    let cli = Cli::parse();
    let g = &cli.global;
    let result = match cli.command {
        Command::Sort(args) => cli::sort::run(args, g),
        Command::Hist(args) => cli::hist::run(args, g),
        Command::Scan(args) => cli::scan::run(args, g),
        Command::Gen(args) => cli::gen::run(args, g),
        Command::Info => cli::info::run(g),
        Command::Validate(args) => cli::validate::run(args, g),
        Command::Demo(args) => cli::demo::run(args, g),
        Command::Bench(args) => cli::bench::run(args, g),
        Command::CompileKernels(args) => cli::compile::run(args, g),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("error: {}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}
