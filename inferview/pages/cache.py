"""Whole-page caching for anonymous readers, safe for the paywall.

A page is cached only for a reader who is not signed in, so it can only ever hold what
the anonymous tier may read, and it is only ever served to a reader who is not signed in.
The entry is keyed by the viewer's currency (the paywall's price) and the full path with
its query string, and holds the content version it was rendered at
(``questions.content_version``: any publish, edit, import, reorder or comment retires
every cached page). One ``get_many`` reads the current version and the entry together, so
a hit costs one cache round trip, and an entry from an older version is a miss. A response is stored only when
it is a plain 200 that sets no cookie and used no CSRF token (so no visitor's token is
handed to another), and never while a flash message waits for the visitor.

Signed-in readers get live pages; their expensive parts (rendered Markdown, the paywall
counts, up next) are cached or precomputed below the page.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from inferview.access import pricing
from questions import content_version

logger = logging.getLogger(__name__)
PAGE_SECONDS = 600  # also bounds how late a "New" badge can appear or go


def _key(request: HttpRequest) -> str:
    path = hashlib.sha256(request.get_full_path().encode()).hexdigest()[:32]
    return f"page:v2:{pricing.viewer_currency(request)}:{path}"


def _has_pending_messages(request: HttpRequest) -> bool:
    if "messages" in request.COOKIES:
        return True
    session = getattr(request, "session", None)
    return bool(session is not None and session.session_key and session.get("_messages"))


def _cacheable(request: HttpRequest, response: HttpResponse) -> bool:
    return (
        response.status_code == 200
        and not response.cookies
        and not getattr(response, "streaming", False)
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not request.META.get("CSRF_COOKIE_USED")
    )


def anonymous_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Serve and store whole pages for anonymous GET requests (see the module docstring)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "GET" or request.user.is_authenticated:
            return view(request, *args, **kwargs)
        if _has_pending_messages(request):
            return view(request, *args, **kwargs)
        key = _key(request)
        try:
            found = cache.get_many([content_version.KEY, key])
        except Exception:
            logger.warning("page cache read failed; rendering live", exc_info=True)
            return view(request, *args, **kwargs)
        version = found.get(content_version.KEY) or content_version.current()
        if not version:  # the cache is unreachable: serve live pages
            return view(request, *args, **kwargs)
        hit = found.get(key)
        if hit is not None and hit[0] == version:
            _, content_type, content = hit
            response = HttpResponse(content, content_type=content_type)
            response["X-Page-Cache"] = "hit"
            return response
        response = view(request, *args, **kwargs)
        if _cacheable(request, response):
            entry = (version, response["Content-Type"], response.content)
            try:
                cache.set(key, entry, PAGE_SECONDS)
            except Exception:
                logger.warning("page cache write failed", exc_info=True)
        return response

    return wrapped
