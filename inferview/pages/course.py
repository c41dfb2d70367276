"""The course's pages: ``/course/`` and a lesson. Thin: reads in ``questions.lessons``,
grading in ``questions.lesson_checks``, and the access policy decides what is shown. A
locked lesson's body, its check items and their answers never enter the template
context: the page shows title, summary, table of contents and the paywall."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from inferview.access import policy
from inferview.access import selectors as access_selectors
from questions import lessons
from questions.lesson_checks import grade_check
from questions.markdown import render_markdown
from questions.models import Lesson

from . import shared
from .cache import anonymous_page


@anonymous_page
def course(request: HttpRequest) -> HttpResponse:
    parts = lessons.course_parts()
    all_lessons = [le for p in parts for le in p.shown]
    access_selectors.annotate_access(request.user, all_lessons)
    progress = lessons.progress_for(request.user, [le.pk for le in all_lessons])
    for le in all_lessons:
        row = progress.get(le.pk)
        le.done = bool(row and row.done_at)
        le.passed = bool(row and row.check_passed_at)
    lessons.part_progress(parts, progress)
    return render(
        request,
        "questions/course.html",
        {
            "parts": parts,
            "lesson_count": len(all_lessons),
            "minutes": sum(le.minutes for le in all_lessons),
            "signed_in": request.user.is_authenticated,
            "meta_description": "The course: lessons that teach AI infrastructure in order, "
            "then point to the interview questions that practise each one.",
        },
    )


def _answers_from(request: HttpRequest, items: list[dict[str, Any]]) -> list[Any]:
    answers: list[Any] = []
    for n, item in enumerate(items, start=1):
        if item.get("kind") == "choice":
            answers.append(request.POST.get(f"item-{n}"))
        else:
            answers.append(
                {
                    "value": request.POST.get(f"item-{n}", ""),
                    "unit": request.POST.get(f"item-{n}-unit", item["unit"]),
                }
            )
    return answers


def _lesson_page(
    request: HttpRequest, lesson: Lesson, *, result: Any = None, answers: Any = None
) -> HttpResponse:
    lock = policy.locked_reason(request.user, lesson)
    toc = lessons.table_of_contents(lesson.body)
    readable = lock is None
    before, after = lessons.neighbours(lesson)
    concepts = list(lesson.concepts.all())
    access_selectors.annotate_access(request.user, concepts)
    questions = [q for q in lesson.questions.all() if q.published and q.track.published]
    access_selectors.annotate_access(request.user, questions)
    in_shared = shared.is_shared_render(request)  # the tier's part: nobody's progress
    progress = None if in_shared else lessons.progress_for(request.user, [lesson.pk]).get(lesson.pk)
    parts = lessons.readable_parts(lesson, toc) if readable else None
    items = parts.items if parts else []
    for item, full in zip(items, lesson.check_items if parts else [], strict=True):
        n = item["n"]
        if answers is not None:
            item["given"] = answers[n - 1]
        if result is not None:
            graded = result.items[n - 1]
            item["correct"], item["error"] = graded.correct, graded.error
            # the explanation only after an answer, and only to a reader of the lesson
            item["explain_html"] = render_markdown(full.get("explain", ""))
    body_html = mark_safe(parts.body_html) if parts else None  # noqa: S308
    status = 400 if result is not None and result.errors else 200
    response = render(
        request,
        "questions/lesson.html",
        {
            "lesson": lesson,
            "part": lesson.part,
            "lock": lock,
            "toc": toc,
            "body_html": body_html,
            "check_items": items,
            "result": result,
            "previous_lesson": before,
            "next_lesson": after,
            "prerequisites": [p for p in lesson.prerequisites.all() if p.published],
            "concepts": concepts,
            "practise": questions,
            "progress": progress,
            "meta_description": lesson.summary,
            **shared.context(request, LESSON_SLOTS),
        },
        status=status,
    )
    if in_shared and result is None:
        response.shared_data = {"pk": lesson.pk}  # type: ignore[attr-defined]
    return response


LESSON_SLOTS = ("status", "done")


def lesson_parts(request: HttpRequest, data: dict[str, Any]) -> dict[str, str]:
    """A signed-in reader's own parts of a lesson page (``pages.shared``): its status
    badge and the Mark as done form, from their progress row (one query)."""
    context = {"progress": lessons.progress_for(request.user, [data["pk"]]).get(data["pk"])}
    return {
        "status": render_to_string("questions/_lesson_status.html", context, request),
        "done": render_to_string("questions/_lesson_done.html", context, request),
    }


@anonymous_page(filler=lesson_parts)
def lesson_detail(request: HttpRequest, part_slug: str, slug: str) -> HttpResponse:
    return _lesson_page(request, lessons.lesson_detail(part_slug, slug))


@require_POST
def lesson_check(request: HttpRequest, part_slug: str, slug: str) -> HttpResponse:
    """Grade a "check yourself" on the server. Anyone who may read the lesson may check
    their answers; a signed-in learner's pass is recorded. A reader who may not read it
    gets the locked page (403), never a grade that would reveal an answer."""
    lesson = lessons.lesson_detail(part_slug, slug)
    if not policy.can_read(request.user, lesson):
        response = _lesson_page(request, lesson)
        response.status_code = 403
        return response
    answers = _answers_from(request, lesson.check_items)
    result = grade_check(lesson.check_items, answers)
    if request.user.is_authenticated and not result.errors:
        lessons.record_check(user=request.user, lesson=lesson, passed=result.passed)
    return _lesson_page(request, lesson, result=result, answers=answers)


@login_required
@require_POST
def lesson_done(request: HttpRequest, part_slug: str, slug: str) -> HttpResponse:
    """Mark a lesson done (``done=0`` un-marks it), then back to the lesson."""
    lesson = lessons.lesson_detail(part_slug, slug)
    if not policy.can_read(request.user, lesson):
        response = _lesson_page(request, lesson)
        response.status_code = 403
        return response
    done = request.POST.get("done", "1") != "0"
    lessons.mark_done(user=request.user, lesson=lesson, done=done)
    messages.success(request, "Marked as done." if done else "No longer marked as done.")
    return HttpResponseRedirect(lesson.get_absolute_url())
