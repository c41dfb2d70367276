"""The Celery application. Configuration lives in Django settings under ``CELERY_``."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inferview.settings.base")

app = Celery("inferview")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _database_connections_as_a_request_has_them(task: object = None, **_: object) -> None:
    """Before and after each task, what Django does around each request: close a
    connection that is broken or older than ``CONN_MAX_AGE``, and health-check a reused
    one on its first query.

    Celery's Django fixup would otherwise close every connection before and after every
    task (unless ``CELERY_DB_REUSE_MAX`` is set, which settings do), so each calculator
    run opened a new PostgreSQL connection: 20 of the 58 ms from POST to result.

    A task run eagerly (``task_always_eager``, or ``apply()``) runs inside its caller,
    perhaps in the middle of the caller's transaction, where Django sees a connection
    out of autocommit as one to drop: it is left alone, as it is the caller's.
    """
    if getattr(getattr(task, "request", None), "is_eager", False):
        return
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()
