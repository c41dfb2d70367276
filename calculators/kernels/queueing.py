"""Waiting time in an M/M/c queue (Poisson arrivals, exponential service, c servers).

Units: arrival_rate in requests per second, service_s the mean service time in seconds,
servers a count; waits and response times in seconds.

Offered load a = λ·s erlangs and utilisation ρ = a / c. The probability of waiting is
Erlang C, computed from the Erlang B recursion B(k) = a·B(k-1) / (k + a·B(k-1)), which
stays finite where a^c / c! would overflow. The mean wait is C·s / (c(1 - ρ)). The
waiting-time tail of M/M/c is exponential, P(W > t) = C·exp(-(c/s - λ)t), so the p99
wait is ln(100·C) / (c/s - λ) when C > 1% and zero otherwise. Real LLM service times are
not exponential: treat the figures as a shape, not a promise. At ρ ≥ 1 the queue grows
without bound and the waits are infinite.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64


def queueing(
    *, arrival_rate: ArrayLike, service_s: ArrayLike, servers: ArrayLike = 1
) -> dict[str, np.ndarray]:
    """Return offered_load, utilization, wait_probability, mean_wait_s, mean_response_s
    and p99_wait_s."""
    lam, s, c = broadcast(f64(arrival_rate), f64(service_s), i64(servers))
    a = lam * s
    rho = a / c
    # Erlang B by recursion up to each point's own c (a loop over k, vectorised over points).
    erlang_b = np.ones_like(a)
    for k in range(1, int(c.max(initial=1)) + 1):
        step = a * erlang_b / (k + a * erlang_b)
        erlang_b = np.where(k <= c, step, erlang_b)
    stable = rho < 1
    with np.errstate(divide="ignore", invalid="ignore"):
        wait_p = np.where(stable, erlang_b / (1 - rho * (1 - erlang_b)), 1.0)
        drain = c / s - lam  # rate at which the queue's backlog drains
        mean_wait = np.where(stable, wait_p / drain, np.inf)
        p99 = np.where(wait_p > 0.01, np.log(100 * wait_p) / drain, 0.0)
    p99 = np.where(stable, p99, np.inf)
    return {
        "offered_load": a,
        "utilization": rho,
        "wait_probability": wait_p,
        "mean_wait_s": mean_wait,
        "mean_response_s": mean_wait + s,
        "p99_wait_s": p99,
    }
