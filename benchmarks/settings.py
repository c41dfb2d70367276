"""Settings for benchmarks/pages.py: the base settings as production runs them (DEBUG
off, the environment's PostgreSQL and Redis), plain HTTP on loopback, and a URLconf with
the bare view added."""

from inferview.settings.base import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "benchmarks.urls"
LOGGING = {"version": 1, "disable_existing_loggers": False, "root": {"level": "ERROR"}}
