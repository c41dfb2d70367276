"""Arithmetic intensity of one attention head, standard against flash attention.

Units: seq_len (N) and head_dim (d) are counts, bytes_per_elem (b) in bytes, flops in FLOP,
bytes in bytes, intensities in FLOP/byte, peak_tflops in TFLOP/s, bandwidth_tbs in TB/s.

Standard attention writes S = QK^T and P = softmax(S) to memory and reads them back:
bytes = 4bN^2 (write S, read S, write P, read P) + 4bNd (read Q, K, V, write O);
flops = 4N^2 d (QK^T and PV) + 3N^2 (softmax). Flash attention keeps S and P on chip,
so only the 4bNd term moves. The ridge and the bound need both peak_tflops and
bandwidth_tbs; without them only the counts and intensities are returned.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, labels_where, safe_div


def attention_intensity(
    *,
    seq_len: ArrayLike,
    head_dim: ArrayLike,
    bytes_per_elem: ArrayLike = 2.0,
    peak_tflops: ArrayLike | None = None,
    bandwidth_tbs: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Return bytes, flops, intensity, flash_bytes, flash_intensity and, given both
    peak_tflops and bandwidth_tbs, ridge_intensity, bound and flash_bound."""
    extra = []
    if peak_tflops is not None and bandwidth_tbs is not None:  # spelled out for mypy
        extra = [f64(peak_tflops), f64(bandwidth_tbs)]
    n, d, b, *roof = broadcast(f64(seq_len), f64(head_dim), f64(bytes_per_elem), *extra)
    flops = 4.0 * n * n * d + 3.0 * n * n
    nbytes = 4.0 * b * n * n + 4.0 * b * n * d
    flash_bytes = 4.0 * b * n * d
    ai = safe_div(flops, nbytes)
    flash_ai = safe_div(flops, flash_bytes)
    out = {
        "bytes": nbytes,
        "flops": flops,
        "intensity": ai,
        "flash_bytes": flash_bytes,
        "flash_intensity": flash_ai,
    }
    if roof:
        peak, bw = roof
        ridge = safe_div(peak, bw)
        out.update(
            ridge_intensity=ridge,
            bound=labels_where(ai >= ridge, "compute", "memory"),
            flash_bound=labels_where(flash_ai >= ridge, "compute", "memory"),
        )
    return out
