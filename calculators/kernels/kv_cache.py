"""KV cache size: what each layer caches per token, times the tokens it keeps.

Units: layers, kv_heads, head_dim, kv_lora_rank, rope_head_dim, seq_len (tokens),
batch_size (sequences), local_layers and local_window (tokens) are counts; bytes_per_elem
in bytes; bytes_per_token in bytes; gb_per_seq and total_gb in GB (1e9 bytes).

Per layer and token, MHA/GQA caches a key and a value per KV head, 2·kv_heads·head_dim·b
bytes (grouped-query attention enters through kv_heads, not the query heads); MLA
(DeepSeek) caches one latent and one RoPE key, (kv_lora_rank + rope_head_dim)·b bytes.
bytes_per_token counts every layer. Local (sliding-window or chunked) layers keep at most
local_window tokens, so a sequence holds
(layers − local_layers)·seq_len + local_layers·min(seq_len, local_window) layer-tokens.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64


def kv_cache(
    *,
    layers: ArrayLike,
    seq_len: ArrayLike,
    kv_heads: ArrayLike | None = None,
    head_dim: ArrayLike | None = None,
    batch_size: ArrayLike = 1,
    bytes_per_elem: ArrayLike = 2.0,
    kv_lora_rank: ArrayLike | None = None,
    rope_head_dim: ArrayLike = 0,
    local_layers: ArrayLike = 0,
    local_window: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Return bytes_per_token, gb_per_seq and total_gb. Give kv_heads and head_dim
    (MHA/GQA) or kv_lora_rank (MLA, with rope_head_dim)."""
    if kv_lora_rank is not None:
        width = 1.0 * (i64(kv_lora_rank) + i64(rope_head_dim))  # latent + RoPE key
    elif kv_heads is not None and head_dim is not None:
        width = 2.0 * i64(kv_heads) * i64(head_dim)  # a key and a value per KV head
    else:
        raise ValueError("kv_cache needs kv_heads and head_dim, or kv_lora_rank")
    window = i64(seq_len) if local_window is None else i64(local_window)
    # rope_head_dim joins the broadcast even where MHA/GQA ignores it, so a sweep over
    # it keeps its shape.
    n_layers, seq, batch, b, w, n_local, win, _rope = broadcast(
        i64(layers),
        i64(seq_len),
        i64(batch_size),
        f64(bytes_per_elem),
        width,
        i64(local_layers),
        window,
        i64(rope_head_dim),
    )
    per_layer_token = w * b
    layer_tokens = (n_layers - n_local) * seq + n_local * np.minimum(seq, win)
    per_seq = per_layer_token * layer_tokens / 1e9
    return {
        "bytes_per_token": n_layers * per_layer_token,
        "gb_per_seq": per_seq,
        "total_gb": per_seq * batch,
    }
