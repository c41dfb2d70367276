"""What the dashboard suggests next: the streak of practice days and the next unread
question in each track. Both run a fixed number of queries whatever the history's size."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Min, Q
from django.utils import timezone

from inferview.community.common import signed_in
from inferview.community.models import Attempt, Progress
from questions.models import Question, Track

#: How far back a streak is looked for; a longer one is reported as this many days.
STREAK_WINDOW_DAYS = 366


@dataclass(frozen=True)
class Streak:
    days: int
    last: dt.date | None


def streak_length(active: Iterable[dt.date], *, today: dt.date) -> int:
    """Consecutive days with practice, ending today, or yesterday when today has none yet
    (a streak is not broken until the day is over)."""
    days = set(active)
    day = today if today in days else today - dt.timedelta(days=1)
    n = 0
    while day in days:
        n += 1
        day -= dt.timedelta(days=1)
    return n


def learner_streak(user: Any, *, now: dt.datetime | None = None) -> Streak:
    """Days count as practised when the learner rated a recall or saved, revealed or marked
    a question (UTC days, like the review schedule). Two queries."""
    if not signed_in(user):
        return Streak(0, None)
    now = now or timezone.now()
    since = now - dt.timedelta(days=STREAK_WINDOW_DAYS)
    rated = Attempt.objects.filter(user=user, reviewed_at__gte=since).values_list(
        "reviewed_at", flat=True
    )
    touched = Progress.objects.filter(user=user, updated_at__gte=since).values_list(
        "updated_at", flat=True
    )
    days = {moment.astimezone(dt.UTC).date() for moment in [*rated, *touched]}
    return Streak(streak_length(days, today=now.astimezone(dt.UTC).date()), max(days, default=None))


@dataclass(frozen=True)
class NextUnread:
    track: Track
    question: Question


def next_unread_per_track(
    user: Any, tracks: Sequence[Track], *, readable_levels: Iterable[str]
) -> list[NextUnread]:
    """For each track, the lowest-numbered published question this learner can read and
    has not opened in practice yet (no progress row). Two queries for all tracks."""
    if not signed_in(user) or not tracks:
        return []
    by_id = {t.pk: t for t in tracks}
    firsts = (
        Question.objects.filter(
            published=True, track_id__in=by_id, access__in=list(readable_levels)
        )
        .exclude(pk__in=Progress.objects.filter(user=user).values("question_id"))
        .values("track_id")
        .annotate(first=Min("number"))
    )
    wanted = Q(pk__in=[])
    for row in firsts:
        wanted |= Q(track_id=row["track_id"], number=row["first"])
    found = {q.track_id: q for q in Question.objects.filter(wanted, published=True)}
    out = []
    for t in tracks:
        if t.pk in found:
            question = found[t.pk]
            question.track = t
            out.append(NextUnread(track=t, question=question))
    return out
