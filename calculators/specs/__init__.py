"""Calculator specs, keyed by slug, in the order pages list them."""

from __future__ import annotations

from .architecture import LINEAR_PARAMS, MOE_ACTIVE, SLIDING_WINDOW
from .base import BOOLEAN, CHOICE, INTEGER, NUMBER, CalculatorSpec, Input, Output, Point
from .decode import DECODE_BOUND, LOCAL_FIT
from .deployment import PAGED_KV_CAPACITY, PREFILL, SERVING_ESTIMATE
from .latency import FALLBACK_LATENCY, RESPONSE_TIME
from .memory import KV_CACHE, WEIGHT_MEMORY
from .mig import MIG
from .operations import AVAILABILITY, BREAK_EVEN
from .parallelism import COLLECTIVE_TIME, TRAINING_BUDGET
from .roofline import ATTENTION_INTENSITY, ROOFLINE
from .serving import QUEUEING, SPECULATIVE_DECODING
from .speedups import DIFFUSION_PASSES, SPARSITY_2_4

SPECS: dict[str, CalculatorSpec] = {
    s.slug: s
    for s in (
        ROOFLINE,
        DECODE_BOUND,
        MIG,
        FALLBACK_LATENCY,
        WEIGHT_MEMORY,
        KV_CACHE,
        RESPONSE_TIME,
        AVAILABILITY,
        BREAK_EVEN,
        ATTENTION_INTENSITY,
        SLIDING_WINDOW,
        LINEAR_PARAMS,
        MOE_ACTIVE,
        SPARSITY_2_4,
        LOCAL_FIT,
        DIFFUSION_PASSES,
        COLLECTIVE_TIME,
        SPECULATIVE_DECODING,
        QUEUEING,
        TRAINING_BUDGET,
        PREFILL,
        SERVING_ESTIMATE,
        PAGED_KV_CAPACITY,
    )
}


__all__ = [
    "SPECS",
    "CalculatorSpec",
    "Input",
    "Output",
    "Point",
    "NUMBER",
    "INTEGER",
    "BOOLEAN",
    "CHOICE",
]
