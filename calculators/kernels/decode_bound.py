"""Decode step time: every step streams the weights it touches and each sequence's KV
cache from memory, and does 2 FLOP per active parameter plus the attention over the
context, per sequence.

Units: params_b, expert_params_b and shared_params_b in billions of parameters;
bytes_per_param in bytes; bandwidth_tbs in TB/s (1e12 bytes/s); kv_gb_per_seq in GB (1e9
bytes) read per step per sequence; context_tokens, layers, heads, kv_heads, head_dim,
kv_lora_rank, rope_head_dim, local_layers and local_window are counts; kv_precision a
storage format ("bf16" = 2 bytes, "fp8" = 1, ...); peak_tflops in TFLOP/s; efficiencies
as fractions (0-1]; times in ms; throughputs in tokens/s. Note GB / (TB/s) = ms, and
2 × params_b × batch / peak_tflops is in ms too.

The formulas, per step at batch B:
    kv_bytes_per_token   = 2·kv_heads·head_dim·b per layer (MLA: (kv_lora_rank +
                           rope_head_dim)·b), times layers
    kv_read_gb_per_seq   = kv_gb_per_seq if given, else the per-layer width ×
                           ((layers − local_layers)·context + local_layers·min(context,
                           local_window)) / 1e9; 0 without an architecture
    experts_touched      = E·(1 − (1 − k/E)^B) per MoE layer (uniform routing: each of
                           the B tokens picks k of E experts independently)
    weight_gb            = (shared_params_b + experts_touched·expert_params_b)·bytes
                           for MoE, params_b·bytes for a dense model
    bytes_per_step_gb    = weight_gb + B·kv_read_gb_per_seq
    memory_ms_per_step   = bytes_per_step_gb / (bandwidth_tbs·bandwidth_efficiency)
    attention_flops      = 4·head_dim·heads·(global layers·context + local layers·
                           min(context, local_window)) per token (QKᵀ and PV)
    compute_ms_per_step  = B·(2·active_params_b·1e9 + attention_flops) /
                           (peak_tflops·1e12·compute_efficiency) s
    ms_per_token         = (memory^p + compute^p)^(1/p), p = step_p (default 4, fitted
                           on the calibration set, ``efficiency.STEP_P``): the larger of
                           the two far from the crossover, 1.189 times either at it
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import f64, i64, labels_where, safe_div, shaped
from .efficiency import STEP_P, compose_step
from .serving_estimate import precision_bytes


def decode_bound(
    *,
    params_b: ArrayLike,
    bytes_per_param: ArrayLike,
    bandwidth_tbs: ArrayLike,
    batch_size: ArrayLike = 1,
    context_tokens: ArrayLike = 4096,
    kv_precision: ArrayLike = "bf16",
    kv_gb_per_seq: ArrayLike | None = None,
    layers: ArrayLike | None = None,
    heads: ArrayLike | None = None,
    kv_heads: ArrayLike | None = None,
    head_dim: ArrayLike | None = None,
    kv_lora_rank: ArrayLike | None = None,
    rope_head_dim: ArrayLike = 0,
    local_layers: ArrayLike = 0,
    local_window: ArrayLike | None = None,
    experts: ArrayLike | None = None,
    experts_per_token: ArrayLike | None = None,
    expert_params_b: ArrayLike | None = None,
    shared_params_b: ArrayLike | None = None,
    peak_tflops: ArrayLike | None = None,
    bandwidth_efficiency: ArrayLike = 1.0,
    compute_efficiency: ArrayLike = 1.0,
    step_p: ArrayLike = STEP_P,
) -> dict[str, np.ndarray]:
    """Return weight_gb, kv_read_gb_per_seq, bytes_per_step_gb, memory_ms_per_step,
    ms_per_token, tokens_per_s_per_user, tokens_per_s_total, bound; with an architecture
    kv_bytes_per_token (and, with heads, attention_flops_per_token); with MoE inputs
    experts_touched; with peak_tflops compute_ms_per_step and compute_bound_batch (inf
    where compute never catches up)."""
    p, bpp, bw = f64(params_b), f64(bytes_per_param), f64(bandwidth_tbs)
    batch, ctx = f64(batch_size), f64(context_tokens)
    be, ce = f64(bandwidth_efficiency), f64(compute_efficiency)
    # Every given input joins the output shape, also one this model does not use (a
    # rope_head_dim sweep on a GQA model), so a sweep always keeps its shape.
    given = (
        kv_gb_per_seq,
        layers,
        heads,
        kv_heads,
        head_dim,
        kv_lora_rank,
        rope_head_dim,
        local_layers,
        local_window,
        experts,
        experts_per_token,
        expert_params_b,
        shared_params_b,
        peak_tflops,
    )
    arrays: list[np.ndarray] = [p, bpp, bw, batch, ctx, be, ce, np.asarray(step_p)]
    arrays += [np.asarray(a) for a in given if a is not None]
    out: dict[str, np.ndarray] = {}

    # Layer-tokens the KV cache holds (and attention reads) for one sequence.
    n_layers = None if layers is None else f64(layers)
    layer_tokens = None
    if n_layers is not None:
        n_local = f64(local_layers)
        window = ctx if local_window is None else f64(local_window)
        layer_tokens = (n_layers - n_local) * ctx + n_local * np.minimum(ctx, window)
        arrays.append(layer_tokens)

    # KV read per sequence per step.
    kv_b = precision_bytes(kv_precision)
    if kv_lora_rank is not None:
        width = (i64(kv_lora_rank) + i64(rope_head_dim)) * kv_b
    elif kv_heads is not None and head_dim is not None:
        width = 2.0 * i64(kv_heads) * i64(head_dim) * kv_b
    else:
        width = None
    if kv_gb_per_seq is not None:
        kv = f64(kv_gb_per_seq)
    elif width is not None and layer_tokens is not None and n_layers is not None:
        out["kv_bytes_per_token"] = n_layers * width
        kv = width * layer_tokens / 1e9
    else:
        kv = f64(0.0)  # no architecture and no kv_gb_per_seq: weights only, said so
    arrays.append(kv)

    # Weights read per step: a dense model reads all of them; an MoE batch reads the
    # shared weights and every expert some token in the batch was routed to.
    moe = experts is not None and experts_per_token is not None and expert_params_b is not None
    if experts is not None and experts_per_token is not None and expert_params_b is not None:
        e, k, ep = f64(experts), f64(experts_per_token), f64(expert_params_b)
        shared = p - k * ep if shared_params_b is None else f64(shared_params_b)
        touched = e * (1.0 - (1.0 - k / e) ** batch)
        read_params = shared + touched * ep
        active = shared + k * ep
        out["experts_touched"] = touched
        arrays.extend([touched, active])
    else:
        read_params, active = p, p
    weight_gb = read_params * bpp
    step_gb = weight_gb + batch * kv
    eff_bw = bw * be
    memory_ms = safe_div(step_gb, eff_bw)  # GB / (TB/s) = ms
    out.update(
        weight_gb=weight_gb,
        kv_read_gb_per_seq=kv,
        bytes_per_step_gb=step_gb,
        memory_ms_per_step=memory_ms,
    )

    # FLOP per token: 2 per active parameter, plus QKᵀ and PV over the cached context.
    attn_flops = f64(0.0)
    if heads is not None and head_dim is not None and layer_tokens is not None:
        attn_flops = 4.0 * f64(head_dim) * f64(heads) * layer_tokens
        out["attention_flops_per_token"] = attn_flops
    if peak_tflops is not None:
        eff_peak = f64(peak_tflops) * ce
        arrays.append(eff_peak)
        flop_b_per_token = 2.0 * active + attn_flops / 1e9  # GFLOP per token
        # GFLOP / TFLOP/s = ms; per sequence first, as the crossing needs it too (one pass
        # over a sweep fewer, which pays part of the composition's cost)
        per_seq_ms = safe_div(flop_b_per_token, eff_peak)
        compute_ms = per_seq_ms * batch
        ms = compose_step(memory_ms, compute_ms, step_p)
        crossing = _compute_bound_batch(
            per_seq_ms,
            eff_bw,
            kv,
            bpp,
            weight_gb,
            moe,
            **({"e": e, "k": k, "ep": ep, "shared": shared} if moe else {}),
        )
        out.update(
            compute_ms_per_step=compute_ms,
            compute_bound_batch=crossing,
            bound=labels_where(compute_ms > memory_ms, "compute", "memory"),
        )
    else:
        ms = memory_ms
        # Nothing is computed without a peak, so memory binds everywhere. The label "compute"
        # is never chosen here: every mutant of this line but "memory" is equivalent, and
        # test_kernel_rules states that one.
        nowhere = np.zeros_like(memory_ms, dtype=bool)  # pragma: no mutate
        out["bound"] = labels_where(nowhere, "compute", "memory")  # pragma: no mutate
    per_user = safe_div(1000.0, ms)
    out.update(ms_per_token=ms, tokens_per_s_per_user=per_user, tokens_per_s_total=per_user * batch)
    shape = np.broadcast_shapes(*(a.shape for a in arrays), *(np.shape(v) for v in out.values()))
    return shaped(shape, **out)


def _compute_bound_batch(
    per_seq_ms: np.ndarray,
    eff_bw: np.ndarray,
    kv: np.ndarray,
    bpp: np.ndarray,
    weight_gb: np.ndarray,
    moe: bool,
    **expert: np.ndarray,
) -> np.ndarray:
    """The batch where compute time reaches memory time (inf where it never does).

    Dense: c·B = (W + B·kv) / bw' with c = per_seq_ms (flop_b / peak'), so B = (W / bw') /
    (c − kv / bw') while the slope is positive; otherwise never (W = weight_gb, all of a
    dense model's weights). MoE: the weight read grows with B and
    saturates at all experts, so the difference compute − memory is convex in B and
    negative at 0; it crosses zero at most once, found by bisection up to 10⁷ sequences.
    """
    slope = per_seq_ms - safe_div(kv, eff_bw)
    if not moe:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(slope > 0, safe_div(weight_gb, eff_bw) / slope, np.inf)
    e, k, ep, shared = expert["e"], expert["k"], expert["ep"], expert["shared"]

    def gap(b: np.ndarray) -> np.ndarray:
        weights = (shared + e * (1.0 - (1.0 - k / e) ** b) * ep) * bpp
        return per_seq_ms * b - safe_div(weights + b * kv, eff_bw)

    shape = np.broadcast_shapes(per_seq_ms.shape, slope.shape, e.shape, k.shape, ep.shape)
    lo, hi = np.zeros(shape), np.full(shape, 1e7)
    never = gap(hi) < 0
    for _ in range(80):
        mid = (lo + hi) / 2.0
        below = gap(mid) < 0
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return np.where(never, np.inf, hi)
