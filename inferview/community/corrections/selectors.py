"""Reads of corrections: the item a report names, a reader's own reports, "What changed"
on a page, and who counts as an author."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Prefetch, QuerySet

from inferview.community.corrections.models import (
    Correction,
    CorrectionReporter,
    CorrectionState,
    TargetType,
)
from questions import content_version
from questions.models import Concept, Guide, GuideItem, Question
from questions.roles import AUTHORS_GROUP


def is_author(user: Any) -> bool:
    """Authors triage reports: staff in the authors group (``add_author``), or superusers.
    Being staff alone is not enough (moderators are staff too)."""
    if user is None or not user.is_authenticated or not user.is_active or not user.is_staff:
        return False
    return bool(user.is_superuser or user.groups.filter(name=AUTHORS_GROUP).exists())


def target_for(*, target_type: str, target_id: int) -> Question | Concept | GuideItem | None:
    """The published item a report names, or None (a draft, a withdrawn question, no such
    id: the reader gets the same 404 as for its page)."""
    if target_type == TargetType.QUESTION:
        return (
            Question.objects.select_related("track")
            .filter(pk=target_id, published=True, track__published=True)
            .first()
        )
    if target_type == TargetType.CONCEPT:
        return Concept.objects.filter(pk=target_id, published=True).first()
    if target_type == TargetType.GUIDE_ITEM:
        return (
            GuideItem.objects.select_related("section__guide")
            .filter(pk=target_id, section__guide__published=True)
            .first()
        )
    return None


def target_url(correction: Correction) -> str:
    if correction.guide_item_id:
        return correction.guide_item.section.guide.get_absolute_url()  # type: ignore[union-attr]
    return correction.target.get_absolute_url()  # type: ignore[union-attr]


def _with_targets(qs: QuerySet[Correction]) -> QuerySet[Correction]:
    return qs.select_related("question__track", "concept", "guide_item__section__guide")


def reports_for(user: Any) -> list[Correction]:
    """The reader's own reports, newest first, each with ``my_note`` (their note, not the
    other reporters'), ``reporter_count`` and ``url``. Two queries."""
    corrections: list[Any] = list(
        _with_targets(Correction.objects.filter(reports__user=user))
        .annotate(reporter_count=Count("reports", distinct=True))
        .prefetch_related(
            Prefetch(
                "reports",
                queryset=CorrectionReporter.objects.filter(user=user),
                to_attr="my_reports",
            )
        )
        .order_by("-created_at", "-id")
    )
    for c in corrections:
        c.my_note = c.my_reports[0].note if c.my_reports else ""
        c.url = target_url(c)
    return corrections


@dataclass(frozen=True)
class Change:
    """One line of "What changed": what readers may see of a fixed correction (never the
    quote or the reporters' notes)."""

    fixed_at: Any
    note: str
    item_label: str = ""  # "Item 7": which item of a guide


def _changes(qs: QuerySet[Correction], labels: dict[int, str] | None = None) -> list[Change]:
    rows = qs.filter(state=CorrectionState.FIXED).order_by("-decided_at", "-id")
    return [
        Change(
            fixed_at=c.decided_at,
            note=c.change_note,
            item_label=(labels or {}).get(c.guide_item_id or 0, ""),
        )
        for c in rows.only("decided_at", "change_note", "guide_item_id")
    ]


def what_changed(
    *, question: Question | None = None, concept: Concept | None = None
) -> list[Change]:
    """The fixed corrections of a question or concept, newest first: the same for every
    reader, cached per content version (a fix moves the version)."""
    if question is not None:
        return content_version.cached(
            f"what-changed:v1:question:{question.pk}",
            lambda: _changes(Correction.objects.filter(question=question)),
        )
    return content_version.cached(
        f"what-changed:v1:concept:{concept.pk}",  # type: ignore[union-attr]
        lambda: _changes(Correction.objects.filter(concept=concept)),
    )


def what_changed_in_guide(*, guide: Guide, numbers: dict[int, int]) -> list[Change]:
    """A guide's fixed corrections, each labelled with its item's number (``numbers``:
    item id to its number on the page)."""
    labels = {pk: f"Item {n}" for pk, n in numbers.items()}
    return content_version.cached(
        f"what-changed:v1:guide:{guide.pk}",
        lambda: _changes(Correction.objects.filter(guide_item__section__guide=guide), labels),
    )


def open_duplicate(target_filter: dict[str, Any], quote: str) -> Correction | None:
    return (
        Correction.objects.select_for_update()
        .filter(**target_filter, quote=quote, state__in=["open", "accepted"])
        .order_by("created_at", "id")
        .first()
    )


def admin_queue() -> QuerySet[Correction]:
    """The authors' queue: most reporters first, then oldest first."""
    return (
        _with_targets(Correction.objects.all())
        .annotate(reporter_count=Count("reports", distinct=True))
        .order_by("-reporter_count", "created_at", "id")
    )
