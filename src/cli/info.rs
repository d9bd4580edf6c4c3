//! `histosort info`: which backends are usable here, and why CUDA is not when it is not.

use histosort::{cuda_probe, Backend, Engine};

use super::{CliResult, Global};

pub fn run(g: &Global) -> CliResult {
    println!("histosort {}", env!("CARGO_PKG_VERSION"));
    println!(
        "cpu:  available, {} threads (rayon; set RAYON_NUM_THREADS to change)",
        rayon::current_num_threads()
    );
    let cuda = match cuda_probe() {
        Err(reason) => Err(reason),
        Ok(()) => Engine::new(Backend::Cuda { device: 0 })
            .map(|e| e.describe())
            .map_err(|e| e.to_string()),
    };
    match &cuda {
        Ok(desc) => println!("cuda: available: {desc}"),
        Err(reason) => println!("cuda: unavailable: {reason}"),
    }
    let auto = Engine::auto();
    match auto.fallback_reason() {
        None => println!("auto: {}", auto.describe()),
        Some(why) => println!("auto: {} (CUDA not used: {why})", auto.describe()),
    }
    if g.backend != Backend::Auto {
        match g.engine() {
            Ok(e) => println!("--backend: {}", e.describe()),
            Err(f) => println!("--backend: unavailable: {}", f.message),
        }
    }
    Ok(())
}
