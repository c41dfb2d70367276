"""gunicorn settings for production (``gunicorn -c gunicorn.conf.py inferview.wsgi``).

Everything can be overridden from the environment, so one image serves any host size.
"""

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
# The proxy in front sets X-Forwarded-Proto; trust it only from the addresses given.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# Heartbeat files in memory, not on a container's overlay disk that can stall.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# The application writes one JSON line per request with its request id
# (inferview.requestlog); gunicorn's own access log would only duplicate it.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
