"""Spec for MIG partitioning (mig)."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators import presets

from .base import (
    CHOICE,
    CalculatorSpec,
    Input,
    Output,
    Point,
    PresetFill,
)

# ---------------------------------------------------------------- mig


def _mig_steps(p: Point) -> list[str]:
    lines = [
        f"profile {p.v('profile')} on {p.v('gpu')}: {p.n('compute_slices')} of "
        f"{presets.COMPUTE_SLICES} compute slices = {p.f('compute_fraction')}, "
        f"{p.n('memory_slices')} of {presets.MEMORY_SLICES} memory slices = "
        f"{p.f('memory_fraction')}",
        f"instance_memory_gb = {p.f('instance_memory_gb')} (nominal, as in the name)",
        _usable_line(p),
        f"max_instances = {p.n('max_instances')} (NVIDIA's placement rules for this profile)",
    ]
    if p.v("instance_sms") is not None:
        lines.append(
            f"idle_sms = total_sms − max_instances × instance_sms = {p.n('total_sms')} "
            f"− {p.n('max_instances')} × {p.n('instance_sms')} = {p.n('idle_sms')} SMs"
        )
    else:
        lines.append("instance_sms is not confirmed for this GPU, so idle SMs are unknown")
    if p.v("model_gb") is None:
        lines.append("no model_gb given, so no fit check: the profile's figures only")
        return lines
    if p.v("usable_memory_gb") is not None:
        cap = f"{p.f('usable_memory_gb')} usable ({p.f('usable_memory_gib')})"
    else:
        cap = f"{p.f('instance_memory_gb')} nominal (usable GiB not known for this GPU)"
    lines.append(f"model_fits: {p.f('model_gb')} ≤ {cap} → {p.f('model_fits')}")
    lines.append(
        f"replicas = {'max_instances' if p.v('model_fits') else '0'} = "
        f"{p.n('replicas')} (one replica per instance)"
    )
    return lines


def _usable_line(p: Point) -> str:
    if p.v("usable_memory_gib") is None:
        return "usable memory: not known for this profile (no nvidia-smi listing in our data)"
    return (
        f"usable_memory_gb = usable_memory_gib × 2³⁰ / 10⁹ = {p.n('usable_memory_gib')} GiB × "
        f"1.0737 = {p.f('usable_memory_gb')} (nvidia-smi reports GiB; outputs compare GB)"
    )


def _mig_texts(p: Point) -> tuple[list[str], list[str]]:
    est = []
    if p.v("model_gb") is None:
        est.append(
            f"{p.v('profile')} gives each of up to {p.n('max_instances')} instances "
            f"{p.f('compute_fraction', 3)} of the compute and {p.f('memory_fraction', 3)} of "
            "the memory."
        )
    elif p.v("model_fits"):
        est.append(
            f"{p.n('replicas')} isolated replicas fit on one {p.v('gpu')} with "
            f"{p.v('profile')}, each with {p.f('compute_fraction', 3)} of the compute."
        )
    else:
        est.append(
            f"A {p.f('model_gb')} replica does not fit in {p.v('profile')}; pick a "
            "profile with more memory slices or shrink the model."
        )
    if p.v("idle_sms"):
        est.append(
            f"Filling the GPU with {p.v('profile')} leaves {p.n('idle_sms')} SMs that no "
            "instance can use."
        )
    est.append(
        "Compute and memory come in fixed slices (sevenths and eighths), so a profile "
        "is a bundle: more memory often means fewer instances."
    )
    need = [
        "Per-instance throughput does not scale exactly with slices: measure latency and "
        "tokens/s inside one instance under load."
    ]
    gpu = p.v("gpu")
    try:
        prof = presets.mig_profile(gpu, p.v("profile"))
        if prof.unconfirmed:
            need.append(
                f"Unconfirmed in our data for {gpu} {prof.name}: "
                f"{', '.join(prof.unconfirmed)}; check with nvidia-smi mig -lgip."
            )
    except KeyError:
        pass
    need.append(
        "Leave room for the KV cache and CUDA context inside the instance, not only the weights."
    )
    return est, need


def _mig_chart(points: list[Point]) -> dict[str, Any]:
    return {
        "type": "mig",
        "title": "MIG slices used when the GPU is filled with the profile",
        "columns": [
            {
                "label": f"{p.v('gpu')} {p.v('profile')}",
                "instances": p.v("max_instances"),
                "compute_slices": p.v("compute_slices"),
                "memory_slices": p.v("memory_slices"),
                "instance_sms": p.v("instance_sms"),
                "idle_sms": p.v("idle_sms"),
                "model_fits": p.v("model_fits"),
            }
            for p in points[:3]
        ],
    }


def _mig_check(inputs: dict[str, Any]) -> dict[str, list[str]]:
    gpus = np.atleast_1d(np.asarray(inputs["gpu"], dtype=str))
    profs = np.atleast_1d(np.asarray(inputs["profile"], dtype=str))
    try:
        g_b, p_b = np.broadcast_arrays(gpus, profs)
    except ValueError:
        return {}  # the length mismatch is reported by validation
    pairs = set(zip(g_b.tolist(), p_b.tolist(), strict=True))
    errors = [
        f"{prof!r} is not a MIG profile of {g} (it has {', '.join(presets.mig_profile_names(g))})"
        for g, prof in sorted(pairs)
        if prof not in presets.mig_profile_names(g)
    ]
    return {"profile": errors} if errors else {}


MIG = CalculatorSpec(
    slug="mig",
    title="MIG partitioning",
    summary="What one Multi-Instance GPU profile gives each instance, and how many model "
    "replicas fit.",
    inputs=(
        Input("gpu", "GPU", kind=CHOICE, choices=tuple(presets.MIG_PROFILES), default=None),
        Input(
            "profile",
            "MIG profile",
            kind=CHOICE,
            choices=tuple(presets.all_mig_profile_names()),
            help="Profile names as nvidia-smi mig -lgip lists them.",
        ),
        Input(
            "model_gb",
            "Memory one replica needs",
            "GB",
            min=0,
            max=1e4,
            required=False,
            help="Weights plus KV-cache headroom (optional: without it, the profile's "
            "figures only).",
        ),
    ),
    outputs=(
        Output("compute_slices", "Compute slices", "of 7", kind="integer"),
        Output("compute_fraction", "Compute fraction", kind="pct"),
        Output("memory_slices", "Memory slices", "of 8", kind="integer"),
        Output("memory_fraction", "Memory fraction", kind="pct"),
        Output("instance_memory_gb", "Instance memory (nominal)", "GB"),
        Output("usable_memory_gib", "Usable memory (nvidia-smi)", "GiB"),
        Output("usable_memory_gb", "Usable memory", "GB"),
        Output("instance_sms", "SMs per instance", "SMs", kind="integer"),
        Output("idle_sms", "Idle SMs when filled", "SMs", kind="integer"),
        Output("total_sms", "SMs on the GPU", "SMs", kind="integer"),
        Output("max_instances", "Max instances", kind="integer"),
        Output("model_fits", "Model fits", kind="boolean"),
        Output("replicas", "Replicas per GPU", kind="integer"),
    ),
    chart_type="mig",
    steps=_mig_steps,
    texts=_mig_texts,
    chart=_mig_chart,
    preset_fills={"gpu": PresetFill("slug")},
    check=_mig_check,
    example={"gpu": "h100-sxm", "profile": "3g.40gb", "model_gb": 20},
)
