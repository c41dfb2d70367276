"""Celery tasks for content. Tasks only adapt: they call ``questions.similarity``.

Beat's task (``questions.publish_due``) is in ``questions.beat``: the scheduling service
it calls publishes through services that queue the tasks here, so it cannot live here
without an import cycle."""

from __future__ import annotations

import logging

from celery import shared_task
from django.core.cache import cache
from django.db import transaction

logger = logging.getLogger(__name__)

# While a recompute is queued, further content changes need not queue another: the
# queued one reads the content as it is when it runs.
PENDING_KEY = "questions:similarity:pending"
PENDING_SECONDS = 10 * 60


@shared_task(name="questions.recompute_similarity", acks_late=True)
def recompute_similarity() -> int:
    from . import similarity

    cache.delete(PENDING_KEY)
    count = similarity.recompute()
    logger.info("Recomputed similarity for %d questions", count)
    return count


def _enqueue() -> None:
    # This runs after the content's transaction committed, so nothing here may raise: a
    # failure would turn a saved edit into an error page. The old matrix stays served.
    try:
        if not cache.add(PENDING_KEY, 1, PENDING_SECONDS):
            return
    except Exception:
        logger.exception("Similarity dedupe key unavailable; queueing anyway")
    try:
        recompute_similarity.delay()
    except Exception:
        logger.exception("Could not queue questions.recompute_similarity")
        try:
            cache.delete(PENDING_KEY)
        except Exception:
            pass


def schedule_similarity_recompute() -> None:
    """Queue a recompute once the current transaction commits (call after content changes)."""
    transaction.on_commit(_enqueue)


@shared_task(name="questions.check_practice", acks_late=True)
def check_practice(check_id: int) -> bool | None:
    """Run the author check of one saved practice spec (200 seeds) and store its report."""
    from . import practice_check

    return practice_check.run(check_id)


def schedule_practice_check(question) -> None:
    """Record a pending check of the question's spec and queue it after the commit."""
    from .models import PracticeCheck

    if not question.practice:
        return
    check = PracticeCheck.objects.create(question=question, spec=question.practice)

    def enqueue() -> None:
        try:
            check_practice.delay(check.pk)
        except Exception:  # the edit is saved; the check stays pending and says so in admin
            logger.exception("Could not queue questions.check_practice")

    transaction.on_commit(enqueue)
