"""Writes of corrections: a reader reports a mistake, an author decides on it.

Keyword-only and atomic; each raises ``ValidationError`` naming the field, or
``PermissionDenied``. Who may read the item is the caller's question for the page (a 404),
but the quote is checked here, against the text the access policy lets this reader read.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from reversion.models import Version

from inferview.community.common import require_user
from inferview.community.corrections import text
from inferview.community.corrections.models import (
    CHANGE_NOTE_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    QUOTE_MAX_LENGTH,
    Correction,
    CorrectionKind,
    CorrectionReporter,
    CorrectionState,
)
from inferview.community.corrections.notifications import schedule_decision_emails
from inferview.community.corrections.selectors import is_author, open_duplicate
from questions import content_version
from questions.models import Concept, GuideItem, Question
from questions.services import content_corrected

Target = Question | Concept | GuideItem


@dataclass(frozen=True)
class Reported:
    correction: Correction
    created: bool  # False: the reader joined an open report of the same passage


def _target_filter(target: Target) -> dict[str, Any]:
    if isinstance(target, Question):
        return {"question": target}
    if isinstance(target, Concept):
        return {"concept": target}
    return {"guide_item": target}


def _clean_text(value: str, *, field: str, max_length: int, empty: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ValidationError({field: empty})
    if "\x00" in value:
        raise ValidationError({field: "Null characters are not allowed."})
    if len(value) > max_length:
        raise ValidationError(
            {field: f"Keep it under {max_length:,} characters (this has {len(value):,})."}
        )
    return value


@transaction.atomic
def correction_report(*, user: Any, target: Target, quote: str, kind: str, note: str) -> Reported:
    """Report a mistake in ``target``; a second reader quoting an open report's passage
    joins it. The same reader reporting it again changes nothing."""
    require_user(user)
    if kind not in CorrectionKind.values:
        raise ValidationError({"kind": f"Choose one of {', '.join(CorrectionKind.values)}."})
    note = _clean_text(note, field="note", max_length=NOTE_MAX_LENGTH, empty="Say what is wrong.")
    quote = _clean_text(
        quote,
        field="quote",
        max_length=QUOTE_MAX_LENGTH,
        empty="Quote the passage with the mistake.",
    )
    quote = text.normalise(quote)
    if not text.quote_in(target, user=user, quote=quote):
        raise ValidationError(
            {"quote": "That passage is not on this page as you can read it: copy it from the page."}
        )
    # Lock the item's row so two readers quoting the same passage at once make one report.
    type(target).objects.select_for_update().filter(pk=target.pk).first()
    filters = _target_filter(target)
    existing = open_duplicate(filters, quote)
    if existing is not None:
        CorrectionReporter.objects.get_or_create(
            correction=existing, user=user, defaults={"note": note}
        )
        return Reported(correction=existing, created=False)
    correction = Correction.objects.create(quote=quote, kind=kind, **filters)
    CorrectionReporter.objects.create(correction=correction, user=user, note=note)
    return Reported(correction=correction, created=True)


def _latest_version(target: Target) -> Version | None:
    """The newest recorded revision of the item (a guide item's revisions are its
    section's), or None when it has none."""
    obj: Any = target.section if isinstance(target, GuideItem) else target
    return Version.objects.get_for_object(obj).order_by("-pk").first()


@transaction.atomic
def correction_decide(
    *,
    user: Any,
    correction: Correction,
    state: str,
    change_note: str = "",
    now: dt.datetime | None = None,
) -> Correction:
    """An author sets a report's state. Fixed and declined need a change note (emailed to
    the reporters; a fixed one is shown under "What changed"). Marking it fixed records the
    item's latest revision and moves the page's "Updated" month."""
    if not is_author(user):
        raise PermissionDenied("Only authors decide on reported mistakes.")
    if state not in CorrectionState.values:
        raise ValidationError({"state": f"Choose one of {', '.join(CorrectionState.values)}."})
    change_note = (change_note or "").strip()
    if state in (CorrectionState.FIXED, CorrectionState.DECLINED) and not change_note:
        raise ValidationError(
            {"change_note": "Say what changed (fixed) or why not (declined): readers see it."}
        )
    if len(change_note) > CHANGE_NOTE_MAX_LENGTH:
        raise ValidationError(
            {"change_note": f"Keep it under {CHANGE_NOTE_MAX_LENGTH:,} characters."}
        )
    correction = (
        # of=self: PostgreSQL cannot lock the nullable side of the outer joins below
        Correction.objects.select_for_update(of=("self",))
        .select_related("question__track", "concept", "guide_item__section__guide")
        .get(pk=correction.pk)
    )
    previous = correction.state
    when = now or timezone.now()
    correction.state = state
    correction.change_note = change_note
    if state != previous:
        correction.decided_at = when
        correction.decided_by = user
    if state == CorrectionState.FIXED and previous != CorrectionState.FIXED:
        correction.fixed_version = _latest_version(correction.target)
        content_corrected(correction.target, now=when)
    correction.save()
    # "What changed" may have moved (a note edited, a fix withdrawn): retire cached pages.
    content_version.bump()
    if state != previous and state in (CorrectionState.FIXED, CorrectionState.DECLINED):
        schedule_decision_emails(correction)
    return correction
