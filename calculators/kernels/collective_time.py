"""Time of one NCCL-style collective, from message size and topology.

Units: message_mb in MB (10^6 bytes, the per-rank buffer as nccl-tests counts it),
intra_gbs in GB/s per GPU in one direction (NVLink), nic_gbps in Gb/s per NIC, latency_us
per algorithm step; algbw_gbs and busbw_gbs in GB/s; time_ms in milliseconds.

Model (nccl-tests' PERFORMANCE.md definitions): algbw = size / time and busbw = algbw ×
factor, with factor 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and
all-to-all, and 1 for broadcast. Ring algorithms move factor × size bytes through every
rank, so time = factor × size / link + steps × latency, where the link is the slowest
hop. Inside one node that is NVLink (intra_gbs). Across nodes NCCL runs one ring per
NIC, and only one hop per ring and node leaves the node, so the node's network share is
nics_per_node × nic_gbps / 8: eight 400 Gb/s NICs (one per GPU, rail-optimised) give
400 GB/s, one NIC per node gives 50 GB/s. All-to-all is not a ring: each GPU sends
(n - g)/n of its buffer off the node, so the node's g GPUs share its NICs for that part.

Every link runs at ``protocol_efficiency`` of its line rate (defaults fitted on
nccl-tests results, ``efficiency.PROTOCOL_EFFICIENCY``: 0.82 for ring and tree, 0.61 for
NVLS). ``algorithm``: ring (2(n-1) latency steps for all-reduce), tree (2·log2 n steps,
the same bytes), nvls (all-reduce through NVSwitch multicast: each GPU sends and
receives the buffer once, so time = size / link, two steps; busbw then exceeds the
link rate, as nccl-tests reports).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64, labels_where
from .efficiency import PROTOCOL_EFFICIENCY

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
ALGORITHMS = ("ring", "tree", "nvls")


def collective_time(
    *,
    op: ArrayLike,
    message_mb: ArrayLike,
    gpus: ArrayLike,
    gpus_per_node: ArrayLike = 8,
    intra_gbs: ArrayLike = 450.0,
    nics_per_node: ArrayLike = 8,
    nic_gbps: ArrayLike = 400.0,
    latency_us: ArrayLike = 5.0,
    algorithm: ArrayLike = "ring",
    protocol_efficiency: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Return factor, nodes, inter_gbs (the node's network share), algbw_gbs, busbw_gbs,
    time_ms and bottleneck ("intra" or "inter")."""
    algo = np.asarray(algorithm, dtype=str)
    if protocol_efficiency is None:
        eff = np.full(algo.shape, PROTOCOL_EFFICIENCY["ring"])
        for name, value in PROTOCOL_EFFICIENCY.items():
            eff = np.where(algo == name, value, eff)
    else:
        eff = f64(protocol_efficiency)
    op_, algo, eff, size_mb, n, g, intra, nics, nic, lat = broadcast(
        np.asarray(op, dtype=str),
        algo,
        eff,
        f64(message_mb),
        i64(gpus),
        i64(gpus_per_node),
        f64(intra_gbs),
        i64(nics_per_node),
        f64(nic_gbps),
        f64(latency_us),
    )
    n_f = n.astype(np.float64)
    g_eff = np.minimum(g, n).astype(np.float64)  # a job smaller than a node uses n GPUs of it
    nodes = np.ceil(n_f / g_eff)
    multi = nodes > 1

    is_ar = op_ == "all_reduce"
    is_a2a = op_ == "all_to_all"
    is_bc = op_ == "broadcast"
    share = (n_f - 1) / n_f
    factor = np.where(is_ar, 2 * share, np.where(is_bc, 1.0, share))
    # Tree: the same bytes as a ring for a large message, in 2·log2(n) latency steps.
    # NVLS (all-reduce on an NVSwitch): each GPU sends its buffer once and receives the
    # result once, in two steps; other collectives run as a ring.
    is_tree = algo == "tree"
    nvls = (algo == "nvls") & is_ar
    ring_steps = np.where(is_ar, 2 * (n_f - 1), n_f - 1)
    tree_steps = np.where(is_ar, 2.0, 1.0) * np.ceil(np.log2(np.maximum(n_f, 2.0)))
    steps = np.where(nvls, 2.0, np.where(is_tree, tree_steps, ring_steps))

    size_gb = size_mb / 1e3
    # Links at the protocol's efficiency: large messages reach that fraction of line rate.
    intra = intra * eff
    inter = nics * nic / 8.0 * eff  # GB/s leaving one node
    # Ring: every rank moves factor × size through the slowest hop of the ring.
    ring_intra_s = np.where(nvls, size_gb / intra, factor * size_gb / intra)
    ring_inter_s = np.where(multi, factor * size_gb / inter, 0.0)
    # All-to-all: the on-node part over NVLink, the off-node part of all g GPUs over the NICs.
    a2a_intra_s = (g_eff - 1) / n_f * size_gb / intra
    a2a_inter_s = np.where(multi, g_eff * (n_f - g_eff) / n_f * size_gb / inter, 0.0)
    intra_s = np.where(is_a2a, a2a_intra_s, ring_intra_s)
    inter_s = np.where(is_a2a, a2a_inter_s, ring_inter_s)

    time_s = np.maximum(intra_s, inter_s) + steps * lat / 1e6
    with np.errstate(divide="ignore", invalid="ignore"):
        algbw = np.where(time_s > 0, size_gb / time_s, 0.0)
    return {
        "factor": factor,
        "nodes": nodes.astype(np.int64),
        "inter_gbs": np.where(multi, inter, np.nan),
        "algbw_gbs": algbw,
        "busbw_gbs": algbw * factor,
        "time_ms": time_s * 1e3,
        "bottleneck": labels_where(inter_s > intra_s, "inter", "intra"),
        "link_efficiency": eff,
    }
