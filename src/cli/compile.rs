//! `histosort compile-kernels`: compiles every kernel configuration with NVRTC, no GPU needed
//! (CI runs it with the NVRTC of the `nvidia-cuda-nvrtc` wheel), optionally writing the images.

use std::path::PathBuf;

use histosort::cuda::{all_module_specs, compile, Target};

use super::{CliResult, Failure, Global};

#[derive(clap::Args)]
pub struct CompileArgs {
    /// Target architecture: `sm_90` (CUBIN) or `compute_90` (PTX).
    #[arg(long, default_value = "sm_90")]
    arch: String,
    /// Also write each image into this folder (`<label>.cubin` or `.ptx`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only the modules whose label (as printed, e.g. `radix_sort_onesweep.cu[KEY_BITS=64,..]`)
    /// contains this text.
    #[arg(long, value_name = "TEXT")]
    only: Option<String>,
    /// Under each module, every kernel's registers, stack frame and spills as ptxas reports them
    /// (`--ptxas-options=-v`; CUBIN targets only).
    #[arg(long)]
    resources: bool,
}

/// One kernel's resources from a ptxas `-v` report.
#[derive(Debug, Default, PartialEq)]
struct Resources {
    name: String,
    registers: u32,
    stack: u32,
    spill_stores: u32,
    spill_loads: u32,
}

/// The first number in `text` before `unit` (e.g. `"0 bytes spill stores"`, `"spill stores"`).
fn number_before(text: &str, unit: &str) -> Option<u32> {
    let at = text.find(unit)?;
    text[..at].split_whitespace().last()?.parse().ok()
}

/// Reads ptxas's `-v` report (in NVRTC's log): per entry function, its registers, stack frame
/// and spills.
fn parse_resources(log: &str) -> Vec<Resources> {
    let mut out: Vec<Resources> = Vec::new();
    // Whether the last "Function properties for" named the current entry (not a callee).
    let mut own = false;
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or("").to_string();
            out.push(Resources {
                name,
                ..Default::default()
            });
            own = false;
        } else if let Some(r) = out.last_mut() {
            if let Some(f) = line.split("Function properties for ").nth(1) {
                own = f.trim() == r.name;
            } else if line.contains("bytes stack frame") && own {
                r.stack = number_before(line, "bytes stack frame").unwrap_or(0);
                r.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                r.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("registers") {
                r.registers = number_before(line, "registers").unwrap_or(0);
            }
        }
    }
    out
}

pub fn run(args: CompileArgs, _g: &Global) -> CliResult {
    let target = Target::parse(&args.arch).ok_or_else(|| {
        Failure::usage(format!(
            "unknown architecture '{}' (expected sm_XY or compute_XY, e.g. sm_90)",
            args.arch
        ))
    })?;
    histosort::cuda::probe_nvrtc()?;
    let (major, minor) = compile::nvrtc_version()?;
    outln!("NVRTC {major}.{minor}, target {target}");
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::new(format!("{}: {e}", dir.display())))?;
    }
    if args.resources && !matches!(target, Target::Cubin { .. }) {
        return Err(Failure::usage(
            "--resources needs a real architecture (sm_XY): ptxas does not run for PTX",
        ));
    }
    let specs: Vec<_> = all_module_specs()
        .into_iter()
        .filter(|s| {
            args.only
                .as_ref()
                .is_none_or(|t| s.label().contains(t.as_str()))
        })
        .collect();
    if specs.is_empty() {
        return Err(Failure::usage(format!(
            "no module's label contains '{}'",
            args.only.as_deref().unwrap_or_default()
        )));
    }
    let extra: &[&str] = if args.resources {
        &["--ptxas-options=-v"]
    } else {
        &[]
    };
    let mut bytes = 0usize;
    let mut spilling = 0usize;
    // NVRTC compiles one module on one core: the modules go in batches of two per thread, each
    // batch compiled in parallel and reported in the catalogue's order.
    let batch = 2 * rayon::current_num_threads();
    let compiled = specs.chunks(batch).flat_map(|b| {
        use rayon::prelude::*;
        let done: Vec<_> = b
            .par_iter()
            .map(|spec| compile::compile_with_log(spec, &target, extra))
            .collect();
        b.iter().zip(done)
    });
    for (spec, result) in compiled {
        let (image, log) = result?;
        bytes += image.len();
        outln!("{:>9} bytes  {}", image.len(), spec.label());
        if args.resources {
            for r in parse_resources(&log) {
                spilling += (r.spill_stores + r.spill_loads > 0) as usize;
                outln!(
                    "           {:>3} registers {:>5} B stack {:>5} B spill stores {:>5} B spill loads  {}",
                    r.registers,
                    r.stack,
                    r.spill_stores,
                    r.spill_loads,
                    r.name
                );
            }
        }
        if let Some(dir) = &args.out {
            let ext = if matches!(target, Target::Cubin { .. }) {
                "cubin"
            } else {
                "ptx"
            };
            let path = dir.join(format!("{}.{ext}", spec.file_stem()));
            std::fs::write(&path, &image)
                .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
        }
    }
    outln!("{} modules compiled, {} bytes in all", specs.len(), bytes);
    if args.resources {
        outln!("{spilling} kernels spill registers");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ptxas_report() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'onesweep_pass' for 'sm_90'\n\
ptxas info    : Function properties for onesweep_pass\n\
    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 168 registers, used 1 barriers, 420 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'upsweep' for 'sm_90'\n\
ptxas info    : Function properties for upsweep\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 32 registers, 380 bytes cmem[0]\n";
        let r = parse_resources(log);
        assert_eq!(
            r,
            vec![
                Resources {
                    name: "onesweep_pass".into(),
                    registers: 168,
                    stack: 16,
                    spill_stores: 8,
                    spill_loads: 12
                },
                Resources {
                    name: "upsweep".into(),
                    registers: 32,
                    ..Default::default()
                }
            ]
        );
        assert!(parse_resources("").is_empty());
    }
}
