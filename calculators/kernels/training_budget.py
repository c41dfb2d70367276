"""Compute, time, cost and per-GPU state memory of a training run.

Units: params_b and tokens_b in billions; peak_tflops per GPU (dense, in the training
precision); mfu the fraction of that peak achieved; gpu_cost_per_hour in USD; state in
GB (10^9 bytes) per GPU.

Additions (issue 32): ``mfu`` left out takes the default fitted per training precision on
the calibration set (``efficiency.TRAINING_MFU``: BF16 0.40, FP8 0.19 of the FP8 peak).
``method`` = ``lora`` trains adapters on frozen weights: the backward pass still
propagates activation gradients (2·N·D) but computes no weight gradients, so 4·N·D, and
the state is the frozen BF16 weights alone (the adapters' own state is left out: it is
well under 1% of N at the usual ranks). With ``layers``, ``hidden`` and ``seq_len`` the
attention FLOPs PaLM's MFU convention counts are added: 12·layers·hidden·seq_len per
token (forward and backward, non-causal; Chowdhery et al., 2022, appendix B), times 2/3
for LoRA. ``tp`` and ``pp`` shard the model state over tp·pp GPUs; ZeRO then shards over
``dp``, which defaults to gpus / (tp·pp).

Pipeline bubble (Narayanan et al., 2021, "Efficient Large-Scale Language Model Training
on GPU Clusters Using Megatron-LM", section 2.2): with p = ``pp`` stages and m =
``microbatches`` per step, 1F1B adds (p-1)/m of the ideal time (``bubble_overhead``); the
interleaved schedule with v = ``virtual_stages`` model chunks per GPU divides it by v,
(p-1)/(v·m). The run takes the ideal time × (1 + overhead), so the fraction of the run
each GPU idles is overhead / (1 + overhead) = (p-1)/(v·m + p-1) (``pipeline_bubble``).
A given ``mfu`` is the utilisation while a stage computes (``mfu_used``); what a run
reports as its MFU (useful FLOPs over the whole run's peak) is then ``mfu_run`` =
mfu_used × (1 - bubble), and the bubble lengthens the run.

``mfu`` left out is different: the default was fitted on whole runs' GPU-hours (the
calibration rows give no ``pp``), so it is an MFU over the run with those runs' own
pipeline bubbles already inside it (Llama 3.1 405B trained with 16 stages). Charging a
bubble on top would count it twice: a 405B run at pp = 16 and the default 8 micro-batches
came out at 0.35x the published run MFU. So the default is ``mfu_run``, the bubble does not
lengthen the run, and ``mfu_used`` = mfu_run / (1 - bubble) shows what the stages must
reach while busy; above 1 that schedule cannot deliver the default (``default_mfu_feasible``
is false), and the page says so.

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
from .efficiency import TRAINING_MFU, by_precision

WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 2.0, 12.0
METHODS = ("full", "lora")


def training_budget(
    *,
    params_b: ArrayLike,
    tokens_b: ArrayLike,
    gpus: ArrayLike,
    peak_tflops: ArrayLike,
    mfu: ArrayLike | None = None,
    gpu_cost_per_hour: ArrayLike | None = None,
    zero_stage: ArrayLike = 0,
    dp: ArrayLike | None = None,
    precision: ArrayLike = "bf16",
    method: ArrayLike = "full",
    tp: ArrayLike = 1,
    pp: ArrayLike = 1,
    microbatches: ArrayLike = 8,
    virtual_stages: ArrayLike = 1,
    layers: ArrayLike | None = None,
    hidden: ArrayLike | None = None,
    seq_len: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Return train_flops, gpu_hours, days, state_gb_per_gpu (and cost when a price is
    given), the mfu used while computing, the run's MFU after the pipeline bubble, the
    bubble's overhead and idle fraction, and whether a default MFU is reachable at this
    schedule. ``dp`` defaults to gpus / (tp·pp)."""
    # A price swept on its own must still give every output its shape.
    price = [] if gpu_cost_per_hour is None else [f64(gpu_cost_per_hour)]
    attn_in = (
        [f64(layers), f64(hidden), f64(seq_len)]
        if layers is not None and hidden is not None and seq_len is not None
        else []
    )
    attention = bool(attn_in)
    over_run = mfu is None  # the default is an MFU over the run (see the module's note)
    eff_in = by_precision(TRAINING_MFU, precision) if mfu is None else f64(mfu)
    n, d, gpu, peak, eff, stage, lora, tp_, pp_, mb, v, dp_, *rest = broadcast(
        f64(params_b) * 1e9,
        f64(tokens_b) * 1e9,
        i64(gpus),
        f64(peak_tflops),
        eff_in,
        i64(zero_stage),
        np.asarray(method, dtype=str) == "lora",
        i64(tp),
        i64(pp),
        i64(microbatches),
        i64(virtual_stages),
        f64(np.nan if dp is None else dp),
        *attn_in,
        *price,
    )
    model_par = (tp_ * pp_).astype(np.float64)
    ranks = np.where(np.isnan(dp_), np.maximum(gpu / model_par, 1.0), dp_)
    per_token = np.where(lora, 4.0, 6.0)  # LoRA: no weight gradients
    flops = per_token * n * d
    if attention:
        lay, hid, seq = rest[:3]
        flops = flops + per_token / 6.0 * 12.0 * lay * hid * seq * d
    cost_per_hour = rest[3:] if attention else rest
    overhead = (pp_ - 1) / (v * mb)  # Megatron-LM's bubble time fraction, (p-1)/(v·m)
    bubble = overhead / (1.0 + overhead)  # = (p-1)/(v·m + p-1) of the run idles
    run_mfu = eff if over_run else eff / (1.0 + overhead)  # = eff × (1 − bubble)
    busy_mfu = eff * (1.0 + overhead) if over_run else eff
    seconds = flops / (gpu * peak * 1e12 * run_mfu)
    gpu_hours = gpu * seconds / 3600
    shard = ranks.astype(np.float64)
    weights = WEIGHT_BYTES / np.where(stage >= 3, shard, 1.0)
    grads = np.where(lora, 0.0, GRAD_BYTES / np.where(stage >= 2, shard, 1.0))
    optimizer = np.where(lora, 0.0, OPTIMIZER_BYTES / np.where(stage >= 1, shard, 1.0))
    out = {
        "mfu_used": busy_mfu,
        "mfu_run": run_mfu,
        "bubble_overhead": overhead,
        "pipeline_bubble": bubble,
        "train_flops": flops,
        "gpu_hours": gpu_hours,
        "days": seconds / 86400,
        "state_bytes_per_param": weights + grads + optimizer,
        "state_gb_per_gpu": n * (weights + grads + optimizer) / model_par / 1e9,
    }
    if over_run:  # only a default can be out of reach; a given mfu is the user's figure
        out["default_mfu_feasible"] = busy_mfu <= 1.0
    if cost_per_hour:
        out["cost"] = gpu_hours * cost_per_hour[0]
    return out
