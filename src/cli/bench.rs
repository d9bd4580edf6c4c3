//! `histosort bench`: parses the arguments and hands them to [`histosort::bench::run`].

use std::path::PathBuf;

use clap::Args;
use histosort::bench::{self, Config, Suite};
use histosort::gen::Distribution;

use super::{parse_count, CliResult, Failure, Global};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  histosort bench --quick --backend cpu\n  histosort bench sort peers --json bench/results/run.json\n  histosort bench hist-study --export-ptx ptx/\n\nThe JSON schema is documented in bench/schema.md."
)]
pub struct BenchArgs {
    /// Suites to run (default: all): hist-study, contention, sort, graph, scan, peers.
    #[arg(value_name = "SUITE")]
    pub suites: Vec<String>,
    /// Fewer samples and smaller sizes.
    #[arg(long)]
    pub quick: bool,
    /// Write every record and the environment to FILE (JSON, see bench/schema.md); SVG charts
    /// go next to it.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Folder for the SVG charts (default: the JSON file's folder).
    #[arg(long, value_name = "DIR")]
    pub charts: Option<PathBuf>,
    /// Write the PTX of every kernel (and SASS where cuobjdump is on PATH) into DIR.
    #[arg(long, value_name = "DIR")]
    pub export_ptx: Option<PathBuf>,
    /// Most timed samples per case (the histogram study takes exactly this many).
    #[arg(long)]
    pub samples: Option<usize>,
    /// Warm-up runs per case.
    #[arg(long)]
    pub warmups: Option<usize>,
    /// Element counts of the sort, graph, scan and peers suites, comma-separated (2^24, 16Mi, ...).
    #[arg(long, value_delimiter = ',', value_parser = parse_count)]
    pub sizes: Option<Vec<usize>>,
    /// Bytes of the histogram suites (64Mi, 2^26, ...).
    #[arg(long, value_parser = parse_count)]
    pub hist_bytes: Option<usize>,
    /// Seed of the generated inputs.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Do not build or run the CUB peer.
    #[arg(long)]
    pub no_cub: bool,
    /// Key distribution of the sorts in the sort and peers suites: uniform (default),
    /// entropy-{1.0,0.811,0.544,0.337,0.201,0} or distinct-N, which CUB's keys follow too;
    /// sorted, reversed, equal and specials run with --no-cub only.
    #[arg(long, value_name = "NAME", value_parser = parse_dist)]
    pub dist: Option<Distribution>,
    /// Peers suite: run only the cases whose label contains one of these comma-separated
    /// patterns (`--cases "sort-keys u64,f32 even"`; labels as printed in the table).
    #[arg(long, value_delimiter = ',', value_name = "PATTERNS")]
    pub cases: Vec<String>,
    /// Run nothing: read a results file that `--json` wrote, print its records with their
    /// ratios to CUB, and write its charts again (into `--charts`, default its folder).
    /// The options of a run (suites, `--sizes`, `--samples`, ...) are refused with it.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "suites", "json", "quick", "export_ptx", "samples", "warmups", "sizes", "hist_bytes",
        "seed", "no_cub", "cases", "dist",
    ])]
    pub replot: Option<PathBuf>,
}

pub fn run(args: BenchArgs, g: &Global) -> CliResult {
    if let Some(path) = &args.replot {
        let (table, files) = bench::replot(path, args.charts.as_deref())?;
        println!("{table}");
        if !g.quiet {
            for f in files {
                eprintln!("wrote {}", f.display());
            }
        }
        return Ok(());
    }
    let mut suites = Vec::new();
    for s in &args.suites {
        if s == "all" {
            suites = Suite::ALL.to_vec();
            break;
        }
        suites.push(s.parse::<Suite>().map_err(Failure::usage)?);
    }
    let defaults = Config::default();
    let cfg = Config {
        suites,
        backend: g.backend,
        quick: args.quick,
        json: args.json,
        charts: args.charts,
        export_ptx: args.export_ptx,
        quiet: g.quiet,
        samples: args.samples,
        warmups: args.warmups,
        sizes: args.sizes,
        hist_bytes: args.hist_bytes,
        seed: args.seed.unwrap_or(defaults.seed),
        dist: args.dist.unwrap_or(defaults.dist),
        no_cub: args.no_cub,
        cases: args.cases,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    bench::run(&cfg)?;
    Ok(())
}

fn parse_dist(s: &str) -> Result<Distribution, String> {
    s.parse()
}
