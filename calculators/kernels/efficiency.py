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
- Step composition: a step with a memory time m and a compute time c takes the p-norm
  (m^p + c^p)^(1/p), p = 4, not max(m, c): measured kernels near the crossover overlap
  their loads and their arithmetic imperfectly (the "additive" and "max" models are
  p = 1 and p = ∞). It applies to the decode step and to prefill's compute against its
  one weight read. Fitted on the serving rows inside their bands (the explained 2.2x
  row left out) with every other default held, least squares on ln(estimate /
  measured): Σ ln² is 0.1303 with the bare max, 0.1295 at p = 2, 0.0905 at its minimum
  p ≈ 3.3 and 0.0930 at p = 4, kept for being two square roots (a fractional power
  costs twenty times more per cell). The rows that move are the ones near a crossover:
  batch 384-1,024 decode beside 128-token prefills (A100 FP16 Llama 2 7B 1.16x → 1.00x,
  H100 FP8 Llama 2 7B 1.22x → 1.15x, H100 FP8 Llama 2 70B 0.96x → 0.92x). p = 4 stays
  within 0.31% of the max while the smaller term is under a third of the larger, and is
  2^(1/4) = 1.189 times either at the crossover.
- Training MFU: BF16 0.40 (Llama 2 7B and 70B on A100, Llama 3.1 405B on H100: 0.86-
  1.07x); FP8 0.19 of the FP8 peak (DeepSeek-V3 on H800, the one FP8 row: FP8 GEMMs
  with BF16 attention and communication overlap reach under half the doubled peak).
  Fitted on whole runs' GPU-hours, these are MFUs over the run, the runs' own pipeline
  bubbles inside them (``training_budget`` charges no bubble on top of a default).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import f64, safe_div

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

# The exponent of the step's composition (m^p + c^p)^(1/p), fitted as said above.
STEP_P = 4.0


def compose_step(memory: ArrayLike, compute: ArrayLike, p: ArrayLike = STEP_P) -> np.ndarray:
    """A step's time from its memory time and its compute time: (m^p + c^p)^(1/p).

    Far from the crossover it is the larger of the two (at p = 4, within 0.31% while the
    smaller is under a third of the larger); at the crossover, m = c, it is 2^(1/p) times
    either (1.189 at p = 4). p = 1 adds the two; a large p tends to the bare max. p = 4
    is computed as two square roots of m⁴ + c⁴ in place (a few passes over the cells);
    other p as hi·(1 + (lo/hi)^p)^(1/p)."""
    m, c = f64(memory), f64(compute)
    if np.ndim(p) == 0 and p == 4.0:
        # Fresh arrays squared in place: seven passes and two allocations, against one of
        # each for a bare max (the grid benchmark's kernel pays about 0.1 ms for it).
        total, c4 = m * m, c * c
        total *= total
        c4 *= c4
        if isinstance(total, np.ndarray) and total.ndim:
            try:
                total += c4  # in place when c4 broadcasts into it (the usual case)
            except ValueError:
                total = total + c4
            else:
                np.sqrt(total, out=total)
                return np.sqrt(total, out=total)
        else:
            total = total + c4
        return np.sqrt(np.sqrt(total))
    hi, lo = np.maximum(m, c), np.minimum(m, c)
    ratio = np.where(lo < hi, safe_div(lo, hi), 1.0)  # 1 where equal (both 0 or inf too)
    return hi * (1.0 + ratio ** f64(p)) ** (1.0 / f64(p))


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
