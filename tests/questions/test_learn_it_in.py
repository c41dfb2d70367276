"""A question page's "Learn it in" names at most three lessons, in course order, and marks
the ones this reader's tier cannot open."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import LessonFactory, PartFactory, QuestionFactory


@pytest.fixture
def question(db):
    q = QuestionFactory(access="open")
    part = PartFactory(number=1, slug="foundations")
    for n, access in enumerate(["open", "account", "premium", "premium"], start=1):
        LessonFactory(part=part, number=n, slug=f"l{n}", access=access).questions.add(q)
    return q


def learn_it_in(html: str) -> str:
    return re.search(r'data-testid="question-lessons">(.*?)</p>', html, re.DOTALL).group(1)


def test_three_lessons_in_course_order_with_the_readers_locks(question, free_user, premium_user):
    anonymous = learn_it_in(Client().get(question.get_absolute_url()).content.decode())
    assert re.findall(r"/l(\d)/", anonymous) == ["1", "2", "3"]
    assert anonymous.count("locked for you") == 2  # sign-in and premium
    free = Client()
    free.force_login(free_user)
    assert (
        learn_it_in(free.get(question.get_absolute_url()).content.decode()).count("locked for you")
        == 1
    )
    premium = Client()
    premium.force_login(premium_user)
    assert "locked for you" not in learn_it_in(
        premium.get(question.get_absolute_url()).content.decode()
    )
