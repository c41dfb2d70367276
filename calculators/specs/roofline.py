"""Specs for the roofline-style calculators: roofline and attention_intensity."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from calculators.formatting import number

from .base import (
    GPU_FILLS,
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    bandwidth_tbs,
    bound_phrase,
    column_label,
    peak_tflops,
    precision,
)

# ---------------------------------------------------------------- roofline


def _roofline_steps(p: Point) -> list[str]:
    lines = [
        f"ridge_intensity = peak_tflops / bandwidth_tbs = {p.f('peak_tflops')} / "
        f"{p.f('bandwidth_tbs')} = {p.f('ridge_intensity')}"
    ]
    if p.has("flops") and p.inputs.get("flops") is not None:
        lines.append(
            f"intensity = flops / bytes = {p.f('flops')} / {p.f('bytes')} = {p.f('intensity')}"
        )
    else:
        lines.append(f"intensity = {p.f('intensity')} (given)")
    mem_roof = p.v("intensity") * p.v("bandwidth_tbs")
    lines.append(
        f"memory roof = intensity × bandwidth_tbs = {p.n('intensity')} FLOP/byte × "
        f"{p.f('bandwidth_tbs')} = {number(mem_roof)} TFLOP/s"
    )
    lines.append(
        f"attainable_tflops = min(peak, memory roof) = min({p.f('peak_tflops')}, "
        f"{number(mem_roof)} TFLOP/s) = {p.f('attainable_tflops')}"
    )
    lines.append(
        f"bound: intensity {p.n('intensity')} {'≥' if p.v('bound') == 'compute' else '<'}"
        f" ridge {p.n('ridge_intensity')}, so {p.v('bound')}-bound"
    )
    if p.outputs.get("time_s") is not None:
        lines.append(
            f"compute_s = flops / (peak × 10¹²) = {p.f('compute_s')}; memory_s = "
            f"bytes / (bandwidth × 10¹²) = {p.f('memory_s')}"
        )
        lines.append(f"time_s = max(compute_s, memory_s) = {p.f('time_s')}")
    return lines


def _roofline_texts(p: Point) -> tuple[list[str], list[str]]:
    ai, ridge = p.v("intensity"), p.v("ridge_intensity")
    phrase = bound_phrase(ai, ridge)
    est = [
        f"At {p.f('intensity')} against a ridge of {p.f('ridge_intensity')} the workload is "
        f"{phrase}; it can reach at most {p.f('attainable_tflops')} of "
        f"{p.f('peak_tflops')}."
    ]
    if p.v("bound") == "memory":
        est.append(
            "A faster kernel will not help until intensity rises: batch more, fuse "
            "operators or keep data on chip so each byte is used more often."
        )
    else:
        est.append("More bandwidth will not help; only more (or better used) compute does.")
    need = [
        "Measured bandwidth and throughput are typically below the spec-sheet figures "
        "(often 70-90% of peak bandwidth, less for small transfers).",
        "The bytes actually moved depend on caching and tiling; profile with Nsight "
        "Compute to get achieved FLOP and DRAM bytes.",
    ]
    return est, need


def _roofline_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    return {
        "type": "roofline",
        "title": "Roofline (log-log)",
        "x_label": "Arithmetic intensity (FLOP/byte)",
        "y_label": "Attainable TFLOP/s",
        "peak": first.v("peak_tflops"),
        "bandwidth": first.v("bandwidth_tbs"),
        "ridge": first.v("ridge_intensity"),
        "points": [
            {"label": column_label(p, points), "x": p.v("intensity"), "y": p.v("attainable_tflops")}
            for p in points
        ],
    }


def _roofline_check(inputs: dict[str, Any]) -> dict[str, list[str]]:
    has_ai = inputs.get("intensity") is not None
    has_f, has_b = inputs.get("flops") is not None, inputs.get("bytes") is not None
    if has_ai and (has_f or has_b):
        return {"intensity": ["give either intensity or flops and bytes, not both"]}
    if not has_ai and not (has_f and has_b):
        missing = [n for n, ok in (("flops", has_f), ("bytes", has_b)) if not ok]
        if has_f or has_b:
            return {n: ["required with " + ("bytes" if n == "flops" else "flops")] for n in missing}
        return {"intensity": ["required (or give both flops and bytes)"]}
    return {}


ROOFLINE = CalculatorSpec(
    slug="roofline",
    title="Roofline: compute- or memory-bound?",
    summary="Compares a workload's arithmetic intensity with the GPU's ridge point.",
    inputs=(
        peak_tflops(),
        precision(),
        bandwidth_tbs(),
        Input(
            "intensity",
            "Arithmetic intensity",
            "FLOP/byte",
            min=0,
            max=1e9,
            required=False,
            help="Leave empty and give flops and bytes instead.",
        ),
        Input("flops", "Work", "FLOP", min=0, max=1e24, required=False),
        Input(
            "bytes", "Memory traffic", "bytes", min=0, min_exclusive=True, max=1e24, required=False
        ),
    ),
    outputs=(
        Output("ridge_intensity", "Ridge point", "FLOP/byte"),
        Output("intensity", "Arithmetic intensity", "FLOP/byte"),
        Output("bound", "Bound", kind="text"),
        Output("attainable_tflops", "Attainable throughput", "TFLOP/s"),
        Output("compute_s", "Compute time", "s"),
        Output("memory_s", "Memory time", "s"),
        Output("time_s", "Time (the larger)", "s"),
    ),
    chart_type="roofline",
    steps=_roofline_steps,
    texts=_roofline_texts,
    chart=_roofline_chart,
    preset_fills=GPU_FILLS,
    check=_roofline_check,
    example={"peak_tflops": 989, "bandwidth_tbs": 3.35, "intensity": 62},
)

# ---------------------------------------------------------------- attention_intensity


def _attention_steps(p: Point) -> list[str]:
    n, d, b = p.n("seq_len"), p.n("head_dim"), p.n("bytes_per_elem")
    return [
        f"flops = 4·N²·d + 3·N² = 4 × {n}² × {d} + 3 × {n}² = {p.f('flops')}",
        f"bytes (standard: S and P go through memory) = 4·b·N² + 4·b·N·d = 4 × {b} × {n}² + "
        f"4 × {b} × {n} × {d} = {p.f('bytes')}",
        f"intensity = flops / bytes = {p.f('intensity')}",
        f"flash_bytes (S and P stay on chip) = 4·b·N·d = {p.f('flash_bytes')}",
        f"flash_intensity = flops / flash_bytes = {p.f('flash_intensity')}",
    ] + (
        [
            f"ridge_intensity = peak / bandwidth = {p.f('peak_tflops')} / "
            f"{p.f('bandwidth_tbs')} = {p.f('ridge_intensity')}",
            f"standard: {p.v('bound')}-bound; flash: {p.v('flash_bound')}-bound",
        ]
        if p.outputs.get("ridge_intensity") is not None
        else ["no peak_tflops and bandwidth_tbs given, so no ridge point or bound"]
    )


def _attention_texts(p: Point) -> tuple[list[str], list[str]]:
    ridge = p.outputs.get("ridge_intensity")
    if ridge is None:
        est = [
            f"Standard attention at N = {p.n('seq_len')} does {p.f('intensity')}: it stays "
            "near d/b regardless of sequence length because the N² score matrix is written "
            "and read back.",
            f"Keeping S and P on chip (flash attention) raises it to {p.f('flash_intensity')}; "
            "give peak_tflops and bandwidth_tbs (or a preset) to place both against a ridge.",
        ]
        return est, _ATTENTION_NEEDS
    est = [
        f"Standard attention at N = {p.n('seq_len')} is "
        f"{bound_phrase(p.v('intensity'), ridge)}: its intensity stays near d/b regardless "
        "of sequence length because the N² score matrix is written and read back.",
        f"Keeping S and P on chip (flash attention) raises intensity to "
        f"{p.f('flash_intensity')}, {bound_phrase(p.v('flash_intensity'), ridge)}.",
    ]
    return est, _ATTENTION_NEEDS


_ATTENTION_NEEDS = [
    "Real kernels also read masks and write softmax statistics, and tile sizes limit "
    "reuse; measure achieved FLOP/s and DRAM bytes with a profiler.",
    "This counts one head of one layer; decode (one query token) has far lower "
    "intensity than this prefill-shaped count.",
]


def _optional(inp: Input) -> Input:
    return replace(inp, required=False)


def _attention_check(inputs: dict[str, Any]) -> dict[str, list[str]]:
    has_peak, has_bw = (
        inputs.get("peak_tflops") is not None,
        inputs.get("bandwidth_tbs") is not None,
    )
    if has_peak != has_bw:
        missing = "bandwidth_tbs" if has_peak else "peak_tflops"
        return {
            missing: [
                f"required with {'peak_tflops' if has_peak else 'bandwidth_tbs'} "
                "(give both for the ridge and the bound, or neither)"
            ]
        }
    return {}


def _attention_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    if first.outputs.get("ridge_intensity") is None:
        return {
            "type": "bars",
            "title": "Arithmetic intensity, standard against flash attention",
            "y_label": "FLOP/byte",
            "stacked": False,
            "categories": [column_label(p, points) for p in points],
            "segments": [
                {"label": "standard", "values": [p.v("intensity") for p in points]},
                {"label": "flash", "values": [p.v("flash_intensity") for p in points]},
            ],
        }
    pts = []
    for p in points:
        for key, label in (("intensity", "standard"), ("flash_intensity", "flash")):
            x = p.v(key)
            y = min(p.v("peak_tflops"), x * p.v("bandwidth_tbs"))
            suffix = f" ({column_label(p, points)})" if len(points) > 1 else ""
            pts.append({"label": label + suffix, "x": x, "y": y})
    return {
        "type": "roofline",
        "title": "Attention on the roofline (log-log)",
        "x_label": "Arithmetic intensity (FLOP/byte)",
        "y_label": "Attainable TFLOP/s",
        "peak": first.v("peak_tflops"),
        "bandwidth": first.v("bandwidth_tbs"),
        "ridge": first.v("ridge_intensity"),
        "points": pts,
    }


ATTENTION_INTENSITY = CalculatorSpec(
    slug="attention_intensity",
    title="Attention arithmetic intensity",
    summary="Why standard attention is memory-bound and flash attention is not.",
    inputs=(
        Input("seq_len", "Sequence length (N)", "tokens", min=1, max=1e7, kind=INTEGER),
        Input("head_dim", "Head dimension (d)", "", min=1, max=4096, kind=INTEGER),
        Input(
            "bytes_per_elem",
            "Bytes per element (b)",
            "bytes",
            default=2.0,
            min=0,
            min_exclusive=True,
            max=8,
        ),
        peak_tflops(required=False),
        precision(),
        _optional(bandwidth_tbs()),
    ),
    outputs=(
        Output("flops", "FLOP", "FLOP"),
        Output("bytes", "Bytes (standard)", "bytes"),
        Output("intensity", "Intensity (standard)", "FLOP/byte"),
        Output("flash_bytes", "Bytes (flash)", "bytes"),
        Output("flash_intensity", "Intensity (flash)", "FLOP/byte"),
        Output("ridge_intensity", "Ridge point", "FLOP/byte"),
        Output("bound", "Standard attention is", kind="text"),
        Output("flash_bound", "Flash attention is", kind="text"),
    ),
    chart_type="roofline",
    steps=_attention_steps,
    texts=_attention_texts,
    chart=_attention_chart,
    preset_fills=GPU_FILLS,
    check=_attention_check,
    example={"seq_len": 4096, "head_dim": 128, "peak_tflops": 989, "bandwidth_tbs": 3.35},
)
