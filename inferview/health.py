"""``/healthz`` and ``/readyz`` for load balancers and orchestrators.

- ``/healthz``: the process is up and answering. It touches nothing else, so a database
  outage never makes an orchestrator kill every web process at once.
- ``/readyz``: the database and the broker answer, each within ``CHECK_TIMEOUT_SECONDS``.
  A 503 names which failed, so a balancer stops sending traffic and an operator sees why.

They are answered by a middleware at the top of the stack: probes come from inside the
network with a bare IP as Host and over plain HTTP, so they must skip ALLOWED_HOSTS, the
HTTPS redirect, sessions and the page cache.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse

CHECK_TIMEOUT_SECONDS = 1.5
PATHS = {"/healthz", "/healthz/", "/readyz", "/readyz/"}
# A check that hangs (a paused server) keeps its thread until its socket times out; a
# small pool bounds how many such threads probes can pile up.
_checks = ThreadPoolExecutor(max_workers=4, thread_name_prefix="readyz")


def check_database() -> None:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        # A probe thread must not keep a connection open for ever.
        connections["default"].close()


def check_broker() -> None:
    url = settings.CELERY_BROKER_URL
    if url.startswith(("redis://", "rediss://")):
        import redis

        client = redis.Redis.from_url(
            url,
            socket_connect_timeout=CHECK_TIMEOUT_SECONDS,
            socket_timeout=CHECK_TIMEOUT_SECONDS,
        )
        try:
            client.ping()
        finally:
            client.close()
        return
    # The embedded filesystem transport: the queue folder must be there and writable.
    folder = Path(getattr(settings, "CELERY_QUEUE_DIR", ""))
    probe = folder / ".readyz"
    probe.write_text("ok")
    probe.unlink()


CHECKS: dict[str, Callable[[], None]] = {"database": check_database, "broker": check_broker}


def readiness() -> dict[str, str]:
    futures = {name: _checks.submit(check) for name, check in CHECKS.items()}
    results = {}
    for name, future in futures.items():
        try:
            future.result(timeout=CHECK_TIMEOUT_SECONDS)
            results[name] = "ok"
        except FutureTimeout:
            results[name] = f"timed out after {CHECK_TIMEOUT_SECONDS} s"
        except Exception as exc:  # any failure means not ready; say which and why
            results[name] = f"failed: {type(exc).__name__}"
    return results


def _json(body: dict[str, object], status: int) -> HttpResponse:
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


class HealthCheckMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path not in PATHS or request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        if request.path.startswith("/healthz"):
            return _json({"status": "ok"}, 200)
        checks = readiness()
        ready = all(value == "ok" for value in checks.values())
        failed = [name for name, value in checks.items() if value != "ok"]
        body: dict[str, object] = {"status": "ok" if ready else "unavailable", "checks": checks}
        if failed:
            body["failed"] = failed
        response = _json(body, 200 if ready else 503)
        if not ready:
            response["Retry-After"] = "5"
        return response
