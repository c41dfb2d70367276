"""The course: reads (the parts in order, a lesson, its neighbours and table of contents,
the lessons that teach a question or a guide section) and the learner's progress writes.

Nothing here decides who may read a lesson's body: the pages ask the access policy and
pass only what it allows to the templates.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Prefetch
from django.http import Http404
from django.utils import timezone
from django.utils.text import slugify

from .lesson_text import headings
from .models import Lesson, LessonProgress, Part

_H2_OPEN = re.compile(r"<h2>")


@dataclass(frozen=True)
class TocEntry:
    anchor: str
    title: str


def table_of_contents(body: str) -> list[TocEntry]:
    """The lesson's ``##`` headings with unique anchors, in order (public: a locked
    lesson's page shows them)."""
    seen: dict[str, int] = defaultdict(int)
    entries = []
    for title in headings(body):
        base = "s-" + (slugify(title) or "section")
        seen[base] += 1
        anchor = base if seen[base] == 1 else f"{base}-{seen[base]}"
        entries.append(TocEntry(anchor, title))
    return entries


def with_anchors(html: str, toc: list[TocEntry]) -> str:
    """The rendered body with each ``<h2>`` given its table-of-contents anchor, in order
    (the sanitiser strips ids, so they are added after it, from our own slugs)."""
    anchors = iter(toc)

    def _open(_: re.Match[str]) -> str:
        entry = next(anchors, None)
        return f'<h2 id="{entry.anchor}">' if entry else "<h2>"

    return _H2_OPEN.sub(_open, html)


@dataclass(frozen=True)
class ReadableParts:
    """What a reader of the lesson gets beyond its public face: the body with anchors and
    the check items as shown before answering (prompts, choices, units, numbered)."""

    body_html: str
    items: list[dict[str, Any]]


def readable_parts(lesson: Lesson, toc: list[TocEntry]) -> ReadableParts:
    """Only for a reader the policy lets read ``lesson`` (the caller asks it)."""
    from .lesson_checks import public_items
    from .markdown import render_markdown

    body = with_anchors(str(render_markdown(lesson.body)), toc)
    items = [{**item, "n": n} for n, item in enumerate(public_items(lesson.check_items), 1)]
    for item in items:
        if item["kind"] == "choice":
            item["options"] = [(i, item["choices"][i]) for i in display_order(item)]
    return ReadableParts(body, items)


def display_order(item: dict[str, Any]) -> list[int]:
    """The order a choice item's options are shown in: a fixed shuffle seeded by its prompt.

    Authors tend to put the right answer second (92 of 113 items when the course shipped),
    which "always pick B" would exploit. Each option keeps its index as its value, so the
    grader (choices by index) and the API (choices in authored order) are unchanged, and
    the order is the same on every visit."""
    seed = int.from_bytes(hashlib.sha256(str(item["prompt"]).encode()).digest()[:8], "big")
    order = list(range(len(item["choices"])))
    random.Random(seed).shuffle(order)
    return order


def published_lessons():
    return Lesson.objects.published().filter(part__published=True)


def course_parts() -> list[Part]:
    """Published parts in order, each with its published lessons (``part.shown``)."""
    lessons = Lesson.objects.published().order_by("number")
    parts = list(
        Part.objects.published()
        .order_by("number")
        .prefetch_related(Prefetch("lessons", queryset=lessons, to_attr="shown"))
    )
    return parts


def lesson_detail(part_slug: str, slug: str) -> Lesson:
    lesson = (
        published_lessons()
        .select_related("part")
        .prefetch_related("concepts", "questions__track", "prerequisites__part")
        .filter(part__slug=part_slug, slug=slug)
        .first()
    )
    if lesson is None:
        raise Http404("No such lesson.")
    return lesson


def by_slug(slug: str) -> Lesson:
    lesson = published_lessons().select_related("part").filter(slug=slug).first()
    if lesson is None:
        raise Http404("No such lesson.")
    return lesson


def neighbours(lesson: Lesson) -> tuple[Lesson | None, Lesson | None]:
    """The lessons before and after ``lesson`` in course order (across parts)."""
    order = list(
        published_lessons()
        .select_related("part")
        .order_by("part__number", "number")
        .only("pk", "slug", "title", "part__slug", "part__number", "number")
    )
    index = next(i for i, le in enumerate(order) if le.pk == lesson.pk)
    before = order[index - 1] if index > 0 else None
    after = order[index + 1] if index + 1 < len(order) else None
    return before, after


