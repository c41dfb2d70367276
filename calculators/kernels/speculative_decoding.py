"""Expected speed-up of speculative decoding (Leviathan et al., 2023).

Units: acceptance_rate α is the probability that the target accepts one draft token
(independent across tokens, the paper's assumption); draft_tokens γ a count;
draft_cost_ratio c the time of one draft step over one target step; verify_overhead the
extra cost of a verification step over a plain target step, as a fraction of it.

One step drafts γ tokens and verifies them in one target pass, which yields
(1 - α^(γ+1)) / (1 - α) tokens on average (γ + 1 when α = 1) and costs γ·c + 1 +
overhead target-step units; the speed-up is their ratio.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64

MAX_DRAFT = 16


def _tokens_per_step(alpha: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        tokens = (1 - alpha ** (gamma + 1)) / (1 - alpha)
    return np.where(alpha >= 1, gamma + 1.0, tokens)


def speculative_decoding(
    *,
    acceptance_rate: ArrayLike,
    draft_tokens: ArrayLike,
    draft_cost_ratio: ArrayLike,
    verify_overhead: ArrayLike = 0.0,
) -> dict[str, np.ndarray]:
    """Return expected_tokens_per_step, step_cost, speedup, best_draft_tokens and
    best_speedup (γ from 1 to 16 that maximises the speed-up)."""
    alpha, gamma, c, over = broadcast(
        f64(acceptance_rate), i64(draft_tokens), f64(draft_cost_ratio), f64(verify_overhead)
    )
    tokens = _tokens_per_step(alpha, gamma.astype(np.float64))
    cost = gamma * c + 1 + over
    # Every γ from 1 to MAX_DRAFT on a trailing axis, so a sweep stays one call.
    grid = np.arange(1, MAX_DRAFT + 1, dtype=np.float64)
    speedups = _tokens_per_step(alpha[..., None], grid) / (
        grid * c[..., None] + 1 + over[..., None]
    )
    best = np.argmax(speedups, axis=-1)
    return {
        "expected_tokens_per_step": tokens,
        "step_cost": cost,
        "speedup": tokens / cost,
        "best_draft_tokens": (best + 1).astype(np.int64),
        "best_speedup": np.take_along_axis(speedups, best[..., None], axis=-1)[..., 0],
    }
