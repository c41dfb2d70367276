"""Weight memory, part by part, and the VRAM to provision for it.

Units: params_b in billions of parameters; vocab and hidden are counts; bytes_per_param,
embedding_bytes and lm_head_bytes in bytes per parameter; group_size in parameters per
quantisation group; scale_bits and zero_point_bits in bits per group; headroom and
scale_overhead as fractions; outputs in GB (1e9 bytes).

    embedding_params = vocab·hidden (0 when vocab or hidden is not given)
    lm_head_params   = 0 when tied to the embedding, else vocab·hidden
    layer_params     = params − embedding_params − lm_head_params
    layers_gb        = layer_params·bytes_per_param
    scales_gb        = layer_params·(scale_bits + zero_point_bits) / 8 / group_size
                       (only with a group_size: one scale, and a zero point where the
                       format has one, per group of quantised weights)
    weights_gb       = (embedding_gb + layers_gb + lm_head_gb + scales_gb)·(1 + scale_overhead)
    recommended_vram_gb = weights_gb·(1 + headroom)

The embedding and lm_head keep their own widths (usually BF16, 2 bytes) because
quantisers leave them unquantised.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64


def weight_memory(
    *,
    params_b: ArrayLike,
    bytes_per_param: ArrayLike,
    headroom: ArrayLike = 0.5,
    scale_overhead: ArrayLike = 0.0,
    vocab: ArrayLike | None = None,
    hidden: ArrayLike | None = None,
    tied_embeddings: ArrayLike = False,
    embedding_bytes: ArrayLike = 2.0,
    lm_head_bytes: ArrayLike = 2.0,
    group_size: ArrayLike | None = None,
    scale_bits: ArrayLike = 16.0,
    zero_point_bits: ArrayLike = 0.0,
) -> dict[str, np.ndarray]:
    """Return embedding_gb, layers_gb, lm_head_gb, scales_gb, weights_gb and
    recommended_vram_gb (and layer_params_b, the parameters inside the layers)."""
    table = 0.0 if vocab is None or hidden is None else f64(vocab) * f64(hidden) / 1e9
    scale_bytes_per_param = (
        0.0
        if group_size is None
        else (f64(scale_bits) + f64(zero_point_bits)) / 8.0 / f64(group_size)
    )
    p, bpp, head, extra, embed_p, tied, eb, lb, sbpp = broadcast(
        f64(params_b),
        f64(bytes_per_param),
        f64(headroom),
        f64(scale_overhead),
        f64(table),
        np.asarray(tied_embeddings, dtype=bool),
        f64(embedding_bytes),
        f64(lm_head_bytes),
        f64(scale_bytes_per_param),
    )
    lm_head_p = np.where(tied, 0.0, embed_p)
    layer_p = p - embed_p - lm_head_p
    embedding_gb = embed_p * eb
    lm_head_gb = lm_head_p * lb
    layers_gb = layer_p * bpp
    scales_gb = layer_p * sbpp
    weights = (embedding_gb + layers_gb + lm_head_gb + scales_gb) * (1.0 + extra)
    return {
        "layer_params_b": layer_p,
        "embedding_gb": embedding_gb,
        "layers_gb": layers_gb,
        "lm_head_gb": lm_head_gb,
        "scales_gb": scales_gb,
        "weights_gb": weights,
        "recommended_vram_gb": weights * (1.0 + head),
    }
