"""End-to-end response time from time to first token and inter-token latency.

Units: ttft_ms and itl_ms in milliseconds, output_tokens a count, tps_per_user in
tokens/s, decode_s and total_s in seconds. The first token arrives at TTFT; each of the
remaining output_tokens - 1 arrives one ITL later (the convention of LLMPerf and
genai-perf).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64, safe_div


def response_time(
    *, ttft_ms: ArrayLike, itl_ms: ArrayLike, output_tokens: ArrayLike
) -> dict[str, np.ndarray]:
    """Return tps_per_user, decode_s and total_s."""
    ttft, itl, n = broadcast(f64(ttft_ms), f64(itl_ms), i64(output_tokens))
    decode_s = np.maximum(n - 1, 0) * itl / 1000.0
    return {
        "tps_per_user": safe_div(1000.0, itl),
        "decode_s": decode_s,
        "total_s": ttft / 1000.0 + decode_s,
    }
