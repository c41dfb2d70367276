"""The task Celery beat runs: ``questions.publish_due`` (``CELERY_BEAT_SCHEDULE`` in
settings, every 30 s). An adapter over ``questions.scheduling``; registered by
``QuestionsConfig.ready`` so every worker knows it (Celery's autodiscovery reads only
``questions.tasks``, which the scheduling service itself imports)."""

from __future__ import annotations

import logging

from celery import shared_task

from . import scheduling

logger = logging.getLogger(__name__)

# A publish_due run still queued after this long is dropped: the next beat tick does the
# same work, so a backlog of them (a worker down for an hour) runs once, not sixty times.
PUBLISH_DUE_EXPIRES = 50


@shared_task(name="questions.publish_due", acks_late=True, expires=PUBLISH_DUE_EXPIRES)
def publish_due() -> int:
    """Publish what is due. Idempotent, so a run delivered twice, or two runs overlapping,
    publish each item once."""
    report = scheduling.publish_due()
    if report.count:
        logger.info(
            "Scheduled publishing: published %s; unpublished %s; drafts %s",
            report.published, report.unpublished, report.drafts,
        )  # fmt: skip
    return report.count
