"""KV cache size: one key and one value vector per layer, per KV head, per token.

Units: layers, kv_heads, head_dim, seq_len (tokens) and batch_size (sequences) are
counts; bytes_per_elem in bytes; bytes_per_token in bytes; gb_per_seq and total_gb in GB
(1e9 bytes). Grouped-query attention enters through kv_heads, not the query heads.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64


def kv_cache(
    *,
    layers: ArrayLike,
    kv_heads: ArrayLike,
    head_dim: ArrayLike,
    seq_len: ArrayLike,
    batch_size: ArrayLike = 1,
    bytes_per_elem: ArrayLike = 2.0,
) -> dict[str, np.ndarray]:
    """Return bytes_per_token, gb_per_seq and total_gb."""
    layers_, heads, dim, seq, batch = broadcast(
        i64(layers), i64(kv_heads), i64(head_dim), i64(seq_len), i64(batch_size)
    )
    layers_, heads, dim, seq, batch, b = broadcast(
        layers_, heads, dim, seq, batch, f64(bytes_per_elem)
    )
    per_token = 2.0 * layers_ * heads * dim * b
    per_seq = per_token * seq / 1e9
    return {"bytes_per_token": per_token, "gb_per_seq": per_seq, "total_gb": per_seq * batch}
