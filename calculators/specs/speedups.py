"""Specs for speed-ups: sparsity_2_4 and diffusion_passes."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels import sparsity_2_4 as sparsity_kernel

from .base import (
    BOOLEAN,
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    bytes_per_param,
    column_label,
    fraction,
)

# ---------------------------------------------------------------- sparsity_2_4


def _sparsity_steps(p: Point) -> list[str]:
    g, s = p.n("gemm_share"), p.n("kernel_speedup")
    bits = 8 * p.v("bytes_per_param")
    return [
        f"end_to_end_speedup = 1 / ((1 − g) + g / s) = 1 / ((1 − {g}) + {g} / {s}) = "
        f"{p.f('end_to_end_speedup', 3)}",
        f"compressed_weight_ratio = (half the values × {number(bits)} bits + 2 bits metadata "
        f"per kept value) / {number(bits)} bits = ({number(bits / 2)} + 1) / {number(bits)} = "
        f"{p.f('compressed_weight_ratio', 3)}",
    ]


def _sparsity_texts(p: Point) -> tuple[list[str], list[str]]:
    limit = 1 / (1 - p.v("gemm_share")) if p.v("gemm_share") < 1 else float("inf")
    est = [
        f"A {p.f('kernel_speedup', 3)} GEMM speed-up on {p.f('gemm_share', 3)} of the time "
        f"gives {p.f('end_to_end_speedup', 3)} end to end; even infinitely fast GEMMs would "
        f"give at most {number(limit, sig=3)}×.",
        f"Compressed 2:4 weights take {p.f('compressed_weight_ratio', 3)} of the dense size, "
        "not half, because of the index metadata.",
    ]
    need = [
        "Single linear layers measure about 1.4× on A100, whole models 1.1-1.3×, and "
        "decode at batch 1 often gains nothing (it is bandwidth-bound); measure your "
        "model's GEMM share and kernel speed-up.",
        "Accuracy after pruning to 2:4 needs evaluation and usually fine-tuning.",
    ]
    return est, need


def _sparsity_chart(points: list[Point]) -> dict[str, Any]:
    g = np.linspace(0, 1, 41)
    series = []
    for i, p in enumerate(points[:3]):
        out = sparsity_kernel(gemm_share=g, kernel_speedup=p.v("kernel_speedup"))
        series.append(
            {
                "label": f"kernel {p.n('kernel_speedup')}×",
                "style": ("solid", "dashed", "dotted")[i],
                "x": g.tolist(),
                "y": out["end_to_end_speedup"].tolist(),
            }
        )
    return {
        "type": "line",
        "title": "End-to-end speed-up against GEMM share (Amdahl)",
        "x_label": "GEMM share of request time",
        "y_label": "End-to-end speed-up (×)",
        "x_log": False,
        "y_log": False,
        "series": series,
        "hlines": [{"label": "no gain", "y": 1.0}],
        "points": [
            {
                "label": column_label(p, points),
                "x": p.v("gemm_share"),
                "y": p.v("end_to_end_speedup"),
            }
            for p in points[:3]
        ],
    }


SPARSITY_2_4 = CalculatorSpec(
    slug="sparsity_2_4",
    title="2:4 structured sparsity",
    summary="End-to-end speed-up from faster sparse GEMMs (Amdahl) and the weight footprint.",
    inputs=(
        fraction("gemm_share", "GEMM share of request time", None, allow_zero=True),
        Input("kernel_speedup", "Sparse GEMM speed-up", "x", min=0, min_exclusive=True, max=100),
        bytes_per_param(default=2.0),
    ),
    outputs=(
        Output("end_to_end_speedup", "End-to-end speed-up", "x"),
        Output("compressed_weight_ratio", "Compressed weight size", kind="pct"),
        Output("remaining_time_fraction", "Time remaining", kind="pct"),
    ),
    chart_type="line",
    steps=_sparsity_steps,
    texts=_sparsity_texts,
    chart=_sparsity_chart,
    example={"gemm_share": 0.6, "kernel_speedup": 1.6, "bytes_per_param": 2},
)

# ---------------------------------------------------------------- diffusion_passes


def _diffusion_steps(p: Point) -> list[str]:
    factor = 2 if p.v("guidance") else 1
    why = "2 with guidance" if factor == 2 else "1 without guidance"
    lines = [
        f"forward_passes = steps × {factor} ({why}) = {p.n('steps')} × {factor} = "
        f"{p.n('forward_passes')}",
    ]
    if p.v("pass_ms") is None:
        return [*lines, "no pass_ms given, so no time: the passes only"]
    return [
        *lines,
        f"total_s = forward_passes × pass_ms / 1000 = {p.n('forward_passes')} × "
        f"{p.f('pass_ms')} / 1000 = {p.f('total_s')}",
    ]


def _diffusion_texts(p: Point) -> tuple[list[str], list[str]]:
    time = f", {p.f('total_s', 3)} of denoising" if p.v("pass_ms") is not None else ""
    est = [f"{p.n('steps')} steps cost {p.n('forward_passes')} forward passes{time}."]
    if p.v("guidance"):
        est.append(
            "Classifier-free guidance doubles the passes; batching the conditional and "
            "unconditional pass together recovers some of it on an idle GPU."
        )
    need = [
        "VAE decode, text encoding and scheduling add time; measure pass_ms at your "
        "resolution and batch size."
    ]
    return est, need


def _diffusion_chart(points: list[Point]) -> dict[str, Any]:
    timed = points[0].v("total_s") is not None
    name, label, unit = (
        ("total_s", "denoising", "s") if timed else ("forward_passes", "passes", "passes")
    )
    return {
        "type": "bars",
        "title": "Denoising time" if timed else "Forward passes",
        "y_label": unit,
        "stacked": False,
        "categories": [column_label(p, points) for p in points],
        "segments": [{"label": label, "values": [p.v(name) for p in points]}],
    }


DIFFUSION_PASSES = CalculatorSpec(
    slug="diffusion_passes",
    title="Diffusion forward passes",
    summary="Forward passes and time for a diffusion sampler, with or without guidance.",
    inputs=(
        Input("steps", "Sampler steps", "steps", min=1, max=1e5, kind=INTEGER),
        Input("guidance", "Classifier-free guidance", kind=BOOLEAN, default=True),
        Input(
            "pass_ms",
            "Time per forward pass",
            "ms",
            min=0,
            max=1e7,
            required=False,
            help="Optional: without it, the number of passes only.",
        ),
    ),
    outputs=(
        Output("forward_passes", "Forward passes", kind="integer"),
        Output("total_s", "Denoising time", "s"),
    ),
    chart_type="bars",
    steps=_diffusion_steps,
    texts=_diffusion_texts,
    chart=_diffusion_chart,
    example={"steps": 30, "guidance": True, "pass_ms": 45},
)
