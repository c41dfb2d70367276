"""Request ids and structured logs.

Every request gets an id: the proxy's ``X-Request-ID`` when it sends a sane one (so one
id follows a request from the load balancer through every process), otherwise a new
one. It is echoed in the response header, so a user's report ("it failed, id ...")
leads straight to the log lines, and every log record written while the request runs
carries it (``RequestIdFilter``). With ``LOG_FORMAT=json`` (production's default) each
record is one JSON object per line, ready for a log collector.
"""

from __future__ import annotations

import contextvars
import logging
import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
_META_KEY = "HTTP_X_REQUEST_ID"
# Long enough for any tracer's ids, short and plain enough to be safe in a log line.
_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{8,128}$")

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
logger = logging.getLogger("inferview.request")


def incoming_or_new_id(request: HttpRequest) -> str:
    candidate = request.META.get(_META_KEY, "")
    return candidate if _SANE_ID.match(candidate) else uuid.uuid4().hex


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = incoming_or_new_id(request)
        token = request_id.set(rid)
        request.request_id = rid  # type: ignore[attr-defined]
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response[HEADER] = rid
            logger.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
            return response
        finally:
            request_id.reset(token)


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record ("-" outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get()
        return True
