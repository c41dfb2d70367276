"""Specs for parallelism: collective_time and training_budget."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels import collective_time as collective_kernel
from calculators.kernels.collective_time import ALGORITHMS, NET_EFFICIENCY, OPS
from calculators.kernels.training_budget import METHODS

from .base import (
    BOOLEAN,
    CHOICE,
    INTEGER,
    PEAK,
    CalculatorSpec,
    Input,
    Output,
    Point,
    PresetFill,
    column_label,
    params_b,
    peak_tflops,
    precision,
)

# ---------------------------------------------------------------- collective_time

_FACTOR_TEXT = {
    "all_reduce": "2(n − 1)/n",
    "all_gather": "(n − 1)/n",
    "reduce_scatter": "(n − 1)/n",
    "all_to_all": "(n − 1)/n",
    "broadcast": "1",
}

#: The nccl-tests binary that measures each collective (github.com/NVIDIA/nccl-tests).
NCCL_TESTS = {
    "all_reduce": "all_reduce_perf",
    "all_gather": "all_gather_perf",
    "reduce_scatter": "reduce_scatter_perf",
    "all_to_all": "alltoall_perf",
    "broadcast": "broadcast_perf",
}


def _collective_steps(p: Point) -> list[str]:
    op, used = p.v("op"), p.v("algorithm_used")
    multi = p.v("nodes") > 1
    lines = [
        f"nodes = ⌈gpus / gpus_per_node⌉ = ⌈{p.n('gpus')} / {p.n('gpus_per_node')}⌉ = "
        f"{p.n('nodes')}",
        f"bus factor for {op} = {_FACTOR_TEXT[op]} = {p.n('factor')}",
        f"NVLink line rate {p.f('intra_gbs')} × protocol efficiency "
        f"{p.n('link_efficiency')} = {number(p.v('intra_gbs') * p.v('link_efficiency'))} "
        "GB/s effective",
    ]
    if multi:
        line_rate = p.v("nics_per_node") * p.v("nic_gbps") / 8
        lines.append(
            f"network per node = nics_per_node × nic_gbps / 8 × network efficiency = "
            f"{p.n('nics_per_node')} × {p.f('nic_gbps')} / 8 × {p.n('net_efficiency')} = "
            f"{number(line_rate)} GB/s line rate × {p.n('net_efficiency')} = "
            f"{p.f('inter_gbs')} effective"
        )
    n_gpus, g = p.v("gpus"), min(p.v("gpus_per_node"), p.v("gpus"))
    log_nodes = math.ceil(math.log2(p.v("nodes"))) if multi else 0
    nvlink = p.v("intra_gbs") * p.v("link_efficiency")
    if op == "all_to_all":
        on_mb = (g - 1) / n_gpus * p.v("message_mb")
        off_mb = g * (n_gpus - g) / n_gpus * p.v("message_mb")
        stage = f"(gpus_per_node − 1)/n × message / {number(nvlink)} GB/s = {number(on_mb)} MB / {number(nvlink)} GB/s"
        if multi:
            stage = (
                f"max({stage}, gpus_per_node × (n − gpus_per_node)/n × message / "
                f"{number(p.v('inter_gbs'))} GB/s = {number(off_mb)} MB / "
                f"{number(p.v('inter_gbs'))} GB/s)"
            )
        lines.append(
            f"time = {stage} + (n − 1 = {number(n_gpus - 1)}) × {p.f('latency_us')} (one "
            "message to each peer)"
        )
    else:
        if op == "all_reduce":
            cands = [f"ring {p.f('ring_ms', 3)}", f"tree {p.f('tree_ms', 3)}"]
            if p.has("nvls_ms") and not math.isnan(p.v("nvls_ms")):
                cands.append(f"nvls {p.f('nvls_ms', 3)}")
            if p.v("algorithm") == "auto":
                why = (
                    "the lowest modelled time, as NCCL's tuner picks (latency + bytes / "
                    "bandwidth for each algorithm, src/graph/tuning.cc)"
                )
                if not p.v("nvls"):
                    why += "; nvls not offered (no NVLink SHARP)"
                elif min(p.v("gpus_per_node"), p.v("gpus")) < 2:
                    why += "; nvls not offered (NCCL needs two GPUs of the job on a node)"
                lines.append(f"auto: {', '.join(cands)} → {used}: {why}")
            else:
                lines.append(f"algorithm {used} as asked (modelled: {', '.join(cands)})")
        elif p.v("algorithm") not in ("auto", used):
            lines.append(f"{p.v('algorithm')} does not apply to {op}: it runs as a {used}")
        if used == "nvls":
            steps, steps_text = 2 + 2 * log_nodes, "2 + 2⌈log2 nodes⌉" if multi else "2"
            stage = f"{p.f('message_mb')} / {number(nvlink)} GB/s"
            if multi:
                stage = (
                    f"max({stage}, {p.n('factor')} × {p.f('message_mb')} / "
                    f"{p.f('inter_gbs')} (NVLS-tree: the network stage as a tree's))"
                )
            lines.append(
                "NVLS: each GPU sends its buffer to the switch once and receives the sum "
                f"once: time = {stage} + ({steps_text} = {number(steps)}) × {p.f('latency_us')}"
            )
        else:
            link = min(nvlink, p.v("inter_gbs")) if multi else nvlink
            link_text = (
                f"min({number(nvlink)}, {number(p.v('inter_gbs'))}) GB/s"
                if multi
                else f"{number(nvlink)} GB/s"
            )
            if used == "tree" and op == "all_reduce":
                steps, steps_text = (
                    2 * ((g - 1) + log_nodes),
                    "2((gpus_per_node − 1) + ⌈log2 nodes⌉)",
                )
            elif used == "tree":
                steps, steps_text = math.ceil(math.log2(max(n_gpus, 2))), "⌈log2 n⌉"
            else:
                steps = 2 * (n_gpus - 1) if op == "all_reduce" else n_gpus - 1
                steps_text = "2(n − 1)" if op == "all_reduce" else "(n − 1)"
            if used == "tree" and op == "all_reduce":
                link_text = (
                    f"({link_text} × 0.92, NCCL's tree bandwidth, = {number(link * 0.92)} GB/s)"
                )
            lines.append(
                f"time = factor × message / link + {steps_text} × latency = {p.n('factor')} × "
                f"{p.f('message_mb')} / {link_text} + {number(steps)} × "
                f"{p.f('latency_us')}"
            )
    lines += [
        f"time_ms = {p.f('time_ms')} (the slower stage: {p.v('bottleneck')}-node)",
        f"algbw = message / time = {p.f('message_mb')} / {p.f('time_ms')} = {p.f('algbw_gbs')}",
        f"busbw = algbw × factor = {p.n('algbw_gbs')} × {p.n('factor')} = {p.f('busbw_gbs')}",
    ]
    return lines


def _collective_texts(p: Point) -> tuple[list[str], list[str]]:
    # all-to-all has one way to run (every GPU sends to every other): no algorithm to name
    how = "" if p.v("op") == "all_to_all" else f" with {p.v('algorithm_used')}"
    est = [
        f"A {p.f('message_mb')} {p.v('op')} over {p.n('gpus')} GPUs takes about "
        f"{p.f('time_ms', 3)}{how}, bus bandwidth {p.f('busbw_gbs', 3)}."
    ]
    if p.v("nodes") > 1:
        nvlink = p.v("intra_gbs") * p.v("link_efficiency")
        where = "the network" if p.v("bottleneck") == "inter" else "NVLink inside the node"
        est.append(
            f"The slower stage is {where}, each stage timed on the bytes it carries "
            f"(NVLink {number(nvlink, sig=3)} GB/s per GPU effective; the network "
            f"{p.f('inter_gbs', 3)} per node effective, {p.n('nics_per_node')} NIC(s) of "
            f"{p.f('nic_gbps')})."
        )
    else:
        est.append("All GPUs share one node, so only NVLink (intra_gbs) matters.")
    need = [
        f"Measure with nccl-tests ({NCCL_TESTS[p.v('op')]} -b 1M -e 16G) on the real "
        "topology: ring and tree reach typically 80-85% of NVLink's line rate in bus "
        "bandwidth and 90-96% of InfiniBand's; NVLS, reducing in the switch, reports more "
        "bus bandwidth than the line rate.",
        "Overlap with compute decides what the step actually pays; this is the exposed "
        "time only if nothing overlaps.",
    ]
    return est, need


def _collective_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    sizes = np.logspace(-3, 5, 49)  # 1 KB to 100 GB
    series = []
    for p in points[:3]:
        out = collective_kernel(
            op=p.v("op"),
            message_mb=sizes,
            gpus=p.v("gpus"),
            gpus_per_node=p.v("gpus_per_node"),
            intra_gbs=p.v("intra_gbs"),
            nics_per_node=p.v("nics_per_node"),
            nic_gbps=p.v("nic_gbps"),
            latency_us=p.v("latency_us"),
            algorithm=p.v("algorithm"),
            nvls=p.v("nvls"),
            protocol_efficiency=p.v("protocol_efficiency"),
            net_efficiency=p.v("net_efficiency"),
        )
        series.append(
            {
                "label": column_label(p, points) if len(points) > 1 else "time",
                "x": sizes.tolist(),
                "y": out["time_ms"].tolist(),
            }
        )
    return {
        "type": "line",
        "title": "Collective time against message size (latency-bound left, bandwidth-bound right)",
        "x_label": "message size (MB)",
        "y_label": "time (ms)",
        "x_log": True,
        "y_log": True,
        "series": series,
        "points": [
            {"label": column_label(p, points), "x": p.v("message_mb"), "y": p.v("time_ms")}
            for p in points[:3]
        ]
        if first.v("message_mb")
        else [],
    }


COLLECTIVE_TIME = CalculatorSpec(
    slug="collective_time",
    title="Collective communication time",
    summary="All-reduce, all-gather, reduce-scatter, all-to-all and broadcast time and bus "
    "bandwidth from message size and topology.",
    inputs=(
        Input("op", "Collective", kind=CHOICE, choices=OPS, default="all_reduce"),
        Input(
            "message_mb",
            "Message size per rank",
            "MB",
            min=0,
            min_exclusive=True,
            max=1e7,
            help="The buffer each rank contributes, as nccl-tests counts it.",
        ),
        Input("gpus", "GPUs", "", min=2, max=1e6, kind=INTEGER),
        Input("gpus_per_node", "GPUs per node", "", default=8, min=1, max=1024, kind=INTEGER),
        Input(
            "intra_gbs",
            "NVLink bandwidth per GPU, one direction",
            "GB/s",
            default=450.0,
            min=0,
            min_exclusive=True,
            max=1e5,
            help="H100/H200 NVLink 4: 450 GB/s each way; B200 NVLink 5: 900.",
        ),
        Input("nics_per_node", "NICs per node", "", default=8, min=1, max=1024, kind=INTEGER),
        Input(
            "nic_gbps",
            "Speed per NIC",
            "Gb/s",
            default=400.0,
            min=0,
            min_exclusive=True,
            max=1e5,
            help="400 Gb/s = 50 GB/s (ConnectX-7 NDR); 800 Gb/s on ConnectX-8.",
        ),
        Input("latency_us", "Latency per algorithm step", "µs", default=5.0, min=0, max=1e6),
        Input(
            "algorithm",
            "Algorithm",
            kind=CHOICE,
            choices=ALGORITHMS,
            default="auto",
            help="auto: the fastest modelled of ring, tree and (with NVLS) nvls, as NCCL's "
            "tuner chooses. nvls: NVLink SHARP all-reduce on an NVSwitch (H100 and later).",
        ),
        Input(
            "nvls",
            "NVLink SHARP (NVLS) available",
            kind=BOOLEAN,
            default=True,
            help="NVSwitch with NVLink SHARP (H100, H200, B200 and later); clear it for "
            "A100, PCIe and NVLink-bridge systems, which auto then never gives NVLS.",
        ),
        Input(
            "protocol_efficiency",
            "NVLink protocol efficiency",
            "fraction",
            min=0,
            min_exclusive=True,
            max=1,
            required=False,
            help="Fraction of NVLink's line rate a large message reaches. Empty: 0.82 for "
            "ring and tree, 0.61 for NVLS (fitted on nccl-tests results).",
        ),
        Input(
            "net_efficiency",
            "Network efficiency",
            "fraction",
            min=0,
            min_exclusive=True,
            max=1,
            required=False,
            help=f"Fraction of the NICs' line rate a large message reaches. Empty: "
            f"{NET_EFFICIENCY} (InfiniBand, fitted on multi-node nccl-tests results).",
        ),
    ),
    outputs=(
        Output("nodes", "Nodes", kind="integer"),
        Output("factor", "Bus factor"),
        Output("inter_gbs", "Network bandwidth per node, effective", "GB/s"),
        Output("time_ms", "Time", "ms"),
        Output("algbw_gbs", "Algorithm bandwidth", "GB/s"),
        Output("busbw_gbs", "Bus bandwidth", "GB/s"),
        Output("bottleneck", "Slower stage", kind="text"),
        Output("algorithm_used", "Algorithm used", kind="text"),
        Output("ring_ms", "Ring time (modelled)", "ms"),
        Output("tree_ms", "Tree time (modelled)", "ms"),
        Output("nvls_ms", "NVLS time (modelled)", "ms"),
        Output("link_efficiency", "NVLink protocol efficiency used", "fraction"),
        Output("net_efficiency", "Network efficiency used", "fraction"),
    ),
    chart_type="line",
    steps=_collective_steps,
    texts=_collective_texts,
    chart=_collective_chart,
    preset_fills={
        "intra_gbs": PresetFill("nvlink_gbs"),
        "nic_gbps": PresetFill("nic_gbps"),
        "nvls": PresetFill("nvls"),
    },
    example={"op": "all_reduce", "message_mb": 14000, "gpus": 64},
)

# ---------------------------------------------------------------- training_budget


def _training_steps(p: Point) -> list[str]:
    k = 4 if p.v("method") == "lora" else 6
    attn = p.has("layers") and p.has("hidden") and p.has("seq_len")
    flops = f"{k} × N × D" + (f" + {k}/6 × 12 × layers × hidden × seq_len × D" if attn else "")
    lines = [
        f"train_flops = {flops} ({p.v('method')}"
        + (", LoRA computes no weight gradients" if k == 4 else "")
        + f") with N = {p.n('params_b')} × 10⁹, D = {p.n('tokens_b')} × 10⁹: "
        f"{p.f('train_flops')}",
        f"bubble overhead (Megatron-LM, 1F1B) = (pp − 1) / (virtual stages × micro-batches) "
        f"= ({p.n('pp')} − 1) / ({p.n('virtual_stages')} × {p.n('microbatches')}) = "
        f"{p.n('bubble_overhead', 3)}; idle share of the run = overhead / (1 + overhead) = "
        f"{p.f('pipeline_bubble', 3)}",
    ]
    if p.has("mfu"):
        lines += [
            f"cluster rate while computing = gpus × peak × mfu = {p.n('gpus')} × "
            f"{p.f('peak_tflops')} × {p.n('mfu_used')}",
            f"days = train_flops / cluster rate × (1 + overhead) / 86400 = {p.f('days')}",
            f"MFU over the run = mfu × (1 − idle share) = {p.n('mfu_used')} × (1 − "
            f"{p.n('pipeline_bubble', 3)}) = {p.n('mfu_run', 3)}",
        ]
    else:
        lines += [
            f"MFU over the run = the default for {p.v('precision').upper()}, fitted on "
            f"published runs' GPU-hours, their pipeline bubbles included: {p.n('mfu_run')}",
            f"days = train_flops / (gpus × peak × MFU over the run) / 86400 = "
            f"{p.f('train_flops', 3)} / ({p.n('gpus')} × {p.f('peak_tflops')} × "
            f"{p.n('mfu_run')}) / 86400 = {p.f('days')}",
            f"MFU while computing = MFU over the run / (1 − idle share) = {p.n('mfu_run')} / "
            f"(1 − {p.n('pipeline_bubble', 3)}) = {p.n('mfu_used', 3)}",
        ]
    lines.append(f"gpu_hours = gpus × days × 24 = {p.f('gpu_hours')}")
    if p.has("cost"):
        lines.append(
            f"cost = gpu_hours × gpu_cost_per_hour = {p.n('gpu_hours')} × "
            f"{p.f('gpu_cost_per_hour')} = {p.f('cost')}"
        )
    dp = p.n("dp") if p.has("dp") else number(max(p.v("gpus") / (p.v("tp") * p.v("pp")), 1))
    lines.append(
        f"state per GPU (ZeRO stage {p.n('zero_stage')}, dp = {dp}) = "
        f"{p.n('state_bytes_per_param')} bytes/param × {p.n('params_b')} × 10⁹ / (tp × pp = "
        f"{p.n('tp')} × {p.n('pp')}) = {p.f('state_gb_per_gpu')}"
    )
    return lines


def _training_texts(p: Point) -> tuple[list[str], list[str]]:
    rate = (
        f"{p.f('mfu_used', 3)} MFU while computing ({p.n('mfu_run', 3)} over the run, "
        "pipeline bubble included)"
        if p.has("mfu")
        else f"the default {p.n('mfu_run', 3)} MFU over the run ({p.n('mfu_used', 3)} while "
        "computing at this schedule)"
    )
    est = [
        f"{p.f('train_flops', 3)} at {rate} on {p.n('gpus')} GPUs take {p.f('days', 3)}.",
        f"Model state is {p.f('state_gb_per_gpu', 3)} per GPU before activations.",
    ]
    if p.has("default_mfu_feasible") and not p.v("default_mfu_feasible"):
        est.append(
            f"At this schedule the default MFU over the run would need {p.n('mfu_used', 3)} "
            "while computing, above 100%: its bubble is larger than the published runs' "
            "the default rests on, and the days above assume it is reached anyway. Give more "
            "micro-batches or virtual stages, or a measured mfu."
        )
    need = [
        "MFU is measured, not assumed: 35-50% is typical for large dense models in BF16.",
        "Activations, fragmentation and communication buffers add memory this leaves out; "
        "restarts after failures add time.",
    ]
    return est, need


def _training_chart(points: list[Point]) -> dict[str, Any]:
    return {
        "type": "bars",
        "title": "Model state per GPU",
        "y_label": "GB",
        "stacked": False,
        "categories": [column_label(p, points) for p in points],
        "segments": [{"label": "state", "values": [p.v("state_gb_per_gpu") for p in points]}],
    }


TRAINING_BUDGET = CalculatorSpec(
    slug="training_budget",
    title="Training compute budget",
    summary="FLOPs, days, GPU-hours, cost and per-GPU model state of a training run.",
    inputs=(
        params_b(),
        Input("tokens_b", "Training tokens", "billion", min=0, min_exclusive=True, max=1e7),
        Input("gpus", "GPUs", "", min=1, max=1e7, kind=INTEGER),
        peak_tflops(),
        # Passed to the kernel (not a selector): it also picks the default MFU.
        replace(precision(), selector=False),
        Input(
            "mfu",
            "Model FLOPs utilisation",
            "fraction",
            min=0,
            min_exclusive=True,
            max=1,
            required=False,
            help="A figure given here is the MFU while the stages compute: the pipeline "
            "bubble is charged on top. A published run's MFU already includes its bubble, so "
            "typing one in here counts the bubble twice; leave this empty instead. Empty: the "
            "default fitted per precision on published runs' GPU-hours (BF16 0.40, FP8 0.19 "
            "of the FP8 peak), an MFU over the run with their bubbles inside it, so no bubble "
            "is charged on top and the schedule changes only the MFU while computing.",
        ),
        Input("method", "Method", kind=CHOICE, choices=METHODS, default="full"),
        Input("tp", "Tensor-parallel size", "", default=1, min=1, max=1024, kind=INTEGER),
        Input("pp", "Pipeline stages", "", default=1, min=1, max=1024, kind=INTEGER),
        Input(
            "microbatches",
            "Micro-batches per step",
            "",
            default=8,
            min=1,
            max=1e6,
            kind=INTEGER,
            help="Sets the pipeline bubble: (pp − 1) / (virtual stages × micro-batches) "
            "added to the run (Megatron-LM's 1F1B).",
        ),
        Input(
            "virtual_stages",
            "Virtual stages per GPU (interleaved 1F1B)",
            "",
            default=1,
            min=1,
            max=1024,
            kind=INTEGER,
            help="Model chunks per pipeline rank in Megatron-LM's interleaved schedule: "
            "divides the bubble by this number. 1: plain 1F1B.",
        ),
        Input("layers", "Layers", "", min=1, max=1000, kind=INTEGER, required=False),
        Input("hidden", "Hidden size", "", min=1, max=1e6, kind=INTEGER, required=False),
        Input(
            "seq_len",
            "Sequence length",
            "tokens",
            min=1,
            max=1e8,
            kind=INTEGER,
            required=False,
            help="With layers and hidden: attention FLOPs 12·layers·hidden·seq_len a token.",
        ),
        Input("gpu_cost_per_hour", "GPU cost", "USD/h", min=0, max=1e6, required=False),
        Input("zero_stage", "ZeRO stage", "", default=0, min=0, max=3, kind=INTEGER),
        Input(
            "dp",
            "Data-parallel ranks",
            "",
            min=1,
            max=1e7,
            kind=INTEGER,
            required=False,
            help="Ranks ZeRO shards over; defaults to GPUs / (tp × pp).",
        ),
    ),
    outputs=(
        Output("mfu_used", "MFU while computing (before the pipeline bubble)", "fraction"),
        Output("mfu_run", "MFU over the run (after the pipeline bubble)", "fraction"),
        Output("bubble_overhead", "Pipeline bubble overhead, (pp − 1)/(v·m)", kind="pct"),
        Output("pipeline_bubble", "Pipeline bubble, share of the run idle", kind="pct"),
        Output("default_mfu_feasible", "Default MFU reachable at this schedule", kind="boolean"),
        Output("train_flops", "Training FLOPs", "FLOP"),
        Output("days", "Days", "days"),
        Output("gpu_hours", "GPU-hours", "GPU·h"),
        Output("cost", "Cost", "USD"),
        Output("state_bytes_per_param", "State per parameter per GPU", "bytes"),
        Output("state_gb_per_gpu", "Model state per GPU", "GB"),
    ),
    chart_type="bars",
    steps=_training_steps,
    texts=_training_texts,
    chart=_training_chart,
    preset_fills={"peak_tflops": PresetFill(PEAK)},
    example={"params_b": 70, "tokens_b": 15000, "gpus": 2048, "peak_tflops": 989, "mfu": 0.4},
)
