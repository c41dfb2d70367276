"""Writes to content. Every write goes through here so ``updated_at`` stays honest."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from .models import Concept, Guide, Question, Track
from .tasks import schedule_similarity_recompute

# The fields whose change is a real content edit (and so moves "Updated <Month Year>").
CONTENT_FIELDS: dict[type, tuple[str, ...]] = {
    Track: ("title", "summary", "description", "category", "icon"),
    Concept: ("title", "summary", "body", "category", "level", "access", "references"),
    Question: ("title", "summary", "body", "answer", "difficulty", "kind", "access", "references"),
    Guide: ("title", "summary", "intro"),
}


def content_hash_of(obj: Any, extra: Any = None) -> str:
    fields = CONTENT_FIELDS[type(obj)]
    payload = {name: getattr(obj, name) for name in fields}
    if extra is not None:
        payload["_extra"] = extra
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def touch_if_changed(obj: Any, *, extra: Any = None, now=None) -> bool:
    """Recompute ``content_hash``; move ``updated_at`` only when it differs. Returns changed."""
    new_hash = content_hash_of(obj, extra)
    if new_hash == obj.content_hash:
        return False
    obj.content_hash = new_hash
    obj.updated_at = now or timezone.now()
    return True


@transaction.atomic
def save_content(obj: Any, *, extra: Any = None, updated_at=None) -> bool:
    """Save an authored object; returns whether its content changed.

    ``updated_at`` lets the importer carry the date from the files; otherwise a real change
    stamps now.
    """
    changed = touch_if_changed(obj, extra=extra, now=updated_at)
    if updated_at is not None:
        obj.updated_at = updated_at
    if obj.published and obj.published_at is None:
        obj.published_at = timezone.now()
    obj.save()
    if isinstance(obj, (Question, Concept)):
        # Concept links may change in the same transaction (admin's save_related), so
        # questions and concepts always queue one; the task dedupes bursts.
        schedule_similarity_recompute()
    return changed


@transaction.atomic
def set_published(queryset, *, published: bool) -> int:
    """Publish or unpublish; publishing stamps ``published_at`` the first time only."""
    count = 0
    now = timezone.now()
    for obj in queryset.select_for_update():
        obj.published = published
        if published and obj.published_at is None:
            obj.published_at = now
        obj.save(update_fields=["published", "published_at"])
        count += 1
    if count:
        schedule_similarity_recompute()
    return count


@transaction.atomic
def renumber_track(*, track: Track, ordered_ids: list[int] | None = None) -> None:
    """Number a track's questions 1..n in the given order (default: current order).

    Numbers are unique per track, so the rows are first moved out of the way above the
    current maximum, then given their final numbers.
    """
    questions = list(Question.objects.select_for_update().filter(track=track).order_by("number", "id"))
    if ordered_ids is not None:
        by_id = {q.id: q for q in questions}
        questions = [by_id[i] for i in ordered_ids if i in by_id] + [
            q for q in questions if q.id not in set(ordered_ids)
        ]
    offset = (Question.objects.filter(track=track).aggregate(m=Max("number"))["m"] or 0) + 1
    for i, q in enumerate(questions):
        Question.objects.filter(pk=q.pk).update(number=offset + i)
    for i, q in enumerate(questions, start=1):
        Question.objects.filter(pk=q.pk).update(number=i)


def next_number(track: Track) -> int:
    return (Question.objects.filter(track=track).aggregate(m=Max("number"))["m"] or 0) + 1
