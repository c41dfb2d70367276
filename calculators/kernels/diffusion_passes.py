"""Denoising cost of a diffusion sampler.

Units: steps a count, guidance a bool (classifier-free guidance runs a conditional and
an unconditional pass per step), pass_ms in milliseconds per forward pass, total_s in s.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64


def diffusion_passes(
    *, steps: ArrayLike, guidance: ArrayLike = True, pass_ms: ArrayLike | None = None
) -> dict[str, np.ndarray]:
    """forward_passes = steps × (2 with guidance, else 1); with pass_ms also
    total_s = forward_passes × pass_ms / 1000."""
    if pass_ms is None:
        n, cfg = broadcast(i64(steps), np.asarray(guidance, dtype=bool))
        return {"forward_passes": n * np.where(cfg, 2, 1).astype(np.int64)}
    n, cfg, ms = broadcast(i64(steps), np.asarray(guidance, dtype=bool), f64(pass_ms))
    passes = n * np.where(cfg, 2, 1).astype(np.int64)
    return {"forward_passes": passes, "total_s": passes * ms / 1000.0}
