"""gunicorn settings for production (``gunicorn -c gunicorn.conf.py inferview.wsgi``).

Everything can be overridden from the environment, so one image serves any host size.
"""

import gc
import os

bind = os.environ.get("GUNICORN_BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")
# Sync workers with a few threads each: pages are short database reads, and threads let
# a process overlap a slow client or a cache timeout without a second process's memory.
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "gthread"
# A request that takes longer than this is a stuck worker: gunicorn kills and replaces it.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = 5
# Replace each worker after some thousands of requests: bounds the growth of any slow
# leak in a long-lived process. Jitter of up to half that again, so workers that started
# together (and share the load evenly) do not all restart at once: a worker's exit and
# its replacement's fork take 50-80 ms here, and with every worker restarting together
# nothing accepts for that long. Measured with wrk (c=8, 2 sync workers,
# benchmarks/pages.py): at 2,000 and 10% jitter a cached page, ~1,400 requests/s per
# worker, recycled both workers together about once a second and had a p99 of 14-40 ms
# over a p50 of 3 ms; at 10,000 with this jitter the p99 is 1.5-2x the p50. At a
# production rate of tens of requests/s per worker that is still a restart every few
# minutes.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "10000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", str(max_requests // 2)))
# ...and make that replacement cheap. Without preloading, a new worker imports Django,
# every view and compiles every template on its first requests: about 0.4 s during which
# the requests queued on it wait. Measured with wrk (c=8, 2 sync workers) that put a
# 300 ms p99 on every page, the bare view included (benchmarks/pages.py). Preloaded and
# warmed (below), a replacement is a fork of a process that has all of that already.
preload_app = os.environ.get("GUNICORN_PRELOAD", "true").lower() not in ("0", "false", "no")
# The proxy in front sets X-Forwarded-Proto; trust it only from the addresses given.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# Heartbeat files in memory, not on a container's overlay disk that can stall.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# The application writes one JSON line per request with its request id
# (inferview.requestlog); gunicorn's own access log would only duplicate it.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")


def when_ready(server):
    """In the arbiter, once the preloaded application is loaded: import every URL and view
    module and compile every template, so workers forked later start warm."""
    if not preload_app:
        return
    from pathlib import Path

    from django.conf import settings
    from django.template import TemplateDoesNotExist, TemplateSyntaxError
    from django.template.loader import get_template
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports the URLconf and every view
    for directory in settings.TEMPLATES[0]["DIRS"]:
        for path in Path(directory).rglob("*.html"):
            try:
                get_template(str(path.relative_to(directory)))
            except (TemplateDoesNotExist, TemplateSyntaxError):  # partials of other engines
                continue


def post_worker_init(worker):
    """In a new sync worker, before it accepts a request: open the database and cache
    connections its requests will use, which a fresh process otherwise opens inside its
    first requests (15-20 ms for PostgreSQL, 7-9 ms for Redis here).

    Only for a worker that answers requests on this thread: Django keeps both connections
    per thread, so in a gthread worker (the default above) they would be opened for a
    thread that never serves one. Best effort: a server that is down now is the first
    request's problem, answered as in any outage (inferview.outage), so a worker still
    boots."""
    from gunicorn.workers.sync import SyncWorker

    if not isinstance(worker, SyncWorker):
        return
    try:
        from django.core.cache import caches
        from django.db import connections

        caches["default"].get("gunicorn-warm-up")
        connections["default"].ensure_connection()
    except Exception as exc:  # noqa: BLE001 - never keep a worker from booting
        worker.log.warning("warm-up skipped: %s: %s", type(exc).__name__, exc)


def pre_fork(server, worker):
    """Fork with no database connection open (a child must never share the parent's
    socket) and with everything loaded so far moved out of the garbage collector's view:
    it is never freed, and scanning it made every full collection in a worker slower."""
    if not preload_app:
        return
    from django.db import connections

    connections.close_all()
    gc.freeze()
