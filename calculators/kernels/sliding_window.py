"""Causal attention pairs with and without a sliding window.

Units: seq_len and window in tokens; pairs are counts of (query, key) pairs scored,
each token attending to itself and earlier tokens; saving is a fraction of full_pairs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, i64, safe_div


def sliding_window(*, seq_len: ArrayLike, window: ArrayLike) -> dict[str, np.ndarray]:
    """full_pairs = N(N+1)/2; with window w each token sees min(i+1, w) keys, so
    window_pairs = w(w+1)/2 + (N-w)w for N > w (and full_pairs otherwise)."""
    n, w = broadcast(i64(seq_len), i64(window))
    full = n * (n + 1) // 2
    m = np.minimum(w, n)
    windowed = m * (m + 1) // 2 + (n - m) * m
    return {"full_pairs": full, "window_pairs": windowed, "saving": 1.0 - safe_div(windowed, full)}
