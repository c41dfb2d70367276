"""Posting limits (comments and reports of mistakes per user, graded answers per
address), each one counter shared by the HTML views and the API.

django-ratelimit counts in the default cache, which every web process shares (a
database cache on one machine, Redis in production), so the limit holds across
processes. ``COMMENT_RATE`` in settings overrides the default.

A limit cannot be skipped because its counter is unreachable (that would turn a Redis
outage into a spam window), so a cache failure propagates: ``inferview.cache`` raises
``CacheUnavailable`` within a second, and ``inferview.outage`` answers it with 503 and
Retry-After rather than 500.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage, is_ratelimited

DEFAULT_COMMENT_RATE = "6/m"
GRADE_RATE = "120/m"  # numeric answers per visitor: cheap, but each runs the kernels


def comment_rate_limited(request: HttpRequest) -> bool:
    """Count this post; True when the user is over the limit and it must be refused."""
    rate = getattr(settings, "COMMENT_RATE", DEFAULT_COMMENT_RATE)
    return is_ratelimited(request, group="community.comment", key="user", rate=rate, increment=True)


def _no_address(group: str, request: Any) -> str:
    return "no-address"


def grading_rate_limited(request: HttpRequest) -> bool:
    """Count one graded answer, from the numbers page or the API alike (same group, key and
    rate: one counter per address). A request without REMOTE_ADDR (some WSGI callers)
    shares one bucket rather than failing django-ratelimit's "ip" key."""
    key: Any = "ip" if request.META.get("REMOTE_ADDR") else _no_address
    return is_ratelimited(request, group="practice.grade", key=key, rate=GRADE_RATE, increment=True)


DEFAULT_CORRECTION_RATE = "10/d"  # reports of a mistake per reader per day


def correction_retry_after(request: HttpRequest) -> int | None:
    """Count one report of a mistake, from the page or the API alike; when the reader is
    over the limit, the seconds until its day's window ends (for Retry-After), else None."""
    rate = getattr(settings, "CORRECTION_RATE", DEFAULT_CORRECTION_RATE)
    usage = get_usage(request, group="community.correction", key="user", rate=rate, increment=True)
    if usage is None or not usage["should_limit"]:
        return None
    return max(1, int(usage["time_left"]))
