//! `--export-ptx DIR`: the PTX of every kernel module (NVRTC only, no GPU needed) and, where
//! `cuobjdump` is on PATH, the SASS of its CUBIN, for the toolchain analysis of the histogram
//! study (seeds/002: unrolling and load scheduling are visible only there).

use std::path::Path;

use crate::cuda::compile::{self, Target};
use crate::cuda::{all_module_specs, probe_nvrtc};
use crate::error::{Error, Result};

/// Writes `<module>.ptx` (and `<module>.sass`) for compute capability `cc` (the device's, or
/// 9.0 without one) into `dir`. Returns a one-paragraph summary.
pub fn export(dir: &Path, cc: Option<(i32, i32)>) -> Result<String> {
    probe_nvrtc()?;
    let (major, minor) = cc.unwrap_or((9, 0));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let cuobjdump = super::on_path("cuobjdump");
    // CUBINs only feed cuobjdump; they stay out of the export.
    let scratch = tempfile::tempdir().map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let (mut ptx, mut sass) = (0, 0);
    let mut sass_errors = Vec::new();
    for spec in all_module_specs() {
        let stem = spec.file_stem();
        let text = compile::compile_ptx(&spec, major, minor)?;
        let p = dir.join(format!("{stem}.ptx"));
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
        ptx += 1;
        if let Some(tool) = &cuobjdump {
            let cubin = compile::compile(&spec, &Target::Cubin { major, minor })?;
            let cp = scratch.path().join(format!("{stem}.cubin"));
            std::fs::write(&cp, cubin).map_err(|e| Error::io(&cp, e))?;
            match std::process::Command::new(tool)
                .arg("-sass")
                .arg(&cp)
                .output()
            {
                Ok(o) if o.status.success() => {
                    let sp = dir.join(format!("{stem}.sass"));
                    std::fs::write(&sp, &o.stdout).map_err(|e| Error::io(&sp, e))?;
                    sass += 1;
                }
                Ok(o) => sass_errors.push(String::from_utf8_lossy(&o.stderr).trim().to_string()),
                Err(e) => sass_errors.push(e.to_string()),
            }
        }
    }
    let mut s = format!(
        "--export-ptx: wrote {ptx} PTX files for compute_{major}{minor} to {}",
        dir.display()
    );
    match &cuobjdump {
        None => s.push_str("; no SASS (cuobjdump not found on PATH)"),
        Some(_) => s.push_str(&format!(
            ", and {sass} SASS listings (cuobjdump -sass of the sm_{major}{minor} CUBIN)"
        )),
    }
    if let Some(e) = sass_errors.first() {
        s.push_str(&format!(
            "; cuobjdump failed {} time(s): {e}",
            sass_errors.len()
        ));
    }
    Ok(s)
}
