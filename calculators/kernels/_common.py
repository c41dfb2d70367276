"""Helpers shared by the kernels. NumPy only."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]


def f64(x: ArrayLike) -> Floats:
    return np.asarray(x, dtype=np.float64)


def i64(x: ArrayLike) -> Ints:
    return np.asarray(x, dtype=np.int64)


def broadcast(*arrays: Any) -> list[np.ndarray]:
    """Broadcast inputs to one shape so every output keeps it (a 0-d result for scalars)."""
    return list(np.broadcast_arrays(*[np.asarray(a) for a in arrays]))


def safe_div(num: ArrayLike, den: ArrayLike) -> Floats:
    """num / den with inf (or nan for 0/0) where den is 0, without NumPy warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.true_divide(f64(num), f64(den)))


def shaped(shape: tuple[int, ...], **arrays: Any) -> dict[str, np.ndarray]:
    """Give every output the broadcast shape (read-only views where an output is constant,
    so a scalar never gets copied a million times). An output that already has the shape
    is returned as it is: np.broadcast_to costs microseconds a call, which adds up on
    small grids."""
    out = {}
    strides = (0,) * len(shape)
    for k, v in arrays.items():
        v = np.asarray(v)
        if v.shape == shape:
            out[k] = v
        elif v.ndim == 0 and v.dtype != object:
            # A scalar: a zero-stride view of its one element, built directly (about 2 µs
            # less than np.broadcast_to, which adds up over a kernel's dozen outputs).
            view = np.ndarray(shape, v.dtype, buffer=v, strides=strides)
            view.flags.writeable = False
            out[k] = view
        else:
            out[k] = np.broadcast_to(v, shape)
    return out


def labels_where(cond: ArrayLike, if_true: str, if_false: str) -> np.ndarray:
    """np.where(cond, if_true, if_false) for string labels, as an object array of the two
    label strings. At 10^6 points a fixed-width unicode array is 28 MB of fresh memory to
    fault in and fill; references to two shared str objects are 8 MB, several times
    faster, and still compare, index and serialise as plain str."""
    cond = np.asarray(cond, dtype=bool)
    # One label filled in, then the other copied where it applies: both passes are
    # reference stores, about 35% faster than np.take through a two-entry table (which
    # pays an index check and a table lookup per element) at 10^4 and 10^6 points.
    # Filled with the more common label, so the masked pass writes the fewer cells.
    out = np.empty(cond.shape, dtype=object)
    if 2 * np.count_nonzero(cond) > cond.size:
        out.fill(if_true)
        np.copyto(out, np.array(if_false, dtype=object), where=~cond)
    else:
        out.fill(if_false)
        np.copyto(out, np.array(if_true, dtype=object), where=cond)
    return out
