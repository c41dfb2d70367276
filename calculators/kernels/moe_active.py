"""Mixture of experts: parameters touched per token against parameters held resident.

Units: *_params_b in billions of parameters, experts and experts_per_token counts,
bytes_per_param in bytes, *_gb in GB (1e9 bytes), active_fraction a fraction.
Give total_params_b and active_params_b, or the expert layout (experts,
experts_per_token, expert_params_b, shared_params_b) from which both follow.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, safe_div


def moe_active(
    *,
    total_params_b: ArrayLike | None = None,
    active_params_b: ArrayLike | None = None,
    experts: ArrayLike | None = None,
    experts_per_token: ArrayLike | None = None,
    expert_params_b: ArrayLike | None = None,
    shared_params_b: ArrayLike = 0.0,
    bytes_per_param: ArrayLike = 2.0,
) -> dict[str, np.ndarray]:
    """Return total_params_b, active_params_b, active_fraction, active_gb (bytes read per
    token at batch 1) and batched_resident_gb: once a batch routes tokens to every
    expert, all weights must be resident and are read each step, not just the active ones.
    """
    if experts is not None and experts_per_token is not None and expert_params_b is not None:
        e, k, ep, shared, bpp = broadcast(
            f64(experts),
            f64(experts_per_token),
            f64(expert_params_b),
            f64(shared_params_b),
            f64(bytes_per_param),
        )
        active = shared + k * ep
        total = (
            shared + e * ep
            if total_params_b is None
            else np.broadcast_to(f64(total_params_b), active.shape)
        )
        total, active, bpp = broadcast(total, active, bpp)
    elif total_params_b is not None and active_params_b is not None:
        # shared_params_b has no part here, but a sweep over it keeps its shape.
        total, active, bpp, _shared = broadcast(
            f64(total_params_b), f64(active_params_b), f64(bytes_per_param), f64(shared_params_b)
        )
    else:
        raise ValueError("moe_active needs total and active params, or the expert layout")
    return {
        "total_params_b": np.array(total, dtype=np.float64),
        "active_params_b": np.array(active, dtype=np.float64),
        "active_fraction": safe_div(active, total),
        "active_gb": active * bpp,
        "batched_resident_gb": total * bpp,
    }
