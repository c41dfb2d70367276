"""Decode step time: every generated token streams all active weights (plus each
sequence's KV cache) from memory, and does 2 FLOP per active parameter per sequence.

Units: params_b in billions of parameters, bytes_per_param in bytes, bandwidth_tbs in
TB/s (1e12 bytes/s), kv_gb_per_seq in GB (1e9 bytes) read per step per sequence,
peak_tflops in TFLOP/s, efficiencies as fractions (0-1], times in milliseconds,
throughputs in tokens/s. Note GB / (TB/s) = ms.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import f64, safe_div, shaped


def decode_bound(
    *,
    params_b: ArrayLike,
    bytes_per_param: ArrayLike,
    bandwidth_tbs: ArrayLike,
    batch_size: ArrayLike = 1,
    kv_gb_per_seq: ArrayLike = 0.0,
    peak_tflops: ArrayLike | None = None,
    bandwidth_efficiency: ArrayLike = 1.0,
    compute_efficiency: ArrayLike = 1.0,
) -> dict[str, np.ndarray]:
    """Return weight_gb, bytes_per_step_gb, memory_ms_per_step, ms_per_token,
    tokens_per_s_per_user, tokens_per_s_total and, when peak_tflops is given,
    compute_ms_per_step and compute_bound_batch (inf if compute never catches up)."""
    p, bpp, bw = f64(params_b), f64(bytes_per_param), f64(bandwidth_tbs)
    batch, kv = f64(batch_size), f64(kv_gb_per_seq)
    be, ce = f64(bandwidth_efficiency), f64(compute_efficiency)
    arrays = [p, bpp, bw, batch, kv, be, ce]
    if peak_tflops is not None:
        peak = f64(peak_tflops)
        arrays.append(peak)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))

    weight_gb = p * bpp
    step_gb = weight_gb + batch * kv
    eff_bw = bw * be
    memory_ms = safe_div(step_gb, eff_bw)  # GB / (TB/s) = ms
    out = {"weight_gb": weight_gb, "bytes_per_step_gb": step_gb, "memory_ms_per_step": memory_ms}
    if peak_tflops is not None:
        eff_peak = peak * ce
        # 2 × params_b × 1e9 × batch FLOP / (peak × 1e12 FLOP/s) = 2 × params_b × batch / peak ms
        compute_ms = safe_div(2.0 * p * batch, eff_peak)
        ms = np.maximum(memory_ms, compute_ms)
        # Compute meets memory where 2·p·B / P' = (W + B·kv) / bw', i.e. at
        # B = (W / bw') / (2·p / P' − kv / bw'); without a positive slope it never does.
        slope = safe_div(2.0 * p, eff_peak) - safe_div(kv, eff_bw)
        with np.errstate(divide="ignore", invalid="ignore"):
            crossing = np.where(slope > 0, safe_div(weight_gb, eff_bw) / slope, np.inf)
        out.update(compute_ms_per_step=compute_ms, compute_bound_batch=crossing)
    else:
        ms = memory_ms
    per_user = safe_div(1000.0, ms)
    out.update(
        ms_per_token=ms,
        tokens_per_s_per_user=per_user,
        tokens_per_s_total=per_user * batch,
    )
    return shaped(shape, **out)
