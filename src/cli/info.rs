//! `histosort info`: which backends are usable here, and why CUDA is not when it is not.

use histosort::{cuda_probe, Backend, Engine};

use super::{CliResult, Global};

pub fn run(g: &Global) -> CliResult {
    outln!("histosort {}", env!("CARGO_PKG_VERSION"));
    outln!(
        "cpu:  available, {} threads (rayon; set RAYON_NUM_THREADS to change)",
        rayon::current_num_threads()
    );
    outln!(
        "cpu:  byte histogram: {}",
        histosort::cpu::histogram::byte_counter()
    );
    let cuda = match cuda_probe() {
        Err(reason) => Err(reason),
        Ok(()) => Engine::new(Backend::Cuda { device: 0 })
            .map(|e| e.describe())
            .map_err(|e| e.to_string()),
    };
    match &cuda {
        Ok(desc) => outln!("cuda: available: {desc}"),
        Err(reason) => outln!("cuda: unavailable: {reason}"),
    }
    let auto = Engine::auto();
    match auto.fallback_reason() {
        None => outln!("auto: {}", auto.describe()),
        Some(why) => outln!("auto: {} (CUDA not used: {why})", auto.describe()),
    }
    if g.backend != Backend::Auto {
        match g.engine() {
            Ok(e) => outln!("--backend: {}", e.describe()),
            Err(f) => outln!("--backend: unavailable: {}", f.message),
        }
    }
    Ok(())
}