def lessons_for_questions(question_ids: Iterable[int]) -> dict[int, list[Lesson]]:
    """The published lessons that teach each question (from ``Lesson.questions``)."""
    through = Lesson.questions.through
    rows = through.objects.filter(
        question_id__in=list(question_ids),
        lesson__published=True,
        lesson__part__published=True,
    ).select_related("lesson__part")
    out: dict[int, list[Lesson]] = defaultdict(list)
    for row in rows.order_by("lesson__part__number", "lesson__number"):
        out[row.question_id].append(row.lesson)
    return out


def lessons_for_sections(sections: Iterable[Any]) -> dict[int, list[Lesson]]:
    """The lessons that teach each guide section: a lesson teaches a section when a
    concept it links is one the section names (derived, so no field to keep in step).
    Sections must come with their concepts prefetched."""
    sections = list(sections)
    concept_ids = {c.pk for s in sections for c in s.concepts.all()}
    through = Lesson.concepts.through
    by_concept: dict[int, list[Lesson]] = defaultdict(list)
    rows = (
        through.objects.filter(
            concept_id__in=concept_ids, lesson__published=True, lesson__part__published=True
        )
        .select_related("lesson__part")
        .order_by("lesson__part__number", "lesson__number")
    )
    for row in rows:
        by_concept[row.concept_id].append(row.lesson)
    out: dict[int, list[Lesson]] = {}
    for s in sections:
        found: dict[int, Lesson] = {}
        for c in s.concepts.all():
            for lesson in by_concept.get(c.pk, []):
                found.setdefault(lesson.pk, lesson)
        out[s.pk] = sorted(found.values(), key=lambda le: (le.part.number, le.number))
    return out


# ---------------------------------------------------------------------------- progress


def progress_for(user: Any, lesson_ids: Iterable[int] | None = None) -> dict[int, LessonProgress]:
    """The reader's progress rows by lesson id ({} for an anonymous reader)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return {}
    rows = LessonProgress.objects.filter(user=user)
    if lesson_ids is not None:
        rows = rows.filter(lesson_id__in=list(lesson_ids))
    return {row.lesson_id: row for row in rows}


@dataclass(frozen=True)
class PartProgress:
    finished: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.finished / self.total) if self.total else 0


def part_progress(parts: list[Part], progress: dict[int, LessonProgress]) -> None:
    """Attach ``part.progress`` (lessons done or passed, of the part's shown lessons)."""
    for part in parts:
        shown = getattr(part, "shown", [])
        finished = sum(1 for le in shown if le.pk in progress and progress[le.pk].finished)
        part.progress = PartProgress(finished, len(shown))  # type: ignore[attr-defined]


@transaction.atomic
def mark_done(*, user: Any, lesson: Lesson, done: bool = True) -> LessonProgress:
    """Mark ``lesson`` done (or not done) for ``user``; the check's pass is kept."""
    row, _ = LessonProgress.objects.select_for_update().get_or_create(user=user, lesson=lesson)
    row.done_at = (row.done_at or timezone.now()) if done else None
    row.save()
    return row


@transaction.atomic
def record_check(*, user: Any, lesson: Lesson, passed: bool) -> LessonProgress | None:
    """Record a passed check (the first pass's time is kept); a failed attempt writes
    nothing, so a later failure never takes a pass away."""
    if not passed:
        return LessonProgress.objects.filter(user=user, lesson=lesson).first()
    row, _ = LessonProgress.objects.select_for_update().get_or_create(user=user, lesson=lesson)
    if row.check_passed_at is None:
        row.check_passed_at = timezone.now()
        row.save()
    return row


def learner_summary(user: Any) -> dict[str, Any]:
    """Counts for the dashboard and the progress page: lessons finished of published,
    checks passed, and the next lesson to read (the first not finished, in order)."""
    progress = progress_for(user)
    lessons = list(published_lessons().select_related("part").order_by("part__number", "number"))
    finished = [le for le in lessons if le.pk in progress and progress[le.pk].finished]
    passed = sum(1 for le in lessons if le.pk in progress and progress[le.pk].check_passed_at)
    upcoming = next((le for le in lessons if le not in finished), None)
    return {
        "total": len(lessons),
        "finished": len(finished),
        "passed": passed,
        "next": upcoming,
        "recent": sorted(
            (progress[le.pk] for le in finished), key=lambda p: p.updated_at, reverse=True
        )[:5],
    }
