"""Specs for decode speed: decode_bound and local_fit."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels import decode_bound as decode_kernel
from calculators.kernels.serving_estimate import PRECISION_BYTES
from calculators.kernels.serving_estimate import PRECISIONS as KV_PRECISIONS

from .base import (
    CHOICE,
    GPU_FILLS,
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    PresetFill,
    bandwidth_tbs,
    binding_ceiling,
    bytes_per_param,
    ceiling_share,
    column_label,
    fraction,
    model,
    params_b,
    peak_tflops,
    precision,
    step_p,
)

# ---------------------------------------------------------------- decode_bound


def _has(p: Point, name: str) -> bool:
    return p.outputs.get(name) is not None


def _decode_steps(p: Point) -> list[str]:
    lines = []
    if _has(p, "experts_touched"):
        e, k, b = p.n("experts"), p.n("experts_per_token"), p.n("batch_size")
        shared = (
            p.f("shared_params_b")
            if p.v("shared_params_b") is not None
            else f"params_b − k × expert_params_b = {p.n('params_b')} − {k} × "
            f"{p.n('expert_params_b')}"
        )
        lines += [
            f"experts_touched per MoE layer = E·(1 − (1 − k/E)^B) = {e} × (1 − (1 − {k}/{e})"
            f"^{b}) = {p.n('experts_touched')} (uniform routing)",
            f"weight_gb = (shared + experts_touched × expert_params_b) × bytes_per_param = "
            f"({shared} + {p.n('experts_touched')} × {p.n('expert_params_b')}) × 10⁹ × "
            f"{p.f('bytes_per_param')} = {p.f('weight_gb')}",
        ]
    else:
        lines.append(
            f"weight_gb = params_b × bytes_per_param = {p.n('params_b')} × 10⁹ × "
            f"{p.f('bytes_per_param')} = {p.f('weight_gb')}"
        )
    if p.v("kv_gb_per_seq") is not None:
        lines.append(f"kv_read_gb_per_seq = kv_gb_per_seq (given) = {p.f('kv_read_gb_per_seq')}")
    elif _has(p, "kv_bytes_per_token"):
        if p.v("kv_lora_rank") is not None:
            width = (
                f"layers × (kv_lora_rank + rope_head_dim) × bytes({p.v('kv_precision')}) = "
                f"{p.n('layers')} × ({p.n('kv_lora_rank')} + {p.n('rope_head_dim')}) × "
                f"{number(_kv_bytes(p))}"
            )
        else:
            width = (
                f"2 × layers × kv_heads × head_dim × bytes({p.v('kv_precision')}) = 2 × "
                f"{p.n('layers')} × {p.n('kv_heads')} × {p.n('head_dim')} × "
                f"{number(_kv_bytes(p))}"
            )
        lines.append(f"kv_bytes_per_token = {width} = {p.f('kv_bytes_per_token')}")
        local = (
            f" ({p.n('local_layers')} local layers keep at most {p.n('local_window')} tokens)"
            if p.v("local_layers")
            else ""
        )
        lines.append(
            f"kv_read_gb_per_seq = kv_bytes_per_token × context_tokens{local} = "
            f"{p.n('kv_bytes_per_token')} × {p.n('context_tokens')} = "
            f"{p.f('kv_read_gb_per_seq')}"
        )
    else:
        lines.append(
            "kv_read_gb_per_seq = 0: no model, architecture or kv_gb_per_seq given, so this "
            "step counts the weights only"
        )
    lines += [
        f"bytes_per_step_gb = weight_gb + batch_size × kv_read_gb_per_seq = "
        f"{p.f('weight_gb')} + {p.n('batch_size')} × {p.f('kv_read_gb_per_seq')} = "
        f"{p.f('bytes_per_step_gb')}",
        f"memory_ms_per_step = bytes_per_step_gb / (bandwidth_tbs × bandwidth_efficiency) = "
        f"{p.f('bytes_per_step_gb')} / ({p.f('bandwidth_tbs')} × {p.n('bandwidth_efficiency')}) "
        f"= {p.f('memory_ms_per_step')}",
    ]
    if _has(p, "attention_flops_per_token"):
        lines.append(
            f"attention_flops_per_token = 4 × head_dim × heads × layers × context = 4 × "
            f"{p.n('head_dim')} × {p.n('heads')} × {p.n('layers')} × "
            f"{p.n('context_tokens')} = {p.f('attention_flops_per_token')}"
            + (" (local layers count their window)" if p.v("local_layers") else "")
        )
    if _has(p, "compute_ms_per_step"):
        active = "active params" if _has(p, "experts_touched") else "params"
        attn = (
            f" + {p.n('attention_flops_per_token')}" if _has(p, "attention_flops_per_token") else ""
        )
        lines.append(
            f"compute_ms_per_step = batch × (2 × {active}{' + attention' if attn else ''}) / "
            f"(peak × compute_efficiency) = {p.n('batch_size')} × (2 × "
            f"{number(_active_b(p))} × 10⁹{attn}) FLOP / ({p.f('peak_tflops')} × "
            f"{p.n('compute_efficiency')}) = {p.f('compute_ms_per_step')}"
        )
        lines.append(
            f"ms_per_token = (memory^p + compute^p)^(1/p), p = {p.n('step_p')} (the larger "
            f"far from the crossover) = ({p.n('memory_ms_per_step')}^{p.n('step_p')} + "
            f"{p.n('compute_ms_per_step')}^{p.n('step_p')})^(1/{p.n('step_p')}) = "
            f"{p.f('ms_per_token')} ({p.v('bound')}-bound)"
        )
    else:
        lines.append(
            f"ms_per_token = memory_ms_per_step = {p.f('ms_per_token')} "
            "(no peak_tflops given, so no compute ceiling)"
        )
    lines.append(
        f"tokens_per_s_per_user = 1000 / ms_per_token = 1000 / {p.n('ms_per_token')} "
        f"= {p.f('tokens_per_s_per_user')}"
    )
    lines.append(
        f"tokens_per_s_total = per user × batch_size = {p.n('tokens_per_s_per_user')}"
        f" × {p.n('batch_size')} = {p.f('tokens_per_s_total')}"
    )
    if "compute_bound_batch" in p.outputs:
        cb = p.v("compute_bound_batch")
        lines.append(
            "compute_bound_batch (compute time = memory time) = "
            + (
                "never: the KV read per sequence grows as fast as compute"
                if cb is None
                else p.f("compute_bound_batch")
            )
        )
    return lines


def _kv_bytes(p: Point) -> float:
    return float(PRECISION_BYTES[p.v("kv_precision")])


def _active_b(p: Point) -> float:
    if _has(p, "experts_touched"):
        k, ep = p.v("experts_per_token"), p.v("expert_params_b")
        shared = p.v("shared_params_b")
        shared = p.v("params_b") - k * ep if shared is None else shared
        return float(shared + k * ep)
    return float(p.v("params_b"))


def _decode_texts(p: Point) -> tuple[list[str], list[str]]:
    memory, compute = p.v("memory_ms_per_step"), p.outputs.get("compute_ms_per_step")
    if compute is not None and compute > memory:
        est = [
            f"At batch {p.n('batch_size')} decode is {binding_ceiling(p, 'compute')}: "
            f"{p.f('compute_ms_per_step')} of arithmetic against {p.f('memory_ms_per_step')}"
            " of memory traffic per step."
        ]
    else:
        ratio = f" by a factor of {number(memory / compute, sig=2)}" if compute else ""
        est = [
            f"Decode is memory-bound{ratio} at {ceiling_share(p, 'memory')}: each step streams "
            f"{p.f('bytes_per_step_gb')}, so one user gets at most "
            f"{p.f('tokens_per_s_per_user', 3)}."
        ]
    if "compute_bound_batch" in p.outputs:
        cb = p.v("compute_bound_batch")
        if cb is None:
            est.append(
                "Compute never catches up with memory however large the batch: each added "
                "sequence brings its own KV read, which costs more time than its arithmetic."
            )
        else:
            est.append(
                f"Batching is nearly free until about batch {number(cb, sig=3)}, where "
                "compute time reaches memory time."
            )
    if _has(p, "experts_touched"):
        touched, k = p.v("experts_touched"), p.v("experts_per_token")
        more = (
            f", {number(touched / k, sig=2)}x one token's {p.n('experts_per_token')}: the step "
            "reads far more than one token's active set"
            if touched > 1.05 * k
            else ", one token's active set"
        )
        est.append(
            f"At batch {p.n('batch_size')} the tokens touch about {number(touched, sig=3)} of "
            f"{p.n('experts')} experts per MoE layer (uniform routing){more}."
        )
    if p.v("kv_gb_per_seq") is None and not _has(p, "kv_bytes_per_token"):
        est.append(
            "This counts the weights only: give model= or the architecture (layers, "
            "kv_heads, head_dim) to add the KV cache read at context_tokens, or "
            "kv_gb_per_seq to set it."
        )
    est.append(f"The batch as a whole produces {p.f('tokens_per_s_total', 3)}.")
    need = [
        "Measured bandwidth is typically below the spec-sheet figure (decode often reaches "
        "about 70% of peak); set bandwidth_efficiency from a measurement.",
        "Attention kernels, sampling, scheduling and communication add time this bound "
        "leaves out; measure inter-token latency under your real batch and context mix.",
    ]
    if _has(p, "experts_touched"):
        need.append(
            "Real routing is not uniform: popular experts are shared more, which lowers the "
            "experts touched; measure the expert load of your traffic."
        )
    return est, need


_CHART_INPUTS = (
    "params_b",
    "bytes_per_param",
    "bandwidth_tbs",
    "context_tokens",
    "kv_precision",
    "kv_gb_per_seq",
    "layers",
    "heads",
    "kv_heads",
    "head_dim",
    "kv_lora_rank",
    "rope_head_dim",
    "local_layers",
    "local_window",
    "experts",
    "experts_per_token",
    "expert_params_b",
    "shared_params_b",
    "peak_tflops",
    "bandwidth_efficiency",
    "compute_efficiency",
)


def _decode_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    top = max(256, int(2 ** np.ceil(np.log2(max(p.v("batch_size") for p in points) * 2))))
    batch = 2.0 ** np.arange(0, int(np.log2(top)) + 1)
    kwargs = {k: first.v(k) for k in _CHART_INPUTS if first.inputs.get(k) is not None}
    out = decode_kernel(batch_size=batch, **kwargs)
    return {
        "type": "line",
        "title": "Decode throughput against batch size",
        "x_label": "Batch size (sequences)",
        "y_label": "Tokens/s",
        "x_log": True,
        "y_log": True,
        "series": [
            {
                "label": "per user",
                "style": "solid",
                "x": batch.tolist(),
                "y": out["tokens_per_s_per_user"].tolist(),
            },
            {
                "label": "total",
                "style": "dashed",
                "x": batch.tolist(),
                "y": out["tokens_per_s_total"].tolist(),
            },
        ],
        "points": [
            pt
            for p in points
            for pt in (
                # Label the total once per batch; the per-user marker sits on its line.
                {"label": "", "x": p.v("batch_size"), "y": p.v("tokens_per_s_per_user")},
                {
                    "label": f"batch {p.n('batch_size')}",
                    "x": p.v("batch_size"),
                    "y": p.v("tokens_per_s_total"),
                },
            )
        ],
    }


def _count(name: str, label: str, *, help: str = "", max: float = 1e6) -> Input:
    return Input(name, label, "", min=1, max=max, kind=INTEGER, required=False, help=help)


_ARCH = ("layers", "kv_heads", "head_dim", "kv_lora_rank")
_MOE = ("experts", "experts_per_token", "expert_params_b")


def _decode_check(inputs: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    given = {n for n in (*_ARCH, *_MOE, "heads", "shared_params_b") if inputs.get(n) is not None}
    if given & set(_ARCH) and inputs.get("kv_gb_per_seq") is None:
        complete = "layers" in given and (
            {"kv_heads", "head_dim"} <= given or "kv_lora_rank" in given
        )
        if not complete:
            for n in ("layers", "kv_heads", "head_dim"):
                if n not in given:
                    errors[n] = [
                        "required with the other architecture inputs to derive the KV read "
                        "(or give kv_lora_rank for MLA, or kv_gb_per_seq)"
                    ]
    if given & {*_MOE, "shared_params_b"}:
        for n in _MOE:
            if n not in given:
                errors[n] = ["required with the other MoE inputs"]
    if errors:
        return errors
    if "experts" in given:
        e = np.asarray(inputs["experts"], dtype=float)
        k = np.asarray(inputs["experts_per_token"], dtype=float)
        try:
            if np.any(k > e):
                errors["experts_per_token"] = ["must not exceed experts"]
            if "shared_params_b" not in given:
                shared = np.asarray(inputs["params_b"], dtype=float) - k * np.asarray(
                    inputs["expert_params_b"], dtype=float
                )
                if np.any(shared < 0):
                    errors["params_b"] = [
                        "must be at least experts_per_token × expert_params_b (the active "
                        "parameters include the routed experts), or give shared_params_b"
                    ]
        except ValueError:
            pass  # lengths that do not broadcast are reported by validation
    if inputs.get("local_layers"):
        if inputs.get("local_window") is None:
            errors["local_window"] = ["required when local_layers is given"]
        if inputs.get("layers") is not None:
            try:
                if np.any(np.asarray(inputs["local_layers"]) > np.asarray(inputs["layers"])):
                    errors["local_layers"] = ["must not exceed layers"]
            except ValueError:
                pass
    return errors


DECODE_BOUND = CalculatorSpec(
    slug="decode_bound",
    title="Decode speed bound",
    summary="How fast one decode step can be when every token streams the weights and KV "
    "cache from memory.",
    inputs=(
        model(),
        params_b("Active parameters"),
        bytes_per_param(),
        bandwidth_tbs(),
        Input("batch_size", "Batch size", "", default=1, min=1, max=1e6, kind=INTEGER),
        Input(
            "context_tokens",
            "Context per sequence",
            "tokens",
            default=4096,
            min=0,
            max=1e8,
            kind=INTEGER,
            help="Tokens already in each sequence's KV cache (prompt plus generated).",
        ),
        Input(
            "kv_precision",
            "KV cache precision",
            kind=CHOICE,
            choices=KV_PRECISIONS,
            default="bf16",
        ),
        Input(
            "kv_gb_per_seq",
            "KV cache read per step per sequence",
            "GB",
            min=0,
            max=1e4,
            required=False,
            help="Overrides the KV read derived from the architecture; 0 counts weights only.",
        ),
        _count("layers", "Layers", max=1e4),
        _count("heads", "Query heads", help="For the attention FLOPs over the context."),
        _count("kv_heads", "KV heads", help="Key/value heads (grouped-query attention)."),
        _count("head_dim", "Head dimension"),
        _count("kv_lora_rank", "MLA latent width (kv_lora_rank)", help="MLA models only."),
        Input(
            "rope_head_dim",
            "MLA RoPE key width",
            "",
            default=0,
            min=0,
            max=1e5,
            kind=INTEGER,
        ),
        Input(
            "local_layers", "Local-attention layers", "", default=0, min=0, max=1e4, kind=INTEGER
        ),
        _count("local_window", "Local window", help="Tokens a local layer keeps.", max=1e8),
        _count("experts", "Routed experts (MoE)", max=1e5),
        _count("experts_per_token", "Experts per token (MoE)", max=1e5),
        Input(
            "expert_params_b",
            "Parameters per expert (all MoE layers)",
            "billion",
            min=0,
            min_exclusive=True,
            max=1e5,
            required=False,
        ),
        Input(
            "shared_params_b",
            "Shared parameters (MoE)",
            "billion",
            min=0,
            max=1e5,
            required=False,
            help="Read by every token; defaults to params_b − experts_per_token × expert_params_b.",
        ),
        peak_tflops(required=False),
        precision(),
        fraction(
            "bandwidth_efficiency",
            "Bandwidth efficiency",
            1.0,
            help="Share of spec bandwidth achieved; measured decode is often ~0.7.",
        ),
        fraction("compute_efficiency", "Compute efficiency", 1.0),
        step_p(),
    ),
    outputs=(
        Output("weight_gb", "Weights read per step", "GB"),
        Output("kv_bytes_per_token", "KV cache per token", "bytes"),
        Output("kv_read_gb_per_seq", "KV read per sequence", "GB"),
        Output("experts_touched", "Experts touched per MoE layer", ""),
        Output("bytes_per_step_gb", "Bytes read per step", "GB"),
        Output("memory_ms_per_step", "Memory time per step", "ms"),
        Output("attention_flops_per_token", "Attention FLOP per token", "FLOP"),
        Output("compute_ms_per_step", "Compute time per step", "ms"),
        Output("ms_per_token", "Time per token", "ms"),
        Output("bound", "Bound", kind="text"),
        Output("tokens_per_s_per_user", "Tokens/s per user", "tokens/s"),
        Output("tokens_per_s_total", "Tokens/s total", "tokens/s"),
        Output("compute_bound_batch", "Batch where compute catches up", ""),
    ),
    chart_type="line",
    steps=_decode_steps,
    texts=_decode_texts,
    chart=_decode_chart,
    preset_fills=GPU_FILLS,
    check=_decode_check,
    model_renames={"params_b": "active_params_b"},
    example={
        "model": "llama-3.1-8b",
        "bytes_per_param": 2,
        "bandwidth_tbs": 3.35,
        "batch_size": 16,
        "context_tokens": 2048,
        "peak_tflops": 989,
    },
)

# ---------------------------------------------------------------- local_fit


def _local_steps(p: Point) -> list[str]:
    return [
        f"weights_gb = params_b × bytes_per_param = {p.n('params_b')} × 10⁹ × "
        f"{p.f('bytes_per_param')} = {p.f('weights_gb')}",
        f"usable_gb = device_memory_gb × usable_fraction = {p.f('device_memory_gb')} × "
        f"{p.n('usable_fraction')} = {p.f('usable_gb')}",
        f"fits = weights_gb ≤ usable_gb → {p.f('weights_gb')} ≤ {p.f('usable_gb')} → {p.f('fits')}",
        f"ms_per_token = weights_gb / device_bandwidth_gbs = {p.f('weights_gb')} / "
        f"{p.f('device_bandwidth_gbs')} = {p.f('ms_per_token')}",
        f"tokens_per_s = 1000 / ms_per_token = {p.f('tokens_per_s')}",
    ]


def _local_texts(p: Point) -> tuple[list[str], list[str]]:
    if p.v("fits"):
        est = [
            f"The {p.f('weights_gb')} of weights fit in {p.f('usable_gb')} of usable "
            f"memory, leaving {number(p.v('usable_gb') - p.v('weights_gb'))} GB for the KV "
            "cache and runtime."
        ]
    else:
        est = [
            f"The {p.f('weights_gb')} of weights do not fit in {p.f('usable_gb')}; "
            "quantise further, offload layers or use a larger device."
        ]
    est.append(f"Bandwidth caps batch-1 decode at about {p.f('tokens_per_s', 3)}.")
    need = [
        "Achieved bandwidth on consumer devices is often 60-80% of the advertised figure.",
        "The usable share of unified memory depends on the OS and runtime settings.",
    ]
    return est, need


def _local_chart(points: list[Point]) -> dict[str, Any]:
    return {
        "type": "bars",
        "title": "Weights against usable memory",
        "y_label": "GB",
        "categories": [column_label(p, points) for p in points],
        "segments": [{"label": "weights", "values": [p.v("weights_gb") for p in points]}],
        "markers": [{"label": "usable memory", "values": [p.v("usable_gb") for p in points]}],
        "stacked": False,
    }


LOCAL_FIT = CalculatorSpec(
    slug="local_fit",
    title="Local device fit",
    summary="Whether a model fits on a laptop or workstation GPU, and its batch-1 speed.",
    inputs=(
        model(),
        params_b(),
        bytes_per_param(),
        Input("device_memory_gb", "Device memory", "GB", min=0, min_exclusive=True, max=1e5),
        Input(
            "device_bandwidth_gbs", "Device bandwidth", "GB/s", min=0, min_exclusive=True, max=1e6
        ),
        fraction("usable_fraction", "Usable share of memory", 0.9),
    ),
    outputs=(
        Output("weights_gb", "Weights", "GB"),
        Output("usable_gb", "Usable memory", "GB"),
        Output("fits", "Fits", kind="boolean"),
        Output("ms_per_token", "Time per token", "ms"),
        Output("tokens_per_s", "Tokens/s (batch 1)", "tokens/s"),
    ),
    chart_type="bars",
    steps=_local_steps,
    texts=_local_texts,
    chart=_local_chart,
    preset_fills={
        "device_memory_gb": PresetFill("capacity_gb"),
        "device_bandwidth_gbs": PresetFill("bandwidth_tbs", 1000.0),
    },
    example={
        "params_b": 8,
        "bytes_per_param": 0.5,
        "device_memory_gb": 32,
        "device_bandwidth_gbs": 1792,
    },
)
