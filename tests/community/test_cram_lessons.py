"""The cram plan's lessons come in course order: a lesson is never planned after a lesson
that builds on it, even when the question that brings it in falls later in the plan."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from inferview.community.models import CramItem
from inferview.community.practice import cram
from tests.factories import LessonFactory, PartFactory, QuestionFactory, TrackFactory


@pytest.mark.django_db
def test_an_earlier_lesson_is_planned_no_later_than_the_lesson_after_it(free_user):
    part = PartFactory(number=1, slug="foundations")
    basics = LessonFactory(part=part, number=1, slug="basics", access="open")
    later = LessonFactory(part=part, number=2, slug="later", access="account")
    track = TrackFactory()
    early_q = QuestionFactory(track=track, number=1, access="open")
    late_q = QuestionFactory(track=track, number=2, access="open")
    later.questions.add(early_q)  # the later lesson's question comes first in the plan
    basics.questions.add(late_q)
    today = timezone.localdate()
    plan = cram.create(
        user=free_user, interview_on=today + dt.timedelta(days=4), track_slugs=[track.slug]
    )
    CramItem.objects.filter(plan=plan, question=early_q).update(day=today)
    CramItem.objects.filter(plan=plan, question=late_q).update(day=today + dt.timedelta(days=2))

    planned = [
        (day, lesson.slug)
        for day, day_lessons, _ in cram.view(plan).schedule
        for lesson, _done in day_lessons
    ]
    assert planned == [(today, "basics"), (today, "later")]
