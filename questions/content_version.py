"""One number that moves whenever anything a page shows may have changed.

Whole-page caches key on it (``inferview.pagecache``), so a publish, an edit, an import,
a reorder or a comment retires every cached page at once instead of each page tracking
what it depends on. It lives in the shared cache, so every web process and the importer
see the same number. Content models bump it on save and delete (connected in
``questions.apps``); the community app connects its comments the same way.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

KEY = "content-version"


def current() -> int:
    value = cache.get(KEY)
    if value is None:
        cache.add(KEY, 1, timeout=None)
        value = cache.get(KEY) or 1
    return int(value)


def bump(*args: Any, **kwargs: Any) -> None:
    """Signal receiver and plain function alike: retire every cached page."""
    try:
        cache.incr(KEY)
    except ValueError:  # not set yet (or evicted): start above anything cached before
        cache.set(KEY, current() + 1, timeout=None)
