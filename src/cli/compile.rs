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
    let specs = all_module_specs();
    let mut bytes = 0usize;
    for spec in &specs {
        let image = compile::compile(spec, &target)?;
        bytes += image.len();
        outln!("{:>9} bytes  {}", image.len(), spec.label());
        if let Some(dir) = &args.out {
            let ext = if matches!(target, Target::Cubin { .. }) {
                "cubin"
            } else {
                "ptx"
            };
            let name: String = spec
                .label()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = dir.join(format!("{name}.{ext}"));
            std::fs::write(&path, &image)
                .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
        }
    }
    outln!("{} modules compiled, {} bytes in all", specs.len(), bytes);
    Ok(())
}
