"""Review: two first ratings of one question at once must not crash on the unique card.

The competing request is simulated deterministically: right after this request looked for
the learner's card and found none, another request inserts one (as a parallel transaction
can on PostgreSQL, where ``select_for_update`` on a missing row locks nothing).
"""

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from inferview.community.models import Attempt, Rating, ReviewCard
from inferview.community.practice import services as practice_services
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


def test_first_rating_survives_a_concurrent_first_rating(user, fsrs_exact):
    q = QuestionFactory()
    raced = []

    def competitor(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if (
            not raced
            and sql.lstrip().upper().startswith("SELECT")
            and "community_reviewcard" in sql
        ):
            raced.append(True)
            ReviewCard.objects.bulk_create(
                [ReviewCard(user=user, question=q, due=timezone.now() + dt.timedelta(minutes=1))]
            )
        return result

    with connection.execute_wrapper(competitor):
        card = practice_services.review_rate(user=user, question=q, rating=Rating.GOOD)

    assert raced
    assert ReviewCard.objects.filter(user=user, question=q).count() == 1
    assert card.last_rating == Rating.GOOD
    assert Attempt.objects.filter(user=user, question=q).count() == 1
