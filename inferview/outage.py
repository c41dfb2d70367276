"""A backing service that is away answers 503 with Retry-After, never 500.

Reads degrade by themselves (a cache miss renders live). What cannot degrade is a write
that needs the cache (sign-in and comment rate limits count there) or a database that is
restarting: those raise, and this middleware turns the exception into a 503 the client
can retry, in the API's error shape under ``/api/`` and as a short page elsewhere. Any
other exception still reaches Django's 500 handling, where it belongs. An outage raised
in a middleware (before any view runs) skips ``process_exception``; the 500 handler
(``inferview.views.server_error``) asks ``answer_outage`` for those.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

from inferview.cache import CacheUnavailable

logger = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 5


def _outage_types() -> tuple[type[BaseException], ...]:
    types: list[type[BaseException]] = [
        CacheUnavailable,
        DatabaseOperationalError,
        DatabaseInterfaceError,
    ]
    try:
        import redis.exceptions

        types += [redis.exceptions.ConnectionError, redis.exceptions.TimeoutError]
    except ImportError:  # pragma: no cover - redis is a dependency
        pass
    try:
        import kombu.exceptions

        types.append(kombu.exceptions.OperationalError)
    except ImportError:  # pragma: no cover - kombu is a dependency
        pass
    return tuple(types)


OUTAGE_ERRORS = _outage_types()


def service_unavailable(request: HttpRequest, service: str) -> HttpResponse:
    message = f"The {service} is briefly unavailable; try again in a few seconds."
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {"error": {"code": "service_unavailable", "message": message, "fields": {}}},
            status=503,
        )
    else:
        response = HttpResponse(
            f"<!doctype html><title>Try again shortly</title><p>{message}</p>",
            status=503,
            content_type="text/html; charset=utf-8",
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class ServiceUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, OUTAGE_ERRORS):
            return self._answer(request, exception)
        return None

    def _answer(self, request: HttpRequest, exc: BaseException) -> HttpResponse:
        return answer_outage(request, exc)


def answer_outage(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """The 503 for an outage error (the middleware's, and the 500 handler's for an outage
    raised in a middleware, where process_exception does not see it)."""
    database = isinstance(exc, DatabaseOperationalError | DatabaseInterfaceError)
    service = "database" if database else "cache"
    logger.warning("%s unavailable: answering 503 for %s", service, request.path, exc_info=exc)
    return service_unavailable(request, service)
