"""Self-hosting cost per million tokens against an API price.

Units: price_per_m_tokens and cost outputs in USD per 1e6 tokens, gpu_cost_per_hour in
USD/hour, tokens_per_s in tokens/s at full use, utilization as a fraction (0-1].
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, safe_div


def break_even(
    *,
    price_per_m_tokens: ArrayLike,
    gpu_cost_per_hour: ArrayLike,
    tokens_per_s: ArrayLike,
    utilization: ArrayLike = 1.0,
) -> dict[str, np.ndarray]:
    """Return tokens_per_gpu_hour, cost_per_m_at_full_use, cost_per_m_at_utilization and
    break_even_utilization (the utilization at which self-hosting costs the API price;
    above 1 it never breaks even)."""
    price, cost, tps, util = broadcast(
        f64(price_per_m_tokens), f64(gpu_cost_per_hour), f64(tokens_per_s), f64(utilization)
    )
    per_hour = tps * 3600.0
    full = safe_div(cost * 1e6, per_hour)
    return {
        "tokens_per_gpu_hour": per_hour,
        "cost_per_m_at_full_use": full,
        "cost_per_m_at_utilization": safe_div(full, util),
        "break_even_utilization": safe_div(full, price),
    }
