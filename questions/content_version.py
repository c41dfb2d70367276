"""One number that moves whenever anything a page shows may have changed.

Whole-page caches key on it (``inferview.pages.cache``), so a publish, an edit, an import,
a reorder or a comment retires every cached page at once instead of each page tracking
what it depends on. It lives in the shared cache, so every web process and the importer
see the same number. Content models bump it on save and delete (connected in
``questions.apps``); the community app connects its comments the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache, caches

logger = logging.getLogger(__name__)
KEY = "content-version"
#: How long a process may go on using the version it last read (``recent``).
LOCAL_SECONDS = 1
T = TypeVar("T")


def current() -> int:
    """The version, or 0 when the cache cannot be reached (callers then skip caching)."""
    try:
        value = cache.get(KEY)
        if value is None:
            cache.add(KEY, 1, timeout=None)
            value = cache.get(KEY) or 1
        return int(value)
    except Exception:  # a cache outage must not fail a page or an import
        logger.warning("content version unavailable: cache unreachable", exc_info=True)
        return 0


def recent() -> int:
    """The version as this process read it at most ``LOCAL_SECONDS`` ago (0 when the cache
    cannot be reached). For the anonymous page cache, which serves a page whole: reading
    the shared number on every request was most of what a cached page cost. A bump made
    in this process is seen at once; one made in another process, within the second."""
    local = caches["local"]
    value = local.get(KEY)
    if value is None:
        value = current()
        if value:
            local.set(KEY, value, LOCAL_SECONDS)
    return value


def bump(*args: Any, **kwargs: Any) -> None:
    """Signal receiver and plain function alike: retire every cached page. A cache that
    cannot be reached is logged and skipped: cached pages then expire on their timeout."""
    try:
        try:
            cache.incr(KEY)
        except ValueError:  # not set yet (or evicted): start above anything cached before
            cache.set(KEY, current() + 1, timeout=None)
    except Exception:
        logger.warning("content version not moved: cache unreachable", exc_info=True)
    finally:  # after the move, so no thread of this process re-reads the old number
        caches["local"].delete(KEY)


#: Derived data keyed on the version lives this long at most (a bump retires it sooner).
DERIVED_TIMEOUT = 60 * 60


def cached(name: str, compute: Callable[[], T], *, timeout: int = DERIVED_TIMEOUT) -> T:
    """``compute()``'s value, shared by every process until the content version moves.

    For data that every reader sees the same (a question's up-next candidates, a page of
    its discussion): the key carries the version, so a publish, an edit or a comment makes
    the next read compute afresh, with no invalidation list to keep. A cache that cannot
    be reached (version 0, or an error on get or set) computes the value live. ``name``
    carries a format tag (``up-next:v2:…``): bump it when the cached value's shape changes,
    so a deploy never unpickles an old shape.
    """
    version = current()
    if not version:
        return compute()
    key = f"derived:{version}:{name}"
    try:
        hit = cache.get(key)
    except Exception:
        logger.warning("derived cache unreachable; computing %s live", name, exc_info=True)
        return compute()
    if hit is not None:
        return hit
    value = compute()
    try:
        cache.set(key, value, timeout)
    except Exception:
        logger.warning("derived cache unreachable; %s not stored", name, exc_info=True)
    return value
