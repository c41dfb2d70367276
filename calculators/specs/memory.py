"""Specs for memory sizing: weight_memory and kv_cache."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.kernels import kv_cache as kv_kernel

from .base import (
    BOOLEAN,
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    bytes_per_param,
    column_label,
    model,
    params_b,
    part_of_whole_bars,
)

# ---------------------------------------------------------------- weight_memory


def _weight_steps(p: Point) -> list[str]:
    lines = []
    split = p.v("vocab") is not None and p.v("hidden") is not None
    if split:
        lines += [
            f"embedding = vocab × hidden × embedding_bytes = {p.n('vocab')} × {p.n('hidden')} × "
            f"{p.f('embedding_bytes')} = {p.f('embedding_gb')}",
            (
                "lm_head = 0 (tied to the embedding)"
                if p.v("tied_embeddings")
                else f"lm_head = vocab × hidden × lm_head_bytes = {p.n('vocab')} × "
                f"{p.n('hidden')} × {p.f('lm_head_bytes')} = {p.f('lm_head_gb')}"
            ),
            f"layer params = params − embedding − lm_head = {p.n('params_b')} × 10⁹ − "
            f"{'1' if p.v('tied_embeddings') else '2'} × {p.n('vocab')} × {p.n('hidden')} = "
            f"{p.n('layer_params_b')} × 10⁹",
        ]
    lines.append(
        f"layers = layer params × bytes_per_param = {p.n('layer_params_b')} × 10⁹ × "
        f"{p.f('bytes_per_param')} = {p.f('layers_gb')}"
    )
    if p.v("group_size") is not None:
        lines.append(
            f"scales = layer params × (scale_bits + zero_point_bits) / 8 / group_size = "
            f"{p.n('layer_params_b')} × 10⁹ × ({p.n('scale_bits')} + {p.n('zero_point_bits')}) "
            f"/ 8 / {p.n('group_size')} = {p.f('scales_gb')}"
        )
    parts = "embedding + layers + lm_head + scales" if split else "layers + scales"
    lines += [
        f"weights_gb = ({parts}) × (1 + scale_overhead) = {p.f('weights_gb')}",
        f"recommended_vram_gb = weights_gb × (1 + headroom) = {p.f('weights_gb')} × (1 + "
        f"{p.n('headroom')}) = {p.f('recommended_vram_gb')}",
    ]
    return lines


def _weight_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"The weights alone need {p.f('weights_gb')}; provision about "
        f"{p.f('recommended_vram_gb', 3)} to leave {p.f('headroom')} of headroom."
    ]
    if p.v("vocab") is not None and p.v("hidden") is not None:
        est.append(
            f"The embedding and lm_head take {p.f('embedding_gb')} and {p.f('lm_head_gb')} at "
            "their own width; quantising the layers does not shrink them."
        )
    if p.v("group_size") is not None:
        est.append(
            f"Quantisation scales add {p.f('scales_gb')} (one per {p.n('group_size')} weights)."
        )
    elif p.v("bytes_per_param") < 1 and not p.v("scale_overhead"):
        est.append(
            "No quantisation scales are counted: give group_size (128 is common for 4-bit "
            "formats) and the scale and zero-point widths to include them."
        )
    need = [
        "The KV cache grows with batch and context; size it with kv_cache for your real "
        "traffic rather than a fixed headroom.",
        "Runtimes reserve memory of their own (CUDA context, workspace, graphs).",
    ]
    return est, need


def _weight_check(inputs: dict[str, Any]) -> dict[str, list[str]]:
    if (inputs.get("vocab") is None) != (inputs.get("hidden") is None):
        missing = "hidden" if inputs.get("hidden") is None else "vocab"
        return {missing: ["required with vocab and hidden together (for the embedding)"]}
    if inputs.get("vocab") is not None:
        try:
            table = np.asarray(inputs["vocab"], dtype=float) * np.asarray(inputs["hidden"])
            copies = np.where(np.asarray(inputs.get("tied_embeddings", False)), 1, 2)
            if np.any(table * copies >= np.asarray(inputs["params_b"]) * 1e9):
                return {
                    "params_b": [
                        "must exceed the embedding and lm_head (vocab × hidden, twice unless tied)"
                    ]
                }
        except ValueError:
            pass
    return {}


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
        model(),
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
            "scale_overhead",
            "Extra overhead",
            "fraction",
            default=0.0,
            min=0,
            max=1,
            help="Any further overhead as a fraction of the weights (e.g. scales you count "
            "this way instead of by group_size).",
        ),
        Input("vocab", "Vocabulary", "tokens", min=1, max=1e8, kind=INTEGER, required=False),
        Input("hidden", "Hidden size", "", min=1, max=1e6, kind=INTEGER, required=False),
        Input("tied_embeddings", "lm_head tied to the embedding", kind=BOOLEAN, default=False),
        Input(
            "embedding_bytes",
            "Embedding bytes per parameter",
            "bytes",
            default=2.0,
            min=0,
            min_exclusive=True,
            max=32,
        ),
        Input(
            "lm_head_bytes",
            "lm_head bytes per parameter",
            "bytes",
            default=2.0,
            min=0,
            min_exclusive=True,
            max=32,
        ),
        Input(
            "group_size",
            "Quantisation group size",
            "weights",
            min=1,
            max=1e9,
            kind=INTEGER,
            required=False,
            help="Weights per scale (128 is common for 4-bit); empty counts no scales.",
        ),
        Input("scale_bits", "Scale width", "bits", default=16.0, min=0, max=64),
        Input("zero_point_bits", "Zero-point width", "bits", default=0.0, min=0, max=64),
    ),
    outputs=(
        Output("embedding_gb", "Embedding", "GB"),
        Output("layers_gb", "Transformer layers", "GB"),
        Output("lm_head_gb", "lm_head", "GB"),
        Output("scales_gb", "Quantisation scales", "GB"),
        Output("layer_params_b", "Parameters in the layers", "billion"),
        Output("weights_gb", "Weights", "GB"),
        Output("recommended_vram_gb", "Recommended VRAM", "GB"),
    ),
    chart_type="bars",
    steps=_weight_steps,
    texts=_weight_texts,
    chart=_weight_chart,
    check=_weight_check,
    example={"model": "llama-3.1-8b", "bytes_per_param": 0.5, "group_size": 128},
)

# ---------------------------------------------------------------- kv_cache


def _kv_steps(p: Point) -> list[str]:
    if p.v("kv_lora_rank") is not None:
        first = (
            f"bytes_per_token (MLA: one latent and one RoPE key per layer) = layers × "
            f"(kv_lora_rank + rope_head_dim) × bytes_per_elem = {p.n('layers')} × "
            f"({p.n('kv_lora_rank')} + {p.n('rope_head_dim')}) × {p.f('bytes_per_elem')} = "
            f"{p.f('bytes_per_token')}"
        )
    else:
        first = (
            f"bytes_per_token = 2 (K and V) × layers × kv_heads × head_dim × bytes_per_elem = "
            f"2 × {p.n('layers')} × {p.n('kv_heads')} × {p.n('head_dim')} × "
            f"{p.f('bytes_per_elem')} = {p.f('bytes_per_token')}"
        )
    if p.v("local_layers"):
        seq = (
            f"gb_per_seq = bytes_per_token / layers × ((layers − local_layers) × seq_len + "
            f"local_layers × min(seq_len, local_window)) = {p.n('bytes_per_token')} / "
            f"{p.n('layers')} × (({p.n('layers')} − {p.n('local_layers')}) × {p.n('seq_len')} + "
            f"{p.n('local_layers')} × min({p.n('seq_len')}, {p.n('local_window')})) = "
            f"{p.f('gb_per_seq')}"
        )
    else:
        seq = (
            f"gb_per_seq = bytes_per_token × seq_len = {p.n('bytes_per_token')} × "
            f"{p.f('seq_len')} = {p.f('gb_per_seq')}"
        )
    return [
        first,
        seq,
        f"total_gb = gb_per_seq × batch_size = {p.n('gb_per_seq')} × {p.n('batch_size')} = "
        f"{p.f('total_gb')}",
    ]


def _kv_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"Each token costs {p.f('bytes_per_token')} of cache; {p.n('batch_size')} "
        f"sequence(s) of {p.f('seq_len')} hold {p.f('total_gb', 3)}.",
    ]
    if p.v("kv_lora_rank") is not None:
        est.append(
            "Multi-head latent attention caches one compressed latent per layer instead of "
            "a key and a value per head, which is why its cache is a fraction of GQA's."
        )
    else:
        est.append(
            "Grouped-query attention enters through kv_heads: using the query-head count "
            "instead overstates the cache by the query-to-KV head ratio."
        )
    if p.v("local_layers"):
        est.append(
            f"{p.n('local_layers')} of {p.n('layers')} layers keep only {p.n('local_window')} "
            "tokens, so beyond the window the cache grows with the global layers alone."
        )
    need = [
        "Paged allocators round up to blocks and reserve some space; check the engine's "
        "reported KV capacity.",
        "Real traffic has a distribution of lengths; size for a percentile, not the mean.",
    ]
    return est, need


def _kv_check(inputs: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if inputs.get("kv_lora_rank") is None:
        for name in ("kv_heads", "head_dim"):
            if inputs.get(name) is None:
                errors[name] = ["required (or give kv_lora_rank for MLA)"]
    if inputs.get("local_layers"):
        if inputs.get("local_window") is None:
            errors["local_window"] = ["required when local_layers is given"]
        try:
            if np.any(np.asarray(inputs["local_layers"]) > np.asarray(inputs["layers"])):
                errors["local_layers"] = ["must not exceed layers"]
        except ValueError:
            pass
    return errors


_KV_ARCH = (
    "layers",
    "kv_heads",
    "head_dim",
    "bytes_per_elem",
    "kv_lora_rank",
    "rope_head_dim",
    "local_layers",
    "local_window",
)


def _kv_chart(points: list[Point]) -> dict[str, Any]:
    series = []
    top = max(p.v("seq_len") for p in points) * 2
    x = np.linspace(0, top, 33)
    for i, p in enumerate(points[:3]):
        arch = {k: p.v(k) for k in _KV_ARCH if p.inputs.get(k) is not None}
        out = kv_kernel(seq_len=x.astype(np.int64), batch_size=p.v("batch_size"), **arch)
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
        model(),
        Input("layers", "Layers", "", min=1, max=10000, kind=INTEGER),
        Input(
            "kv_heads",
            "KV heads",
            "",
            min=1,
            max=10000,
            kind=INTEGER,
            required=False,
            help="Key/value heads, not query heads (grouped-query attention).",
        ),
        Input("head_dim", "Head dimension", "", min=1, max=100000, kind=INTEGER, required=False),
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
        Input(
            "kv_lora_rank",
            "MLA latent width (kv_lora_rank)",
            "",
            min=1,
            max=1e5,
            kind=INTEGER,
            required=False,
            help="Multi-head latent attention only (DeepSeek); replaces kv_heads × head_dim.",
        ),
        Input("rope_head_dim", "MLA RoPE key width", "", default=0, min=0, max=1e5, kind=INTEGER),
        Input(
            "local_layers",
            "Local-attention layers",
            "",
            default=0,
            min=0,
            max=10000,
            kind=INTEGER,
            help="Layers with a sliding window or chunked attention.",
        ),
        Input(
            "local_window",
            "Local window",
            "tokens",
            min=1,
            max=1e9,
            kind=INTEGER,
            required=False,
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
    check=_kv_check,
    example={"model": "llama-3.1-70b", "seq_len": 8192, "batch_size": 4},
)
