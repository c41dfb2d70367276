"""Specs for memory sizing: weight_memory and kv_cache."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.kernels import kv_cache as kv_kernel

from .base import (
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    bytes_per_param,
    column_label,
    params_b,
    part_of_whole_bars,
)

# ---------------------------------------------------------------- weight_memory


def _weight_steps(p: Point) -> list[str]:
    return [
        f"weights_gb = params_b × bytes_per_param × (1 + scale_overhead) = {p.n('params_b')} × "
        f"10⁹ × {p.f('bytes_per_param')} × (1 + {p.n('scale_overhead')}) = {p.f('weights_gb')}",
        f"recommended_vram_gb = weights_gb × (1 + headroom) = {p.f('weights_gb')} × (1 + "
        f"{p.n('headroom')}) = {p.f('recommended_vram_gb')}",
    ]


def _weight_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"The weights alone need {p.f('weights_gb')}; provision about "
        f"{p.f('recommended_vram_gb', 3)} to leave {p.f('headroom')} of headroom."
    ]
    need = [
        "The KV cache grows with batch and context; size it with kv_cache for your real "
        "traffic rather than a fixed headroom.",
        "Runtimes reserve memory of their own (CUDA context, workspace, graphs).",
    ]
    return est, need


def _weight_chart(points: list[Point]) -> dict[str, Any]:
    return part_of_whole_bars(
        points,
        title="Weights and headroom",
        y_label="GB",
        part=("weights", "weights_gb"),
        whole=("headroom", "recommended_vram_gb"),
    )


WEIGHT_MEMORY = CalculatorSpec(
    slug="weight_memory",
    title="Weight memory",
    summary="Memory the weights take and the VRAM to provision.",
    inputs=(
        params_b(),
        bytes_per_param(),
        Input(
            "headroom",
            "Headroom",
            "fraction",
            default=0.5,
            min=0,
            max=100,
            help="Extra memory as a fraction of the weights (KV cache, activations).",
        ),
        Input(
            "scale_overhead", "Quantisation scale overhead", "fraction", default=0.0, min=0, max=1
        ),
    ),
    outputs=(
        Output("weights_gb", "Weights", "GB"),
        Output("recommended_vram_gb", "Recommended VRAM", "GB"),
    ),
    chart_type="bars",
    steps=_weight_steps,
    texts=_weight_texts,
    chart=_weight_chart,
    example={"params_b": 70, "bytes_per_param": 2},
)

# ---------------------------------------------------------------- kv_cache


def _kv_steps(p: Point) -> list[str]:
    return [
        f"bytes_per_token = 2 (K and V) × layers × kv_heads × head_dim × bytes_per_elem = 2 × "
        f"{p.n('layers')} × {p.n('kv_heads')} × {p.n('head_dim')} × {p.f('bytes_per_elem')} = "
        f"{p.f('bytes_per_token')}",
        f"gb_per_seq = bytes_per_token × seq_len = {p.n('bytes_per_token')} × "
        f"{p.f('seq_len')} = {p.f('gb_per_seq')}",
        f"total_gb = gb_per_seq × batch_size = {p.n('gb_per_seq')} × {p.n('batch_size')} = "
        f"{p.f('total_gb')}",
    ]


def _kv_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"Each token costs {p.f('bytes_per_token')} of cache; {p.n('batch_size')} "
        f"sequence(s) of {p.f('seq_len')} hold {p.f('total_gb', 3)}.",
        "Grouped-query attention enters through kv_heads: using the query-head count "
        "instead overstates the cache by the query-to-KV head ratio.",
    ]
    need = [
        "Paged allocators round up to blocks and reserve some space; check the engine's "
        "reported KV capacity.",
        "Real traffic has a distribution of lengths; size for a percentile, not the mean.",
    ]
    return est, need


def _kv_chart(points: list[Point]) -> dict[str, Any]:
    series = []
    top = max(p.v("seq_len") for p in points) * 2
    x = np.linspace(0, top, 33)
    for i, p in enumerate(points[:3]):
        out = kv_kernel(
            layers=p.v("layers"),
            kv_heads=p.v("kv_heads"),
            head_dim=p.v("head_dim"),
            seq_len=x.astype(np.int64),
            batch_size=p.v("batch_size"),
            bytes_per_elem=p.v("bytes_per_elem"),
        )
        series.append(
            {
                "label": column_label(p, points) if len(points) > 1 else "total KV cache",
                "style": ("solid", "dashed", "dotted")[i],
                "x": x.tolist(),
                "y": out["total_gb"].tolist(),
            }
        )
    return {
        "type": "line",
        "title": "KV cache against sequence length",
        "x_label": "Sequence length (tokens)",
        "y_label": "Total KV cache (GB)",
        "x_log": False,
        "y_log": False,
        "series": series,
        "points": [
            {"label": column_label(p, points), "x": p.v("seq_len"), "y": p.v("total_gb")}
            for p in points[:3]
        ],
    }


KV_CACHE = CalculatorSpec(
    slug="kv_cache",
    title="KV cache size",
    summary="Memory for keys and values per token, per sequence and per batch.",
    inputs=(
        Input("layers", "Layers", "", min=1, max=10000, kind=INTEGER),
        Input(
            "kv_heads",
            "KV heads",
            "",
            min=1,
            max=10000,
            kind=INTEGER,
            help="Key/value heads, not query heads (grouped-query attention).",
        ),
        Input("head_dim", "Head dimension", "", min=1, max=100000, kind=INTEGER),
        Input("seq_len", "Sequence length", "tokens", min=0, max=1e9, kind=INTEGER),
        Input("batch_size", "Batch size", "", default=1, min=0, max=1e7, kind=INTEGER),
        Input(
            "bytes_per_elem",
            "Bytes per element",
            "bytes",
            default=2.0,
            min=0,
            min_exclusive=True,
            max=8,
        ),
    ),
    outputs=(
        Output("bytes_per_token", "Per token", "bytes"),
        Output("gb_per_seq", "Per sequence", "GB"),
        Output("total_gb", "Total", "GB"),
    ),
    chart_type="line",
    steps=_kv_steps,
    texts=_kv_texts,
    chart=_kv_chart,
    example={"layers": 32, "kv_heads": 8, "head_dim": 128, "seq_len": 8192},
)
