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
# Replace each worker after a few thousand requests (with jitter, so they do not all
# restart together): bounds the growth of any slow leak in a long-lived process.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "2000"))
max_requests_jitter = 200
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


def pre_fork(server, worker):
    """Fork with no database connection open (a child must never share the parent's
    socket) and with everything loaded so far moved out of the garbage collector's view:
    it is never freed, and scanning it made every full collection in a worker slower."""
    if not preload_app:
        return
    from django.db import connections

    connections.close_all()
    gc.freeze()
