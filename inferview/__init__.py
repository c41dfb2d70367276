"""The Inferview platform package: settings, URLs, the Celery app and platform-wide apps.

The design named this package ``platform/``; that name shadows Python's own ``platform``
module (uuid, pytest and Celery then fail to import), so it is ``inferview/``.
"""

from .celery import app as celery_app

__all__ = ["celery_app"]
