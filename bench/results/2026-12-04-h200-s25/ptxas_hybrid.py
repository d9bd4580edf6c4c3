"""Session 25: ptxas's registers and spills of `hybrid_local_sort` (u64 keys only, the H200's
in-bucket shape) for each kernel file given, through NVRTC from PyPI (CI's copy under
target/ci-nvrtc). Run from the repository root:
    git show b58103a:kernels/radix_sort_onesweep.cu > /tmp/old.cu
    python3 bench/results/2026-12-04-h200-s25/ptxas_hybrid.py /tmp/old.cu kernels/radix_sort_onesweep.cu
"""
import ctypes
import glob
import sys

lib = ctypes.CDLL(glob.glob("target/ci-nvrtc/nvidia/cu13/lib/libnvrtc.so.13*")[0])
DEFS = ("THREADS=256,ITEMS=22,RADIX_BITS=8,LOOKBACK=8,PREFETCH_AHEAD=132,RANK_BALLOT=1,"
        "PASS_MIN_BLOCKS=3,PASS_SMEM_BYTES=55392,VALUES_LATE=0,FREE_RANK_SKEW=8,KEY_BITS=64,"
        "KEY_KIND=0,VALUE_BYTES=0,STATUS_BITS=32,LANES_THREADS=1024,LANES_PASSES=4,"
        "LANES_MIN_BLOCKS=1,HYBRID_LOCAL_THREADS=512,HYBRID_LOCAL_ITEMS=16,"
        "HYBRID_LOCAL_MIN_BLOCKS=2,HYBRID_LOCAL_SMEM_BYTES=82016")
common = open("kernels/common.cuh").read()
for f in sys.argv[1:]:
    src = (common + "\n" + open(f).read()).encode()
    prog = ctypes.c_void_p()
    lib.nvrtcCreateProgram(ctypes.byref(prog), src, f.encode(), 0, None, None)
    opts = [b"--gpu-architecture=sm_90", b"-std=c++17", b"--ptxas-options=-v"]
    opts += [("-D" + d).encode() for d in DEFS.split(",")]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    lines = log.value.decode().split("\n")
    if rc:
        print(f, "failed:", "\n".join(lines[:20]))
    for i, line in enumerate(lines):
        if "hybrid_local_sort" in line and "Compiling" in line:
            print(f, "|", " | ".join(x.strip() for x in lines[i + 1:i + 4]))
