"""The task Celery beat runs for calculators: ``calculators.reap_abandoned`` (every 5 s,
``CELERY_BEAT_SCHEDULE`` in settings). An adapter over ``services.reap_abandoned``, kept out
of ``calculators.tasks`` because the services import that module (no cycle); registered by
``CalculatorsConfig.ready`` so every worker knows it."""

from __future__ import annotations

from celery import shared_task

from calculators import services

# A tick still queued after this long is dropped: the next one does the same work.
REAP_EXPIRES = 4


@shared_task(name="calculators.reap_abandoned", queue="default", expires=REAP_EXPIRES)
def reap_abandoned() -> dict[str, int]:
    """Idempotent: two ticks overlapping move each abandoned run once."""
    return services.reap_abandoned()
