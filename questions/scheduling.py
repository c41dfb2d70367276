"""Scheduled publishing: what is due goes live (or back to draft) when Celery beat runs
``questions.publish_due`` (every ``PUBLISH_DUE_SECONDS``, see settings), never before.

Idempotent: each item's ``publish_at`` / ``unpublish_at`` (a draft's ``publish_at``) is
cleared in the same transaction that acts on it, with the rows locked, so a second run, or
two beat runs racing, publishes nothing twice. If beat is down nothing is published early;
``overdue`` lets admin show what is waiting.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import reversion
from django.db import transaction
from django.utils import timezone

from . import content_version, drafts
from .models import Concept, ContentDraft, Guide, Question, Track
from .tasks import schedule_similarity_recompute

SCHEDULED_MODELS = (Track, Concept, Question, Guide)


@dataclass
class DueReport:
    published: list[str] = field(default_factory=list)
    unpublished: list[str] = field(default_factory=list)
    drafts: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.published) + len(self.unpublished) + len(self.drafts)


@transaction.atomic
def publish_due(*, now: dt.datetime | None = None) -> DueReport:
    """Publish, unpublish and apply drafts whose time has come (``<= now``)."""
    now = now or timezone.now()
    report = DueReport()
    for model in SCHEDULED_MODELS:
        for obj in model.objects.select_for_update().filter(publish_at__lte=now):
            with reversion.create_revision():
                reversion.set_comment(f"Published as scheduled by {obj.scheduled_by or '?'}")
                obj.published = True
                if obj.published_at is None:
                    obj.published_at = now
                obj.publish_at = None
                obj.save(update_fields=["published", "published_at", "publish_at"])
            report.published.append(f"{model.__name__} {obj.pk}")
        for obj in model.objects.select_for_update().filter(unpublish_at__lte=now):
            with reversion.create_revision():
                reversion.set_comment(f"Moved to draft as scheduled by {obj.scheduled_by or '?'}")
                obj.published = False
                obj.unpublish_at = None
                obj.save(update_fields=["published", "unpublish_at"])
            report.unpublished.append(f"{model.__name__} {obj.pk}")
    for draft in ContentDraft.objects.select_for_update().filter(publish_at__lte=now):
        drafts.publish_draft(
            draft, comment=f"Published draft as scheduled by {draft.scheduled_by or '?'}"
        )
        report.drafts.append(str(draft))
    if report.count:
        content_version.bump()
        schedule_similarity_recompute()
    return report


def overdue(model: Any, *, now: dt.datetime | None = None, grace_seconds: int = 120):
    """Items of ``model`` whose scheduled time passed more than ``grace_seconds`` ago: the
    scheduler is not running (or failing)."""
    cutoff = (now or timezone.now()) - dt.timedelta(seconds=grace_seconds)
    return model.objects.filter(publish_at__lte=cutoff) | model.objects.filter(
        unpublish_at__lte=cutoff
    )
