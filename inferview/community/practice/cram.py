"""Cram plans: study ahead of an interview date without disturbing the FSRS schedule.

``plan_days`` is the planner, plain Python: it orders the learner's items (reviews falling
due before the interview first, by due date; then weak items, weakest first; then
questions never practised, in track order) and spreads them over the days left, an even
share per day, so overdue and soon-due reviews come first.

Lessons are scheduled with the questions they teach (``Lesson.questions``): each readable
lesson the plan's questions link is placed on the day its first such question falls, as
"read first", and counts as done once the learner finishes it (marks it done or passes
its check, ``questions.lessons``). They are derived when the plan is shown, not stored, so
a lesson published later joins existing plans.

Marking a cram item done records ``done_at`` on the plan only: the review card's due date,
stability and difficulty stay as FSRS set them ("study ahead without rescheduling"), so
after the interview the long-term schedule carries on as if the cram had not happened.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from inferview.access import policy
from inferview.community.common import require_user, signed_in
from inferview.community.models import (
    CramItem,
    CramPlan,
    KeyPointScore,
    NumericAnswer,
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)
from questions import lessons as course
from questions.models import Track
from questions.selectors import published_questions

MAX_DAYS = 180
MAX_PER_DAY = 40
WEAK_KEY_POINTS = 0.7


@dataclass(frozen=True)
class Candidate:
    question_id: int
    reason: str  # due | weak | new
    sort_key: tuple


def plan_days(
    candidates: Sequence[Candidate], *, start: dt.date, end: dt.date, per_day: int | None = None
) -> list[tuple[int, dt.date, str]]:
    """Spread ``candidates`` over the days from ``start`` to the day before ``end``:
    due first, then weak, then new, each group in its own order. ``per_day`` defaults to
    an even share (at most MAX_PER_DAY); what does not fit is left out."""
    days = (end - start).days
    if days < 1:
        return []
    rank = {"due": 0, "weak": 1, "new": 2}
    ordered = sorted(candidates, key=lambda c: (rank[c.reason], c.sort_key))
    per_day = per_day or min(MAX_PER_DAY, max(1, math.ceil(len(ordered) / days)))
    out = []
    for i, c in enumerate(ordered[: per_day * days]):
        out.append((c.question_id, start + dt.timedelta(days=i // per_day), c.reason))
    return out


def candidates_for(
    user: Any, track_slugs: Sequence[str], *, interview_on: dt.date
) -> list[Candidate]:
    """The learner's readable questions in the tracks, each classified due/weak/new."""
    questions = list(
        published_questions()
        .filter(track__slug__in=track_slugs, access__in=policy.readable_levels(user))
        .order_by("track__order", "number")
        .values_list("pk", "track__order", "number")
    )
    ids = [pk for pk, _, _ in questions]
    cards = {c.question_id: c for c in ReviewCard.objects.filter(user=user, question_id__in=ids)}
    weak_points = {}
    for s in KeyPointScore.objects.filter(user=user, question_id__in=ids).order_by("created_at"):
        weak_points[s.question_id] = s.fraction  # the latest wins
    wrong = set(
        NumericAnswer.objects.filter(
            draw__user=user, draw__question_id__in=ids, correct=False, after_shown=False
        ).values_list("draw__question_id", flat=True)
    )
    # a question the learner marked Confident (by hand, or by a Good rating) is not new
    confident = set(
        Progress.objects.filter(
            user=user, question_id__in=ids, status=ProgressStatus.CONFIDENT
        ).values_list("question_id", flat=True)
    )
    horizon = dt.datetime.combine(interview_on, dt.time.min, tzinfo=dt.UTC)
    out = []
    for pk, order, number in questions:
        card = cards.get(pk)
        points = weak_points.get(pk)
        if card is not None and card.due < horizon:
            out.append(Candidate(pk, "due", (card.due,)))
        elif (
            (card is not None and card.last_rating is not None and card.last_rating <= Rating.HARD)
            or (points is not None and points < WEAK_KEY_POINTS)
            or pk in wrong
        ):
            out.append(
                Candidate(pk, "weak", (points if points is not None else 0.5, order, number))
            )
        elif card is None and pk not in confident:
            out.append(Candidate(pk, "new", (order, number)))
    return out


