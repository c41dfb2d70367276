"""Specs for latency: fallback_latency and response_time."""

from __future__ import annotations

from typing import Any

from calculators.formatting import number

from .base import (
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    column_label,
)

# ---------------------------------------------------------------- fallback_latency


def _fallback_steps(p: Point) -> list[str]:
    return [
        f"operators = gpu_kernels + cpu_nodes = {p.n('gpu_kernels')} + {p.n('cpu_nodes')} = "
        f"{p.n('operators')}",
        f"gpu_ms = gpu_kernels × (gpu_kernel_us + launch_us) = {p.n('gpu_kernels')} × "
        f"({p.f('gpu_kernel_us')} + {p.f('launch_us')}) = {p.f('gpu_ms')}",
        f"cpu_ms = cpu_nodes × cpu_node_us = {p.n('cpu_nodes')} × {p.f('cpu_node_us')} = "
        f"{p.f('cpu_ms')}",
        f"copy_ms = transfers × (transfer_mb / pcie_gbs + sync_us) = {p.n('transfers')} × "
        f"({p.f('transfer_mb')} / {p.f('pcie_gbs')} + {p.f('sync_us')}) = {p.f('copy_ms')}",
        f"total_ms = gpu + cpu + copy = {p.n('gpu_ms')} + {p.n('cpu_ms')} + {p.n('copy_ms')} = "
        f"{p.f('total_ms')}",
        f"shares: GPU {p.f('gpu_share', 3)}, CPU {p.f('cpu_share', 3)}, copies "
        f"{p.f('copy_share', 3)}",
    ]


def _fallback_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"{p.n('operators')} operators take {p.f('total_ms', 3)}; copies and "
        f"synchronisations are {p.f('copy_share', 3)} of it."
    ]
    if p.v("transfers"):
        est.append(
            "Each partition boundary costs a device-host copy and a sync, which can "
            "outweigh the kernels that fusion removed."
        )
    need = [
        "Profile the session (ONNX Runtime profiling or Nsight Systems) to count the real "
        "partition boundaries and copy sizes.",
        "Effective PCIe bandwidth for pageable memory is often well below the link rate.",
    ]
    return est, need


def _fallback_compare(points: list[Point]) -> list[str]:
    a, b = points[0], points[-1]
    if len(points) < 2 or a.v("operators") == b.v("operators"):
        return []
    fewer, more = (b, a) if b.v("operators") < a.v("operators") else (a, b)
    delta = fewer.v("total_ms") - more.v("total_ms")
    if delta > 0:
        return [
            f"The graph with {number(more.v('operators') - fewer.v('operators'))} fewer "
            f"operators is {number(delta, sig=3)} ms slower: fewer operators, higher latency."
        ]
    return [f"The graph with fewer operators is {number(-delta, sig=3)} ms faster."]


def _fallback_chart(points: list[Point]) -> dict[str, Any]:
    return {
        "type": "bars",
        "title": "Latency by part",
        "y_label": "ms",
        "stacked": True,
        # Letters, not the varying inputs: a column label would not fit under a bar.
        "categories": [
            f"{'ABCDEFGHIJKL'[i]}: {p.n('operators')} operators"
            if len(points) > 1
            else f"{p.n('operators')} operators"
            for i, p in enumerate(points)
        ],
        "segments": [
            {"label": label, "values": [p.v(key) for p in points]}
            for key, label in (
                ("gpu_ms", "GPU kernels"),
                ("cpu_ms", "CPU nodes"),
                ("copy_ms", "copies + sync"),
            )
        ],
    }


