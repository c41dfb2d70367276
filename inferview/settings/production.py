"""Production settings: the base settings, hardened. Everything else comes from the environment."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import LOGGING, env_bool

DEBUG = False
PAYMENTS_LOCAL_PROVIDER = False
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("dev-only"):
    raise ImproperlyConfigured("SECRET_KEY must be set to a long random value in production.")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Static files are collected once (the image build or the release step) into a manifest
# of hashed names; whitenoise serves those with far-future caching, compressed.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https"

# Behind the TLS-terminating proxy that SECURE_PROXY_SSL_HEADER assumes, REMOTE_ADDR is the
# proxy's own address. Without this, every visitor shares that one IP in allauth's per-IP
# sign-in and sign-up limits: ten sign-ups an hour site-wide, and one attacker's failed
# sign-ins throttle everyone. Set TRUSTED_PROXY_COUNT to the number of proxies in front.
ALLAUTH_TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "1"))

# Logs are one JSON object per line with the request id, for the log collector.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
LOGGING["handlers"]["console"]["formatter"] = "json" if LOG_FORMAT == "json" else "text"
# Celery workers log through the same handlers (JSON lines) instead of replacing them.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
