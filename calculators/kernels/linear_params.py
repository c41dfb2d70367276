"""Parameters of a linear (fully connected) layer.

Units: n_in and n_out are feature counts; outputs are parameter counts (integers).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, i64


def linear_params(
    *, n_in: ArrayLike, n_out: ArrayLike, bias: ArrayLike = True
) -> dict[str, np.ndarray]:
    """weights = n_in x n_out, biases = n_out when bias is true, params = their sum."""
    a, b, has_bias = broadcast(i64(n_in), i64(n_out), np.asarray(bias, dtype=bool))
    weights = a * b
    biases = np.where(has_bias, b, 0).astype(np.int64)
    return {"weights": weights, "biases": biases, "params": weights + biases}
