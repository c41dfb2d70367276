"""Specs for serving techniques: speculative_decoding and queueing."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels import queueing as queueing_kernel
from calculators.kernels import speculative_decoding as speculative_kernel

from .base import INTEGER, CalculatorSpec, Input, Output, Point, column_label

# ---------------------------------------------------------------- speculative_decoding


def _spec_steps(p: Point) -> list[str]:
    return [
        f"expected_tokens_per_step = (1 − α^(γ+1)) / (1 − α) = (1 − {p.n('acceptance_rate')}^"
        f"({p.n('draft_tokens')}+1)) / (1 − {p.n('acceptance_rate')}) = "
        f"{p.n('expected_tokens_per_step')}",
        f"step_cost = γ × c + 1 + overhead = {p.n('draft_tokens')} × "
        f"{p.n('draft_cost_ratio')} + 1 + {p.n('verify_overhead')} = {p.n('step_cost')} "
        "target steps",
        f"speedup = tokens per step / step cost = {p.n('expected_tokens_per_step')} / "
        f"{p.n('step_cost')} = {p.n('speedup', 3)}×",
        f"best γ in 1-16 = {p.n('best_draft_tokens')} (speed-up {p.n('best_speedup', 3)}×)",
    ]


def _spec_texts(p: Point) -> tuple[list[str], list[str]]:
    if p.v("speedup") < 1:
        est = [
            f"At α = {p.n('acceptance_rate')} speculation slows decoding to "
            f"{p.n('speedup', 3)}× of plain decoding: turn it off or use a cheaper draft."
        ]
    else:
        est = [
            f"Each target pass yields {p.n('expected_tokens_per_step', 3)} tokens on average, "
            f"a {p.n('speedup', 3)}× speed-up in time per token."
        ]
    est.append(f"With these costs γ = {p.n('best_draft_tokens')} draft tokens is the best choice.")
    need = [
        "Acceptance rate depends on the draft, the task and the sampling temperature: "
        "measure it on your traffic, not on a benchmark.",
        "At large batch the target step is no longer memory-bound, verification stops being "
        "nearly free and the speed-up shrinks or inverts.",
    ]
    return est, need


def _spec_chart(points: list[Point]) -> dict[str, Any]:
    gammas = np.arange(1, 17)
    series = []
    for p in points[:3]:
        out = speculative_kernel(
            acceptance_rate=p.v("acceptance_rate"),
            draft_tokens=gammas,
            draft_cost_ratio=p.v("draft_cost_ratio"),
            verify_overhead=p.v("verify_overhead"),
        )
        series.append(
            {
                "label": column_label(p, points) if len(points) > 1 else "speed-up",
                "x": gammas.tolist(),
                "y": out["speedup"].tolist(),
            }
        )
    return {
        "type": "line",
        "title": "Speed-up against draft length",
        "x_label": "draft tokens γ",
        "y_label": "speed-up (×)",
        "x_log": False,
        "y_log": False,
        "series": series,
        "hlines": [{"label": "no speculation", "y": 1.0}],
        "points": [
            {"label": column_label(p, points), "x": p.v("draft_tokens"), "y": p.v("speedup")}
            for p in points[:3]
        ],
    }


SPECULATIVE_DECODING = CalculatorSpec(
    slug="speculative_decoding",
    title="Speculative decoding speed-up",
    summary="Tokens per target pass and speed-up from acceptance rate, draft length and "
    "draft cost (Leviathan et al., 2023).",
    inputs=(
        Input("acceptance_rate", "Acceptance rate α", "fraction", min=0, max=1),
        Input("draft_tokens", "Draft tokens γ", "", default=4, min=1, max=64, kind=INTEGER),
        Input(
            "draft_cost_ratio",
            "Draft step cost ÷ target step cost",
            "",
            default=0.05,
            min=0,
            max=10,
        ),
        Input("verify_overhead", "Verification overhead", "", default=0.0, min=0, max=10),
    ),
    outputs=(
        Output("expected_tokens_per_step", "Tokens per target pass", "tokens"),
        Output("step_cost", "Cost per step", "target steps"),
        Output("speedup", "Speed-up", "×"),
        Output("best_draft_tokens", "Best draft length (1-16)", kind="integer"),
        Output("best_speedup", "Speed-up at the best draft length", "×"),
    ),
    chart_type="line",
    steps=_spec_steps,
    texts=_spec_texts,
    chart=_spec_chart,
    example={"acceptance_rate": 0.8, "draft_tokens": 4, "draft_cost_ratio": 0.05},
)

# ---------------------------------------------------------------- queueing


def _queue_steps(p: Point) -> list[str]:
    lines = [
        f"offered load a = λ × s = {p.n('arrival_rate')} req/s × {p.f('service_s')} = "
        f"{p.n('offered_load')} erlangs",
        f"utilization ρ = a / c = {p.n('offered_load')} / {p.n('servers')} = "
        f"{p.f('utilization', 3)}",
    ]
    if p.v("utilization") >= 1:
        lines.append("ρ ≥ 1: arrivals outpace service, the queue grows without bound")
        return lines
    return lines + [
        f"wait_probability (Erlang C) = {p.f('wait_probability', 3)}",
        f"mean_wait = C × s / (c × (1 − ρ)) = {p.f('mean_wait_s', 3)}",
        f"mean_response = mean_wait + s = {p.f('mean_response_s', 3)}",
        f"p99_wait = ln(100 × C) / (c / s − λ) = {p.f('p99_wait_s', 3)} (exponential tail "
        "of M/M/c)",
    ]


def _queue_texts(p: Point) -> tuple[list[str], list[str]]:
    if p.v("utilization") >= 1:
        est = ["The servers are overloaded: add servers or shed load; no wait is finite."]
    else:
        est = [
            f"At {p.f('utilization', 3)} utilization {p.f('wait_probability', 3)} of requests "
            f"wait, {p.f('mean_wait_s', 3)} on average and {p.f('p99_wait_s', 3)} at p99.",
            "Waits grow as 1 / (1 − ρ): the last 10% of utilization costs the most latency.",
        ]
    need = [
        "LLM service times are not exponential and depend on prompt and output length; "
        "replay real traffic to confirm the tail.",
        "Continuous batching makes one GPU behave like many servers with a service time "
        "that grows with the batch; model it from measured throughput at your batch size.",
    ]
    return est, need


def _queue_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    rho = np.linspace(0.05, 0.97, 47)
    c, s = first.v("servers"), first.v("service_s")
    out = queueing_kernel(arrival_rate=rho * c / s, service_s=s, servers=c)
    marked = [p for p in points[:3] if p.v("utilization") < 1]
    return {
        "type": "line",
        "title": f"Response time against utilization ({number(c)} servers)",
        "x_label": "utilization",
        "y_label": "seconds",
        "x_log": False,
        "y_log": True,
        "series": [
            {"label": "mean response", "x": rho.tolist(), "y": out["mean_response_s"].tolist()},
            {
                "label": "p99 wait + service",
                "x": rho.tolist(),
                "y": (out["p99_wait_s"] + s).tolist(),
            },
        ],
        "points": [
            {
                "label": column_label(p, points),
                "x": p.v("utilization"),
                "y": p.v("mean_response_s"),
            }
            for p in marked
        ],
    }


QUEUEING = CalculatorSpec(
    slug="queueing",
    title="Queueing delay (M/M/c)",
    summary="Utilization, probability of waiting (Erlang C), mean and p99 wait for c servers.",
    inputs=(
        Input("arrival_rate", "Arrival rate λ", "req/s", min=0, min_exclusive=True, max=1e9),
        Input("service_s", "Mean service time", "s", min=0, min_exclusive=True, max=1e6),
        Input("servers", "Servers", "", default=1, min=1, max=10000, kind=INTEGER),
    ),
    outputs=(
        Output("offered_load", "Offered load", "erlangs"),
        Output("utilization", "Utilization", kind="pct"),
        Output("wait_probability", "Probability of waiting", kind="pct"),
        Output("mean_wait_s", "Mean wait", "s"),
        Output("mean_response_s", "Mean response time", "s"),
        Output("p99_wait_s", "p99 wait", "s"),
    ),
    chart_type="line",
    steps=_queue_steps,
    texts=_queue_texts,
    chart=_queue_chart,
    example={"arrival_rate": 8, "service_s": 1, "servers": 10},
)
