"""The shipped course, imported into an empty database, is what issue 26 promises: 36+
published lessons in 7+ parts, each with the teaching, worked calculation, diagram, links
and check its page promises; 95% of the published questions practised by a lesson; every
guide section linked to a lesson that teaches it; the course's access rule."""

from __future__ import annotations

import re

import pytest
from django.conf import settings

from questions.content_check import word_count
from questions.content_check_lessons import expected_access
from questions.content_io import import_content
from questions.lessons import lessons_for_questions, lessons_for_sections
from questions.models import GuideSection, Lesson, Part, Question

WORKED_BLOCK = re.compile(r"\{\{calc [^}]*\}\}")  # a directive without "->" renders the steps


@pytest.fixture
def course(db):
    report = import_content(settings.CONTENT_DIR)
    assert not report.conflicts
    return Lesson.objects.filter(published=True, part__published=True).select_related("part")


@pytest.mark.once  # content correctness, the same on either database: CI runs it once
def test_the_course_has_seven_parts_and_36_lessons_each_meeting_the_numbers(course):
    lessons = list(course.prefetch_related("questions", "concepts"))
    parts = Part.objects.filter(published=True)
    assert parts.count() >= 7 and len(lessons) >= 36
    assert {lesson.part.number for lesson in lessons} == set(parts.values_list("number", flat=True))
    diagrams = settings.CONTENT_DIR / "diagrams"
    for lesson in lessons:
        name = f"{lesson.part.slug}/{lesson.slug}"
        assert 1500 <= word_count(lesson.body) <= 3500, name
        assert any("->" not in m for m in WORKED_BLOCK.findall(lesson.body)), name
        own = re.findall(
            rf"\]\(diagrams/(lesson-{re.escape(lesson.slug)}-[\w-]+\.svg)", lesson.body
        )
        assert own and all((diagrams / f).is_file() for f in own), name
        assert lesson.questions.count() >= 3 and lesson.concepts.count() >= 2, name
        assert re.search(r"^## Summary\s*$", lesson.body, re.MULTILINE), name
        assert 3 <= len(lesson.check_items) <= 5, name
        assert lesson.checked and lesson.checked >= "2026-11", name
        assert lesson.access == expected_access(lesson.part.number, lesson.number), name


@pytest.mark.once
def test_95_percent_of_questions_are_practised_by_a_lesson_and_every_section_is_taught(course):
    assert course.exists()
    published = list(Question.objects.filter(published=True).values_list("pk", flat=True))
    taught = lessons_for_questions(published)
    share = len(taught) / len(published)
    assert share >= 0.95, f"{share:.1%} of {len(published)} questions link a lesson"
    sections = list(GuideSection.objects.prefetch_related("concepts"))
    linked = lessons_for_sections(sections)
    assert sections and all(linked[s.pk] for s in sections), [
        s.slug for s in sections if not linked[s.pk]
    ]
