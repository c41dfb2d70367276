"""Default efficiencies by phase and precision: end-to-end factors, not kernel figures.

Each factor is the fraction of the data sheet's dense peak (or bandwidth) that a whole
engine step achieves, fitted on the published measurements in
``calculators/calibration/measurements.json`` (and only on them; the rows each factor
rests on are named below). They fold in everything the kernels leave out at that phase:
kernel launch gaps, attention kernels below GEMM speed, tensor-parallel all-reduces,
sampling and the scheduler. A user who has measured their own engine should override.

- Prefill compute: BF16/FP16 0.65 (TensorRT-LLM TTFT, A100 FP16, Llama 2 7B and 70B at
  2,048 tokens: the old single 0.5 was 1.22-1.38x pessimistic); FP8 0.45 (the same
  tables, H100 and L40S FP8: 0.5 was 0.67-1.07x, optimistic on H100). The FP8 figure
  is lower because attention and the non-GEMM work do not speed up with the GEMMs.
  FP6/FP4 and INT8/INT4 take the FP8 factor scaled by the ratio of the peaks they are
  charged at being harder to reach; with no published row here they are 0.35 (FP4/FP6)
  and 0.45 (INT8/INT4), stated as unfitted.
- Decode compute: 0.5 for every precision (TensorRT-LLM static-batch throughput, A100
  FP16 Llama 2 7B at batch 384 and H100 FP8 Llama 2 70B at batch 1,024, the two
  compute-bound rows, land at 1.03x and 1.10x with it).
- Decode bandwidth: 0.8 (the memory-bound rows of the same tables, 0.96-1.08x).
- Training MFU: BF16 0.40 (Llama 2 7B and 70B on A100, Llama 3.1 405B on H100: 0.86-
  1.07x); FP8 0.19 of the FP8 peak (DeepSeek-V3 on H800, the one FP8 row: FP8 GEMMs
  with BF16 attention and communication overlap reach under half the doubled peak).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

PREFILL_COMPUTE = {
    "fp32": 0.65,
    "bf16": 0.65,
    "fp16": 0.65,
    "fp8": 0.45,
    "int8": 0.45,
    "fp6": 0.35,
    "fp4": 0.35,
    "int4": 0.45,
}
DECODE_COMPUTE = dict.fromkeys(PREFILL_COMPUTE, 0.5)
DECODE_BANDWIDTH = 0.8
# FP6 and FP4 training take the FP8 figure: no published row here (unfitted).
TRAINING_MFU = {
    "fp64": 0.40,
    "tf32": 0.40,
    "bf16": 0.40,
    "fp16": 0.40,
    "fp8": 0.19,
    "fp6": 0.19,
    "fp4": 0.19,
    "int8": 0.19,
}

# Protocol efficiency of NCCL's collectives: the fraction of the link rate a large message
# reaches (nccl-tests busbw / line rate). Ring and tree on NVLink: about 370 of 450 GB/s
# on H100 (NCCL's maintainer, nccl-tests issue 212). NVLS (NVLink SHARP, all-reduce on an
# NVSwitch): each GPU sends its buffer once and receives the result once, and reaches
# about 0.61 of the link in algbw (480 GB/s busbw, 275 GB/s algbw on 8 H100s; the same
# 0.61 fits 8 H200s at 475 and 8 H800s at 215 GB/s busbw).
PROTOCOL_EFFICIENCY = {"ring": 0.82, "tree": 0.82, "nvls": 0.61}


def by_precision(table: dict[str, float], names: ArrayLike) -> np.ndarray:
    """The table's factor for a precision name or an array of them (nan for a name the
    table lacks)."""
    if isinstance(names, str):  # the usual case: one precision for the whole run
        return np.asarray(table.get(names, np.nan))
    names = np.asarray(names, dtype=str)
    out = np.full(names.shape, np.nan)
    for name, value in table.items():
        out[names == name] = value
    return out
