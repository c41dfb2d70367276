"""The sweep cases of every calculator, shared by ``test_sweeps`` (each case through the
kernel and through a real worker) and ``test_kernel_contract`` (each case's kernel
contract): for every numeric input, 100 points over ±10 % of a base value, without and
(where the spec takes one) with a preset. See ``test_sweeps``'s docstring for the bases."""

from __future__ import annotations

import math

import numpy as np

from calculators.specs import INTEGER, NUMBER, SPECS
from calculators.validation import validate

POINTS = 100
PRESET = {"mig": "h100-sxm"}  # the mig preset must have MIG profiles; others take any GPU
DEFAULT_PRESET = "h100-sxm"

# Extra bases for inputs the example leaves out (name them: the sweep of an input
# uses the first base that gives it a value).
EXTRA_BASES: dict[str, list[dict]] = {
    "roofline": [{"peak_tflops": 989, "bandwidth_tbs": 3.35, "flops": 1e12, "bytes": 1e10}],
    "decode_bound": [
        {
            "params_b": 8,
            "bytes_per_param": 2,
            "bandwidth_tbs": 3.35,
            "batch_size": 8,
            "kv_gb_per_seq": 0.5,
        },
        {
            "params_b": 37,
            "bytes_per_param": 1,
            "bandwidth_tbs": 4.8,
            "batch_size": 32,
            "layers": 61,
            "heads": 128,
            "head_dim": 128,
            "kv_lora_rank": 512,
            "rope_head_dim": 64,
            "experts": 256,
            "experts_per_token": 8,
            "expert_params_b": 2.55,
            "shared_params_b": 16.6,
            "peak_tflops": 1979,
        },
        {
            "params_b": 27,
            "bytes_per_param": 2,
            "bandwidth_tbs": 3.35,
            "layers": 62,
            "heads": 32,
            "kv_heads": 16,
            "head_dim": 128,
            "local_layers": 52,
            "local_window": 1024,
        },
    ],
    "kv_cache": [
        {"layers": 61, "kv_lora_rank": 512, "rope_head_dim": 64, "seq_len": 4096},
        {
            "layers": 62,
            "kv_heads": 16,
            "head_dim": 128,
            "seq_len": 8192,
            "local_layers": 52,
            "local_window": 1024,
        },
    ],
    "moe_active": [
        {"experts": 8, "experts_per_token": 2, "expert_params_b": 5.6, "shared_params_b": 1.6}
    ],
    "weight_memory": [{"params_b": 8, "bytes_per_param": 0.5, "vocab": 128256, "hidden": 4096}],
    "mig": [{"gpu": "h100-sxm", "profile": "1g.10gb"}],
    "attention_intensity": [{"seq_len": 2048, "head_dim": 64}],
    "diffusion_passes": [{"steps": 30}],
    # serving_estimate and paged_kv_capacity are the other helper's: their examples plus
    # the optional inputs, and an MLA model for the MLA inputs.
    "serving_estimate": [
        {**SPECS["serving_estimate"].example, "active_params_b": 30, "kv_bytes_per_token": 163840},
        {**SPECS["serving_estimate"].example, "model": "deepseek-v3", "tp": 8},
        {
            **SPECS["serving_estimate"].example,
            "compute_efficiency": 0.5,
            "prefill_efficiency": 0.6,
            "tp_link_gbs": 450,
        },
    ],
    "collective_time": [
        {
            "op": "all_reduce",
            "message_mb": 1000,
            "gpus": 16,
            "protocol_efficiency": 0.8,
            "net_efficiency": 0.9,
        }
    ],
    "paged_kv_capacity": [
        {
            **{
                k: v
                for k, v in SPECS["paged_kv_capacity"].example.items()
                if k != "kv_bytes_per_token"
            },
            "model": "llama-3.1-8b",
        },
        {
            **{
                k: v
                for k, v in SPECS["paged_kv_capacity"].example.items()
                if k != "kv_bytes_per_token"
            },
            "model": "deepseek-v3",
        },
    ],
    "prefill": [{**SPECS["prefill"].example, "embedding_params_b": 0.525}],
    "training_budget": [
        {
            "params_b": 70,
            "tokens_b": 15000,
            "gpus": 2048,
            "peak_tflops": 989,
            "gpu_cost_per_hour": 2.5,
            "zero_stage": 3,
            "dp": 256,
        },
        {
            "params_b": 8,
            "tokens_b": 15000,
            "gpus": 512,
            "peak_tflops": 989,
            "layers": 32,
            "hidden": 4096,
            "seq_len": 8192,
            "tp": 2,
            "pp": 2,
        },
    ],
}


def _first(value):
    return value[0] if isinstance(value, list) else value


def _bases(slug: str) -> list[dict]:
    example = {k: _first(v) for k, v in SPECS[slug].example.items()}
    return [example, *EXTRA_BASES.get(slug, [])]


def _values(inp, v) -> list:
    lo, hi = (0.0, 1.0) if v == 0 else (0.9 * v, 1.1 * v)
    if inp.min is not None:
        lo = max(lo, inp.min)
        if inp.min_exclusive and lo <= inp.min:
            lo = inp.min + (hi - inp.min) / 1000
    if inp.max is not None:
        hi = min(hi, inp.max)
    xs = np.linspace(lo, hi, POINTS)
    if inp.kind == INTEGER:
        ints = np.clip(np.round(xs), math.ceil(lo), math.floor(hi)).astype(int)
        return [int(x) for x in ints]
    return [float(x) for x in xs]


def sweep_cases() -> list[tuple[str, str, str | None, dict]]:
    """(slug, swept input, preset or None, raw inputs) for every numeric input of every
    calculator, without and (where the spec takes one) with a preset."""
    cases = []
    for slug, spec in SPECS.items():
        bases = _bases(slug)
        cleans = [validate(slug, b) for b in bases]
        for inp in spec.inputs:
            if inp.kind not in (NUMBER, INTEGER):
                continue
            # The first base that gives the input a value, typed or filled by its model;
            # else the first base with the input's default.
            base, value = bases[0], inp.default
            for b, clean in zip(bases, cleans, strict=True):
                if clean.get(inp.name) is not None and clean[inp.name] != inp.default:
                    base, value = b, clean[inp.name]
                    break
            if value is None:
                continue  # no base gives it a value: the coverage test names it
            presets = [None, PRESET.get(slug, DEFAULT_PRESET)] if spec.preset_fills else [None]
            for preset in presets:
                raw = dict(base)
                if preset:  # the preset fills these unless the sweep sets one explicitly
                    for name in spec.preset_fills:
                        if name != inp.name:
                            raw.pop(name, None)
                raw[inp.name] = _values(inp, value)
                cases.append((slug, inp.name, preset, raw))
    return cases


CASES = sweep_cases()
