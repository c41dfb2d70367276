"""Denoising cost of a diffusion sampler.

Units: steps a count, guidance a bool (classifier-free guidance runs a conditional and
an unconditional pass per step), pass_ms in milliseconds per forward pass, total_s in s.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64


def diffusion_passes(
    *, steps: ArrayLike, pass_ms: ArrayLike, guidance: ArrayLike = True
) -> dict[str, np.ndarray]:
    """forward_passes = steps x (2 with guidance, else 1); total_s = passes x pass_ms."""
    n, cfg, ms = broadcast(i64(steps), np.asarray(guidance, dtype=bool), f64(pass_ms))
    passes = n * np.where(cfg, 2, 1).astype(np.int64)
    return {"forward_passes": passes, "total_s": passes * ms / 1000.0}
