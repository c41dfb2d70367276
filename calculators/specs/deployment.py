"""Specs for sizing a deployment: prefill, serving_estimate and paged_kv_capacity."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels.prefill import MASKS
from calculators.kernels.prefill import prefill as prefill_kernel
from calculators.kernels.serving_estimate import (
    A2A_BACKENDS,
    ADMISSIONS,
    KV_PRECISIONS,
    OVERLAPS,
    PRECISION_BYTES,
    PRECISIONS,
)
from calculators.kernels.serving_estimate import serving_estimate as serving_kernel

from .base import (
    BOOLEAN,
    CHOICE,
    GPU_FILLS,
    INTEGER,
    CalculatorSpec,
    Input,
    Output,
    Point,
    PresetFill,
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

MEMORY_FILL = {"device_memory_gb": PresetFill("usable_gb")}


def _count(name: str, label: str, *, default: int | None = None, hi: float = 1e6) -> Input:
    return Input(name, label, "", default=default, min=1, max=hi, kind=INTEGER)


def _tokens(name: str, label: str, *, default: int | None = None) -> Input:
    return Input(name, label, "tokens", default=default, min=1, max=1e8, kind=INTEGER)


def _device_memory(label: str = "Device memory per GPU") -> Input:
    return Input(
        "device_memory_gb",
        label,
        "GB",
        min=0,
        min_exclusive=True,
        max=1e5,
        help="1 GB = 10⁹ bytes. An 80 GiB card holds 85.9 GB.",
    )


def _mla_inputs() -> tuple[Input, Input]:
    return (
        Input(
            "kv_lora_rank",
            "MLA latent width (kv_lora_rank)",
            "",
            min=1,
            max=65536,
            kind=INTEGER,
            required=False,
            help="MLA models (DeepSeek-V3: 512): the cache holds this latent per layer.",
        ),
        Input(
            "rope_head_dim",
            "MLA RoPE key width",
            "",
            min=1,
            max=65536,
            kind=INTEGER,
            required=False,
            help="MLA models (DeepSeek-V3: 64), cached beside the latent.",
        ),
    )


def _kv_override() -> Input:
    return Input(
        "kv_bytes_per_token",
        "KV bytes per token (override)",
        "bytes",
        min=0,
        min_exclusive=True,
        max=1e9,
        required=False,
        help="Overrides what the architecture gives; Llama-3.1-70B in BF16: 327,680.",
    )


def _kv_auto_reason(p: Point, mla: bool) -> str:
    """Why ``kv_precision`` auto picked what it did, for this point's weights."""
    if mla:
        return "an MLA latent at the attention precision"
    weights = str(p.v("weight_precision"))
    if weights in ("fp8", "fp6", "fp4"):
        return f"FP8 under {weights.upper()} weights"
    if weights in ("int8", "int4"):
        return f"BF16 under weight-only {weights.upper()}"
    return "the weights' own precision"


def _kv_steps(p: Point) -> list[str]:
    """How kv_bytes_per_token was found, as a worked step."""
    if p.inputs.get("kv_bytes_per_token") is not None:
        return [f"kv_bytes_per_token = {p.f('kv_bytes_per_token')} (given)"]
    kv = p.v("kv_precision_used") if p.has("kv_precision_used") else p.v("kv_precision")
    size = number(_bytes(kv))
    mla = p.inputs.get("kv_lora_rank") is not None and p.inputs.get("rope_head_dim") is not None
    if p.v("kv_precision") == "auto":
        kv += ", auto: " + _kv_auto_reason(p, mla)
    if mla:
        return [
            f"kv_bytes_per_token (MLA) = layers × (kv_lora_rank + rope_head_dim) × "
            f"bytes({kv}) = {p.n('layers')} × ({p.n('kv_lora_rank')} + "
            f"{p.n('rope_head_dim')}) × {size} = {p.f('kv_bytes_per_token')}"
        ]
    return [
        f"kv_bytes_per_token = 2 × layers × kv_heads × head_dim × bytes({kv})"
        f" = 2 × {p.n('layers')} × {p.n('kv_heads')} × {p.n('head_dim')} × {size} = "
        f"{p.f('kv_bytes_per_token')}"
    ]


def _kv_check(clean: dict[str, Any]) -> dict[str, list[str]]:
    """The KV size must be derivable: given, GQA (kv_heads, head_dim) or MLA."""
    if clean.get("kv_bytes_per_token") is not None or clean.get("layers") is None:
        return {}
    mla = [clean.get("kv_lora_rank") is not None, clean.get("rope_head_dim") is not None]
    if any(mla) and not all(mla):
        missing = "rope_head_dim" if mla[0] else "kv_lora_rank"
        return {missing: ["required with the other MLA width"]}
    if not all(mla) and (clean.get("kv_heads") is None or clean.get("head_dim") is None):
        return {"kv_heads": ["give kv_heads and head_dim, the MLA widths, or kv_bytes_per_token"]}
    return {}


def _utilization() -> Input:
    return fraction(
        "gpu_memory_utilization",
        "Memory the engine may use",
        0.9,
        help="vLLM's gpu_memory_utilization (default 0.9).",
    )


# ---------------------------------------------------------------- prefill


