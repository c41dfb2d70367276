"""How many sequences a paged KV cache holds, against reserving every sequence's
maximum length up front.

Units: device_memory_gb, weights_gb and reserve_gb in GB (1e9 bytes),
gpu_memory_utilization a fraction, kv_bytes_per_token in bytes, block_size, mean_tokens
and max_tokens in tokens; kv_pool_gb in GB; blocks, tokens and sequences counts; waste
fractions of the memory a sequence holds.

vLLM's budget: the engine may use device_memory × gpu_memory_utilization; weights and
the reserve (activations, CUDA graphs) come off the top and the rest becomes KV blocks
of block_size tokens. A paged sequence holds ⌈mean_tokens / block_size⌉ blocks, wasting
only the unfilled tail of its last block. A contiguous allocator must reserve max_tokens
per sequence, wasting (max - mean) / max of it on an average sequence.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, safe_div
from .serving_estimate import kv_bytes_of, precision_bytes


def paged_kv_capacity(
    *,
    device_memory_gb: ArrayLike,
    weights_gb: ArrayLike,
    mean_tokens: ArrayLike,
    max_tokens: ArrayLike,
    kv_bytes_per_token: ArrayLike | None = None,
    gpu_memory_utilization: ArrayLike = 0.9,
    reserve_gb: ArrayLike = 0.0,
    block_size: ArrayLike = 16,
    layers: ArrayLike | None = None,
    kv_heads: ArrayLike | None = None,
    head_dim: ArrayLike | None = None,
    kv_lora_rank: ArrayLike | None = None,
    rope_head_dim: ArrayLike | None = None,
    kv_precision: ArrayLike = "bf16",
) -> dict[str, np.ndarray]:
    """Return kv_bytes_per_token, kv_pool_gb, blocks, tokens_capacity, blocks_per_seq,
    max_seqs_paged, max_seqs_reserved, waste_fraction_paged and waste_fraction_reserved.

    kv_bytes_per_token is given, or derived from the architecture (layers with kv_heads
    and head_dim, or with kv_lora_rank and rope_head_dim for MLA) at kv_precision."""
    if kv_bytes_per_token is None:
        if layers is None:
            raise ValueError("give kv_bytes_per_token or the architecture (layers, ...)")
        kv_bytes_per_token = kv_bytes_of(
            layers=layers,
            kv_heads=kv_heads,
            head_dim=head_dim,
            kv_lora_rank=kv_lora_rank,
            rope_head_dim=rope_head_dim,
            bytes_per_elem=precision_bytes(kv_precision),
        )
    mem, util, w, reserve, kvb, bs, mean, mx = broadcast(
        f64(device_memory_gb),
        f64(gpu_memory_utilization),
        f64(weights_gb),
        f64(reserve_gb),
        f64(kv_bytes_per_token),
        f64(block_size),
        f64(mean_tokens),
        f64(max_tokens),
    )
    pool_gb = np.maximum(mem * util - w - reserve, 0.0)
    pool_bytes = pool_gb * 1e9
    blocks = np.floor(safe_div(pool_bytes, bs * kvb))
    blocks_per_seq = np.ceil(mean / bs)
    held_tokens = blocks_per_seq * bs
    return {
        "kv_bytes_per_token": kvb,
        "kv_pool_gb": pool_gb,
        "blocks": blocks.astype(np.int64),
        "tokens_capacity": (blocks * bs).astype(np.int64),
        "blocks_per_seq": blocks_per_seq.astype(np.int64),
        "max_seqs_paged": np.floor(blocks / blocks_per_seq).astype(np.int64),
        "max_seqs_reserved": np.floor(safe_div(pool_bytes, mx * kvb)).astype(np.int64),
        "waste_fraction_paged": (held_tokens - mean) / held_tokens,
        "waste_fraction_reserved": (mx - mean) / mx,
    }
