"""Mock interviews: a timed run of N readable questions, one at a time, then a summary.

A session draws its questions when it starts (only ones the learner may read, so nothing
locked is ever put in front of them), times each from when it is shown to when it is
answered, grades numeric parts like graded practice, and asks for the key points made
once at the end, so ticking them cannot steer the answers. The summary stays in history.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from calculators.formatting import number
from inferview.access import policy
from inferview.community.common import require_user
from inferview.community.models import MockItem, MockSession
from inferview.community.practice import graded, key_points
from questions.models import Difficulty, Kind, Track
from questions.selectors import published_questions

SIZES = (3, 5, 8, 10)
MINUTES = (5, 10, 15, 20)
WEAK_FRACTION = 0.7  # fewer key points than this (or a wrong number): review it next


def candidates(*, user: Any, track: str = "", difficulty: str = "", kind: str = "") -> QuerySet:
    qs = published_questions().filter(access__in=policy.readable_levels(user))
    if track:
        qs = qs.filter(track__slug=track)
    if difficulty:
        qs = qs.filter(difficulty=difficulty)
    if kind:
        qs = qs.filter(kind=kind)
    return qs


@transaction.atomic
def start(
    *,
    user: Any,
    size: Any,
    minutes: Any = 10,
    track: str = "",
    difficulty: str = "",
    kind: str = "",
    rng: random.Random | None = None,
) -> MockSession:
    require_user(user)
    errors: dict[str, str] = {}
    try:
        size = int(size)
    except (TypeError, ValueError):
        size = 0
    if size not in SIZES:
        errors["size"] = f"Choose {', '.join(map(str, SIZES))} questions."
    try:
        minutes = int(minutes)
    except (TypeError, ValueError):
        minutes = 0
    if minutes not in MINUTES:
        errors["minutes"] = f"Choose {', '.join(map(str, MINUTES))} minutes per question."
    if track and not Track.objects.published().filter(slug=track).exists():
        errors["track"] = "Choose a track from the list."
    if difficulty and difficulty not in Difficulty.values:
        errors["difficulty"] = "Choose easy, medium or hard."
    if kind and kind not in Kind.values:
        errors["kind"] = "Choose a kind from the list."
    if errors:
        raise ValidationError(errors)
    pool = list(
        candidates(user=user, track=track, difficulty=difficulty, kind=kind).values_list(
            "pk", flat=True
        )
    )
    if len(pool) < size:
        raise ValidationError(
            {"size": f"Only {len(pool)} question(s) you can read match; choose fewer or widen."}
        )
    picked = (rng or random.SystemRandom()).sample(pool, size)
    now = timezone.now()
    session = MockSession.objects.create(
        user=user,
        filters={"track": track, "difficulty": difficulty, "kind": kind},
        minutes_per_question=minutes,
    )
    MockItem.objects.bulk_create(
        MockItem(session=session, position=i, question_id=pk, started_at=now if i == 1 else None)
        for i, pk in enumerate(picked, start=1)
    )
    return session


def get(*, user: Any, pk: Any) -> MockSession:
    """The learner's own session (404-shaped PermissionDenied for anyone else's)."""
    require_user(user)
    session = (
        MockSession.objects.filter(user=user, pk=pk)
        .prefetch_related(
            Prefetch(
                "items",
                queryset=MockItem.objects.select_related(
                    "question__track", "numeric", "key_points", "draw"
                ),
            )
        )
        .first()
    )
    if session is None:
        raise MockSession.DoesNotExist
    return session


def current_item(session: MockSession) -> MockItem | None:
    """The first unanswered item, or None when every question is answered."""
    return next((i for i in session.items.all() if i.answered_at is None), None)


def stage(session: MockSession) -> str:
    """``answering``, ``key-points`` (all answered, points not yet ticked) or ``done``."""
    if session.finished_at:
        return "done"
    return "answering" if current_item(session) else "key-points"


@transaction.atomic
def answer(
    *,
    user: Any,
    session: MockSession,
    position: Any,
    response: str = "",
    value: Any = None,
    unit: Any = None,
    http_session: Any = None,
) -> MockItem:
    """Answer the current question (its numeric part graded if it has one) and start
    the clock on the next."""
    require_user(user)
    if session.user_id != user.pk:
        raise PermissionDenied("Not your mock interview.")
    item = current_item(session)
    if item is None or session.finished_at:
        raise ValidationError({"position": "Every question in this interview is answered."})
    if str(position) != str(item.position):
        raise ValidationError(
            {"position": f"Answer question {item.position}; earlier ones are closed."}
        )
    response = (response or "").strip()
    if len(response) > graded.services.APPROACH_MAX_LENGTH:
        raise ValidationError({"response": "Keep your answer under 20,000 characters."})
    now = timezone.now()
    item.response = response
    item.answered_at = now
    question = item.question
    if question.practice_spec is not None and str(value or "").strip():
        result = graded.answer(
            user=user, session=http_session, question=question, value=value, unit=unit
        )
        item.numeric = result.saved
        item.draw = result.saved.draw if result.saved else None
    item.save()
    following = MockItem.objects.filter(session=session, position=item.position + 1).first()
    if following is not None:
        following.started_at = now
        following.save(update_fields=["started_at"])
    return item


@transaction.atomic
def finish(*, user: Any, session: MockSession, ticks: dict[int, Any]) -> MockSession:
    """Record the key points made for every question (``{position: [point numbers]}``),
    each feeding FSRS, and close the session."""
    require_user(user)
    if session.user_id != user.pk:
        raise PermissionDenied("Not your mock interview.")
    if stage(session) != "key-points":
        raise ValidationError({"ticks": "Answer every question first."})
    for item in session.items.all():
        if item.question.key_points:
            try:
                score = key_points.key_points_score(
                    user=user, question=item.question, made=ticks.get(item.position) or []
                )
            except ValidationError as exc:
                raise ValidationError({f"ticks.{item.position}": exc.messages}) from exc
            item.key_points = score
            item.save(update_fields=["key_points"])
    session.finished_at = timezone.now()
    session.save(update_fields=["finished_at"])
    return session


@dataclass(frozen=True)
class SummaryRow:
    item: MockItem
    seconds: int | None
    made: int | None
    total: int
    mistake: str
    correct: bool | None
    review_next: bool

    @property
    def time_text(self) -> str:
        if self.seconds is None:
            return "–"
        return f"{self.seconds // 60}:{self.seconds % 60:02d}"


def summary(session: MockSession) -> list[SummaryRow]:
    rows = []
    for item in session.items.all():
        kp = item.key_points
        fraction = kp.fraction if kp else None
        numeric = item.numeric
        weak = (fraction is not None and fraction < WEAK_FRACTION) or (
            numeric is not None and not numeric.correct
        )
        rows.append(
            SummaryRow(
                item=item,
                seconds=item.seconds,
                made=len(kp.made) if kp else None,
                total=kp.total if kp else len(item.question.key_points or []),
                mistake=graded.grading.MISTAKES[numeric.mistake].label
                if numeric and numeric.mistake
                else "",
                correct=numeric.correct if numeric else None,
                review_next=weak,
            )
        )
    return rows


@dataclass(frozen=True)
class Debrief:
    """One question of a finished mock, for the debrief: what the learner said and gave,
    beside the right number and the points a good answer makes (ticked or missed). The
    number and the points follow the access policy like the answer they belong to."""

    row: SummaryRow
    readable: bool
    your_number: str
    right_number: str
    points: list[tuple[str, bool]]  # (point, made)


def debrief(session: MockSession, user: Any) -> list[Debrief]:
    out = []
    for row in summary(session):
        item = row.item
        readable = policy.can_read(user, item.question)
        numeric = item.numeric
        made = set(item.key_points.made) if item.key_points else set()
        points = key_points.key_points_for(user, item.question) if readable else []
        out.append(
            Debrief(
                row=row,
                readable=readable,
                your_number=numeric.value_text if numeric else "",
                right_number=_right_number(numeric, item.question) if readable else "",
                points=[(p, n in made) for n, p in enumerate(points, start=1)],
            )
        )
    return out


def _right_number(numeric: Any, question: Any) -> str:
    spec = question.practice_spec
    if numeric is None or spec is None:
        return ""
    return f"{number(numeric.expected)} {spec.unit}"


def history(*, user: Any, limit: int = 20) -> list[MockSession]:
    require_user(user)
    return list(MockSession.objects.filter(user=user).prefetch_related("items")[:limit])


def readable_questions_only(session: MockSession, user: Any) -> bool:
    """True when every question in the session is readable now (an expired plan may
    have locked some since it started; the pages then show the lock, not the text)."""
    return all(policy.can_read(user, i.question) for i in session.items.all())