FALLBACK_LATENCY = CalculatorSpec(
    slug="fallback_latency",
    title="CPU fallback latency",
    summary="Why a compiled graph with fewer operators can be slower when nodes fall back "
    "to the CPU.",
    inputs=(
        Input("gpu_kernels", "GPU kernels", "", min=0, max=1e7, kind=INTEGER),
        Input("gpu_kernel_us", "Time per GPU kernel", "µs", min=0, max=1e7),
        Input("launch_us", "Launch overhead per kernel", "µs", default=5.0, min=0, max=1e6),
        Input("cpu_nodes", "CPU fallback nodes", "", default=0, min=0, max=1e7, kind=INTEGER),
        Input("cpu_node_us", "Time per CPU node", "µs", default=0.0, min=0, max=1e8),
        Input(
            "transfers",
            "Device-host copies",
            "",
            default=0,
            min=0,
            max=1e7,
            kind=INTEGER,
            help="Each direction across a partition boundary counts once.",
        ),
        Input("transfer_mb", "Size per copy", "MB", default=0.0, min=0, max=1e6),
        Input(
            "pcie_gbs",
            "Effective host-device bandwidth",
            "GB/s",
            default=25.0,
            min=0,
            min_exclusive=True,
            max=1e4,
        ),
        Input("sync_us", "Synchronisation per copy", "µs", default=10.0, min=0, max=1e6),
    ),
    outputs=(
        Output("operators", "Operators", kind="integer"),
        Output("gpu_ms", "GPU time", "ms"),
        Output("cpu_ms", "CPU time", "ms"),
        Output("copy_ms", "Copies and syncs", "ms"),
        Output("total_ms", "Total latency", "ms"),
        Output("gpu_share", "GPU share", kind="pct"),
        Output("cpu_share", "CPU share", kind="pct"),
        Output("copy_share", "Copy share", kind="pct"),
    ),
    chart_type="stacked_bars",
    steps=_fallback_steps,
    texts=_fallback_texts,
    chart=_fallback_chart,
    compare=_fallback_compare,
    example={
        "gpu_kernels": [100, 90],
        "gpu_kernel_us": 20,
        "cpu_nodes": [0, 1],
        "cpu_node_us": 50,
        "transfers": [0, 2],
        "transfer_mb": 16,
    },
)

# ---------------------------------------------------------------- response_time


def _response_steps(p: Point) -> list[str]:
    return [
        f"tps_per_user = 1000 / itl_ms = 1000 / {p.f('itl_ms')} = {p.f('tps_per_user')}",
        f"decode_s = (output_tokens − 1) × itl_ms = ({p.n('output_tokens')} − 1) × "
        f"{p.f('itl_ms')} = {p.f('decode_s')}",
        f"total_s = ttft + decode = {p.f('ttft_ms')} + {p.f('decode_s')} = {p.f('total_s')}",
    ]


def _response_texts(p: Point) -> tuple[list[str], list[str]]:
    share = p.v("decode_s") / p.v("total_s") if p.v("total_s") else 0.0
    est = [
        f"A {p.n('output_tokens')}-token answer takes {p.f('total_s', 3)}, "
        f"{number(share * 100, sig=3)} % of it in decode.",
        "For long answers inter-token latency dominates; for short ones time to first token does.",
    ]
    need = [
        "TTFT and ITL vary with load and prompt length; use measured percentiles "
        "(p50, p99), not a single figure."
    ]
    return est, need


def _response_chart(points: list[Point]) -> dict[str, Any]:
    return {
        "type": "bars",
        "title": "Response time by phase",
        "y_label": "s",
        "stacked": True,
        "categories": [column_label(p, points) for p in points],
        "segments": [
            {"label": "time to first token", "values": [p.v("ttft_ms") / 1000 for p in points]},
            {"label": "decode", "values": [p.v("decode_s") for p in points]},
        ],
    }


RESPONSE_TIME = CalculatorSpec(
    slug="response_time",
    title="Response time",
    summary="End-to-end time from time to first token and inter-token latency.",
    inputs=(
        Input("ttft_ms", "Time to first token", "ms", min=0, max=1e7),
        Input("itl_ms", "Inter-token latency", "ms", min=0, min_exclusive=True, max=1e6),
        Input("output_tokens", "Output tokens", "tokens", min=1, max=1e8, kind=INTEGER),
    ),
    outputs=(
        Output("tps_per_user", "Tokens/s per user", "tokens/s"),
        Output("decode_s", "Decode time", "s"),
        Output("total_s", "Total time", "s"),
    ),
    chart_type="stacked_bars",
    steps=_response_steps,
    texts=_response_texts,
    chart=_response_chart,
    example={"ttft_ms": 300, "itl_ms": 25, "output_tokens": 500},
)
