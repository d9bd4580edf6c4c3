//! Every tunable number, per backend and architecture, each with where it came from.

pub mod cpu;
pub mod cuda;
