"""Writes of practice: approaches, reveals, FSRS ratings, progress, difficulty votes.

Every function is keyword-only, atomic, and raises ``ValidationError`` (with field
names) or ``PermissionDenied``; the HTML views and the API turn those into field errors
and status codes."""

from __future__ import annotations

import datetime as dt
from typing import Any

import fsrs
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from inferview.access import policy
from inferview.community import scheduling
from inferview.community.common import require_user
from inferview.community.models import (
    Attempt,
    DifficultyFelt,
    DifficultyVote,
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)
from questions.models import Question

APPROACH_MAX_LENGTH = 20000


def _progress_for_update(user: Any, question: Question) -> Progress:
    progress, _ = Progress.objects.select_for_update().get_or_create(user=user, question=question)
    return progress


@transaction.atomic
def approach_save(
    *,
    user: Any,
    question: Question,
    text: str,
    reveal: bool = False,
    now: dt.datetime | None = None,
) -> Progress:
    """Save the learner's own approach (private to them); optionally reveal the answer.

    Saving marks the question attempted. Revealing needs read access to the answer, so a
    learner cannot mark a locked answer as seen.
    """
    require_user(user)
    text = (text or "").strip()
    if len(text) > APPROACH_MAX_LENGTH:
        raise ValidationError(
            {"approach": f"Keep your approach under {APPROACH_MAX_LENGTH:,} characters."}
        )
    if reveal and not policy.can_read(user, question):
        raise PermissionDenied("Your plan does not include this answer.")
    now = now or timezone.now()
    progress = _progress_for_update(user, question)
    if text != progress.approach:
        progress.approach = text
        progress.approach_updated_at = now
    if reveal and progress.revealed_at is None:
        progress.revealed_at = now
    progress.save()
    return progress


@transaction.atomic
def review_rate(
    *, user: Any, question: Question, rating: int, now: dt.datetime | None = None
) -> ReviewCard:
    """Record how well the learner recalled the answer and schedule the next review.

    Good and Easy mark the question confident; Again and Hard leave it attempted, so a
    question the learner struggled with stays in "Up next".
    """
    require_user(user)
    if rating not in Rating.values:
        raise ValidationError({"rating": "Choose again, hard, good or easy."})
    if not policy.can_read(user, question):
        raise PermissionDenied("Your plan does not include this answer.")
    now = now or timezone.now()
    # get_or_create, not "select, then insert if missing": locking a row that does not
    # exist yet locks nothing, so two first ratings at once both inserted and the second
    # hit the unique constraint (a 500). get_or_create re-reads after losing that race.
    card, _ = ReviewCard.objects.select_for_update().get_or_create(
        user=user, question=question, defaults={"due": now}
    )
    updated, _log = scheduling.scheduler().review_card(
        scheduling.card_to_fsrs(card), fsrs.Rating(rating), review_datetime=now
    )
    card.state = int(updated.state)
    card.step = updated.step
    card.stability = updated.stability
    card.difficulty = updated.difficulty
    card.due = updated.due
    card.last_review = updated.last_review
    card.reps += 1
    card.last_rating = rating
    card.save()
    Attempt.objects.create(
        user=user, question=question, rating=rating, reviewed_at=now, due_after=card.due
    )
    progress = _progress_for_update(user, question)
    progress.status = (
        ProgressStatus.CONFIDENT if rating >= Rating.GOOD else ProgressStatus.ATTEMPTED
    )
    if progress.revealed_at is None:
        progress.revealed_at = now
    progress.save()
    return card


@transaction.atomic
def progress_set(*, user: Any, question: Question, status: str) -> Progress | None:
    """Set progress by hand ("I'm confident" / "start over"); not started deletes the row."""
    require_user(user)
    if status not in ProgressStatus.values:
        raise ValidationError({"status": "Choose not started, attempted or confident."})
    if status == ProgressStatus.NOT_STARTED:
        Progress.objects.filter(user=user, question=question).delete()
        ReviewCard.objects.filter(user=user, question=question).delete()
        return None
    progress = _progress_for_update(user, question)
    progress.status = status
    progress.save()
    return progress


@transaction.atomic
def difficulty_vote(*, user: Any, question: Question, felt: str) -> DifficultyVote:
    require_user(user)
    if felt not in DifficultyFelt.values:
        raise ValidationError({"felt": "Choose easier, as labelled or harder."})
    vote, _ = DifficultyVote.objects.update_or_create(
        user=user, question=question, defaults={"felt": felt}
    )
    return vote
