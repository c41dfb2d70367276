"""MIG partitioning: what one profile gives an instance and how many replicas fit.

Units: model_gb in GB (1e9 bytes), instance_memory_gb in GB (the profile's nominal
size), usable_memory_gib in GiB (2**30 bytes, as nvidia-smi reports), SM counts and
slice counts are integers; fractions of 7 compute and 8 memory slices.

Profiles are looked up from ``calculators.presets.MIG_PROFILES`` once per distinct
(gpu, profile) pair, never per point, so a sweep stays vectorised.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from calculators.presets import COMPUTE_SLICES, GIB_IN_GB, GPUS, MEMORY_SLICES, mig_profile

from ._common import broadcast, f64


def mig(*, gpu: ArrayLike, profile: ArrayLike, model_gb: ArrayLike) -> dict[str, np.ndarray]:
    """Return compute_slices, compute_fraction, memory_slices, memory_fraction,
    instance_memory_gb, usable_memory_gib (nan if unknown), instance_sms, idle_sms,
    total_sms, max_instances, model_fits and replicas (one replica per instance, each in
    its own isolated instance; 0 when the model does not fit). SM outputs are integers
    unless a profile's SM count is unknown, in which case they are floats with nan."""
    g, prof, model = broadcast(
        np.asarray(gpu, dtype=str), np.asarray(profile, dtype=str), f64(model_gb)
    )
    keys = np.char.add(np.char.add(g, "|"), prof)
    uniq, inverse = np.unique(keys, return_inverse=True)
    rows = []
    for key in uniq.tolist():  # one row per distinct profile, not per point
        gpu_slug, name = key.split("|", 1)
        p = mig_profile(gpu_slug, name)
        nan = float("nan")
        total = GPUS[gpu_slug].sms
        rows.append(
            [
                p.compute_slices,
                p.memory_slices,
                p.nominal_gb,
                nan if p.usable_gib is None else p.usable_gib,
                nan if p.sms is None else p.sms,
                nan if total is None else total,
                p.max_instances,
            ]
        )
    table = np.asarray(rows, dtype=np.float64)[inverse.reshape(-1)].reshape(g.shape + (7,))
    cs, ms, nominal, usable, sms, total, max_inst = np.moveaxis(table, -1, 0)

    compute_slices = cs.astype(np.int64)
    memory_slices = ms.astype(np.int64)
    max_instances = max_inst.astype(np.int64)
    idle = total - max_inst * sms
    if np.isnan(sms).any() or np.isnan(total).any():
        instance_sms, idle_sms, total_sms = sms, idle, total
    else:
        instance_sms, idle_sms = sms.astype(np.int64), idle.astype(np.int64)
        total_sms = total.astype(np.int64)
    # Judge the fit on what the driver actually exposes where we know it.
    capacity_gb = np.where(np.isnan(usable), nominal, usable * GIB_IN_GB)
    fits = model <= capacity_gb
    return {
        "compute_slices": compute_slices,
        "compute_fraction": cs / COMPUTE_SLICES,
        "memory_slices": memory_slices,
        "memory_fraction": ms / MEMORY_SLICES,
        "instance_memory_gb": nominal,
        "usable_memory_gib": usable,
        "instance_sms": instance_sms,
        "idle_sms": idle_sms,
        "total_sms": total_sms,
        "max_instances": max_instances,
        "model_fits": fits,
        "replicas": np.where(fits, max_instances, 0).astype(np.int64),
    }
