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
    # When one label covers most cells, fill with it and copy the other in where it
    # applies: both are plain reference stores, about 35% faster than a lookup through a
    # two-entry table. Near an even mix the masked copy mispredicts its branch at every
    # other cell, and the table lookup is the faster of the two (measured at 10^4 and
    # 10^6 points).
    n_true = np.count_nonzero(cond)
    minority = min(n_true, cond.size - n_true)
    if 10 * minority > 3 * cond.size:
        table = np.array([if_false, if_true], dtype=object)
        return np.take(table, cond.view(np.uint8))
    out = np.empty(cond.shape, dtype=object)
    if 2 * n_true > cond.size:
        out.fill(if_true)
        np.copyto(out, np.array(if_false, dtype=object), where=~cond)
    else:
        out.fill(if_false)
        np.copyto(out, np.array(if_true, dtype=object), where=cond)
    return out
