"""Weight memory and the VRAM to provision for it.

Units: params_b in billions of parameters, bytes_per_param in bytes, headroom and
scale_overhead as fractions, outputs in GB (1e9 bytes).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64


def weight_memory(
    *,
    params_b: ArrayLike,
    bytes_per_param: ArrayLike,
    headroom: ArrayLike = 0.5,
    scale_overhead: ArrayLike = 0.0,
) -> dict[str, np.ndarray]:
    """weights_gb = params_b x bytes_per_param x (1 + scale_overhead), where
    scale_overhead covers quantisation scales and zero points; recommended_vram_gb adds
    headroom (KV cache, activations, runtime) as a fraction of the weights."""
    p, bpp, head, scale = broadcast(
        f64(params_b), f64(bytes_per_param), f64(headroom), f64(scale_overhead)
    )
    weights = p * bpp * (1.0 + scale)
    return {"weights_gb": weights, "recommended_vram_gb": weights * (1.0 + head)}
