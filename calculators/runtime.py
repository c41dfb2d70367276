"""Process tuning for processes that run large sweeps (the Celery worker, benchmarks).

A 10^6-point sweep allocates a dozen 8 MB arrays. glibc serves blocks that large with
mmap and hands them back to the kernel on free, so every call faults its memory in
again page by page; on small VMs that costs more than the arithmetic. Raising the mmap
and trim thresholds keeps freed arrays in the heap for the next call. Memory stays
bounded by the largest sweep the process has run (validation caps sweeps at 10^6).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_MAX = 32 * 1024 * 1024  # glibc's ceiling on 64-bit
TRIM_THRESHOLD = 512 * 1024 * 1024


def keep_freed_memory() -> bool:
    """Ask glibc to reuse freed large blocks; returns False where that is not possible."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name)
        ok = libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX) == 1
        ok = libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
    except (OSError, AttributeError):  # not glibc (musl, macOS)
        return False
    if not ok:
        logger.info("mallopt refused the calculator allocator settings")
    return ok