def _prefill_steps(p: Point) -> list[str]:
    half = " / 2 (causal: masked blocks skipped)" if p.v("mask") == "causal" else ""
    lines = [
        f"matmul parameters P = params − embedding table = {p.n('params_b')} − "
        f"{number(p.v('params_b') - p.v('linear_params_b'))} = {p.f('linear_params_b')}",
        f"linear_flops = 2 × P × N × batch = 2 × {p.n('linear_params_b')} × 10⁹ × "
        f"{p.n('prompt_tokens')} × {p.n('batch')} = {p.f('linear_flops')}",
        f"attention_flops = 4 × layers × N² × heads × head_dim × batch{half} = 4 × "
        f"{p.n('layers')} × {p.n('prompt_tokens')}² × {p.n('heads')} × {p.n('head_dim')} × "
        f"{p.n('batch')}{' / 2' if half else ''} = {p.f('attention_flops')}",
        f"total_flops = {p.f('linear_flops')} + {p.f('attention_flops')} = {p.f('total_flops')}"
        f" (attention {p.f('attention_share', 3)})",
        f"compute_ms = total_flops / (peak × compute_efficiency) = {p.f('total_flops')} / "
        f"({p.f('peak_tflops')} × {p.n('compute_efficiency')}) = {p.f('compute_ms')}",
    ]
    if p.has("memory_ms"):
        lines += [
            f"memory_ms = params × bytes_per_param / (bandwidth × bandwidth_efficiency) = "
            f"{p.n('params_b')} × 10⁹ × {p.f('bytes_per_param')} / ({p.f('bandwidth_tbs')} × "
            f"{p.n('bandwidth_efficiency')}) = {p.f('memory_ms')}",
            f"ttft_ms = (compute^p + memory^p)^(1/p), p = {p.n('step_p')} (the larger far "
            f"from the crossover) = {p.f('ttft_ms')} ({p.v('bound')}-bound)",
        ]
    else:
        lines.append(f"ttft_ms = compute_ms = {p.f('ttft_ms')} (no bandwidth given)")
    return lines


def _prefill_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"Prefilling {p.n('batch')} × {p.n('prompt_tokens')} tokens takes "
        f"{p.f('total_flops', 3)}, about {p.f('ttft_ms', 3)} before the first token.",
        f"The N² attention term is {p.f('attention_share', 3)} of the work: 2·P·N alone "
        f"would undercount it by that much.",
    ]
    if p.has("bound"):
        est.append(
            f"Prefill is {binding_ceiling(p, 'compute')} here: the weights are read once "
            "for the whole prompt."
            if p.v("bound") == "compute"
            else "This prompt is so short that reading the weights takes longer than the "
            f"arithmetic: the step is {binding_ceiling(p, 'memory')}, like decode."
        )
    else:
        est.append(
            f"No bandwidth is given, so the time is compute alone, at "
            f"{ceiling_share(p, 'compute')}."
        )
    need = [
        "Real TTFT adds queueing, tokenisation and the network; measure it at the client.",
        "Attention kernels reach a lower fraction of peak than GEMMs at long context; "
        "profile the kernels before trusting one compute_efficiency for both.",
    ]
    return est, need


def _prefill_chart(points: list[Point]) -> dict[str, Any]:
    lengths = np.logspace(7, 17, 41, base=2.0)  # 128 to 131,072 tokens
    series = []
    for p in points[:2]:
        kw = {k: p.v(k) for k in ("bandwidth_tbs", "bandwidth_efficiency") if p.v(k) is not None}
        names = (
            "params_b",
            "embedding_params_b",
            "vocab",
            "hidden",
            "layers",
            "heads",
            "head_dim",
            "batch",
            "peak_tflops",
            "compute_efficiency",
            "mask",
            "bytes_per_param",
        )
        args = {name: p.inputs[name] for name in names if p.inputs.get(name) is not None}
        out = prefill_kernel(**args, prompt_tokens=lengths, **kw)
        # The same prompts with the attention term left out: the 2·P·N estimate people use.
        linear_ms = out["linear_flops"] / (p.v("peak_tflops") * 1e12 * p.v("compute_efficiency"))
        name = column_label(p, points)[:1] + ": " if len(points) > 1 else ""
        series.append({"label": f"{name}TTFT", "x": lengths.tolist(), "y": out["ttft_ms"].tolist()})
        series.append(
            {"label": f"{name}2·P·N only", "x": lengths.tolist(), "y": (linear_ms * 1e3).tolist()}
        )
    return {
        "type": "line",
        "title": "Time to first token against prompt length",
        "x_label": "prompt tokens",
        "y_label": "TTFT (ms)",
        "x_log": True,
        "y_log": True,
        "series": series,
        "points": [
            {
                "label": (column_label(p, points)[:1] + " " if len(points) > 1 else "")
                + f"N={p.n('prompt_tokens')}",
                "x": p.v("prompt_tokens"),
                "y": p.v("ttft_ms"),
            }
            for p in points[:3]
        ],
    }


PREFILL = CalculatorSpec(
    slug="prefill",
    title="Prefill FLOPs and time to first token",
    summary="The FLOPs of reading a prompt, with the N² attention term, and the time to "
    "first token on a GPU.",
    inputs=(
        model(),
        params_b("Parameters per token (active)"),
        _count("layers", "Layers", hi=1000),
        _count("heads", "Attention heads (query)", hi=1024),
        _count("head_dim", "Head dimension", hi=4096),
        _tokens("prompt_tokens", "Prompt length N"),
        _count("batch", "Prompts in the batch", default=1),
        peak_tflops(),
        precision(),
        fraction("compute_efficiency", "Compute efficiency", 0.5),
        Input("mask", "Attention mask", kind=CHOICE, choices=MASKS, default="causal"),
        Input(
            "embedding_params_b",
            "Parameters not applied per token (embedding table and the like)",
            "billion",
            min=0,
            max=1e5,
            required=False,
            help="A lookup, not a matmul; defaults to vocab × hidden, or 0 without them.",
        ),
        Input("vocab", "Vocabulary", "tokens", min=1, max=1e8, kind=INTEGER, required=False),
        Input("hidden", "Hidden size", "", min=1, max=1e6, kind=INTEGER, required=False),
        Input(
            "bandwidth_tbs",
            "Memory bandwidth",
            "TB/s",
            min=0,
            min_exclusive=True,
            max=1000,
            required=False,
            help="Optional: with it, the page checks whether the prompt is compute-bound.",
        ),
        bytes_per_param(default=2.0),
        fraction(
            "bandwidth_efficiency",
            "Bandwidth efficiency",
            1.0,
            help="Share of bandwidth_tbs the weight read achieves; set it beside "
            "compute_efficiency so both ceilings are derated alike.",
        ),
        step_p(),
    ),
    outputs=(
        Output("linear_params_b", "Parameters in matmuls", "billion"),
        Output("linear_flops", "Linear-layer FLOPs", "FLOP"),
        Output("attention_flops", "Attention FLOPs", "FLOP"),
        Output("total_flops", "Total FLOPs", "FLOP"),
        Output("attention_share", "Attention share", kind="pct"),
        Output("compute_ms", "Compute time", "ms"),
        Output("memory_ms", "Weight read time", "ms"),
        Output("ttft_ms", "Time to first token", "ms"),
        Output("bound", "Bound by", kind="text"),
    ),
    chart_type="line",
    steps=_prefill_steps,
    texts=_prefill_texts,
    chart=_prefill_chart,
    preset_fills=GPU_FILLS,
    model_renames={"params_b": "active_params_b"},
    example={
        "model": "llama-3.1-8b",
        "prompt_tokens": 8192,
        "batch": 1,
        "peak_tflops": 989,
        "bandwidth_tbs": 3.35,
    },
)

