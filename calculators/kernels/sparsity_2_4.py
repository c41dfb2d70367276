"""2:4 structured sparsity: Amdahl's law on the GEMM share, and the weight footprint.

Units: gemm_share a fraction of request time spent in the sparse GEMMs, kernel_speedup a
ratio, bytes_per_param in bytes (dense element size); outputs are ratios.
The compressed format keeps 2 of every 4 values plus 2 bits of index metadata per kept
value.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, safe_div


def sparsity_2_4(
    *, gemm_share: ArrayLike, kernel_speedup: ArrayLike, bytes_per_param: ArrayLike = 2.0
) -> dict[str, np.ndarray]:
    """end_to_end_speedup = 1 / ((1 - g) + g / s); compressed_weight_ratio =
    (0.5 x 8b + 0.5 x 2) / 8b bits, i.e. 0.5 + 1/(8b)."""
    g, s, b = broadcast(f64(gemm_share), f64(kernel_speedup), f64(bytes_per_param))
    speedup = safe_div(1.0, (1.0 - g) + safe_div(g, s))
    bits = 8.0 * b
    return {
        "end_to_end_speedup": speedup,
        "compressed_weight_ratio": safe_div(0.5 * bits + 0.5 * 2.0, bits),
        "remaining_time_fraction": safe_div(1.0, speedup),
    }
