"""Attention pairs with and without a sliding window.

Units: seq_len (N) and window (w) in tokens; pairs are counts of (query, key) pairs
scored; saving is the factor full ÷ windowed, saving_fraction the share of pairs saved.

mask = "full" (the default, the textbook count an interviewer expects): every query
scores every key, N² pairs, and with a window each query scores w keys, N·w pairs.
mask = "causal": each token scores itself and earlier tokens, N(N+1)/2 pairs, and with a
window min(i+1, w) keys, so w(w+1)/2 + (N−w)·w pairs for N > w.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, i64, safe_div


def sliding_window(
    *, seq_len: ArrayLike, window: ArrayLike, mask: ArrayLike = "full"
) -> dict[str, np.ndarray]:
    """Return full_pairs, window_pairs, saving (full / windowed) and saving_fraction."""
    n, w, m = broadcast(i64(seq_len), i64(window), np.asarray(mask, dtype=str))
    causal = m == "causal"
    w_eff = np.minimum(w, n)  # a window longer than the sequence covers all of it
    full = np.where(causal, n * (n + 1) // 2, n * n)
    windowed = np.where(causal, w_eff * (w_eff + 1) // 2 + (n - w_eff) * w_eff, n * w_eff)
    return {
        "full_pairs": full,
        "window_pairs": windowed,
        "saving": safe_div(full, windowed),
        "saving_fraction": 1.0 - safe_div(windowed, full),
    }