# ---------------------------------------------------------------- serving_estimate


def _serving_steps(p: Point) -> list[str]:
    tp = p.n("tp")
    gpus = f"({tp} × {p.n('pp')})" if p.has("pp") and p.v("pp") != 1 else tp
    if (p.has("ep") and p.v("ep") > 1) or (p.has("dp_attention") and p.v("dp_attention")):
        dense_div = "1 (attention data parallel)" if p.v("dp_attention") else "tp"
        expert_div = "ep" if p.v("ep") > 1 else "tp"
        lines = [
            f"expert weights = (params − active) × experts / (experts − top-k) × bytes; "
            f"dense = the rest; weights per GPU = (dense / {dense_div} + experts / "
            f"{expert_div}) / pp = {p.f('weights_gb_per_gpu')}",
        ]
    else:
        lines = [
            f"weights per GPU = params × bytes({p.v('weight_precision')}) / (tp × pp) = "
            f"{p.n('params_b')} × 10⁹ × {number(_bytes(p.v('weight_precision')))} B / {gpus} = "
            f"{p.f('weights_gb_per_gpu')}",
        ]
    if p.has("embedding_gb") and p.v("embedding_gb"):
        lines.append(
            f"of which embedding and lm_head ({'tied, ' if p.v('tied_embeddings') else ''}"
            f"vocab × hidden = {p.n('vocab')} × {p.n('hidden')} each) stay BF16, 2 B per "
            f"parameter, as weight_memory counts them: {p.f('embedding_gb')} for the replica"
        )
    lines += _kv_steps(p)
    lines += [
        f"KV pool = (memory × utilisation − weights per GPU) × tp × pp = "
        f"({p.f('device_memory_gb')} × {p.n('gpu_memory_utilization')} − "
        f"{p.f('weights_gb_per_gpu')}) × {gpus} = "
        f"{p.f('kv_pool_gb')}",
        (
            f"kv_capacity_tokens = KV pool / (kv_bytes_per_token × copies) = "
            f"{p.n('kv_capacity_tokens')}, copies = {p.n('kv_copies')} (MLA under plain TP: "
            "the latent is not split over TP ranks, each holds the whole cache; attention "
            "data parallel gives each rank its own sequences)"
            if p.has("kv_copies") and p.v("kv_copies") != 1
            else f"kv_capacity_tokens = KV pool / kv_bytes_per_token = {p.n('kv_capacity_tokens')}"
        ),
        (
            f"max_concurrency = ⌊capacity / (prompt + output)⌋ (reserved admission, "
            "TensorRT-LLM's GUARANTEED_NO_EVICT: a request is admitted with its whole "
            f"sequence set aside) = ⌊{p.n('kv_capacity_tokens')} / ({p.n('prompt_tokens')} + "
            f"{p.n('output_tokens')})⌋ = {p.n('max_concurrency')}"
            if _reserved(p)
            else f"max_concurrency = ⌊capacity / (prompt + output/2)⌋ (paged KV, vLLM's "
            "PagedAttention: a request holds its prompt plus on average half its output over "
            f"its life, not the whole sequence reserved) = ⌊{p.n('kv_capacity_tokens')} / "
            f"({p.n('prompt_tokens')} + {p.n('output_tokens')}/2)⌋ = {p.n('max_concurrency')}"
        ),
        f"decode memory time = (weights + concurrency × (prompt + output/2) × kv_bytes × "
        f"copies) / "
        f"(tp × bandwidth × efficiency) = {p.f('memory_ms')}",
        "decode compute time = concurrency × (2 × active params + layers × context × "
        + (
            "2 × heads × (2 × kv_lora_rank + rope_head_dim) × bytes(attention) / "
            "bytes(weights), MLA absorbed"
            if p.has("kv_lora_rank") and p.v("kv_lora_rank")
            else "4 × heads × head_dim"
        )
        + f") / (tp × pp × peak × {p.n('decode_compute_efficiency')}) = "
        f"{p.f('compute_ms')}",
        _itl_step(p),
        f"tokens_per_s_per_user = 1000 / itl = {p.f('tokens_per_s_per_user')}",
        f"prefill FLOPs = 2 × active × N(1 − h) + 2 × layers × N²(1 − h²) × heads × head_dim "
        f"(cache hit rate h = {p.n('cache_hit_rate')}); prefill_ms = (compute^p + weight read^p)^(1/p) "
        + (
            "with compute = FLOPs / (1 GPU × peak"
            if _dp(p)
            else "with compute = FLOPs / (tp × peak"
        )
        + f" × {p.n('prefill_compute_efficiency')}), p = {p.n('step_p')}"
        + (
            ", plus the prompt's own EP all-to-alls (DeepEP's normal kernels: each token "
            "crosses the network once per remote node its experts sit on)"
            + (" (overlapped: the larger of the two)" if _tbo(p) else "")
            if _ep(p)
            else ""
        )
        + f" = {p.f('prefill_ms')}"
        + (
            f" (attention data parallel: each of the {p.n('tp')} ranks prefills its own "
            "prompts, so one prompt runs on one GPU and the replica prefills tp at once)"
            if _dp(p)
            else ""
        ),
        (
            f"request_s = concurrency × prefill / tp (ranks prefill in parallel) + output × itl "
            f"= {p.n('concurrency')} × {p.f('prefill_ms')} / {p.n('tp')} + "
            if _dp(p)
            else f"request_s = concurrency × prefill + output × itl = {p.n('concurrency')} × "
            f"{p.f('prefill_ms')} + "
        )
        + f"{p.n('output_tokens')} × {p.f('itl_ms')} = {p.f('request_s')}",
        f"tokens_per_s_total = concurrency × output / request_s = {p.n('concurrency')} × "
        f"{p.n('output_tokens')} / {p.f('request_s')} = {p.f('tokens_per_s_total')}",
        f"under load: ITL = request time / output = {p.f('itl_loaded_ms')} (other requests' "
        f"prefills share the steps); TTFT = prefill × (1 + ρ / (2(1 − ρ))) with ρ = "
        f"concurrency × prefill / request time (M/D/1) = {p.f('ttft_loaded_ms')}",
        f"disaggregated: a prefill GPU takes {p.f('prefill_tokens_per_s_per_gpu')} of new "
        f"prompt tokens, a decode GPU emits {p.f('decode_tokens_per_s_per_gpu')}; prefill "
        f"GPUs per decode GPU = (new prompt / output) × decode rate / prefill rate = "
        f"{p.n('pd_ratio', 3)}",
    ]
    if p.has("pool") and p.v("pool") != "both":
        lines.append(
            f"pool = {p.v('pool')}: tokens_per_s_total, request_s and the loaded latencies are "
            "this pool's alone (prefill: new prompt tokens × 1000 / prefill_ms and TTFT = "
            "prefill_ms; decode: concurrency × 1000 / itl and ITL = itl_ms)"
        )
    if p.has("cost_per_m_output_tokens"):
        lines.append(
            f"cost per 10⁶ output tokens = gpu_cost × tp × pp / 3600 / tokens_per_s_total × "
            "10⁶ = "
            f"{p.f('cost_per_m_output_tokens')}"
        )
    return lines


