"""Specs for decode speed: decode_bound and local_fit."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels import decode_bound as decode_kernel

from .base import (
    GPU_FILLS,
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    PresetFill,
    bandwidth_tbs,
    bytes_per_param,
    column_label,
    fraction,
    params_b,
    peak_tflops,
)

# ---------------------------------------------------------------- decode_bound


def _decode_steps(p: Point) -> list[str]:
    lines = [
        f"weight_gb = params_b × bytes_per_param = {p.n('params_b')} × 10⁹ × "
        f"{p.f('bytes_per_param')} = {p.f('weight_gb')}",
        f"bytes_per_step_gb = weight_gb + batch_size × kv_gb_per_seq = {p.f('weight_gb')} + "
        f"{p.n('batch_size')} × {p.f('kv_gb_per_seq')} = {p.f('bytes_per_step_gb')}",
        f"memory_ms_per_step = bytes_per_step_gb / (bandwidth_tbs × bandwidth_efficiency) = "
        f"{p.f('bytes_per_step_gb')} / ({p.f('bandwidth_tbs')} × {p.n('bandwidth_efficiency')}) "
        f"= {p.f('memory_ms_per_step')}",
    ]
    if p.outputs.get("compute_ms_per_step") is not None:
        lines.append(
            f"compute_ms_per_step = 2 × params × batch / (peak × compute_efficiency) = 2 × "
            f"{p.n('params_b')} × 10⁹ × {p.n('batch_size')} FLOP / ({p.f('peak_tflops')} × "
            f"{p.n('compute_efficiency')}) = {p.f('compute_ms_per_step')}"
        )
        lines.append(f"ms_per_token = max(memory, compute) = {p.f('ms_per_token')}")
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
        lines.append(
            f"compute_bound_batch (compute time = memory time) = "
            f"{p.f('compute_bound_batch')}"
            + (
                " (never: KV traffic grows as fast as compute)"
                if p.v("compute_bound_batch") is None
                else ""
            )
        )
    return lines


def _decode_texts(p: Point) -> tuple[list[str], list[str]]:
    memory, compute = p.v("memory_ms_per_step"), p.outputs.get("compute_ms_per_step")
    if compute is not None and compute > memory:
        est = [
            f"At batch {p.n('batch_size')} decode is compute-bound: "
            f"{p.f('compute_ms_per_step')} of arithmetic against {p.f('memory_ms_per_step')}"
            " of memory traffic per step."
        ]
    else:
        ratio = f" by a factor of {number(memory / compute, sig=2)}" if compute else ""
        est = [
            f"Decode is memory-bound{ratio}: each step streams {p.f('bytes_per_step_gb')}, "
            f"so one user gets at most {p.f('tokens_per_s_per_user', 3)}."
        ]
    if "compute_bound_batch" in p.outputs:
        cb = p.v("compute_bound_batch")
        if cb is None:
            est.append(
                "With this KV traffic per sequence, compute never catches up with "
                "memory however large the batch."
            )
        else:
            est.append(
                f"Batching is nearly free until about batch {number(cb, sig=3)}, where "
                "compute time reaches memory time."
            )
    est.append(f"The batch as a whole produces {p.f('tokens_per_s_total', 3)}.")
    need = [
        "Measured bandwidth is typically below the spec-sheet figure (decode often reaches "
        "about 70% of peak); set bandwidth_efficiency from a measurement.",
        "Attention kernels, sampling, scheduling and communication add time this bound "
        "leaves out; measure inter-token latency under your real batch and context mix.",
    ]
    return est, need


def _decode_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    top = max(256, int(2 ** np.ceil(np.log2(max(p.v("batch_size") for p in points) * 2))))
    batch = 2.0 ** np.arange(0, int(np.log2(top)) + 1)
    kwargs = {
        k: first.v(k)
        for k in (
            "params_b",
            "bytes_per_param",
            "bandwidth_tbs",
            "kv_gb_per_seq",
            "peak_tflops",
            "bandwidth_efficiency",
            "compute_efficiency",
        )
        if first.v(k) is not None
    }
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


DECODE_BOUND = CalculatorSpec(
    slug="decode_bound",
    title="Decode speed bound",
    summary="How fast one decode step can be when every token streams the weights and KV "
    "cache from memory.",
    inputs=(
        params_b("Active parameters"),
        bytes_per_param(),
        bandwidth_tbs(),
        Input("batch_size", "Batch size", "", default=1, min=1, max=1e6, kind=INTEGER),
        Input(
            "kv_gb_per_seq",
            "KV cache read per step per sequence",
            "GB",
            default=0.0,
            min=0,
            max=1e4,
        ),
        peak_tflops(required=False),
        fraction(
            "bandwidth_efficiency",
            "Bandwidth efficiency",
            1.0,
            help="Share of spec bandwidth achieved; measured decode is often ~0.7.",
        ),
        fraction("compute_efficiency", "Compute efficiency", 1.0),
    ),
    outputs=(
        Output("weight_gb", "Weights", "GB"),
        Output("bytes_per_step_gb", "Bytes read per step", "GB"),
        Output("memory_ms_per_step", "Memory time per step", "ms"),
        Output("compute_ms_per_step", "Compute time per step", "ms"),
        Output("ms_per_token", "Time per token", "ms"),
        Output("tokens_per_s_per_user", "Tokens/s per user", "tokens/s"),
        Output("tokens_per_s_total", "Tokens/s total", "tokens/s"),
        Output("compute_bound_batch", "Batch where compute catches up", ""),
    ),
    chart_type="line",
    steps=_decode_steps,
    texts=_decode_texts,
    chart=_decode_chart,
    preset_fills=GPU_FILLS,
    example={"params_b": 8, "bytes_per_param": 2, "bandwidth_tbs": 3.35},
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
        "device_memory_gb": PresetFill("memory_gb"),
        "device_bandwidth_gbs": PresetFill("bandwidth_tbs", 1000.0),
    },
    example={
        "params_b": 8,
        "bytes_per_param": 0.5,
        "device_memory_gb": 32,
        "device_bandwidth_gbs": 1792,
    },
)
