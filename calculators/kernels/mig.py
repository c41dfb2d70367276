"""MIG partitioning: what one profile gives an instance and how many replicas fit.

Units: model_gb in GB (1e9 bytes); instance_memory_gb in GB as the profile's name gives
it (nominal); usable_memory_gib in GiB (2**30 bytes) as nvidia-smi mig -lgip reports it,
and usable_memory_gb the same memory in GB, so the fit compares GB with GB; SM counts and
slice counts are integers; fractions of 7 compute and 8 memory slices.

Profiles are looked up from ``mig_profiles.MIG_PROFILES`` (data in this package) once
per distinct (gpu, profile) pair, never per point, so a sweep stays vectorised.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import broadcast, f64
from .mig_profiles import COMPUTE_SLICES, GIB_IN_GB, MEMORY_SLICES, MIG_GPU_SMS, mig_profile


def mig(
    *, gpu: ArrayLike, profile: ArrayLike, model_gb: ArrayLike | None = None
) -> dict[str, np.ndarray]:
    """Return compute_slices, compute_fraction, memory_slices, memory_fraction,
    instance_memory_gb, usable_memory_gib and usable_memory_gb (nan if unknown),
    instance_sms, idle_sms, total_sms, max_instances and, given model_gb, model_fits and
    replicas (one replica per isolated instance; 0 when the model does not fit). SM
    outputs are integers unless a profile's SM count is unknown (floats with nan)."""
    extra = [f64(model_gb)] if model_gb is not None else []
    g, prof, *model = broadcast(np.asarray(gpu, dtype=str), np.asarray(profile, dtype=str), *extra)
    keys = np.char.add(np.char.add(g, "|"), prof)
    uniq, inverse = np.unique(keys, return_inverse=True)
    nan = float("nan")
    rows = []
    for key in uniq.tolist():  # one row per distinct profile, not per point
        gpu_slug, name = key.split("|", 1)
        p = mig_profile(gpu_slug, name)
        total = MIG_GPU_SMS.get(gpu_slug)
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
    cs, ms, nominal, usable_gib, sms, total, max_inst = np.moveaxis(table, -1, 0)

    idle = total - max_inst * sms
    if np.isnan(sms).any() or np.isnan(total).any():
        instance_sms, idle_sms, total_sms = sms, idle, total
    else:
        instance_sms, idle_sms, total_sms = (a.astype(np.int64) for a in (sms, idle, total))
    usable_gb = usable_gib * GIB_IN_GB
    out = {
        "compute_slices": cs.astype(np.int64),
        "compute_fraction": cs / COMPUTE_SLICES,
        "memory_slices": ms.astype(np.int64),
        "memory_fraction": ms / MEMORY_SLICES,
        "instance_memory_gb": nominal,
        "usable_memory_gib": usable_gib,
        "usable_memory_gb": usable_gb,
        "instance_sms": instance_sms,
        "idle_sms": idle_sms,
        "total_sms": total_sms,
        "max_instances": max_inst.astype(np.int64),
    }
    if model:
        # GB against GB: what the driver exposes where we know it, else the nominal size
        # (the smaller reading, so an unknown never claims a fit it cannot promise).
        capacity_gb = np.where(np.isnan(usable_gb), nominal, usable_gb)
        fits = model[0] <= capacity_gb
        out.update(model_fits=fits, replicas=np.where(fits, max_inst, 0).astype(np.int64))
    return out
