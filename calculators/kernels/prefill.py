"""Prefill: the FLOPs of reading a prompt, and the time to first token they imply.

Units: params_b and embedding_params_b in billions of parameters (the embedding table
is vocab × hidden when those are given instead), prompt_tokens (N) and
batch counts, peak_tflops in TFLOP/s, bandwidth_tbs in TB/s (1e12 bytes/s),
bytes_per_param in bytes, compute_efficiency and bandwidth_efficiency fractions (0-1] of
the peak and the bandwidth; FLOPs as counts,
ttft_ms, compute_ms and memory_ms in milliseconds.

linear_flops = 2·P·N·batch, where P leaves out the embedding table (a lookup, not a
matmul). attention_flops = 4·layers·N²·heads·head_dim·batch for a full mask (Q·Kᵀ and
attention·V, 2·N²·head_dim each per head and layer); a causal mask halves it, because
FlashAttention-style kernels skip the blocks above the diagonal. The prompt's weights are
read once, so with a bandwidth the time composes the two as measured kernels do,
(compute^p + weight read^p)^(1/p) with p = step_p (default 4, ``efficiency.STEP_P``):
the larger of the two far from the crossover. Prefill is compute-bound for any prompt
longer than the GPU's ridge point in tokens.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, labels_where, safe_div
from .efficiency import STEP_P, compose_step

MASKS = ("causal", "full")


def prefill(
    *,
    params_b: ArrayLike,
    layers: ArrayLike,
    heads: ArrayLike,
    head_dim: ArrayLike,
    prompt_tokens: ArrayLike,
    peak_tflops: ArrayLike,
    batch: ArrayLike = 1,
    compute_efficiency: ArrayLike = 0.5,
    mask: ArrayLike = "causal",
    embedding_params_b: ArrayLike | None = None,
    vocab: ArrayLike | None = None,
    hidden: ArrayLike | None = None,
    bandwidth_tbs: ArrayLike | None = None,
    bytes_per_param: ArrayLike = 2.0,
    bandwidth_efficiency: ArrayLike = 1.0,
    step_p: ArrayLike = STEP_P,
) -> dict[str, np.ndarray]:
    """Return linear_params_b, linear_flops, attention_flops, total_flops, attention_share, compute_ms,
    ttft_ms and, when bandwidth_tbs is given, memory_ms and bound ("compute"/"memory")."""
    has_bw = bandwidth_tbs is not None
    # The embedding table: as given, else from the architecture when it is known, else none.
    table_b: ArrayLike = 0.0
    if embedding_params_b is not None:
        table_b = embedding_params_b
    elif vocab is not None and hidden is not None:
        table_b = np.multiply(f64(vocab), f64(hidden)) / 1e9
    p, emb, nl, nh, hd, n, b, peak, ce, bpp, bw, be, mask_, step_p_ = broadcast(
        f64(params_b),
        f64(table_b),
        f64(layers),
        f64(heads),
        f64(head_dim),
        f64(prompt_tokens),
        f64(batch),
        f64(peak_tflops),
        f64(compute_efficiency),
        f64(bytes_per_param),
        f64(1.0 if bandwidth_tbs is None else bandwidth_tbs),
        f64(bandwidth_efficiency),
        np.asarray(mask, dtype=str),
        f64(step_p),
    )
    linear_params = np.maximum(p - emb, 0.0) * 1e9
    linear = 2.0 * linear_params * n * b
    full_attention = 4.0 * nl * n**2 * nh * hd * b
    attention = np.where(mask_ == "full", full_attention, full_attention / 2.0)
    total = linear + attention
    compute_ms = safe_div(total, peak * 1e12 * ce) * 1e3
    out = {
        "linear_params_b": linear_params / 1e9,
        "linear_flops": linear,
        "attention_flops": attention,
        "total_flops": total,
        "attention_share": safe_div(attention, total),
        "compute_ms": compute_ms,
    }
    if has_bw:
        # Every weight is read once per prefill, whatever the batch.
        memory_ms = safe_div(p * 1e9 * bpp, bw * be * 1e12) * 1e3
        out["memory_ms"] = memory_ms
        out["ttft_ms"] = compose_step(
            compute_ms, memory_ms, step_p if np.ndim(step_p) == 0 else step_p_
        )
        out["bound"] = labels_where(compute_ms >= memory_ms, "compute", "memory")
    else:
        out["ttft_ms"] = compute_ms
    return out