def _ep(p: Point) -> bool:
    return bool(p.has("ep") and p.v("ep") > 1)


def _dp(p: Point) -> bool:
    return bool(p.has("dp_attention") and p.v("dp_attention"))


def _tbo(p: Point) -> bool:
    return _ep(p) and p.has("overlap") and p.v("overlap") == "two_batch"


def _itl_step(p: Point) -> str:
    """The decode step's line: composition, all-reduces and (with ep > 1) all-to-alls."""
    step = (
        f"(memory^p + compute^p)^(1/p) with p = {p.n('step_p')} (the larger far from the "
        "crossover, 2^(1/p) times either at it)"
    )
    tp_part = f"TP all-reduces ({p.f('tp_comm_ms')})"
    if not _ep(p):
        return f"itl_ms = {step} + {tp_part} = {p.f('itl_ms')} ({p.v('decode_bound')}-bound)"
    if p.v("a2a_backend") == "nccl":
        a2a = (
            "EP all-to-alls (NCCL bulk: 2 × layers × all_to_all of concurrency / (tp × pp) × "
            f"top-k × hidden × 2 B over ep GPUs) = {p.f('a2a_ms')}"
        )
    else:
        a2a = (
            "EP all-to-alls (DeepEP low-latency: per layer a dispatch and a combine, each one "
            "latency plus this GPU's tokens × top-k × hidden × bytes (FP8 with scales out under "
            "FP8/FP4 weights, BF16 back), the off-node share over its NIC and the rest over "
            f"NVLink in parallel) = {p.f('a2a_ms')}"
        )
    if _tbo(p):
        return (
            f"{a2a}; two-batch overlap (DeepSeek's dual micro-batch, SGLang's TBO): each "
            "micro-batch's GEMMs read the weights (counted twice in memory), and itl_ms = "
            f"max({step}, all-to-alls) + {tp_part} = {p.f('itl_ms')} "
            f"({p.v('decode_bound')}-bound)"
        )
    return f"{a2a}; itl_ms = {step} + all-to-alls + {tp_part} = {p.f('itl_ms')}"


def _bytes(name: str) -> float:
    return PRECISION_BYTES[name]


def _reserved(p: Point) -> bool:
    """Whether the pool admits with whole sequences set aside (TensorRT-LLM's default)."""
    return p.has("admission") and p.v("admission") == "reserved"


