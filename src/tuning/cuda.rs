//! CUDA backend tunables. Each reaches the kernels as a `-D` define, once.