@transaction.atomic
def create(
    *, user: Any, interview_on: Any, track_slugs: Any, today: dt.date | None = None
) -> CramPlan:
    """A new plan (archiving the previous one): validated date and tracks, items laid out."""
    require_user(user)
    today = today or timezone.localdate()
    errors: dict[str, str] = {}
    if isinstance(interview_on, str):
        try:
            interview_on = dt.date.fromisoformat(interview_on)
        except ValueError:
            interview_on = None
    if not isinstance(interview_on, dt.date):
        errors["interview_on"] = "Enter the interview date as YYYY-MM-DD."
    elif interview_on <= today:
        errors["interview_on"] = "Choose a date after today."
    elif (interview_on - today).days > MAX_DAYS:
        errors["interview_on"] = f"Choose a date within {MAX_DAYS} days."
    slugs = sorted({str(s) for s in (track_slugs or [])})
    known = set(Track.objects.published().filter(slug__in=slugs).values_list("slug", flat=True))
    if not slugs:
        errors["tracks"] = "Choose at least one track."
    elif unknown := [s for s in slugs if s not in known]:
        errors["tracks"] = f"Unknown track(s): {', '.join(unknown)}."
    if errors:
        raise ValidationError(errors)
    CramPlan.objects.filter(user=user, archived_at=None).update(archived_at=timezone.now())
    plan = CramPlan.objects.create(user=user, interview_on=interview_on, track_slugs=slugs)
    laid_out = plan_days(
        candidates_for(user, slugs, interview_on=interview_on), start=today, end=interview_on
    )
    CramItem.objects.bulk_create(
        CramItem(plan=plan, question_id=pk, day=day, reason=reason) for pk, day, reason in laid_out
    )
    return plan


def active(user: Any) -> CramPlan | None:
    if not signed_in(user):
        return None
    return CramPlan.objects.filter(user=user, archived_at=None).first()


@transaction.atomic
def mark_done(*, user: Any, item_id: Any, done: bool = True) -> CramItem:
    """Tick a cram item (or untick it). The FSRS card is not touched."""
    require_user(user)
    item = CramItem.objects.select_for_update().filter(pk=item_id).select_related("plan").first()
    if item is None or item.plan.user_id != user.pk:
        raise PermissionDenied("Not an item of your plan.")
    item.done_at = timezone.now() if done else None
    item.save(update_fields=["done_at"])
    return item


@transaction.atomic
def archive(*, user: Any, plan: CramPlan) -> None:
    require_user(user)
    if plan.user_id != user.pk:
        raise PermissionDenied("Not your plan.")
    plan.archived_at = timezone.now()
    plan.save(update_fields=["archived_at"])


@dataclass(frozen=True)
class PlanView:
    plan: CramPlan
    days: list[tuple[dt.date, list[CramItem]]]
    today: dt.date
    done: int
    total: int
    # day -> [(lesson, finished)]: the lessons to read first that day (see the docstring)
    lessons: dict[dt.date, list[tuple[Any, bool]]] = field(default_factory=dict)

    @property
    def schedule(self) -> list[tuple[dt.date, list[tuple[Any, bool]], list[CramItem]]]:
        """(day, lessons to read first, items) for each day of the plan."""
        return [(day, self.lessons.get(day, []), items) for day, items in self.days]

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0

    @property
    def days_left(self) -> int:
        return (self.plan.interview_on - self.today).days

    @property
    def today_items(self) -> list[CramItem]:
        return next((items for day, items in self.days if day == self.today), [])

    @property
    def behind(self) -> int:
        """Items planned before today and not done."""
        return sum(
            1 for day, items in self.days if day < self.today for i in items if not i.done_at
        )


def view(plan: CramPlan, *, today: dt.date | None = None) -> PlanView:
    today = today or timezone.localdate()
    items = list(plan.items.select_related("question__track").order_by("day", "id"))
    by_day: dict[dt.date, list[CramItem]] = {}
    for item in items:
        by_day.setdefault(item.day, []).append(item)
    return PlanView(
        plan=plan,
        days=sorted(by_day.items()),
        today=today,
        done=sum(1 for i in items if i.done_at),
        total=len(items),
        lessons=lessons_by_day(plan, items),
    )


def lessons_by_day(plan: CramPlan, items: list[CramItem]) -> dict[dt.date, list[tuple[Any, bool]]]:
    """Each readable lesson teaching a planned question, on the day of its first such
    question, with whether the learner has finished it."""
    teaching = course.lessons_for_questions(i.question_id for i in items)
    if not teaching:
        return {}
    readable = policy.readable_levels(plan.user)
    first_day: dict[int, tuple[dt.date, Any]] = {}
    for item in items:  # in day order
        for lesson in teaching.get(item.question_id, []):
            if lesson.access in readable and lesson.pk not in first_day:
                first_day[lesson.pk] = (item.day, lesson)
    progress = course.progress_for(plan.user, first_day)
    # In course order, a lesson is never planned after one that builds on it: each takes the
    # earliest day of itself and every later lesson (1.3 comes no later than 1.4).
    ordered = sorted(first_day.values(), key=lambda dl: (dl[1].part.number, dl[1].number))
    out: dict[dt.date, list[tuple[Any, bool]]] = {}
    earliest: dt.date | None = None
    placed: list[tuple[dt.date, Any]] = []
    for day, lesson in reversed(ordered):
        earliest = day if earliest is None else min(day, earliest)
        placed.append((earliest, lesson))
    for day, lesson in reversed(placed):
        out.setdefault(day, []).append(
            (lesson, lesson.pk in progress and progress[lesson.pk].finished)
        )
    return out
