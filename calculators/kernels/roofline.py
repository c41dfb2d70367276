"""Roofline: is a workload limited by compute or by memory bandwidth?

Units: peak_tflops in TFLOP/s (1e12 FLOP/s), bandwidth_tbs in TB/s (1e12 bytes/s),
intensity in FLOP/byte, flops in FLOP, bytes in bytes, times in seconds.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import f64, labels_where, safe_div, shaped


def roofline(
    *,
    peak_tflops: ArrayLike,
    bandwidth_tbs: ArrayLike,
    intensity: ArrayLike | None = None,
    flops: ArrayLike | None = None,
    bytes: ArrayLike | None = None,  # noqa: A002 - the public input name
) -> dict[str, np.ndarray]:
    """Return ridge_intensity, intensity, bound, attainable_tflops (and, given flops and
    bytes, compute_s, memory_s, time_s), all in the broadcast shape of the inputs.

    Give either ``intensity`` or both ``flops`` and ``bytes``.
    """
    peak, bw = f64(peak_tflops), f64(bandwidth_tbs)
    with_work = flops is not None and bytes is not None
    if flops is not None and bytes is not None:  # spelled out so mypy narrows the types
        fl, by = f64(flops), f64(bytes)
        ai = safe_div(fl, by)
        shape = np.broadcast_shapes(peak.shape, bw.shape, fl.shape, by.shape)
    elif intensity is not None:
        ai = f64(intensity)
        shape = np.broadcast_shapes(peak.shape, bw.shape, ai.shape)
    else:
        raise ValueError("roofline needs intensity, or flops and bytes")

    ridge = safe_div(peak, bw)
    # TB/s × FLOP/byte = TFLOP/s, so the memory roof is directly comparable with the peak.
    attainable = np.minimum(ai * bw, peak)
    out = {
        "ridge_intensity": ridge,
        "intensity": ai,
        "bound": labels_where(np.broadcast_to(ai >= ridge, shape), "compute", "memory"),
        "attainable_tflops": attainable,
    }
    if with_work:
        compute_s = safe_div(fl, peak) * 1e-12  # FLOP / (TFLOP/s) = 1e-12 s
        memory_s = safe_div(by, bw) * 1e-12  # bytes / (TB/s) = 1e-12 s
        out.update(compute_s=compute_s, memory_s=memory_s, time_s=np.maximum(compute_s, memory_s))
    return shaped(shape, **out)
