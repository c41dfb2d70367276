"""One pure NumPy function per calculator, keyed by the public slug.

Kernels take keyword arguments (scalars or arrays that broadcast) and return a dict of
arrays in the broadcast shape. They import nothing from Django.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .attention_intensity import attention_intensity
from .availability import availability
from .break_even import break_even
from .collective_time import collective_time
from .decode_bound import decode_bound
from .diffusion_passes import diffusion_passes
from .fallback_latency import fallback_latency
from .kv_cache import kv_cache
from .linear_params import linear_params
from .local_fit import local_fit
from .mig import mig
from .moe_active import moe_active
from .paged_kv_capacity import paged_kv_capacity
from .prefill import prefill
from .queueing import queueing
from .response_time import response_time
from .roofline import roofline
from .serving_estimate import serving_estimate
from .sliding_window import sliding_window
from .sparsity_2_4 import sparsity_2_4
from .speculative_decoding import speculative_decoding
from .training_budget import training_budget
from .weight_memory import weight_memory

Kernel = Callable[..., dict[str, np.ndarray]]

KERNELS: dict[str, Kernel] = {
    "roofline": roofline,
    "decode_bound": decode_bound,
    "mig": mig,
    "fallback_latency": fallback_latency,
    "weight_memory": weight_memory,
    "kv_cache": kv_cache,
    "response_time": response_time,
    "availability": availability,
    "break_even": break_even,
    "attention_intensity": attention_intensity,
    "sliding_window": sliding_window,
    "linear_params": linear_params,
    "moe_active": moe_active,
    "sparsity_2_4": sparsity_2_4,
    "local_fit": local_fit,
    "diffusion_passes": diffusion_passes,
    "collective_time": collective_time,
    "speculative_decoding": speculative_decoding,
    "queueing": queueing,
    "training_budget": training_budget,
    "prefill": prefill,
    "serving_estimate": serving_estimate,
    "paged_kv_capacity": paged_kv_capacity,
}

__all__ = ["KERNELS", "Kernel", *KERNELS]
