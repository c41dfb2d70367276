"""Does a model fit on a local device, and how fast does it decode at batch 1?

Units: params_b in billions, bytes_per_param in bytes, device_memory_gb and weights_gb in
GB (1e9 bytes), device_bandwidth_gbs in GB/s, usable_fraction a fraction of device memory
the runtime may use, ms_per_token in ms, tokens_per_s in tokens/s.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, safe_div


def local_fit(
    *,
    params_b: ArrayLike,
    bytes_per_param: ArrayLike,
    device_memory_gb: ArrayLike,
    device_bandwidth_gbs: ArrayLike,
    usable_fraction: ArrayLike = 0.9,
) -> dict[str, np.ndarray]:
    """Return weights_gb, usable_gb, fits (bool), ms_per_token, tokens_per_s; the speed is
    the bandwidth bound (weights streamed once per token) whether or not it fits."""
    p, bpp, mem, bw, frac = broadcast(
        f64(params_b),
        f64(bytes_per_param),
        f64(device_memory_gb),
        f64(device_bandwidth_gbs),
        f64(usable_fraction),
    )
    weights = p * bpp
    usable = mem * frac
    ms = safe_div(weights, bw) * 1000.0
    return {
        "weights_gb": weights,
        "usable_gb": usable,
        "fits": weights <= usable,
        "ms_per_token": ms,
        "tokens_per_s": safe_div(1000.0, ms),
    }
