"""Specs for model architecture: sliding_window, linear_params and moe_active."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels import sliding_window as window_kernel

from .base import (
    BOOLEAN,
    CHOICE,
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    bytes_per_param,
    column_label,
    model,
    part_of_whole_bars,
)

# ---------------------------------------------------------------- sliding_window


def _window_steps(p: Point) -> list[str]:
    n, w = p.n("seq_len"), p.n("window")
    causal = p.v("mask") == "causal"
    covers = p.v("seq_len") <= p.v("window")
    if causal:
        lines = [f"full_pairs (causal) = N(N+1)/2 = {n} × ({n} + 1) / 2 = {p.n('full_pairs')}"]
        if covers:
            lines.append(
                f"window_pairs = full_pairs = {p.n('window_pairs')} (the window covers the "
                "whole sequence)"
            )
        else:
            lines.append(
                f"window_pairs = w(w+1)/2 + (N − w) × w = {w} × ({w} + 1) / 2 + ({n} − {w})"
                f" × {w} = {p.n('window_pairs')}"
            )
    else:
        lines = [f"full_pairs (every query scores every key) = N² = {n}² = {p.n('full_pairs')}"]
        w_eff = n if covers else w
        lines.append(
            f"window_pairs = N × min(w, N) = {n} × {w_eff} = {p.n('window_pairs')}"
            + (" (the window covers the whole sequence)" if covers else "")
        )
    lines += [
        f"saving = full_pairs / window_pairs = {p.n('full_pairs')} / {p.n('window_pairs')} = "
        f"{p.n('saving', 3)}×",
        f"saving_fraction = 1 − window_pairs / full_pairs = {p.f('saving_fraction', 3)}",
    ]
    return lines


def _window_texts(p: Point) -> tuple[list[str], list[str]]:
    kind = "causal" if p.v("mask") == "causal" else "full"
    est = [
        f"A window of {p.n('window')} scores {p.n('saving', 3)}× fewer query-key pairs "
        f"({p.f('saving_fraction', 3)} fewer) than {kind} attention over {p.n('seq_len')} "
        "tokens; the cost grows linearly instead of quadratically beyond the window.",
        f"The KV cache needed per layer is capped at {p.n('window')} tokens.",
    ]
    need = [
        "Whether quality holds with the window (and how many layers can use it) is a "
        "model evaluation, not arithmetic.",
        "Kernel speed-up is smaller than the pair saving at short lengths, where attention "
        "is a small share of the step.",
    ]
    return est, need


def _window_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    top = max(p.v("seq_len") for p in points) * 2
    x = np.unique(np.linspace(1, max(top, 2), 40).astype(np.int64))
    out = window_kernel(seq_len=x, window=first.v("window"), mask=first.v("mask"))
    return {
        "type": "line",
        "title": "Attention pairs against sequence length",
        "x_label": "Sequence length (tokens)",
        "y_label": "Query-key pairs",
        "x_log": False,
        "y_log": False,
        "series": [
            {
                "label": "causal" if first.v("mask") == "causal" else "full (N²)",
                "style": "solid",
                "x": x.tolist(),
                "y": out["full_pairs"].tolist(),
            },
            {
                "label": f"window {first.n('window')}",
                "style": "dashed",
                "x": x.tolist(),
                "y": out["window_pairs"].tolist(),
            },
        ],
        "points": [
            {"label": column_label(p, points), "x": p.v("seq_len"), "y": p.v("window_pairs")}
            for p in points[:3]
        ],
    }


SLIDING_WINDOW = CalculatorSpec(
    slug="sliding_window",
    title="Sliding-window attention",
    summary="Query-key pairs scored with and without a sliding window.",
    inputs=(
        Input("seq_len", "Sequence length", "tokens", min=1, max=1e8, kind=INTEGER),
        Input("window", "Window", "tokens", min=1, max=1e8, kind=INTEGER),
        Input(
            "mask",
            "Mask",
            kind=CHOICE,
            choices=("full", "causal"),
            default="full",
            help="full: N² pairs and N·w with the window (the textbook count); causal: "
            "each token scores itself and earlier tokens.",
        ),
    ),
    outputs=(
        Output("full_pairs", "Pairs without a window", kind="integer"),
        Output("window_pairs", "Pairs with the window", kind="integer"),
        Output("saving", "Saving (factor)", "x"),
        Output("saving_fraction", "Saving (share of pairs)", kind="pct"),
    ),
    chart_type="line",
    steps=_window_steps,
    texts=_window_texts,
    chart=_window_chart,
    example={"seq_len": 32768, "window": 4096},
)

# ---------------------------------------------------------------- linear_params


def _linear_steps(p: Point) -> list[str]:
    return [
        f"weights = n_in × n_out = {p.n('n_in')} × {p.n('n_out')} = {p.n('weights')}",
        f"biases = {'n_out' if p.v('bias') else '0 (no bias)'} = {p.n('biases')}",
        f"params = weights + biases = {p.n('weights')} + {p.n('biases')} = {p.n('params')}",
    ]


def _linear_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"The layer holds {p.n('params')} parameters "
        f"({number(p.v('params') * 2 / 1e6, sig=3)} MB in BF16); a forward pass costs "
        f"2 × {p.n('weights')} FLOP per token."
    ]
    need = [
        "Frameworks may fuse, pad or tie weights (for example shared embeddings); count "
        "from the checkpoint when it matters."
    ]
    return est, need


def _linear_chart(points: list[Point]) -> dict[str, Any]:
    return {
        "type": "bars",
        "title": "Parameters",
        "y_label": "parameters",
        "stacked": True,
        "categories": [column_label(p, points) for p in points],
        "segments": [
            {"label": "weights", "values": [p.v("weights") for p in points]},
            {"label": "biases", "values": [p.v("biases") for p in points]},
        ],
    }


LINEAR_PARAMS = CalculatorSpec(
    slug="linear_params",
    title="Linear layer parameters",
    summary="Weights and biases in a fully connected layer.",
    inputs=(
        Input("n_in", "Input features", "", min=1, max=1e9, kind=INTEGER),
        Input("n_out", "Output features", "", min=1, max=1e9, kind=INTEGER),
        Input("bias", "Bias", kind=BOOLEAN, default=True),
    ),
    outputs=(
        Output("weights", "Weights", kind="integer"),
        Output("biases", "Biases", kind="integer"),
        Output("params", "Parameters", kind="integer"),
    ),
    chart_type="bars",
    steps=_linear_steps,
    texts=_linear_texts,
    chart=_linear_chart,
    example={"n_in": 4096, "n_out": 14336},
)

# ---------------------------------------------------------------- moe_active


def _moe_steps(p: Point) -> list[str]:
    lines = []
    if p.v("experts") is not None:
        lines.append(
            f"active_params_b = shared + experts_per_token × expert_params_b = "
            f"{p.n('shared_params_b')} + {p.n('experts_per_token')} × "
            f"{p.n('expert_params_b')} = {p.f('active_params_b')}"
        )
        if p.inputs.get("total_params_b") is None:
            lines.append(
                f"total_params_b = shared + experts × expert_params_b = "
                f"{p.n('shared_params_b')} + {p.n('experts')} × "
                f"{p.n('expert_params_b')} = {p.f('total_params_b')}"
            )
    lines += [
        f"active_fraction = active / total = {p.n('active_params_b')} / "
        f"{p.n('total_params_b')} = {p.f('active_fraction', 3)}",
        f"active_gb = active_params_b × bytes_per_param = {p.n('active_params_b')} × "
        f"{p.n('bytes_per_param')} = {p.f('active_gb')}",
        f"batched_resident_gb = total_params_b × bytes_per_param = {p.n('total_params_b')} × "
        f"{p.n('bytes_per_param')} = {p.f('batched_resident_gb')}",
    ]
    return lines


def _moe_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"Each token uses {p.f('active_fraction', 3)} of the parameters, so batch-1 decode "
        f"reads about {p.f('active_gb', 3)} per token.",
        f"All {p.f('batched_resident_gb', 3)} must stay resident, and a large batch routes "
        "tokens to nearly every expert, so batched decode reads close to all of it.",
    ]
    need = [
        "Routing is uneven: measure the expert load balance and how many experts a "
        "typical batch touches.",
        "Expert parallelism adds all-to-all communication this count leaves out.",
    ]
    return est, need


def _moe_chart(points: list[Point]) -> dict[str, Any]:
    return part_of_whole_bars(
        points,
        title="Active against resident weights",
        y_label="GB",
        part=("active per token", "active_gb"),
        whole=("resident, inactive", "batched_resident_gb"),
    )


def _moe_check(inputs: dict[str, Any]) -> dict[str, list[str]]:
    layout = [
        n for n in ("experts", "experts_per_token", "expert_params_b") if inputs.get(n) is not None
    ]
    if layout and len(layout) < 3:
        return {
            n: ["required with the expert layout"]
            for n in ("experts", "experts_per_token", "expert_params_b")
            if n not in layout
        }
    if layout:
        e, k = np.asarray(inputs["experts"]), np.asarray(inputs["experts_per_token"])
        try:
            if np.any(k > e):
                return {"experts_per_token": ["cannot exceed experts"]}
        except ValueError:
            return {}
        return {}
    errors: dict[str, list[str]] = {}
    for name in ("total_params_b", "active_params_b"):
        if inputs.get(name) is None:
            errors[name] = ["required (or give experts, experts_per_token and expert_params_b)"]
    if not errors:
        try:
            if np.any(np.asarray(inputs["active_params_b"]) > np.asarray(inputs["total_params_b"])):
                errors["active_params_b"] = ["cannot exceed total_params_b"]
        except ValueError:
            pass
    return errors


_B = "billion"
MOE_ACTIVE = CalculatorSpec(
    slug="moe_active",
    title="Mixture-of-experts active parameters",
    summary="Parameters each token uses against the weights that must stay resident.",
    inputs=(
        model(),
        Input(
            "total_params_b",
            "Total parameters",
            _B,
            min=0,
            min_exclusive=True,
            max=1e5,
            required=False,
        ),
        Input(
            "active_params_b",
            "Active parameters per token",
            _B,
            min=0,
            min_exclusive=True,
            max=1e5,
            required=False,
        ),
        Input("experts", "Experts", "", min=1, max=1e5, kind=INTEGER, required=False),
        Input(
            "experts_per_token",
            "Experts per token",
            "",
            min=1,
            max=1e5,
            kind=INTEGER,
            required=False,
        ),
        Input(
            "expert_params_b",
            "Parameters per expert",
            _B,
            min=0,
            min_exclusive=True,
            max=1e5,
            required=False,
        ),
        Input(
            "shared_params_b",
            "Shared parameters",
            _B,
            default=0.0,
            min=0,
            max=1e5,
            help="Attention, embeddings and shared experts.",
        ),
        bytes_per_param(default=2.0),
    ),
    outputs=(
        Output("total_params_b", "Total parameters", _B),
        Output("active_params_b", "Active parameters", _B),
        Output("active_fraction", "Active fraction", kind="pct"),
        Output("active_gb", "Active weights per token", "GB"),
        Output("batched_resident_gb", "Resident weights (batched)", "GB"),
    ),
    chart_type="stacked_bars",
    steps=_moe_steps,
    texts=_moe_texts,
    chart=_moe_chart,
    check=_moe_check,
    model_renames={"total_params_b": "params_b"},
    example={"total_params_b": 46.7, "active_params_b": 12.9},
)
