"""Specs for operations: availability and break_even."""

from __future__ import annotations

from typing import Any

import numpy as np

from calculators.formatting import number
from calculators.kernels import availability as availability_kernel
from calculators.kernels import break_even as break_even_kernel

from .base import (
    CalculatorSpec,
    Input,
    Output,
    Point,
    column_label,
    fraction,
)

# ---------------------------------------------------------------- availability


def _availability_steps(p: Point) -> list[str]:
    down = 1 - p.v("availability_pct") / 100
    return [
        f"unavailable fraction = 1 − {p.n('availability_pct', 8)} / 100 = {number(down)}",
        f"downtime_min_per_year = {number(down)} × 365.25 × 24 × 60 min = "
        f"{p.f('downtime_min_per_year')}",
        f"downtime_min_per_month = per year / 12 = {p.f('downtime_min_per_month')}",
        f"downtime_hours_per_year = per year / 60 = {p.f('downtime_hours_per_year')}",
    ]


def _availability_texts(p: Point) -> tuple[list[str], list[str]]:
    est = [
        f"{p.n('availability_pct', 8)} % allows {p.f('downtime_min_per_month', 3)} of "
        f"downtime a month ({p.f('downtime_hours_per_year', 3)} a year); each extra nine "
        "divides it by ten."
    ]
    need = [
        "Whether planned maintenance, partial outages and slow responses count as downtime "
        "is a definition in the SLA, not arithmetic.",
        "Serial dependencies multiply: the product of their availabilities bounds yours.",
    ]
    return est, need


def _availability_chart(points: list[Point]) -> dict[str, Any]:
    ref = np.array([99.0, 99.5, 99.9, 99.95, 99.99, 99.999])
    out = availability_kernel(availability_pct=ref)
    return {
        "type": "bars",
        "title": "Downtime per month (log scale)",
        "y_label": "minutes per month",
        "y_log": True,
        "stacked": False,
        "categories": [f"{number(x, sig=6)} %" for x in ref]
        + [f"→ {p.n('availability_pct', 8)} %" for p in points[:3]],
        "segments": [
            {
                "label": "downtime",
                "values": out["downtime_min_per_month"].tolist()
                + [p.v("downtime_min_per_month") for p in points[:3]],
            }
        ],
        "highlight": list(range(len(ref), len(ref) + len(points[:3]))),
    }


AVAILABILITY = CalculatorSpec(
    slug="availability",
    title="Availability and downtime",
    summary="Downtime an availability target allows per year and per month.",
    inputs=(Input("availability_pct", "Availability", "%", min=0, max=100),),
    outputs=(
        Output("downtime_min_per_year", "Downtime per year (minutes)", "min"),
        Output("downtime_min_per_month", "Downtime per month (minutes)", "min"),
        Output("downtime_hours_per_year", "Downtime per year (hours)", "h"),
        Output("nines", "Nines"),
    ),
    chart_type="bars",
    steps=_availability_steps,
    texts=_availability_texts,
    chart=_availability_chart,
    example={"availability_pct": 99.9},
)

# ---------------------------------------------------------------- break_even


def _break_even_steps(p: Point) -> list[str]:
    return [
        f"tokens_per_gpu_hour = tokens_per_s × 3600 = {p.n('tokens_per_s')} × 3600 = "
        f"{p.f('tokens_per_gpu_hour')}",
        f"cost_per_m_at_full_use = gpu_cost_per_hour / tokens_per_gpu_hour × 10⁶ = "
        f"{p.f('gpu_cost_per_hour')} / {p.n('tokens_per_gpu_hour')} × 10⁶ = "
        f"{p.f('cost_per_m_at_full_use', 3)}",
        f"cost_per_m_at_utilization = full-use cost / utilization = "
        f"{p.n('cost_per_m_at_full_use', 3)} / {p.n('utilization')} = "
        f"{p.f('cost_per_m_at_utilization', 3)}",
        f"break_even_utilization = full-use cost / API price = "
        f"{p.n('cost_per_m_at_full_use', 3)} / {p.n('price_per_m_tokens')} = "
        f"{p.f('break_even_utilization', 3)}",
    ]


def _break_even_texts(p: Point) -> tuple[list[str], list[str]]:
    be = p.v("break_even_utilization")
    if be is not None and be > 1:
        est = ["Even at full use self-hosting costs more per token than the API price."]
    else:
        est = [
            f"Self-hosting beats {p.f('price_per_m_tokens')} once the GPU is busy more than "
            f"{p.f('break_even_utilization', 3)} of the time."
        ]
    cheaper = (
        "self-hosting is cheaper"
        if p.v("cost_per_m_at_utilization") < p.v("price_per_m_tokens")
        else "the API is cheaper"
    )
    est.append(
        f"At {p.f('utilization', 3)} utilization a million tokens cost "
        f"{p.f('cost_per_m_at_utilization', 3)}, so {cheaper}."
    )
    need = [
        "Sustained tokens/s at your latency target, measured under real traffic, sets the "
        "cost; peak benchmark throughput flatters it.",
        "Engineering time, redundancy and idle capacity for peaks are not in this figure.",
    ]
    return est, need


def _break_even_chart(points: list[Point]) -> dict[str, Any]:
    first = points[0]
    util = np.linspace(0.05, 1.0, 40)
    out = break_even_kernel(
        price_per_m_tokens=first.v("price_per_m_tokens"),
        gpu_cost_per_hour=first.v("gpu_cost_per_hour"),
        tokens_per_s=first.v("tokens_per_s"),
        utilization=util,
    )
    return {
        "type": "line",
        "title": "Cost per million tokens against utilization",
        "x_label": "Utilization",
        "y_label": "USD per million tokens",
        "x_log": False,
        "y_log": True,
        "series": [
            {
                "label": "self-hosted",
                "style": "solid",
                "x": util.tolist(),
                "y": out["cost_per_m_at_utilization"].tolist(),
            }
        ],
        "hlines": [{"label": "API price", "y": first.v("price_per_m_tokens")}],
        "points": [
            {
                "label": column_label(p, points),
                "x": p.v("utilization"),
                "y": p.v("cost_per_m_at_utilization"),
            }
            for p in points[:3]
        ],
    }


BREAK_EVEN = CalculatorSpec(
    slug="break_even",
    title="Self-hosting break-even",
    summary="Cost per million tokens on your own GPU against an API price.",
    inputs=(
        Input(
            "price_per_m_tokens", "API price", "USD/M tokens", min=0, min_exclusive=True, max=1e6
        ),
        Input("gpu_cost_per_hour", "GPU cost", "USD/h", min=0, max=1e6),
        Input(
            "tokens_per_s", "Throughput at full use", "tokens/s", min=0, min_exclusive=True, max=1e9
        ),
        fraction("utilization", "Utilization", 1.0),
    ),
    outputs=(
        Output("tokens_per_gpu_hour", "Tokens per GPU-hour", "tokens"),
        Output("cost_per_m_at_full_use", "Cost per M tokens at full use", "USD"),
        Output("cost_per_m_at_utilization", "Cost per M tokens at utilization", "USD"),
        Output("break_even_utilization", "Break-even utilization", kind="pct"),
    ),
    chart_type="line",
    steps=_break_even_steps,
    texts=_break_even_texts,
    chart=_break_even_chart,
    example={
        "price_per_m_tokens": 0.6,
        "gpu_cost_per_hour": 2,
        "tokens_per_s": 1000,
        "utilization": 0.5,
    },
)
