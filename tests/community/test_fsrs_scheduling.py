"""Review scheduling drives FSRS (the ``fsrs`` package, default weights) through ratings.

Fuzzing is off (``fsrs_exact``) so the due dates are exact. The expected dates follow
FSRS-6 with its default parameters and learning steps of 1 and 10 minutes.
"""

import datetime as dt

import pytest

from inferview.community import scheduling
from inferview.community.models import Attempt, Progress, Rating, ReviewCard
from inferview.community.practice import selectors as practice_selectors
from inferview.community.practice import services as practice_services
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db
T0 = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
AGAIN, HARD, GOOD, EASY = Rating.AGAIN, Rating.HARD, Rating.GOOD, Rating.EASY


def rate(user, question, rating, at):
    return practice_services.review_rate(user=user, question=question, rating=rating, now=at)


def test_a_sequence_of_ratings_schedules_the_expected_due_dates(fsrs_exact, free_user):
    q = QuestionFactory()
    card = rate(free_user, q, GOOD, T0)
    assert card.state == ReviewCard.State.LEARNING and card.due == T0 + dt.timedelta(minutes=10)

    card = rate(free_user, q, GOOD, card.due)  # second Good graduates the card
    assert card.state == ReviewCard.State.REVIEW
    assert card.due == dt.datetime(2026, 1, 7, 9, 10, tzinfo=dt.UTC)

    card = rate(free_user, q, GOOD, card.due)  # intervals grow with each success
    assert card.due == dt.datetime(2026, 1, 18, 9, 10, tzinfo=dt.UTC)

    card = rate(free_user, q, AGAIN, card.due)  # a lapse relearns in 10 minutes
    assert card.state == ReviewCard.State.RELEARNING
    assert card.due == dt.datetime(2026, 1, 18, 9, 20, tzinfo=dt.UTC)

    card = rate(free_user, q, GOOD, card.due)
    assert card.state == ReviewCard.State.REVIEW
    assert card.due == dt.datetime(2026, 1, 20, 9, 20, tzinfo=dt.UTC)

    card = rate(free_user, q, EASY, card.due)
    assert card.due == dt.datetime(2026, 1, 28, 9, 20, tzinfo=dt.UTC)

    card.refresh_from_db()
    assert card.reps == 6 and card.last_rating == EASY
    assert list(
        Attempt.objects.filter(user=free_user, question=q)
        .order_by("reviewed_at")
        .values_list("rating", flat=True)
    ) == [
        GOOD,
        GOOD,
        GOOD,
        AGAIN,
        GOOD,
        EASY,
    ]


@pytest.mark.parametrize(
    ("rating", "due_after", "state"),
    [
        (AGAIN, dt.timedelta(minutes=1), ReviewCard.State.LEARNING),
        (HARD, dt.timedelta(minutes=5, seconds=30), ReviewCard.State.LEARNING),
        (GOOD, dt.timedelta(minutes=10), ReviewCard.State.LEARNING),
        (EASY, dt.timedelta(days=8), ReviewCard.State.REVIEW),
    ],
)
def test_first_rating_of_a_new_card(fsrs_exact, free_user, rating, due_after, state):
    card = rate(free_user, QuestionFactory(), rating, T0)
    assert card.due == T0 + due_after and card.state == state


def test_rating_sets_progress_confident_or_attempted(fsrs_exact, free_user):
    q = QuestionFactory()
    rate(free_user, q, HARD, T0)
    assert Progress.objects.get(user=free_user, question=q).status == "attempted"
    rate(free_user, q, GOOD, T0 + dt.timedelta(minutes=10))
    assert Progress.objects.get(user=free_user, question=q).status == "confident"
    rate(free_user, q, AGAIN, T0 + dt.timedelta(days=3))
    assert Progress.objects.get(user=free_user, question=q).status == "attempted"


def test_review_page_lists_what_is_due(fsrs_exact, free_user):
    due_q, later_q = QuestionFactory(), QuestionFactory()
    rate(free_user, due_q, AGAIN, T0)  # due at 09:01
    rate(free_user, later_q, EASY, T0)  # due in 8 days
    due, upcoming = practice_selectors.reviews_for(free_user, now=T0 + dt.timedelta(minutes=2))
    assert [c.question_id for c in due] == [due_q.pk]
    assert [c.question_id for c in upcoming] == [later_q.pk]
    due, upcoming = practice_selectors.reviews_for(free_user, now=T0 + dt.timedelta(days=9))
    assert len(due) == 2 and upcoming == []


def test_rating_a_locked_answer_is_refused(free_user):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        practice_services.review_rate(
            user=free_user, question=QuestionFactory(access="premium"), rating=GOOD
        )
    assert not ReviewCard.objects.exists()


def test_rating_buttons_preview_intervals(free_user):
    intervals = scheduling.preview_intervals(card=None, now=T0)
    assert intervals[AGAIN] == dt.timedelta(minutes=1)
    assert intervals[GOOD] == dt.timedelta(minutes=10)
    assert intervals[EASY] == dt.timedelta(days=8)


def test_invalid_rating_is_a_field_error(free_user):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as exc:
        practice_services.review_rate(user=free_user, question=QuestionFactory(), rating=7)
    assert "rating" in exc.value.message_dict
