"""Questions with graded practice, for the page and API tests of it."""

import pytest

from tests.community.practice_data import LOCKED_POINT, POINTS, SPEC
from tests.factories import QuestionFactory


@pytest.fixture
def open_q(db):
    return QuestionFactory(kind="calculation", practice=SPEC, key_points=POINTS)


@pytest.fixture
def premium_q(db):
    return QuestionFactory(
        kind="calculation",
        access="premium",
        practice=SPEC,
        key_points=[LOCKED_POINT, *POINTS[1:]],
        answer="PREMIUM-ANSWER-TEXT with its reasoning.",
    )
