"""Latency of a partitioned graph: GPU kernels, CPU-fallback nodes and the copies plus
synchronisations at every partition boundary.

Units: *_us in microseconds, transfer_mb in MB (1e6 bytes) per copy, pcie_gbs in GB/s
(1e9 bytes/s), outputs in milliseconds and shares as fractions of total_ms.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64, i64, safe_div


def fallback_latency(
    *,
    gpu_kernels: ArrayLike,
    gpu_kernel_us: ArrayLike,
    cpu_nodes: ArrayLike = 0,
    cpu_node_us: ArrayLike = 0.0,
    transfers: ArrayLike = 0,
    transfer_mb: ArrayLike = 0.0,
    launch_us: ArrayLike = 5.0,
    pcie_gbs: ArrayLike = 25.0,
    sync_us: ArrayLike = 10.0,
) -> dict[str, np.ndarray]:
    """Return operators (int), gpu_ms, cpu_ms, copy_ms, total_ms and gpu_share,
    cpu_share, copy_share."""
    gk, cn, tr = broadcast(i64(gpu_kernels), i64(cpu_nodes), i64(transfers))
    gk_us, launch, cn_us, mb, pcie, sync = broadcast(
        f64(gpu_kernel_us),
        f64(launch_us),
        f64(cpu_node_us),
        f64(transfer_mb),
        f64(pcie_gbs),
        f64(sync_us),
    )
    gk, cn, tr, gk_us, launch, cn_us, mb, pcie, sync = broadcast(
        gk, cn, tr, gk_us, launch, cn_us, mb, pcie, sync
    )

    gpu_ms = gk * (gk_us + launch) / 1000.0
    cpu_ms = cn * cn_us / 1000.0
    # MB / (GB/s) = ms; every copy also pays a host-device synchronisation.
    copy_ms = tr * (safe_div(mb, pcie) + sync / 1000.0)
    total = gpu_ms + cpu_ms + copy_ms
    return {
        "operators": gk + cn,
        "gpu_ms": gpu_ms,
        "cpu_ms": cpu_ms,
        "copy_ms": copy_ms,
        "total_ms": total,
        "gpu_share": safe_div(gpu_ms, total),
        "cpu_share": safe_div(cpu_ms, total),
        "copy_share": safe_div(copy_ms, total),
    }