def _serving_texts(p: Point) -> tuple[list[str], list[str]]:
    note = p.v("fit_note")
    reserved = _reserved(p)
    n_in, n_out = p.v("prompt_tokens"), p.v("output_tokens")
    if note == "weights do not fit":
        est = [
            f"The weights do not fit: {p.f('weights_gb_per_gpu', 3)} per GPU against "
            f"{number(p.v('device_memory_gb') * p.v('gpu_memory_utilization'), sig=3)} GB "
            "usable. Raise tp, quantise the weights, or choose a larger GPU."
        ]
    elif note == "fits" and reserved:
        est = [
            f"It fits: {p.n('concurrency')} requests of {p.n('prompt_tokens')} + "
            f"{p.n('output_tokens')} tokens, each admitted with its whole sequence set aside, "
            f"take {number(p.v('concurrency') * (n_in + n_out))} of the "
            f"{p.n('kv_capacity_tokens')} KV tokens (at most {p.n('max_concurrency')} at once)."
        ]
    elif note == "fits":
        est = [
            f"It fits: {p.n('concurrency')} requests of {p.n('prompt_tokens')} + "
            f"{p.n('output_tokens')} tokens hold about "
            f"{number(p.v('concurrency') * (n_in + n_out / 2))} "
            f"of the {p.n('kv_capacity_tokens')} KV tokens at their mean resident length, "
            f"prompt + output/2 (at most {p.n('max_concurrency')} at once)."
        ]
    elif reserved:
        est = [
            f"The weights fit but the KV cache admits only {p.n('max_concurrency')} requests "
            f"with their whole {number(n_in + n_out)} tokens set aside, not "
            f"{p.n('concurrency')}: the rest wait in the queue (reserved admission never "
            "preempts). Lower the KV precision, raise tp or cap the context."
        ]
    else:
        est = [
            f"The weights fit but the KV cache holds only {p.n('max_concurrency')} requests at "
            f"their mean resident {number(n_in + n_out / 2)} "
            "tokens, not "
            f"{p.n('concurrency')}: the engine would queue or preempt the rest. Lower the "
            "KV precision, raise tp or cap the context."
        ]
    pool = p.v("pool") if p.has("pool") else "both"
    if note != "weights do not fit" and pool == "prefill":
        est.append(
            f"A prefill replica takes {p.f('tokens_per_s_total', 3)} of new prompt tokens "
            f"({p.f('prefill_tokens_per_s_per_gpu', 3)} per GPU); each prompt's first token "
            f"after {p.f('prefill_ms', 3)} (TTFT, no queue)."
        )
    elif note != "weights do not fit" and pool == "decode":
        est.append(
            f"A decode replica emits {p.f('tokens_per_s_total', 3)} "
            f"({p.f('decode_tokens_per_s_per_gpu', 3)} per GPU), each user "
            f"{p.f('tokens_per_s_per_user', 3)}, {p.f('itl_ms', 3)} between tokens (ITL, "
            "no prefills in its steps)."
        )
    if note != "weights do not fit" and pool == "both":
        est.append(
            f"Each user streams {p.f('tokens_per_s_per_user', 3)} ({p.f('itl_ms', 3)} per "
            f"token, decode {binding_ceiling(p, p.v('decode_bound'))}); the replica emits "
            f"{p.f('tokens_per_s_total', 3)} in total, first token after "
            f"{p.f('prefill_ms', 3)} without queueing."
        )
        if p.has("cost_per_m_output_tokens"):
            est.append(f"Output tokens cost {p.f('cost_per_m_output_tokens', 3)} per million.")
    need = [
        "Tensor-parallel all-reduces, CUDA graphs, sampling and the scheduler add to every "
        "step; benchmark the engine (vLLM's benchmark_serving, SGLang's bench_serving) at "
        "your prompt and output lengths.",
        (
            "Real traffic varies in length: under reserved admission the limit sets aside "
            "each request's stated output, so requests that stop early leave KV unused."
            if reserved
            else "Real traffic varies in length: the concurrency limit counts each request at "
            "its mean resident length (paged KV); requests that all reach their end together "
            "would overflow it, and the engine then preempts."
        ),
    ]
    return est, need


SERVING_CURVE = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def serving_curve(p: Point) -> dict[str, np.ndarray]:
    """The kernel over a range of concurrencies at one point's other inputs."""
    limit = max(int(p.v("max_concurrency") or 0), 1)
    top = max(limit * 2, int(p.v("concurrency")) * 2, 16)
    conc = np.array(sorted({c for c in SERVING_CURVE if c <= top} | {limit}), dtype=float)
    kw = SERVING_ESTIMATE.kernel_inputs(p.inputs)
    kw["concurrency"] = conc
    out = serving_kernel(**kw)
    return {"concurrency": conc, **out}


def _serving_chart(points: list[Point]) -> dict[str, Any]:
    curves = []
    for p in points[:2]:
        curve = serving_curve(p)
        tag = column_label(p, points)[:1] + " " if len(points) > 1 else ""
        curves.append(
            {
                # "A: llama-3.1-70b": the letter and the first input that differs.
                "label": _short_label(p, points),
                "tag": tag,
                "concurrency": curve["concurrency"].astype(int).tolist(),
                "x": curve["tokens_per_s_per_user"].tolist(),
                "y": curve["tokens_per_s_total"].tolist(),
                "limit": int(p.v("max_concurrency")),
                "you": {
                    "label": f"{tag}B={p.n('concurrency')}",
                    "x": p.v("tokens_per_s_per_user"),
                    "y": p.v("tokens_per_s_total"),
                },
            }
        )
    return {
        "type": "serving",
        "title": "Throughput against speed per user, across concurrency",
        "x_label": "tokens/s per user (1000 / ITL)",
        "y_label": "tokens/s total",
        "curves": curves,
    }


def _short_label(p: Point, points: list[Point]) -> str:
    label = column_label(p, points)
    if len(points) <= 1:
        return ""
    inner = label[3:-1].split(", ")[0] if "(" in label else ""
    return f"{label[:1]}: {inner.split(' = ')[-1]}" if inner else label[:1]


