"""Writes to content. Every write goes through here so ``updated_at`` stays honest."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import reversion
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from . import content_version
from .models import Concept, Guide, GuideItem, Lesson, Part, Question, QuestionSlugHistory, Track
from .tasks import schedule_similarity_recompute

# The fields whose change is a real content edit (and so moves "Updated <Month Year>").
CONTENT_FIELDS: dict[type, tuple[str, ...]] = {
    Track: ("title", "summary", "description", "category", "icon"),
    Concept: ("title", "summary", "body", "category", "level", "access", "references"),
    Question: ("title", "summary", "body", "answer", "difficulty", "kind", "access", "references"),
    Guide: ("title", "summary", "intro"),
    Part: ("title", "summary", "intro"),
    Lesson: (
        "title",
        "summary",
        "body",
        "level",
        "access",
        "minutes",
        "references",
        "check_items",
    ),
}


# ``checked`` (the month the facts were verified) is part of what the files hold, so it is
# in the hash (an admin edit of it is kept like any other), but re-verifying is not an edit
# of the text: a change to it alone leaves "Updated" where it was. Left out of the payload
# while empty, so the hashes of items without it are those stored before it existed.
CHECKED_FIELD = "checked"


def content_hash_of(obj: Any, extra: Any = None, *, checked: str | None = None) -> str:
    """The hash of ``obj``'s content fields (and its checked month, or ``checked`` in its
    place)."""
    fields = CONTENT_FIELDS[type(obj)]
    payload = {name: getattr(obj, name) for name in fields}
    month = getattr(obj, CHECKED_FIELD, "") if checked is None else checked
    if month:
        payload[CHECKED_FIELD] = month
    if extra is not None:
        payload["_extra"] = extra
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def touch_if_changed(obj: Any, *, extra: Any = None, now=None) -> bool:
    """Recompute ``content_hash``; move ``updated_at`` only when the content differs, not
    when only the checked month does. Returns whether the hash changed."""
    new_hash = content_hash_of(obj, extra)
    if new_hash == obj.content_hash:
        return False
    if not (obj.pk and _only_checked_moved(obj, extra)):
        obj.updated_at = now or timezone.now()
    obj.content_hash = new_hash
    return True


def _only_checked_moved(obj: Any, extra: Any) -> bool:
    """Whether the stored hash is this content with the stored checked month (one query,
    made only when the hash moved on a model that has the field)."""
    if not hasattr(obj, CHECKED_FIELD):
        return False
    stored = type(obj).objects.filter(pk=obj.pk).values_list(CHECKED_FIELD, flat=True).first()
    return stored is not None and content_hash_of(obj, extra, checked=stored) == obj.content_hash


def normalise_newlines(obj: Any) -> None:
    """Browsers submit textareas with CRLF; store LF, so the hash, the exported files and a
    re-import agree byte for byte whichever way the text came in."""
    for name in CONTENT_FIELDS[type(obj)]:
        value = getattr(obj, name)
        if isinstance(value, str) and "\r" in value:
            setattr(obj, name, value.replace("\r\n", "\n").replace("\r", "\n"))


def _remember_old_slug(question: Question) -> None:
    """Keep the slug a question is leaving, so its old URLs still reach it; a slug the
    question takes (back) stops being anyone's old slug."""
    if question.pk:
        old = Question.objects.filter(pk=question.pk).values_list("slug", "track_id").first()
        if old and (old[0], old[1]) != (question.slug, question.track_id):
            QuestionSlugHistory.objects.update_or_create(
                track_id=old[1], slug=old[0], defaults={"question": question}
            )
    QuestionSlugHistory.objects.filter(track_id=question.track_id, slug=question.slug).delete()


@transaction.atomic
def save_content(obj: Any, *, extra: Any = None, updated_at=None, synced: bool = False) -> bool:
    """Save an authored object; returns whether its content changed.

    ``updated_at`` lets the importer carry the date from the files; otherwise a real change
    stamps now. ``synced`` marks the saved content as what the files hold (import).
    """
    normalise_newlines(obj)
    if isinstance(obj, Question):
        _remember_old_slug(obj)
    changed = touch_if_changed(obj, extra=extra, now=updated_at)
    if synced:
        obj.synced_hash = obj.content_hash
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
def content_corrected(item: Any, *, now=None) -> Any:
    """A reported mistake in ``item`` (a question, concept or guide item) was fixed: move
    the "Updated" month of the page that shows it (a guide item's guide), even when the fix
    itself was saved earlier, and retire cached pages. Returns the item whose date moved.

    An update, not a save: the content and its hash are unchanged, so no revision or
    similarity run is due; the version bump is what the save signal would have done."""
    page: Any = item.section.guide if isinstance(item, GuideItem) else item
    when = now or timezone.now()
    type(page)._default_manager.filter(pk=page.pk).update(updated_at=when)
    page.updated_at = when
    content_version.bump()
    return page


@transaction.atomic
def set_published(queryset, *, published: bool, user: Any = None) -> int:
    """Publish or unpublish; publishing stamps ``published_at`` the first time only. Each
    change is a revision in the item's history."""
    count = 0
    now = timezone.now()
    with reversion.create_revision():
        reversion.set_comment("Published" if published else "Moved back to draft")
        if user is not None:
            reversion.set_user(user)
        count = _set_published(queryset, published=published, now=now)
    if count:
        schedule_similarity_recompute()
    return count


@transaction.atomic
def set_checked(queryset, *, month: str, user: Any = None) -> int:
    """Set the checked month of items that have one (a bulk re-verification): saved through
    ``save_content``, so the hash and the revision follow and "Updated" stays put."""
    count = 0
    with reversion.create_revision():
        reversion.set_comment(f"Checked {month}")
        if user is not None:
            reversion.set_user(user)
        for obj in queryset.select_for_update():
            if hasattr(obj, CHECKED_FIELD) and obj.checked != month:
                obj.checked = month
                save_content(obj)
                count += 1
    return count


def _set_published(queryset, *, published: bool, now) -> int:
    count = 0
    for obj in queryset.select_for_update():
        obj.published = published
        if published and obj.published_at is None:
            obj.published_at = now
        obj.save(update_fields=["published", "published_at"])
        count += 1
    return count


@transaction.atomic
def renumber_track(*, track: Track, ordered_ids: list[int] | None = None, user: Any = None) -> None:
    """Number a track's questions 1..n in the given order (default: current order).

    Numbers are unique per track, so the rows are first moved out of the way above the
    current maximum, then given their final numbers.
    """
    questions = list(
        Question.objects.select_for_update().filter(track=track).order_by("number", "id")
    )
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
    content_version.bump()  # update() sends no save signal: retire cached pages here
    # Numbers were moved with update() (no save signals): record the new order explicitly.
    with reversion.create_revision():
        reversion.set_comment(f"Reordered {track.title}")
        if user is not None:
            reversion.set_user(user)
        for q in Question.objects.filter(track=track):
            reversion.add_to_revision(q)


def next_number(track: Track) -> int:
    return (Question.objects.filter(track=track).aggregate(m=Max("number"))["m"] or 0) + 1
