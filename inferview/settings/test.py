"""Test settings: the base settings with fast hashing and an isolated cache."""

from .base import *  # noqa: F403
from .base import VAR_DIR

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "local": CACHES["local"],  # noqa: F405
}
SESSION_ENGINE = "inferview.accounts.sessions"  # as production runs it (with Redis)
# Tests exercise the local payment provider explicitly.
PAYMENTS_LOCAL_PROVIDER = True
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.E003", "django_ratelimit.W001"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
TEST_ARTIFACTS_DIR = VAR_DIR / "test-artifacts"
SITE_DOMAIN = "testserver"  # the Site record (sitemaps, "View on site") points at the test client
