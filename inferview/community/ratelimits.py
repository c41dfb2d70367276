"""Per-user posting limits, one counter shared by the HTML views and the API.

django-ratelimit counts in the default cache, which every web process shares (a
database cache on one machine, Redis in production), so the limit holds across
processes. ``COMMENT_RATE`` in settings overrides the default.

A limit cannot be skipped because its counter is unreachable (that would turn a Redis
outage into a spam window), so a cache failure propagates: ``inferview.cache`` raises
``CacheUnavailable`` within a second, and ``inferview.outage`` answers it with 503 and
Retry-After rather than 500.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import is_ratelimited

DEFAULT_COMMENT_RATE = "6/m"


def comment_rate_limited(request: HttpRequest) -> bool:
    """Count this post; True when the user is over the limit and it must be refused."""
    rate = getattr(settings, "COMMENT_RATE", DEFAULT_COMMENT_RATE)
    return is_ratelimited(request, group="community.comment", key="user", rate=rate, increment=True)