def _serving_check(clean: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = _kv_check(clean)
    heads, kv = clean.get("heads"), clean.get("kv_heads")
    if isinstance(heads, int) and isinstance(kv, int) and kv > heads:
        errors["kv_heads"] = [f"must not exceed heads ({heads}); GQA shares KV heads"]
    active, total = clean.get("active_params_b"), clean.get("params_b")
    if isinstance(active, float) and isinstance(total, float) and active > total:
        errors["active_params_b"] = [f"must not exceed params_b ({total:g})"]
    ep, tp = clean.get("ep"), clean.get("tp")
    if isinstance(ep, int) and isinstance(tp, int) and (ep > tp or tp % ep):
        errors["ep"] = [f"must divide tp ({tp}): experts shard over the replica's tp GPUs"]
    moe = (isinstance(ep, int) and ep > 1) or clean.get("dp_attention") is True
    if moe:
        for name in ("experts", "experts_per_token"):
            if clean.get(name) is None:
                errors[name] = ["required with ep > 1 or dp_attention (choose an MoE model)"]
    if isinstance(ep, int) and ep > 1 and clean.get("hidden") is None:
        errors["hidden"] = ["required with ep > 1 (it sizes the all-to-all)"]
    e, k = clean.get("experts"), clean.get("experts_per_token")
    if isinstance(e, int) and isinstance(k, int) and k >= e:
        errors["experts_per_token"] = [f"must be fewer than experts ({e})"]
    return errors


SERVING_ESTIMATE = CalculatorSpec(
    slug="serving_estimate",
    title="Serving estimate: fit, concurrency, latency and throughput",
    summary="Whether a model fits on a GPU, how many requests its KV cache holds, and the "
    "TTFT, inter-token latency, throughput and cost of one replica.",
    inputs=(
        model(),
        params_b("Parameters (all experts)"),
        Input(
            "active_params_b",
            "Active parameters per token",
            "billion",
            min=0,
            min_exclusive=True,
            max=1e5,
            required=False,
            help="For MoE models; defaults to all parameters.",
        ),
        _count("layers", "Layers", hi=1000),
        _count("heads", "Attention heads (query)", hi=1024),
        _count("kv_heads", "KV heads", hi=1024),
        _count("head_dim", "Head dimension", hi=4096),
        *_mla_inputs(),
        _kv_override(),
        Input(
            "weight_precision", "Weight precision", kind=CHOICE, choices=PRECISIONS, default="bf16"
        ),
        Input(
            "kv_precision",
            "KV cache precision",
            kind=CHOICE,
            choices=KV_PRECISIONS,
            default="auto",
            help="auto follows NVIDIA's checkpoints: FP8 under FP8/FP6/FP4 weights (Model "
            "Optimizer's FP8 and NVFP4 checkpoints quantise the KV cache to FP8, which vLLM's "
            "kv_cache_dtype=auto reads; an FP8 checkpoint without KV scales keeps BF16 there: "
            "set bf16), BF16 under INT8/INT4, the weights' own otherwise; MLA models the "
            "attention precision.",
        ),
        _device_memory("Usable memory per GPU"),
        Input("bandwidth_tbs", "Memory bandwidth", "TB/s", min=0, min_exclusive=True, max=1000),
        peak_tflops(),
        precision(),
        _count("tp", "GPUs per replica (tensor parallel)", default=1, hi=1024),
        _count("pp", "Pipeline stages per replica", default=1, hi=1024),
        _count("ep", "Expert-parallel GPUs (MoE)", default=1, hi=1024),
        Input(
            "dp_attention",
            "Attention data parallel (MoE)",
            kind=BOOLEAN,
            default=False,
            help="Dense and attention weights on every GPU, each GPU attending to its own "
            "requests; experts stay sharded.",
        ),
        Input("experts", "Experts (MoE)", "", min=1, max=65536, kind=INTEGER, required=False),
        Input(
            "experts_per_token",
            "Experts per token (MoE top-k)",
            "",
            min=1,
            max=65536,
            kind=INTEGER,
            required=False,
        ),
        Input(
            "hidden",
            "Hidden size",
            "",
            min=1,
            max=1e6,
            kind=INTEGER,
            required=False,
            help="Sizes the all-to-all of each token's hidden state when ep > 1, and with "
            "vocab the embedding table and lm_head, kept in BF16 as weight_memory does.",
        ),
        Input(
            "vocab",
            "Vocabulary",
            "tokens",
            min=1,
            max=1e8,
            kind=INTEGER,
            required=False,
            help="With hidden: the embedding and lm_head stay BF16 (2 bytes) under a "
            "narrower weight precision, as in weight_memory.",
        ),
        Input("tied_embeddings", "lm_head tied to the embedding", kind=BOOLEAN, default=False),
        Input(
            "overlap",
            "Compute/all-to-all overlap (ep > 1)",
            kind=CHOICE,
            choices=OVERLAPS,
            default="none",
            help="two_batch: two micro-batches, one computing while the other's all-to-all "
            "is in flight (DeepSeek's dual micro-batch overlap, SGLang's "
            "--enable-two-batch-overlap, vLLM's --enable-dbo); a step takes max(compute, "
            "all-to-all), an upper bound on the gain. none (the engines' default): they "
            "add.",
        ),
        Input(
            "admission",
            "KV admission",
            kind=CHOICE,
            choices=ADMISSIONS,
            default="paged",
            help="paged (vLLM, SGLang): a request is admitted on the KV it holds, on average "
            "prompt + output/2 over its life, and preempted if the pool runs out. reserved "
            "(TensorRT-LLM's default GUARANTEED_NO_EVICT): admitted only with prompt + whole "
            "output set aside, so fewer requests fit. Sets max_concurrency and fits only, "
            "not the speed of a step.",
        ),
        Input(
            "a2a_backend",
            "All-to-all kernels (ep > 1)",
            kind=CHOICE,
            choices=A2A_BACKENDS,
            default="deepep",
            help="deepep: DeepEP's low-latency kernels in decode (per-token RDMA writes to "
            "each expert's GPU) and its normal kernels in prefill (one network copy per "
            "remote node, forwarded over NVLink); nccl: a bulk all-to-all with ep − 1 "
            "latency steps.",
        ),
        _count("gpus_per_node", "GPUs per NVLink domain (ep > 1)", default=8, hi=1024),
        Input(
            "nic_gbps",
            "Network per GPU (ep > 1)",
            "Gb/s",
            default=400.0,
            min=0,
            min_exclusive=True,
            max=1e5,
            help="The NIC each GPU sends its off-node all-to-all share through.",
        ),
        Input(
            "a2a_latency_us",
            "Latency per all-to-all (ep > 1)",
            "µs",
            default=5.0,
            min=0,
            max=1e6,
        ),
        Input(
            "pool",
            "Pool (disaggregated serving)",
            kind=CHOICE,
            choices=("both", "prefill", "decode"),
            default="both",
            help="prefill: a replica that only prefills (throughput in prompt tokens/s, "
            "TTFT); decode: one that only decodes (output tokens/s, ITL).",
        ),
        Input(
            "attention_precision",
            "Attention precision (MLA)",
            kind=CHOICE,
            choices=PRECISIONS,
            default="bf16",
            help="MLA models: decode attention is charged at this precision's peak.",
        ),
        Input(
            "cache_hit_rate",
            "Prompt cache hit rate",
            "fraction",
            default=0.0,
            min=0,
            max=0.999,
            help="Share of prompt tokens served from a prefix cache: they skip prefill's "
            "linear layers, and the new tokens still attend to them.",
        ),
        _tokens("prompt_tokens", "Prompt tokens"),
        _tokens("output_tokens", "Output tokens"),
        _count("concurrency", "Concurrent requests"),
        fraction("bandwidth_efficiency", "Bandwidth efficiency", 0.8),
        Input(
            "compute_efficiency",
            "Compute efficiency",
            "fraction",
            min=0,
            min_exclusive=True,
            max=1,
            required=False,
            help="Both phases. Left empty, prefill and decode take the defaults fitted per "
            "weight precision on published measurements (prefill 0.65 BF16, 0.45 FP8; "
            "decode 0.5).",
        ),
        Input(
            "prefill_efficiency",
            "Prefill compute efficiency",
            "fraction",
            min=0,
            min_exclusive=True,
            max=1,
            required=False,
            help="Overrides the prefill phase's efficiency only.",
        ),
        _utilization(),
        Input("gpu_cost_per_hour", "GPU cost", "USD/h", min=0, max=1e6, required=False),
        Input(
            "tp_link_gbs",
            "GPU link for tensor parallelism (one direction)",
            "GB/s",
            min=0,
            min_exclusive=True,
            max=1e5,
            required=False,
            help="NVLink per GPU; a GPU preset fills it. Empty: TP all-reduces left out.",
        ),
        Input(
            "allreduce_latency_us",
            "Latency per all-reduce",
            "µs",
            default=8.0,
            min=0,
            max=1e6,
        ),
        step_p(),
    ),
    outputs=(
        Output("weights_gb_per_gpu", "Weights per GPU", "GB"),
        Output("embedding_gb", "Embedding and lm_head (BF16)", "GB"),
        Output("kv_bytes_per_token", "KV bytes per token", "bytes"),
        Output("kv_precision_used", "KV cache precision used", kind="text"),
        Output("kv_pool_gb", "KV pool (replica)", "GB"),
        Output("kv_copies", "Copies of each token's KV (MLA under TP)", ""),
        Output("kv_capacity_tokens", "KV capacity", "tokens"),
        Output("max_concurrency", "Most requests at once", kind="integer"),
        Output("fits", "Fits", kind="boolean"),
        Output("fit_note", "Why", kind="text"),
        Output("prefill_ms", "Prefill (TTFT without queueing)", "ms"),
        Output("itl_ms", "Inter-token latency", "ms"),
        Output("decode_bound", "Decode bound by", kind="text"),
        Output("tokens_per_s_per_user", "Tokens/s per user", "tokens/s"),
        Output("tokens_per_s_total", "Tokens/s total", "tokens/s"),
        Output("request_s", "Request time", "s"),
        Output("cost_per_m_output_tokens", "Cost per million output tokens", "USD"),
        Output("memory_ms", "Decode weight and KV read", "ms"),
        Output("compute_ms", "Decode compute", "ms"),
        Output("decode_compute_efficiency", "Decode compute efficiency used", "fraction"),
        Output("prefill_compute_efficiency", "Prefill compute efficiency used", "fraction"),
        Output("tp_comm_ms", "Tensor-parallel all-reduces per decode step", "ms"),
        Output("a2a_ms", "Expert-parallel all-to-alls per decode step", "ms"),
        Output("itl_loaded_ms", "Inter-token latency under load (with prefills)", "ms"),
        Output("ttft_loaded_ms", "TTFT under load (queued behind prefills)", "ms"),
        Output("prefill_tokens_per_s_per_gpu", "Prefill pool: prompt tokens/s per GPU", "tokens/s"),
        Output("decode_tokens_per_s_per_gpu", "Decode pool: output tokens/s per GPU", "tokens/s"),
        Output("pd_ratio", "Prefill GPUs per decode GPU (disaggregated)", ""),
    ),
    chart_type="serving",
    steps=_serving_steps,
    texts=_serving_texts,
    chart=_serving_chart,
    preset_fills={
        **GPU_FILLS,
        **MEMORY_FILL,
        "tp_link_gbs": PresetFill("nvlink_gbs"),
        "nic_gbps": PresetFill("nic_gbps"),
        "gpus_per_node": PresetFill("nvl_domain"),
    },
    check=_serving_check,
    example={
        "model": "llama-3.1-70b",
        "weight_precision": "fp8",
        "kv_precision": "fp8",
        "device_memory_gb": 80,
        "bandwidth_tbs": 3.35,
        "peak_tflops": 989,
        "tp": 2,
        "prompt_tokens": 2000,
        "output_tokens": 500,
        "concurrency": 32,
        "gpu_cost_per_hour": 2.5,
    },
)

# ---------------------------------------------------------------- paged_kv_capacity


def _paged_steps(p: Point) -> list[str]:
    return _kv_steps(p) + [
        f"kv_pool_gb = memory × utilisation − weights − reserve = {p.f('device_memory_gb')} × "
        f"{p.n('gpu_memory_utilization')} − {p.f('weights_gb')} − {p.f('reserve_gb')} = "
        f"{p.f('kv_pool_gb')}",
        f"blocks = ⌊pool / (block_size × kv_bytes_per_token)⌋ = ⌊{p.n('kv_pool_gb')} × 10⁹ / "
        f"({p.n('block_size')} × {p.n('kv_bytes_per_token')})⌋ = {p.n('blocks')}",
        f"tokens_capacity = blocks × block_size = {p.n('tokens_capacity')}",
        f"blocks per sequence = ⌈mean_tokens / block_size⌉ = ⌈{p.n('mean_tokens')} / "
        f"{p.n('block_size')}⌉ = {p.n('blocks_per_seq')}",
        f"max_seqs_paged = ⌊blocks / blocks per sequence⌋ = {p.n('max_seqs_paged')}",
        f"max_seqs_reserved = ⌊pool / (max_tokens × kv_bytes_per_token)⌋ = "
        f"{p.n('max_seqs_reserved')}",
        f"waste paged = (blocks per sequence × block_size − mean) / (that) = "
        f"{p.f('waste_fraction_paged', 3)}; reserved = (max − mean) / max = "
        f"{p.f('waste_fraction_reserved', 3)}",
    ]


def _paged_texts(p: Point) -> tuple[list[str], list[str]]:
    reserved = p.v("max_seqs_reserved")
    gain = (
        f"{number(p.v('max_seqs_paged') / reserved, sig=3)}× as many"
        if reserved
        else "sequences where reservation fits none"
    )
    est = [
        f"A {p.f('kv_pool_gb', 3)} KV pool holds {p.n('tokens_capacity')} tokens: "
        f"{p.n('max_seqs_paged')} sequences of {p.n('mean_tokens')} tokens when paged, "
        f"{p.n('max_seqs_reserved')} when each reserves {p.n('max_tokens')}: {gain}.",
        f"Paging wastes {p.f('waste_fraction_paged', 3)} of the held memory (the last block's "
        f"tail); reserving for the maximum wastes {p.f('waste_fraction_reserved', 3)}.",
    ]
    need = [
        "The engine's profiler decides the reserve: read vLLM's 'GPU KV cache size' log line "
        "for the real pool.",
        "Prefix caching shares blocks between sequences and raises the count; preemption "
        "under bursts lowers what you can admit safely.",
    ]
    return est, need


def _paged_chart(points: list[Point]) -> dict[str, Any]:
    return {
        "type": "bars",
        "title": "Sequences that fit: paged against reserved for the maximum",
        "y_label": "sequences",
        "stacked": False,
        "categories": [column_label(p, points)[:28] for p in points],
        "segments": [
            {"label": "paged", "values": [p.v("max_seqs_paged") for p in points]},
            {"label": "reserved", "values": [p.v("max_seqs_reserved") for p in points]},
        ],
    }


def _paged_check(clean: dict[str, Any]) -> dict[str, list[str]]:
    errors = _kv_check(clean)
    if clean.get("kv_bytes_per_token") is None and clean.get("layers") is None:
        errors["kv_bytes_per_token"] = ["required, or give the architecture (layers, ...)"]
    mean, mx = clean.get("mean_tokens"), clean.get("max_tokens")
    if isinstance(mean, int | float) and isinstance(mx, int | float) and mean > mx:
        errors["mean_tokens"] = [f"must not exceed max_tokens ({mx:g})"]
    return errors


PAGED_KV_CAPACITY = CalculatorSpec(
    slug="paged_kv_capacity",
    title="Paged KV cache capacity",
    summary="KV blocks, tokens and sequences a GPU holds with paged attention, against "
    "reserving each sequence's maximum length.",
    inputs=(
        _device_memory(),
        _utilization(),
        Input("weights_gb", "Weights per GPU", "GB", min=0, max=1e5),
        Input(
            "reserve_gb",
            "Reserve (activations, CUDA graphs)",
            "GB",
            default=0.0,
            min=0,
            max=1e5,
        ),
        _kv_override(),
        model(),
        Input("layers", "Layers", "", min=1, max=1000, kind=INTEGER, required=False),
        Input("kv_heads", "KV heads", "", min=1, max=1024, kind=INTEGER, required=False),
        Input("head_dim", "Head dimension", "", min=1, max=4096, kind=INTEGER, required=False),
        *_mla_inputs(),
        Input(
            "kv_precision", "KV cache precision", kind=CHOICE, choices=PRECISIONS, default="bf16"
        ),
        _count("block_size", "Block size", default=16, hi=1024),
        Input("mean_tokens", "Mean tokens per sequence", "tokens", min=1, max=1e8),
        Input("max_tokens", "Maximum tokens per sequence", "tokens", min=1, max=1e8),
    ),
    outputs=(
        Output("kv_bytes_per_token", "KV bytes per token", "bytes"),
        Output("kv_pool_gb", "KV pool", "GB"),
        Output("blocks", "Blocks", kind="integer"),
        Output("tokens_capacity", "Token capacity", "tokens"),
        Output("blocks_per_seq", "Blocks per sequence", kind="integer"),
        Output("max_seqs_paged", "Sequences, paged", kind="integer"),
        Output("max_seqs_reserved", "Sequences, reserved at maximum", kind="integer"),
        Output("waste_fraction_paged", "Waste, paged", kind="pct"),
        Output("waste_fraction_reserved", "Waste, reserved", kind="pct"),
    ),
    chart_type="bars",
    steps=_paged_steps,
    texts=_paged_texts,
    chart=_paged_chart,
    preset_fills=MEMORY_FILL,
    check=_paged_check,
    example={
        "device_memory_gb": 80,
        "weights_gb": 16.06,
        "reserve_gb": 4,
        "kv_bytes_per_token": 131072,
        "mean_tokens": 1500,
        "max_tokens": 8192,
    },
)
