"""Reads of practice: progress per track, review cards, difficulty votes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from inferview.community.common import signed_in
from inferview.community.models import (
    Attempt,
    DifficultyFelt,
    DifficultyVote,
    Progress,
    ProgressStatus,
    ReviewCard,
)
from questions.models import Question, Track


@dataclass
class TrackProgress:
    total: int
    attempted: int = 0
    confident: int = 0
    due: int | None = None  # reviews due now (the track page counts them; lists do not)

    @property
    def confident_percent(self) -> int:
        return round(100 * self.confident / self.total) if self.total else 0

    @property
    def attempted_percent(self) -> int:
        return round(100 * self.attempted / self.total) if self.total else 0


def progress_by_track(user: Any) -> dict[int, dict[str, int]]:
    """``{track_id: {"attempted": n, "confident": n}}`` for a learner, in one query."""
    if not signed_in(user):
        return {}
    rows = (
        Progress.objects.filter(
            user=user, question__published=True, question__track__published=True
        )
        .values("question__track_id")
        .annotate(
            attempted=Count("id", filter=Q(status=ProgressStatus.ATTEMPTED)),
            confident=Count("id", filter=Q(status=ProgressStatus.CONFIDENT)),
        )
    )
    return {
        r["question__track_id"]: {"attempted": r["attempted"], "confident": r["confident"]}
        for r in rows
    }


def attach_track_progress(user: Any, tracks: Iterable[Track]) -> None:
    """Set ``track.progress`` (a ``TrackProgress``, or ``None`` when signed out)."""
    if not signed_in(user):
        for t in tracks:
            t.progress = None
        return
    by_track = progress_by_track(user)
    for t in tracks:
        t.progress = TrackProgress(total=t.question_count, **by_track.get(t.pk, {}))


def track_progress(user: Any, track: Any, *, total: int) -> TrackProgress | None:
    """A track's progress in one grouped query, without loading its questions' state: the
    track page annotates only the rows it shows."""
    if not signed_in(user):
        return None
    counts = dict(
        Progress.objects.filter(user=user, question__track=track, question__published=True)
        .values_list("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )
    due = ReviewCard.objects.filter(
        user=user, question__track=track, question__published=True, due__lte=timezone.now()
    ).count()
    return TrackProgress(
        total=total,
        attempted=counts.get(ProgressStatus.ATTEMPTED, 0),
        confident=counts.get(ProgressStatus.CONFIDENT, 0),
        due=due,
    )


@dataclass
class DifficultyTally:
    easier: int = 0
    as_labelled: int = 0
    harder: int = 0
    mine: str | None = None

    @property
    def total(self) -> int:
        return self.easier + self.as_labelled + self.harder

    def rows(self) -> list[tuple[str, str, int]]:
        return [(value, label, getattr(self, value)) for value, label in DifficultyFelt.choices]


def difficulty_tally(question: Question, user: Any = None) -> DifficultyTally:
    """The votes on ``question`` and the viewer's own, in one query."""
    mine = Q(user=user) if signed_in(user) else Q(pk__in=[])
    rows = (
        DifficultyVote.objects.filter(question=question)
        .values("felt")
        .annotate(n=Count("id"), mine=Count("id", filter=mine))
    )
    tally = DifficultyTally()
    for row in rows:
        setattr(tally, row["felt"], row["n"])
        if row["mine"]:
            tally.mine = row["felt"]
    return tally


def confident_question_ids(user: Any) -> QuerySet:
    """A subquery of the learner's confident questions (empty, and never run, signed out)."""
    if not signed_in(user):
        return Progress.objects.none().values("question_id")
    return Progress.objects.filter(user=user, status=ProgressStatus.CONFIDENT).values("question_id")


@dataclass
class Practice:
    signed_in: bool
    readable: bool
    progress: Progress | None
    card: ReviewCard | None
    intervals: dict[int, dt.timedelta] = field(default_factory=dict)

    @property
    def revealed(self) -> bool:
        return bool(self.progress and self.progress.revealed_at)

    @property
    def hide_answer(self) -> bool:
        # Only a signed-in learner practises; everyone else simply reads the answer.
        return self.signed_in and self.readable and not self.revealed

    @property
    def status(self) -> str:
        return self.progress.status if self.progress else ProgressStatus.NOT_STARTED

    @property
    def status_label(self) -> str:
        return ProgressStatus(self.status).label


def reviews_for(
    user: Any, *, now: dt.datetime | None = None, upcoming: int = 20
) -> tuple[list[ReviewCard], list[ReviewCard]]:
    """(due now, coming up next) review cards on published questions."""
    now = now or timezone.now()
    base = ReviewCard.objects.filter(
        user=user, question__published=True, question__track__published=True
    ).select_related("question__track")
    due = list(base.filter(due__lte=now).order_by("due"))
    later = list(base.filter(due__gt=now).order_by("due")[:upcoming])
    return due, later


def recent_attempts(user: Any, *, limit: int = 10) -> list[Attempt]:
    return list(
        Attempt.objects.filter(user=user)
        .select_related("question__track")
        .order_by("-reviewed_at", "-id")[:limit]
    )
