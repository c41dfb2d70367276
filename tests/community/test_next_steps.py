"""The dashboard's "what to do next": streaks and the next unread question per track."""

import datetime as dt

import pytest
from django.utils import timezone

from inferview.community.models import Attempt
from inferview.community.practice.next_steps import (
    learner_streak,
    next_unread_per_track,
    streak_length,
)
from tests.community.factories import ProgressFactory
from tests.factories import QuestionFactory, TrackFactory, UserFactory

D = dt.date(2026, 12, 3)


def days(*offsets: int) -> set[dt.date]:
    return {D - dt.timedelta(days=o) for o in offsets}


@pytest.mark.parametrize(
    ("active", "expected"),
    [
        (days(), 0),
        (days(0), 1),
        (days(0, 1, 2), 3),
        (days(1, 2), 2),  # today not practised yet: yesterday's streak still stands
        (days(0, 2, 3), 1),  # a gap ends it
        (days(2, 3), 0),  # nothing yesterday or today: broken
    ],
)
def test_streak_length_counts_consecutive_days_up_to_today(active, expected):
    assert streak_length(active, today=D) == expected


@pytest.mark.django_db
def test_learner_streak_reads_ratings_and_progress(django_assert_num_queries):
    user = UserFactory()
    now = timezone.now()
    q1, q2 = QuestionFactory(), QuestionFactory()
    for back in (0, 1):
        Attempt.objects.create(
            user=user,
            question=q1,
            rating=3,
            reviewed_at=now - dt.timedelta(days=back),
            due_after=now,
        )
    ProgressFactory(user=user, question=q2)  # updated now
    Attempt.objects.create(
        user=user, question=q2, rating=3, reviewed_at=now - dt.timedelta(days=5), due_after=now
    )
    with django_assert_num_queries(2):
        streak = learner_streak(user, now=now)
    assert streak.days == 2 and streak.last == now.date()
    assert learner_streak(UserFactory(), now=now).days == 0


@pytest.mark.django_db
def test_next_unread_skips_opened_and_unreadable_questions(django_assert_num_queries):
    user = UserFactory()
    a, b, done = TrackFactory(title="A"), TrackFactory(title="B"), TrackFactory(title="Done")
    a1, a2, a3 = (QuestionFactory(track=a, number=n) for n in (1, 2, 3))
    b1 = QuestionFactory(track=b, number=1, access="premium")
    b2 = QuestionFactory(track=b, number=2, access="account")
    d1 = QuestionFactory(track=done, number=1)
    QuestionFactory(track=a, number=4, published=False)
    ProgressFactory(user=user, question=a1)
    ProgressFactory(user=user, question=d1)
    with django_assert_num_queries(2):
        steps = next_unread_per_track(user, [a, b, done], readable_levels=["open", "account"])
    assert [(s.track.title, s.question.pk) for s in steps] == [("A", a2.pk), ("B", b2.pk)]
    assert b1.pk not in [s.question.pk for s in steps] and a3.pk != steps[0].question.pk
