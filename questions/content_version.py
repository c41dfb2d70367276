"""One number that moves whenever anything a page shows may have changed.

Whole-page caches key on it (``inferview.pages.cache``), so a publish, an edit, an import,
a reorder or a comment retires every cached page at once instead of each page tracking
what it depends on. It lives in the shared cache, so every web process and the importer
see the same number. Content models bump it on save and delete (connected in
``questions.apps``); the community app connects its comments the same way.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache

logger = logging.getLogger(__name__)
KEY = "content-version"


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
