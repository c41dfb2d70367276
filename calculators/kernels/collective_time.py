"""Time of one NCCL-style collective, from message size and topology.

Units: message_mb in MB (10^6 bytes, the per-rank buffer as nccl-tests counts it),
intra_gbs in GB/s per GPU in one direction (NVLink), nic_gbps in Gb/s per NIC, latency_us
per algorithm step; algbw_gbs and busbw_gbs in GB/s; time_ms in milliseconds.

Model (nccl-tests' PERFORMANCE.md definitions): algbw = size / time and busbw = algbw ×
factor, with factor 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and
all-to-all, and 1 for broadcast. Ring algorithms move factor × size bytes through every
rank, so time = factor × size / link + steps × latency, where the link is the slower of
the two stages. Inside one node that is NVLink (intra_gbs). Across nodes NCCL runs one
ring per NIC, and only one hop per ring and node leaves the node, so the node's network
share is nics_per_node × nic_gbps / 8: eight 400 Gb/s NICs (one per GPU, rail-optimised)
give 400 GB/s, one NIC per node gives 50 GB/s. A multi-node collective takes the slower
of its NVLink stage and its network stage, each at its own efficiency.

Efficiency per link (nccl-tests busbw / line rate): NVLink at ``protocol_efficiency``
(defaults ``efficiency.PROTOCOL_EFFICIENCY``: 0.82 for ring and tree, 0.61 for NVLS, fitted
on the single-node rows), the network at ``net_efficiency`` (default ``NET_EFFICIENCY``,
0.93: fitted on the repository's two multi-node rows, 192 GB/s busbw on DGX A100s with
8 × 200 Gb/s InfiniBand, NCCL issue 812, and 91 GB/s on two HGX A100s with 4 × 200 Gb/s,
nccl-tests issue 100; NCCL's maintainers quote the same range, 46-48 GB/s per 400 Gb/s
NDR NIC, nccl-tests issue 290). NVLink loses more to the protocol than InfiniBand does:
its messages are small stores with a header each, the NIC streams large RDMA writes.

``algorithm``:
- ring: 2(n-1) latency steps for all-reduce, n-1 for the others.
- tree (all-reduce): NCCL's tree is a chain inside each node and a double binary tree
  across nodes, 2·((g-1) + ⌈log2 nodes⌉) steps (tuning.cc: ``2 * ((nRanks/nNodes - 1) *
  intraLat + log2i(nNodes) * interLat)``), the same bytes as a ring at 0.92 of its
  bandwidth (tuning.cc: ``busBw * .92`` for tree all-reduce). Other collectives have no
  tree in NCCL; an explicit tree runs them at a ring's bandwidth in ⌈log2 n⌉ steps.
- nvls (all-reduce through NVSwitch multicast): each GPU sends and receives the buffer
  once, so the NVLink stage is size / link, in two steps; across nodes it is NCCL's
  NVLS-tree, the network stage as a tree's (factor × size) and 2 + 2·⌈log2 nodes⌉ steps.
  busbw then exceeds the link rate, as nccl-tests reports.
- auto (the default): the lowest modelled time among ring, tree and, where the NVLink
  domain has NVLS (``nvls`` true: NVSwitch with NVLink SHARP, H100 and later) and the job
  has at least two GPUs on a node, nvls,
  as NCCL's tuner does: ``ncclTopoGetAlgoTime`` models each algorithm as latency +
  bytes / bandwidth and the enqueue step takes the minimum (NVIDIA/nccl
  src/graph/tuning.cc and src/enqueue.cc). So a 1,984-GPU all-reduce is not charged
  3,966 ring latency steps: the tree's 2·(7 + 8) = 30 win.

All-to-all is not a ring: each GPU sends (n - g)/n of its buffer off the node, so the
node's g GPUs share its NICs for that part, and each rank posts n - 1 messages, one to
each peer, so it pays n - 1 latencies whatever ``algorithm`` says.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64, labels_where
from .efficiency import PROTOCOL_EFFICIENCY

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
ALGORITHMS = ("auto", "ring", "tree", "nvls")
#: Network (InfiniBand/RoCE) efficiency: busbw / line rate of the node's NICs (see above).
NET_EFFICIENCY = 0.93
#: NCCL's tree all-reduce bandwidth against a ring's (src/graph/tuning.cc).
TREE_BANDWIDTH = 0.92


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
    algorithm: ArrayLike = "auto",
    nvls: ArrayLike = True,
    protocol_efficiency: ArrayLike | None = None,
    net_efficiency: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Return factor, nodes, inter_gbs (the node's network share after its efficiency),
    algbw_gbs, busbw_gbs, time_ms, bottleneck ("intra" or "inter"), the algorithm used,
    each candidate's time (ring_ms, tree_ms, nvls_ms; nan where it does not apply) and the
    efficiencies used."""
    given_eff = protocol_efficiency is not None
    # Name comparisons on the inputs as given (usually one string), before broadcasting.
    op_in, algo_in = np.asarray(op, dtype=str), np.asarray(algorithm, dtype=str)
    (
        is_ar, is_a2a, is_bc, auto, want_tree, want_nvls,
        size_mb, n, g, intra_line, nics, nic, lat, nvls_ok, eff_given, net_eff,
    ) = broadcast(
        op_in == "all_reduce",
        op_in == "all_to_all",
        op_in == "broadcast",
        algo_in == "auto",
        algo_in == "tree",
        algo_in == "nvls",
        f64(message_mb),
        i64(gpus),
        i64(gpus_per_node),
        f64(intra_gbs),
        i64(nics_per_node),
        f64(nic_gbps),
        f64(latency_us),
        np.asarray(nvls, dtype=bool),
        f64(np.nan if protocol_efficiency is None else protocol_efficiency),
        f64(NET_EFFICIENCY if net_efficiency is None else net_efficiency),
    )  # fmt: skip
    n_f = n.astype(np.float64)
    g_eff = np.minimum(g, n).astype(np.float64)  # a job smaller than a node uses n GPUs of it
    # NCCL sets NVLS up only with at least two of the communicator's GPUs on a node
    # (src/transport/nvls.cc): one GPU per node (HSDP's cross-node groups) never gets it.
    nvls_ok = nvls_ok & (g_eff >= 2)
    nodes = np.ceil(n_f / g_eff)
    multi = nodes > 1
    log_nodes = np.ceil(np.log2(nodes))

    share = (n_f - 1) / n_f
    factor = np.where(is_ar, 2 * share, np.where(is_bc, 1.0, share))
    size_gb = size_mb / 1e3
    lat_s = lat / 1e6

    def eff_of(name: str) -> np.ndarray:
        return np.where(given_eff, eff_given, PROTOCOL_EFFICIENCY[name])

    ring_eff, tree_eff, nvls_eff = eff_of("ring"), eff_of("tree"), eff_of("nvls")
    inter = nics * nic / 8.0 * net_eff  # GB/s leaving one node, after the network's efficiency
    inter_s = np.where(multi, factor * size_gb / inter, 0.0)  # ring, tree and NVLS-tree alike
    inf = np.inf  # a candidate no cell can use is not computed

    # Ring: every rank moves factor × size through the slower stage; 2(n-1) or n-1 steps.
    ring_intra_s = factor * size_gb / (intra_line * ring_eff)
    ring_steps = np.where(is_ar, 2 * (n_f - 1), n_f - 1)
    ring_s = np.maximum(ring_intra_s, inter_s) + ring_steps * lat_s
    # Tree: the same bytes at 0.92 of the bandwidth; all-reduce in NCCL's chain + tree steps.
    tree_bw: np.ndarray | float = 1.0
    tree_intra_s: np.ndarray | float = inf
    tree_s: np.ndarray | float = inf
    if np.any(want_tree | (auto & is_ar)):
        tree_bw = np.where(is_ar, TREE_BANDWIDTH, 1.0)
        tree_intra_s = factor * size_gb / (intra_line * tree_eff * tree_bw)
        tree_steps = np.where(
            is_ar, 2.0 * ((g_eff - 1) + log_nodes), np.ceil(np.log2(np.maximum(n_f, 2.0)))
        )
        tree_s = np.maximum(tree_intra_s, inter_s / tree_bw) + tree_steps * lat_s
    # NVLS (all-reduce only): the buffer once each way through the switch; NVLS-tree across
    # nodes. Other collectives asked for nvls run as a ring.
    nvls_here = is_ar & (want_nvls | (auto & nvls_ok))
    nvls_intra_s: np.ndarray | float = inf
    nvls_s: np.ndarray | float = inf
    if np.any(nvls_here):
        nvls_intra_s = size_gb / (intra_line * nvls_eff)
        nvls_s = np.maximum(nvls_intra_s, inter_s) + (2.0 + 2.0 * log_nodes) * lat_s
    # All-to-all: the on-node part over NVLink, the off-node part of all g GPUs over the
    # NICs; one message, so one latency, to each of the n - 1 peers.
    a2a_intra_s: np.ndarray | float = 0.0
    a2a_inter_s: np.ndarray | float = 0.0
    a2a_s: np.ndarray | float = 0.0
    if np.any(is_a2a):
        a2a_intra_s = (g_eff - 1) / n_f * size_gb / (intra_line * ring_eff)
        a2a_inter_s = np.where(multi, g_eff * (n_f - g_eff) / n_f * size_gb / inter, 0.0)
        a2a_s = np.maximum(a2a_intra_s, a2a_inter_s) + (n_f - 1) * lat_s

    # auto: the least of the candidates that apply (ties go to ring, then tree).
    auto_tree = is_ar & (tree_s < ring_s)
    auto_nvls = is_ar & nvls_ok & (nvls_s < np.where(auto_tree, tree_s, ring_s))
    use_tree = (want_tree | (auto & auto_tree & ~auto_nvls)) & ~is_a2a
    use_nvls = (want_nvls | (auto & auto_nvls)) & is_ar
    # One code per cell, 0 ring, 1 tree, 2 nvls, 3 all-to-all, picks every per-algorithm
    # figure in one pass each (np.choose) rather than three nested np.where.
    code = np.array(use_tree, dtype=np.int8)  # an array even for scalar inputs
    code[np.asarray(use_nvls)] = 2
    code[np.asarray(is_a2a)] = 3

    one = int(code.flat[0]) if code.size and code.min() == code.max() else None

    def pick(*choices: np.ndarray | float) -> np.ndarray:
        if one is not None:  # the usual sweep: one algorithm in every cell, no gather
            return np.broadcast_to(choices[one], code.shape)
        return np.choose(code, [np.asarray(c) for c in choices])

    time_s = pick(ring_s, tree_s, nvls_s, a2a_s)
    intra_s = pick(ring_intra_s, tree_intra_s, nvls_intra_s, a2a_intra_s)
    stage_inter_s = pick(inter_s, inter_s / tree_bw, inter_s, a2a_inter_s)
    used = np.empty(code.shape, dtype=object)  # 0-d too: np.take would return a bare str
    np.take(np.array(["ring", "tree", "nvls", "all_to_all"], dtype=object), code, out=used)
    link_eff = pick(ring_eff, tree_eff, nvls_eff, ring_eff)
    with np.errstate(divide="ignore", invalid="ignore"):
        algbw = np.where(time_s > 0, size_gb / time_s, 0.0)
    tree_out = np.where(is_ar, tree_s, np.nan) * 1e3
    nvls_out = np.where(nvls_here, nvls_s, np.nan) * 1e3
    return {
        "factor": factor,
        "nodes": nodes.astype(np.int64),
        "inter_gbs": np.where(multi, inter, np.nan),
        "algbw_gbs": algbw,
        "busbw_gbs": algbw * factor,
        "time_ms": time_s * 1e3,
        "bottleneck": labels_where(stage_inter_s > intra_s, "inter", "intra"),
        "algorithm_used": used,
        "ring_ms": np.where(is_a2a, np.nan, ring_s * 1e3),
        "tree_ms": tree_out,
        "nvls_ms": nvls_out,
        "link_efficiency": link_eff,
        "net_efficiency": np.where(multi, net_eff, np.nan),
    }
