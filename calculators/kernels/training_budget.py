"""Compute, time, cost and per-GPU state memory of a training run.

Units: params_b and tokens_b in billions; peak_tflops per GPU (dense, in the training
precision); mfu the fraction of that peak achieved; gpu_cost_per_hour in USD; state in
GB (10^9 bytes) per GPU.

Training FLOPs ≈ 6·N·D (forward 2·N·D, backward 4·N·D; Kaplan et al., 2020), which leaves
out attention over the context and recomputation. Model state in mixed precision with
Adam is 16 bytes per parameter (ZeRO paper, Rajbhandari et al., 2020): BF16 weights (2)
and gradients (2), and FP32 master weights, momentum and variance (12). ZeRO stage 1
shards the 12 bytes of optimizer state over the dp data-parallel ranks, stage 2 the
gradients too, stage 3 the weights too. Activations are not included.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64

WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 2.0, 12.0


def training_budget(
    *,
    params_b: ArrayLike,
    tokens_b: ArrayLike,
    gpus: ArrayLike,
    peak_tflops: ArrayLike,
    mfu: ArrayLike = 0.4,
    gpu_cost_per_hour: ArrayLike | None = None,
    zero_stage: ArrayLike = 0,
    dp: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Return train_flops, gpu_hours, days, state_gb_per_gpu (and cost when a price is
    given). ``dp`` defaults to ``gpus`` (pure data parallelism)."""
    # A price swept on its own must still give every output its shape.
    price = [] if gpu_cost_per_hour is None else [f64(gpu_cost_per_hour)]
    n, d, gpu, peak, eff, stage, ranks, *cost_per_hour = broadcast(
        f64(params_b) * 1e9,
        f64(tokens_b) * 1e9,
        i64(gpus),
        f64(peak_tflops),
        f64(mfu),
        i64(zero_stage),
        i64(gpus if dp is None else dp),
        *price,
    )
    flops = 6 * n * d
    seconds = flops / (gpu * peak * 1e12 * eff)
    gpu_hours = gpu * seconds / 3600
    shard = ranks.astype(np.float64)
    weights = WEIGHT_BYTES / np.where(stage >= 3, shard, 1.0)
    grads = GRAD_BYTES / np.where(stage >= 2, shard, 1.0)
    optimizer = OPTIMIZER_BYTES / np.where(stage >= 1, shard, 1.0)
    out = {
        "train_flops": flops,
        "gpu_hours": gpu_hours,
        "days": seconds / 86400,
        "state_bytes_per_param": weights + grads + optimizer,
        "state_gb_per_gpu": n * (weights + grads + optimizer) / 1e9,
    }
    if cost_per_hour:
        out["cost"] = gpu_hours * cost_per_hour[0]
    return out
